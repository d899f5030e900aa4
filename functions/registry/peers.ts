// The registry Durable Object's record of each cluster's sync job: the
// release it named and when it last called, newest first, written in the
// batches isolates flush with their verdict counts (functions/fleet/counts.ts).
// A table of its own, new in 0.2.0: a registry of 0.1.0 (after a rollback)
// never reads it, and finds its registrations as it left them.

/** A signed call of a cluster's sync job (or `snapshot push`) that an isolate saw. */
export interface PeerSighting {
  cluster: string;
  /** The release it named; null for one that named none (0.1.0 or older). */
  release: string | null;
  verb: string | null;
  commit: string | null;
  /** Milliseconds since the epoch. */
  at: number;
}

/** What `clusters list` shows of a cluster's sync job. */
export interface LastPeer {
  release: string | null;
  verb: string | null;
  commit: string | null;
  at: number;
}

interface PeerRow extends Record<string, SqlStorageValue> {
  cluster: string;
  release: string | null;
  verb: string | null;
  commit_id: string | null;
  seen_at: number;
}

export class PeerTables {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS cluster_peer (cluster TEXT PRIMARY KEY, release TEXT, verb TEXT, commit_id TEXT, seen_at INTEGER NOT NULL);",
    );
  }

  /** Keeps each cluster's newest sighting, of clusters the registry holds (CLUSTERS' are not listed; one removed meanwhile leaves nothing behind). */
  add(sightings: readonly PeerSighting[]): void {
    const sql = this.storage.sql;
    for (const { cluster, release, verb, commit, at } of sightings)
      sql.exec(
        `INSERT INTO cluster_peer (cluster, release, verb, commit_id, seen_at) SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM registration WHERE cluster = ?1)
         ON CONFLICT (cluster) DO UPDATE SET release = excluded.release, verb = excluded.verb, commit_id = excluded.commit_id, seen_at = excluded.seen_at WHERE excluded.seen_at >= cluster_peer.seen_at`,
        cluster,
        release,
        verb,
        commit,
        at,
      );
  }

  /** The clusters' last sightings, for those that have one. */
  of(clusters: readonly string[]): Map<string, LastPeer> {
    const found = new Map<string, LastPeer>();
    if (clusters.length === 0) return found;
    const rows = this.storage.sql
      .exec<PeerRow>(`SELECT * FROM cluster_peer WHERE cluster IN (SELECT value FROM json_each(?))`, JSON.stringify(clusters))
      .toArray();
    for (const row of rows) found.set(row.cluster, { release: row.release, verb: row.verb, commit: row.commit_id, at: row.seen_at });
    return found;
  }

  forget(cluster: string): void {
    this.storage.sql.exec("DELETE FROM cluster_peer WHERE cluster = ?", cluster);
  }
}
