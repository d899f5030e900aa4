// The registry Durable Object's verdict counts: rows per cluster, hour,
// origin, policy and outcome, written in the batches each isolate flushes
// (functions/fleet/counts.ts) and summed for `edgeadmit fleet status`.
//
// Beside them, new in 0.2.0, the same counts summed since the table was
// made, never trimmed (verdict_total): what GET /v1/registry/metrics
// exports as Prometheus counters, which must never go down. Summing the
// hourly rows instead would drop as old hours are trimmed, which Prometheus
// takes for a counter reset and turns into a wrong rate; a row per cluster,
// origin, policy and outcome is as many rows as one hour's at most.
import { HOUR_MS, KEPT_HOURS, type CountRow } from "../../shared/counts/index.js";

export interface CountQuery {
  /** Only this cluster's rows; all clusters when undefined. */
  cluster?: string | undefined;
  /** The window: the last `hours` hours, this one included. */
  hours: number;
}

/** Summed over the window: [cluster, origin, policy, outcome, count]. */
export type CountSum = [cluster: string, origin: string, policy: string, outcome: string, count: number];

/** An hour's row of a window: [hour since the epoch, cluster, origin, policy, outcome, count]. */
export type CountHour = [hour: number, cluster: string, origin: string, policy: string, outcome: string, count: number];

/** Where a page of the totals starts: after this (cluster, origin, policy, outcome). */
export type TotalsCursor = [cluster: string, origin: string, policy: string, outcome: string];

/** The hourly rows, in the registry's Durable Object beside the registrations and the fleet set. */
export class CountTables {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS verdict_count (hour INTEGER NOT NULL, cluster TEXT NOT NULL, origin TEXT NOT NULL, policy TEXT NOT NULL, outcome TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (hour, cluster, origin, policy, outcome));
       CREATE TABLE IF NOT EXISTS verdict_total (cluster TEXT NOT NULL, origin TEXT NOT NULL, policy TEXT NOT NULL, outcome TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (cluster, origin, policy, outcome));`,
    );
  }

  add(rows: readonly CountRow[], now: number): void {
    this.storage.transactionSync(() => {
      const sql = this.storage.sql;
      for (const [hour, cluster, origin, policy, outcome, count] of rows)
        sql.exec(
          "INSERT INTO verdict_count (hour, cluster, origin, policy, outcome, count) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hour, cluster, origin, policy, outcome) DO UPDATE SET count = count + excluded.count",
          hour,
          cluster,
          origin,
          policy,
          outcome,
          count,
        );
      for (const [, cluster, origin, policy, outcome, count] of rows)
        sql.exec(
          "INSERT INTO verdict_total (cluster, origin, policy, outcome, count) VALUES (?, ?, ?, ?, ?) ON CONFLICT (cluster, origin, policy, outcome) DO UPDATE SET count = count + excluded.count",
          cluster,
          origin,
          policy,
          outcome,
          count,
        );
      sql.exec("DELETE FROM verdict_count WHERE hour < ?", Math.floor(now / HOUR_MS) - KEPT_HOURS);
    });
  }

  sums(query: CountQuery, now: number): CountSum[] {
    const from = Math.floor(now / HOUR_MS) - query.hours + 1;
    const sql = this.storage.sql;
    const rows =
      query.cluster === undefined
        ? sql.exec<Record<string, SqlStorageValue>>("SELECT cluster, origin, policy, outcome, SUM(count) AS count FROM verdict_count WHERE hour >= ? GROUP BY cluster, origin, policy, outcome ORDER BY cluster, origin, policy, outcome", from)
        : sql.exec<Record<string, SqlStorageValue>>("SELECT cluster, origin, policy, outcome, SUM(count) AS count FROM verdict_count WHERE hour >= ? AND cluster = ? GROUP BY cluster, origin, policy, outcome ORDER BY origin, policy, outcome", from, query.cluster);
    return rows.toArray().map((row) => [String(row.cluster), String(row.origin), String(row.policy), String(row.outcome), Number(row.count)]);
  }

  /** The window's rows hour by hour, oldest first: what the dashboard draws. */
  hours(query: CountQuery, now: number): CountHour[] {
    const from = Math.floor(now / HOUR_MS) - query.hours + 1;
    const sql = this.storage.sql;
    const rows =
      query.cluster === undefined
        ? sql.exec<Record<string, SqlStorageValue>>("SELECT * FROM verdict_count WHERE hour >= ? ORDER BY hour, cluster, origin, policy, outcome", from)
        : sql.exec<Record<string, SqlStorageValue>>("SELECT * FROM verdict_count WHERE hour >= ? AND cluster = ? ORDER BY hour, origin, policy, outcome", from, query.cluster);
    return rows.toArray().map((row) => [Number(row.hour), String(row.cluster), String(row.origin), String(row.policy), String(row.outcome), Number(row.count)]);
  }

  /** The totals since the table was made, in key order after `after`, `limit` rows at most: a page of the metrics' counters. */
  totals(after: TotalsCursor | null, limit: number): CountSum[] {
    const sql = this.storage.sql;
    const rows =
      after === null
        ? sql.exec<Record<string, SqlStorageValue>>("SELECT * FROM verdict_total ORDER BY cluster, origin, policy, outcome LIMIT ?", limit)
        : sql.exec<Record<string, SqlStorageValue>>(
            "SELECT * FROM verdict_total WHERE (cluster, origin, policy, outcome) > (?, ?, ?, ?) ORDER BY cluster, origin, policy, outcome LIMIT ?",
            ...after,
            limit,
          );
    return rows.toArray().map((row) => [String(row.cluster), String(row.origin), String(row.policy), String(row.outcome), Number(row.count)]);
  }

  /** A cluster removed from the registry: its totals go (its series end; one registered again starts from 0, as a restarted exporter does). */
  forget(cluster: string): void {
    this.storage.sql.exec("DELETE FROM verdict_total WHERE cluster = ?", cluster);
  }

  /** Per cluster, the findings (deny, warn, audit or error verdicts) a fleet policy counted from `fromHour` on: what holds back an automatic wave promotion. */
  fleetFindings(policy: string, fromHour: number): Array<[cluster: string, count: number]> {
    const rows = this.storage.sql.exec<{ cluster: string; count: number }>(
      "SELECT cluster, SUM(count) AS count FROM verdict_count WHERE hour >= ? AND origin = 'fleet' AND policy = ? AND outcome IN ('deny', 'warn', 'audit', 'error') GROUP BY cluster",
      fromHour,
      policy,
    );
    return rows.toArray().map((row) => [String(row.cluster), Number(row.count)]);
  }
}
