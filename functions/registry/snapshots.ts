// The registry Durable Object's record of each cluster's committed snapshot:
// its generation, when it was pushed and the webhook rules its cluster part
// carried, so the fleet's overview (the dashboard, GET /v1/registry/metrics)
// reads one table instead of one SnapshotStore Durable Object per cluster.
// The isolate that committed a push notes it and flushes it with its verdict
// counts (functions/fleet/counts.ts), so the record trails the store by at
// most one flush (10 s); a reset drops it with the store's generations. A
// table of its own, new in 0.2.0: a registry of 0.1.0 never reads it.
import type { WebhookRule } from "../../shared/vap/coverage.js";

/** A commit an isolate saw (PUT …/snapshot, signed by the cluster's key). */
export interface SnapshotSighting {
  cluster: string;
  generation: number;
  /** Milliseconds since the epoch, by the function's clock. */
  pushedAt: number;
  /**
   * The rules of the cluster's ValidatingWebhookConfiguration its cluster
   * part carried; null: it carried none (coverage unknown); absent: the
   * commit sent no cluster part, so the rules recorded before stay.
   */
  webhookRules?: WebhookRule[] | null;
}

/** What the registry knows of a cluster's committed snapshot. */
export interface SnapshotRecord {
  generation: number;
  pushedAt: number;
  /** null: unknown (its sync job pushed none). */
  webhookRules: WebhookRule[] | null;
}

interface SnapshotRow extends Record<string, SqlStorageValue> {
  cluster: string;
  generation: number;
  pushed_at: number;
  webhook_rules: string | null;
}

export class SnapshotTables {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec("CREATE TABLE IF NOT EXISTS cluster_snapshot (cluster TEXT PRIMARY KEY, generation INTEGER NOT NULL, pushed_at INTEGER NOT NULL, webhook_rules TEXT);");
  }

  /** Keeps each cluster's newest commit; rules absent from a sighting keep those recorded. */
  add(sightings: readonly SnapshotSighting[]): void {
    const sql = this.storage.sql;
    for (const { cluster, generation, pushedAt, webhookRules } of sightings)
      sql.exec(
        `INSERT INTO cluster_snapshot (cluster, generation, pushed_at, webhook_rules) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (cluster) DO UPDATE SET generation = excluded.generation, pushed_at = excluded.pushed_at,
           webhook_rules = CASE WHEN ?5 THEN cluster_snapshot.webhook_rules ELSE excluded.webhook_rules END
         WHERE excluded.generation >= cluster_snapshot.generation`,
        cluster,
        generation,
        pushedAt,
        webhookRules ? JSON.stringify(webhookRules) : null,
        webhookRules === undefined ? 1 : 0,
      );
  }

  /** The records of `clusters` that have one. */
  of(clusters: readonly string[]): Map<string, SnapshotRecord> {
    const found = new Map<string, SnapshotRecord>();
    if (clusters.length === 0) return found;
    const rows = this.storage.sql.exec<SnapshotRow>("SELECT * FROM cluster_snapshot WHERE cluster IN (SELECT value FROM json_each(?))", JSON.stringify(clusters)).toArray();
    for (const row of rows) found.set(row.cluster, recordOf(row));
    return found;
  }

  forget(cluster: string): void {
    this.storage.sql.exec("DELETE FROM cluster_snapshot WHERE cluster = ?", cluster);
  }
}

function recordOf(row: SnapshotRow): SnapshotRecord {
  return { generation: row.generation, pushedAt: row.pushed_at, webhookRules: row.webhook_rules === null ? null : (JSON.parse(row.webhook_rules) as WebhookRule[]) };
}
