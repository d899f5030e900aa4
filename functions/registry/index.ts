// The cluster registry: every cluster registered at run time, in one Durable
// Object (one instance, functions/config REGISTRY_NAME) with SQLite storage. Chosen over D1
// because a change is checked and written in one synchronous transaction by a
// single writer (no lost update between two operators, no replay slipping
// between the check and the write), a read after a change sees it from every
// location (D1's read replicas may lag), and the project already runs Durable
// Objects with the same tooling locally and in tests (docs/operations.md).
//
// Isolates do not read the registry per request: they keep a directory of
// registered ids and their revisions, refreshed with `changesSince` at most
// every few seconds, and fetch a registration with `get` only when it is not
// cached (functions/registry/cache.ts).
import { DurableObject } from "cloudflare:workers";
import { MAX_REGISTERED_CLUSTERS, changeLabel, relabeled, rotated, type Change } from "../../shared/clusters/changes.js";
import { DEFAULT_MAX_SNAPSHOT_AGE_SECONDS, normalRegistration, registrationSchema, type NormalRegistration } from "../../shared/clusters/index.js";
import { actionsFor, type FleetChange } from "../../shared/fleet/index.js";
import { FleetTables, type FleetApplyResult, type FleetHistory, type FleetSince } from "./fleet.js";
import { CountTables, type CountQuery, type CountSum } from "./counts.js";
import type { CountRow } from "../../shared/counts/index.js";
import { APPLIED_CHANGE_TABLE, recordChange, REPLAYED } from "./replay.js";
import { warnUncovered } from "./coverage.js";
import type { StoreEnv } from "../store/cache.js";

export interface StoredRegistration {
  cluster: string;
  /** The registry revision that last changed it. */
  revision: number;
  registration: NormalRegistration;
  /** Milliseconds since the epoch. */
  updatedAt: number;
}

/**
 * What changed since a revision: ids (with the revision of their
 * registration) added or changed, and ids removed. `full` when it is the whole
 * directory instead: the caller drops what it had.
 */
export interface DirectoryDelta {
  revision: number;
  full: boolean;
  ids: string[];
  revisions: number[];
  removed: string[];
}

export interface AppliedChange {
  op: Change["op"];
  cluster: string;
  revision: number;
  /** A label change's removals the cluster had no label for: nothing to remove, the rest applied (as kubectl label says `label "x" not found.`). */
  absentLabels?: string[];
}

type ApplyResult =
  | { ok: true; revision: number; applied: AppliedChange[] }
  | { ok: false; status: 404 | 409; error: string };

interface RegistryPage {
  revision: number;
  clusters: StoredRegistration[];
  /** The last id of this page when more follow: the next page starts after it. */
  next?: string;
}

interface RegistrationRow extends Record<string, SqlStorageValue> {
  cluster: string;
  revision: number;
  body: string;
  updated_at: number;
}

/** A refusal inside the transaction: thrown to roll it back, caught to answer. */
class Refusal extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

export class ClusterRegistry extends DurableObject<StoreEnv> {
  /**
   * The whole directory at one revision, kept between calls: after a deploy
   * every isolate asks for it at once, and it is read from SQLite once.
   */
  private directory: { revision: number; ids: string[]; revisions: number[] } | undefined;
  /** The fleet policy set lives beside the registrations: the same operator, key, replay record and single writer. */
  private readonly fleet: FleetTables;
  /** Verdict counts, flushed by every isolate at most every 10 s (functions/fleet/counts.ts). */
  private readonly counts: CountTables;

  constructor(ctx: DurableObjectState, env: StoreEnv) {
    super(ctx, env);
    ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS registry_state (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
       INSERT OR IGNORE INTO registry_state (id, revision) VALUES (1, 0);
       CREATE TABLE IF NOT EXISTS registration (cluster TEXT PRIMARY KEY, revision INTEGER NOT NULL, body TEXT NOT NULL, updated_at INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS registration_by_revision ON registration (revision);
       CREATE TABLE IF NOT EXISTS removal (cluster TEXT PRIMARY KEY, revision INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS removal_by_revision ON removal (revision);
       ${APPLIED_CHANGE_TABLE}`,
    );
    this.fleet = new FleetTables(ctx.storage);
    this.counts = new CountTables(ctx.storage);
  }

  private revision(): number {
    return this.ctx.storage.sql.exec<{ revision: number }>("SELECT revision FROM registry_state WHERE id = 1").one().revision;
  }

  private row(cluster: string): StoredRegistration | null {
    const row = this.ctx.storage.sql.exec<RegistrationRow>("SELECT * FROM registration WHERE cluster = ?", cluster).toArray()[0];
    return row ? stored(row) : null;
  }

  /** The directory since `since` (0, or a revision this registry never reached: all of it). */
  changesSince(since: number): DirectoryDelta {
    const revision = this.revision();
    if (since > 0 && since <= revision) {
      const sql = this.ctx.storage.sql;
      const changed = columns(sql.exec<{ cluster: string; revision: number }>("SELECT cluster, revision FROM registration WHERE revision > ?", since));
      const removed = sql.exec<{ cluster: string }>("SELECT cluster FROM removal WHERE revision > ?", since).toArray().map((row) => row.cluster);
      return { revision, full: false, ...changed, removed };
    }
    if (this.directory?.revision !== revision) this.directory = { revision, ...columns(this.ctx.storage.sql.exec<{ cluster: string; revision: number }>("SELECT cluster, revision FROM registration")) };
    return { revision, full: true, ids: this.directory.ids, revisions: this.directory.revisions, removed: [] };
  }


  get(cluster: string): StoredRegistration | null {
    return this.row(cluster);
  }

  /** Registrations in id order, `limit` at most, after the id `after`. */
  list(after: string, limit: number): RegistryPage {
    const rows = this.ctx.storage.sql.exec<RegistrationRow>("SELECT * FROM registration WHERE cluster > ? ORDER BY cluster LIMIT ?", after, limit + 1).toArray();
    const clusters = rows.slice(0, limit).map(stored);
    return { revision: this.revision(), clusters, ...(rows.length > limit ? { next: clusters.at(-1)!.cluster } : {}) };
  }

  /**
   * Applies `changes` in order, all or none, as one new revision. `changeId`
   * names the signed request (the SHA-256 of its signed bytes): kept until
   * `rememberUntil` (ms), past which the request's signing time is refused
   * anyway, so the same request sent again is refused as a replay, whether it
   * applied or was refused (a refused change replayed after the registry
   * moved on must not apply: the operator meant it against what it saw).
   */
  apply(changes: Change[], changeId: string, now: number, rememberUntil: number): ApplyResult {
    if (!recordChange(this.ctx.storage, changeId, now, rememberUntil)) return { ok: false, status: 409, error: REPLAYED };
    const sql = this.ctx.storage.sql;
    try {
      return this.ctx.storage.transactionSync(() => {
        const revision = this.revision() + 1;
        let registered = sql.exec<{ count: number }>("SELECT COUNT(*) AS count FROM registration").one().count;
        const applied: AppliedChange[] = [];
        changes.forEach((change, index) => {
          const label = changeLabel(change, index, changes.length);
          const current = this.row(change.cluster);
          if (change.op === "add") {
            if (current) throw new Refusal(409, `${label}cluster ${change.cluster} is already registered (revision ${current.revision}): rotate or remove it`);
            if (registered >= MAX_REGISTERED_CLUSTERS) throw new Refusal(409, `${label}the registry holds ${MAX_REGISTERED_CLUSTERS} clusters, its limit: remove some first`);
            registered++;
            this.write(change.cluster, normalRegistration(registrationSchema.parse(change.registration)), revision, now);
          } else {
            if (!current) throw new Refusal(404, `${label}cluster ${change.cluster} is not in the registry`);
            if (change.ifRevision !== undefined && change.ifRevision !== current.revision)
              throw new Refusal(409, `${label}cluster ${change.cluster} is at revision ${current.revision}, not ${change.ifRevision}: it changed since; list it again`);
            if (change.op === "remove") {
              registered--;
              sql.exec("DELETE FROM registration WHERE cluster = ?", change.cluster);
              sql.exec("INSERT OR REPLACE INTO removal (cluster, revision) VALUES (?, ?)", change.cluster, revision);
            } else {
              const next = change.op === "label" ? relabeled(current.registration, change) : rotated(current.registration, change);
              if (typeof next === "string") throw new Refusal(409, `${label}${next}`);
              this.write(change.cluster, next, revision, now);
            }
          }
          const absent = change.op === "label" && current ? (change.remove ?? []).filter((key) => !Object.hasOwn(current.registration.labels ?? {}, key)) : [];
          applied.push({ op: change.op, cluster: change.cluster, revision, ...(absent.length > 0 ? { absentLabels: absent } : {}) });
        });
        sql.exec("UPDATE registry_state SET revision = ? WHERE id = 1", revision);
        return { ok: true as const, revision, applied };
      });
    } catch (e) {
      if (e instanceof Refusal) return { ok: false, status: e.status, error: e.message };
      throw e;
    }
  }

  /** A fleet change (apply, promote, rollback) as one new fleet revision, replay-checked like a registry change. */
  applyFleet(change: FleetChange, changeId: string, now: number, rememberUntil: number): FleetApplyResult {
    if (!recordChange(this.ctx.storage, changeId, now, rememberUntil)) return { ok: false, status: 409, error: REPLAYED };
    return this.fleet.apply(change, now);
  }

  /**
   * The fleet revision in effect, with its set when it is not `since` (what
   * an isolate polls), after any automatic promotion now due; the log names
   * the clusters a promotion made enforce a policy their webhook does not send.
   */
  async fleetSince(since: number): Promise<FleetSince> {
    const now = Date.now();
    const promotions = this.fleet.promoteDue(now, (binding, stage, fromHour) => {
      let findings = 0;
      for (const [cluster, count] of this.counts.fleetFindings(binding.spec.policyName, fromHour)) {
        const registration = this.row(cluster)?.registration;
        if (registration && actionsFor(binding, stage, registration.labels ?? {}) !== undefined) findings += count;
      }
      return findings;
    });
    const answer = this.fleet.since(since);
    if (promotions.length > 0) {
      const registrations = this.ctx.storage.sql
        .exec<RegistrationRow>("SELECT * FROM registration")
        .toArray()
        .map((row) => ({ cluster: row.cluster, labels: stored(row).registration.labels ?? {} }));
      const set = this.fleet.since(-1).stored!.set;
      // A snapshot store that does not answer leaves the warning out, never the fleet read.
      for (const promotion of promotions) await warnUncovered(this.env, set, promotion, registrations, now).catch(() => undefined);
    }
    return answer;
  }

  fleetHistory(): FleetHistory {
    return this.fleet.history();
  }

  /** One isolate's batch of verdict counts, added to the hourly rows. */
  addCounts(rows: CountRow[], now: number): void {
    this.counts.add(rows, now);
  }

  countSums(query: CountQuery, now: number): CountSum[] {
    return this.counts.sums(query, now);
  }

  private write(cluster: string, registration: NormalRegistration, revision: number, now: number): void {
    const sql = this.ctx.storage.sql;
    sql.exec("INSERT OR REPLACE INTO registration (cluster, revision, body, updated_at) VALUES (?, ?, ?, ?)", cluster, revision, JSON.stringify(registration), now);
    sql.exec("DELETE FROM removal WHERE cluster = ?", cluster);
  }
}

/** Rows of (cluster, revision) as two arrays: the directory's wire form, cheaper to copy than an object per row. */
function columns(rows: Iterable<{ cluster: string; revision: number }>): { ids: string[]; revisions: number[] } {
  const ids: string[] = [];
  const revisions: number[] = [];
  for (const row of rows) {
    ids.push(row.cluster);
    revisions.push(row.revision);
  }
  return { ids, revisions };
}

function stored(row: RegistrationRow): StoredRegistration {
  // Registrations stored before the operator's snapshot age limit existed have the default one.
  const registration = { maxAgeSeconds: DEFAULT_MAX_SNAPSHOT_AGE_SECONDS, ...(JSON.parse(row.body) as Partial<NormalRegistration>) } as NormalRegistration;
  return { cluster: row.cluster, revision: row.revision, registration, updatedAt: row.updated_at };
}
