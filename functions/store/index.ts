// One Durable Object per cluster holds its snapshot. Chosen over Workers KV
// because the generation check and the write are one atomic step (KV has no
// compare-and-set, so two pushes could let an older one win) and reads after
// a push are consistent everywhere (KV may serve the old value for 60 s).
//
// The snapshot is stored as units (shared/snapshot/units/): the cluster
// part and one shard per namespace, each as the UTF-8 bytes of its schema
// output as JSON cut into BLOB chunks (rows cap at 2 MB), with its SHA-256. Rows are
// versioned: a unit row is visible to generation G when since ≤ G < until.
// A push stages rows under its own generation, above the stored one, where no
// reader looks; its commit ends the rows it replaces and moves the head in one
// transaction, so a reader sees the old generation or the new one, never a
// mix. The generation before the head stays readable until the next commit, so
// an isolate that started a review on it finishes on it; older rows go.
// Every read checks the bytes against their SHA-256 and refuses, and
// remembers, a mismatch instead of serving it.
//
// A generation records the key that signed its commit (staged rows, the key
// that staged them: a batch signed by another key starts the generation
// over). What a removed key pushed stops counting at once
// (functions/routes/validate.ts); the commit of a current key's push over it
// starts the store over, in the commit's own transaction, so a push refused
// in any of its batches changes nothing stored. Its generation cannot be held
// above the owner's: it was at most MAX_GENERATION_LEAD_MS ahead when pushed,
// and `sync` pushes above what is stored.
//
// What is stored stays readable by the release before (docs/operations.md,
// "Upgrading"): a release adds tables or nullable columns its predecessor
// ignores, never changes what an existing one holds.
import { DurableObject } from "cloudflare:workers";
import { sha256Hex } from "../../shared/digest/index.js";
import { bucketDigest, bucketOf, rootDigest } from "../../shared/snapshot/units/digests.js";
import { CLUSTER_UNIT } from "../../shared/snapshot/units/names.js";
import { signedByCurrent } from "./signer.js";

export interface SnapshotMeta {
  generation: number;
  /** Digest of all units (shared/snapshot rootDigest): what `sync` compares. */
  contentHash: string;
  builtAt: string;
  /** Milliseconds since the epoch, by the function's clock. */
  pushedAt: number;
  /** Bytes stored for this generation, all units. */
  bytes: number;
  /** Units stored for this generation: the cluster part and one per namespace. */
  units: number;
  /** Set once a read found stored bytes that differ from their SHA-256: why. */
  corrupt?: string;
  /** How many of the cluster's ValidatingAdmissionPolicies are bound at the edge. */
  boundPolicies: number;
  /** What could not be compiled or used among them, one line each (shared/vap), as found when pushed. */
  policyProblems: string[];
  /** The public key (`ed25519:…`) whose signature committed this generation; absent for one stored before keys were recorded. */
  signedBy?: string;
}

/** A unit a push hands over: validated and encoded by the route. */
export interface StagedUnit {
  name: string;
  sha256: string;
  bytes: Uint8Array;
}

/** What makes staged units a generation. */
export interface Commit {
  /** The generation the push was computed against; null for a push that sends every unit. */
  base: number | null;
  builtAt: string;
  pushedAt: number;
  /** Units of the base generation that the new one no longer has. */
  removed: string[];
  /** The digest the pusher computed over all units of the new generation. */
  digest: string;
  /** The policy report of the cluster part, when this push carries it; otherwise the stored one's stays. */
  policies?: { bound: number; problems: string[] };
}

/** Who signs a push: the key that verified, and every key the cluster's registration lists now. */
export interface PushSigner {
  key: string;
  current: readonly string[];
}

export type PushResult =
  | { ok: true; staged: number; meta?: SnapshotMeta; startedOver?: { generation: number; signedBy: string | null } }
  | { ok: false; refusal: "stale"; current: SnapshotMeta }
  | { ok: false; refusal: "base"; current: SnapshotMeta | null }
  | { ok: false; refusal: "mismatch"; detail: string };

export type UnitRead =
  | { status: "ok"; sha256: string; bytes: Uint8Array }
  /** The unit is what the reader already holds (`knownSha256`). */
  | { status: "same" }
  /** No such unit in that generation; no unit's name falls strictly between `gap[0]` and `gap[1]` (null: no bound). */
  | { status: "absent"; gap: [string | null, string | null] }
  /** That generation is no longer (or not yet) readable: read the head again. */
  | { status: "gone" }
  | { status: "corrupt"; reason: string };

// SQLite-backed Durable Objects cap a row at 2 MB.
const CHUNK_BYTES = 1024 * 1024;

interface HeadRow extends Record<string, SqlStorageValue> {
  generation: number;
  retained_from: number;
  content_hash: string;
  built_at: string;
  pushed_at: number;
  bytes: number;
  units: number;
  corrupt: string | null;
  bound_policies: number;
  policy_problems: string;
  signed_by: string | null;
}

class Mismatch extends Error {}


/** Rows of a unit visible to generation ?1 (bound twice). */
const VISIBLE = "since <= ?1 AND (until IS NULL OR until > ?1)";
/** The rows a generation being committed ends up with: those still open, none staged for a later one (a whole number, so it is safe in the SQL). */
const openAt = (generation: number) => `until IS NULL AND since <= ${generation}`;

export class SnapshotStore extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    // The whole-snapshot tables of earlier versions are dropped; the next sync finds nothing and pushes in full.
    ctx.storage.sql.exec(
      `DROP TABLE IF EXISTS meta;
       DROP TABLE IF EXISTS chunk;
       DROP TABLE IF EXISTS snapshot_meta;
       DROP TABLE IF EXISTS snapshot_chunk;
       CREATE TABLE IF NOT EXISTS head (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL, retained_from INTEGER NOT NULL,
         content_hash TEXT NOT NULL, built_at TEXT NOT NULL, pushed_at INTEGER NOT NULL, bytes INTEGER NOT NULL, units INTEGER NOT NULL,
         corrupt TEXT, bound_policies INTEGER NOT NULL, policy_problems TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS unit (id INTEGER PRIMARY KEY, name TEXT NOT NULL, bucket INTEGER NOT NULL, since INTEGER NOT NULL, until INTEGER,
         sha256 TEXT NOT NULL, bytes INTEGER NOT NULL, UNIQUE (name, since));
       CREATE INDEX IF NOT EXISTS unit_bucket ON unit (bucket, until);
       CREATE INDEX IF NOT EXISTS unit_until ON unit (until);
       CREATE TABLE IF NOT EXISTS unit_chunk (unit INTEGER NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (unit, seq));
       CREATE TABLE IF NOT EXISTS bucket (bucket INTEGER PRIMARY KEY, digest TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS staging (generation INTEGER PRIMARY KEY, signed_by TEXT NOT NULL);
       CREATE TABLE IF NOT EXISTS reset_request (request_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);`,
    );
    // Heads stored by earlier versions have no signer column; their generation counts for no key.
    const columns = ctx.storage.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('head')").toArray();
    if (!columns.some((column) => column.name === "signed_by")) ctx.storage.sql.exec("ALTER TABLE head ADD COLUMN signed_by TEXT");
  }

  #head(): (SnapshotMeta & { retainedFrom: number }) | null {
    const row = this.ctx.storage.sql.exec<HeadRow>("SELECT * FROM head WHERE id = 1").toArray()[0];
    if (!row) return null;
    return {
      generation: row.generation,
      retainedFrom: row.retained_from,
      contentHash: row.content_hash,
      builtAt: row.built_at,
      pushedAt: row.pushed_at,
      bytes: row.bytes,
      units: row.units,
      boundPolicies: row.bound_policies,
      policyProblems: JSON.parse(row.policy_problems) as string[],
      ...(row.corrupt !== null ? { corrupt: row.corrupt } : {}),
      ...(row.signed_by !== null ? { signedBy: row.signed_by } : {}),
    };
  }

  head(): SnapshotMeta | null {
    const head = this.#head();
    if (!head) return null;
    const { retainedFrom: _retained, ...meta } = head;
    return meta;
  }

  /** The head and the cluster part of its generation, in one call: what an isolate reads first. */
  async readCluster(): Promise<{ meta: SnapshotMeta; unit: UnitRead } | null> {
    const meta = this.head();
    if (!meta) return null;
    if (meta.corrupt) return { meta, unit: { status: "corrupt", reason: meta.corrupt } };
    const unit = await this.readUnit(CLUSTER_UNIT, meta.generation);
    return { meta: unit.status === "corrupt" ? { ...meta, corrupt: unit.reason } : meta, unit };
  }

  /** Unit `name` as generation `generation` has it; "same" without its bytes when it is still `knownSha256`. */
  async readUnit(name: string, generation: number, knownSha256?: string): Promise<UnitRead> {
    const head = this.#head();
    if (!head || generation > head.generation || generation < head.retainedFrom) return { status: "gone" };
    if (head.corrupt) return { status: "corrupt", reason: head.corrupt };
    const sql = this.ctx.storage.sql;
    const row = sql.exec<{ id: number; sha256: string }>(`SELECT id, sha256 FROM unit WHERE name = ?2 AND ${VISIBLE}`, generation, name).toArray()[0];
    if (!row) {
      const below = sql.exec<{ name: string | null }>(`SELECT MAX(name) AS name FROM unit WHERE name < ?2 AND name != '' AND ${VISIBLE}`, generation, name).one().name;
      const above = sql.exec<{ name: string | null }>(`SELECT MIN(name) AS name FROM unit WHERE name > ?2 AND ${VISIBLE}`, generation, name).one().name;
      return { status: "absent", gap: [below, above] };
    }
    if (knownSha256 === row.sha256) return { status: "same" };
    const chunks = sql.exec<{ data: ArrayBuffer }>("SELECT data FROM unit_chunk WHERE unit = ? ORDER BY seq", row.id).toArray();
    const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.data.byteLength, 0));
    let offset = 0;
    for (const { data } of chunks) {
      bytes.set(new Uint8Array(data), offset);
      offset += data.byteLength;
    }
    const actual = await sha256Hex(bytes);
    if (actual === row.sha256) return { status: "ok", sha256: row.sha256, bytes };
    const reason = `unit ${name === CLUSTER_UNIT ? "(cluster part)" : `"${name}"`} of generation ${generation} hashes to ${actual.slice(0, 12)}, not the ${row.sha256.slice(0, 12)} recorded when it was stored`;
    sql.exec("UPDATE head SET corrupt = ? WHERE id = 1 AND corrupt IS NULL", reason);
    return { status: "corrupt", reason };
  }

  /**
   * Records `key` as the signer of a head stored before signers were
   * recorded: it counted for the keys registered when this release first
   * read it, and now does so under a release of 0.1.0 too (a rollback),
   * which disowns a head with no signer.
   */
  adoptUnsigned(key: string): void {
    this.ctx.storage.sql.exec("UPDATE head SET signed_by = ? WHERE id = 1 AND signed_by IS NULL", key);
  }

  /** The digest of every non-empty bucket of the head generation: what `sync` compares first. */
  buckets(): { generation: number; buckets: Record<string, string> } | null {
    const head = this.#head();
    if (!head) return null;
    const rows = this.ctx.storage.sql.exec<{ bucket: number; digest: string }>("SELECT bucket, digest FROM bucket ORDER BY bucket").toArray();
    return { generation: head.generation, buckets: Object.fromEntries(rows.map((row) => [String(row.bucket), row.digest])) };
  }

  /** The units of one bucket of the head generation, with their SHA-256. */
  bucketUnits(bucket: number): { generation: number; units: Record<string, string> } | null {
    const head = this.#head();
    if (!head) return null;
    const rows = this.ctx.storage.sql
      .exec<{ name: string; sha256: string }>(`SELECT name, sha256 FROM unit WHERE bucket = ?2 AND ${VISIBLE}`, head.generation, bucket)
      .toArray();
    return { generation: head.generation, units: Object.fromEntries(rows.map((row) => [row.name, row.sha256])) };
  }

  /**
   * Stages `units` under `generation` and, with `commit`, makes that
   * generation the stored one: all in one transaction, all or nothing.
   */
  push(generation: number, units: StagedUnit[], signer: PushSigner, commit?: Commit): PushResult {
    try {
      const result = this.ctx.storage.transactionSync((): PushResult => {
        const sql = this.ctx.storage.sql;
        const head = this.#head();
        if (head && generation <= head.generation) return { ok: false, refusal: "stale", current: this.head()! };
        const stagedBy = sql.exec<{ signed_by: string }>("SELECT signed_by FROM staging WHERE generation = ?", generation).toArray()[0]?.signed_by;
        // Rows staged under this generation by another key are not this push's: it starts the generation over.
        if (stagedBy !== undefined && stagedBy !== signer.key) this.#drop(`since = ${generation}`);
        sql.exec("INSERT OR REPLACE INTO staging (generation, signed_by) VALUES (?, ?)", generation, signer.key);
        for (const unit of units) this.#stage(generation, unit);
        if (!commit) return { ok: true, staged: units.length };
        // A head whose signer the registration no longer lists counts for nothing (functions/routes/validate.ts):
        // the commit that replaces it starts the store over, in this transaction, so a push refused in any
        // batch, the last one included, leaves it as it was.
        if (head && !signedByCurrent(head, signer.current)) {
          if (commit.base !== null) return { ok: false, refusal: "base", current: this.head() };
          this.#drop(`since != ${generation}`);
          sql.exec("DELETE FROM bucket; DELETE FROM head;");
          const committed = this.#commit(generation, null, commit, units.length, signer.key);
          return committed.ok ? { ...committed, startedOver: { generation: head.generation, signedBy: head.signedBy ?? null } } : committed;
        }
        return this.#commit(generation, head, commit, units.length, signer.key);
      });
      if (result.ok && result.meta) this.#collect(result.meta.generation);
      return result;
    } catch (e) {
      if (e instanceof Mismatch) return { ok: false, refusal: "mismatch", detail: e.message };
      throw e;
    }
  }

  #stage(generation: number, unit: StagedUnit): void {
    const sql = this.ctx.storage.sql;
    // Sent again (a retried batch): the later copy replaces the earlier.
    sql.exec("DELETE FROM unit_chunk WHERE unit IN (SELECT id FROM unit WHERE name = ? AND since = ?)", unit.name, generation);
    sql.exec("DELETE FROM unit WHERE name = ? AND since = ?", unit.name, generation);
    const id = sql
      .exec<{ id: number }>("INSERT INTO unit (name, bucket, since, until, sha256, bytes) VALUES (?, ?, ?, NULL, ?, ?) RETURNING id", unit.name, bucketOf(unit.name), generation, unit.sha256, unit.bytes.length)
      .one().id;
    for (let seq = 0; seq === 0 || seq * CHUNK_BYTES < unit.bytes.length; seq++)
      sql.exec("INSERT INTO unit_chunk (unit, seq, data) VALUES (?, ?, ?)", id, seq, unit.bytes.slice(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES).buffer);
  }

  #commit(generation: number, head: (SnapshotMeta & { retainedFrom: number }) | null, commit: Commit, stagedNow: number, signedBy: string): PushResult {
    const sql = this.ctx.storage.sql;
    if (commit.base !== null && (head === null || commit.base !== head.generation || head.corrupt)) return { ok: false, refusal: "base", current: head && this.head() };
    const previous = head?.generation ?? 0;
    // Pushes that staged between the head and this generation and never committed: abandoned.
    this.#drop(`since > ${previous} AND since < ${generation}`);
    sql.exec("DELETE FROM staging WHERE generation <= ?", generation);
    const staged = sql.exec<{ name: string; bucket: number }>("SELECT name, bucket FROM unit WHERE since = ?", generation).toArray();
    const stagedNames = new Set(staged.map((unit) => unit.name));
    for (const name of commit.removed) {
      if (name === CLUSTER_UNIT) throw new Mismatch("the cluster part cannot be removed");
      if (stagedNames.has(name)) throw new Mismatch(`unit "${name.slice(0, 63)}" is both sent and removed`);
    }
    const touched = new Set<number>();
    if (commit.base === null) {
      sql.exec("UPDATE unit SET until = ? WHERE until IS NULL AND since <= ?", generation, previous);
    } else {
      for (const name of [...stagedNames, ...commit.removed]) {
        const ended = sql.exec<{ bucket: number }>("UPDATE unit SET until = ? WHERE name = ? AND until IS NULL AND since <= ? RETURNING bucket", generation, name, previous).toArray();
        for (const { bucket } of ended) touched.add(bucket);
      }
      for (const unit of staged) touched.add(unit.bucket);
    }
    const current = openAt(generation);
    if (sql.exec(`SELECT COUNT(*) AS n FROM unit WHERE name = '' AND ${current}`).one().n === 0)
      throw new Mismatch("the new generation has no cluster part: a push that sends every unit must send it");
    if (commit.base === null) sql.exec("DELETE FROM bucket");
    const buckets = commit.base === null ? sql.exec<{ bucket: number }>(`SELECT DISTINCT bucket FROM unit WHERE ${current}`).toArray().map((row) => row.bucket) : [...touched];
    return { ok: true, staged: stagedNow, meta: this.#finish(generation, head, commit, buckets, signedBy) };
  }

  /** Recomputes the touched buckets' digests, checks the whole against the pusher's, and moves the head. */
  #finish(generation: number, head: SnapshotMeta | null, commit: Commit, buckets: number[], signedBy: string): SnapshotMeta {
    const sql = this.ctx.storage.sql;
    const current = openAt(generation);
    // Digests need SHA-256, which WebCrypto gives only asynchronously; inside a synchronous transaction, a small synchronous one.
    for (const bucket of buckets) {
      const units = sql.exec<{ name: string; sha256: string }>(`SELECT name, sha256 FROM unit WHERE bucket = ? AND ${current}`, bucket).toArray();
      if (units.length === 0) sql.exec("DELETE FROM bucket WHERE bucket = ?", bucket);
      else sql.exec("INSERT OR REPLACE INTO bucket (bucket, digest) VALUES (?, ?)", bucket, bucketDigest(units));
    }
    const all = new Map(sql.exec<{ bucket: number; digest: string }>("SELECT bucket, digest FROM bucket").toArray().map((row) => [row.bucket, row.digest] as const));
    const digest = rootDigest(all);
    if (digest !== commit.digest)
      throw new Mismatch(`the units stored for generation ${generation} have digest ${digest.slice(0, 12)}, not the ${commit.digest.slice(0, 12)} the push computed: a batch is missing or a unit was not in the schema's form`);
    const totals = sql.exec<{ bytes: number | null; units: number }>(`SELECT SUM(bytes) AS bytes, COUNT(*) AS units FROM unit WHERE ${current}`).one();
    const meta: SnapshotMeta = {
      generation,
      contentHash: digest,
      builtAt: commit.builtAt,
      pushedAt: commit.pushedAt,
      bytes: totals.bytes ?? 0,
      units: totals.units,
      boundPolicies: commit.policies?.bound ?? head?.boundPolicies ?? 0,
      policyProblems: commit.policies?.problems ?? head?.policyProblems ?? [],
      signedBy,
    };
    sql.exec(
      `INSERT OR REPLACE INTO head (id, generation, retained_from, content_hash, built_at, pushed_at, bytes, units, corrupt, bound_policies, policy_problems, signed_by)
       VALUES (1, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
      generation, head?.generation ?? generation, meta.contentHash, meta.builtAt, meta.pushedAt, meta.bytes, meta.units, meta.boundPolicies, JSON.stringify(meta.policyProblems), signedBy,
    );
    return meta;
  }

  /** Rows no reader can need any more: those that ended at or before the generation kept readable (the one before the head). */
  #collect(generation: number): void {
    const retained = this.#head()?.retainedFrom ?? generation;
    this.ctx.storage.transactionSync(() => this.#drop(`until IS NOT NULL AND until <= ${retained}`));
  }

  /**
   * The operator's reset (POST /v1/registry/clusters/<id>/reset-snapshot):
   * every generation, staged or stored, goes, and the cluster has no snapshot
   * until its sync job pushes. `requestId` names the signed request, kept
   * until `rememberUntil` (ms) so the same request sent again changes nothing.
   */
  reset(requestId: string, now: number, rememberUntil: number): { ok: true; generation: number | null } | { ok: false } {
    return this.ctx.storage.transactionSync(() => {
      const sql = this.ctx.storage.sql;
      sql.exec("DELETE FROM reset_request WHERE expires_at < ?", now);
      if (sql.exec("SELECT 1 FROM reset_request WHERE request_id = ?", requestId).toArray().length > 0) return { ok: false as const };
      sql.exec("INSERT INTO reset_request (request_id, expires_at) VALUES (?, ?)", requestId, rememberUntil);
      const generation = this.#head()?.generation ?? null;
      this.#wipe();
      return { ok: true as const, generation };
    });
  }

  /** Every generation, stored and staged: the store as if nothing was ever pushed. */
  #wipe(): void {
    this.ctx.storage.sql.exec("DELETE FROM unit_chunk; DELETE FROM unit; DELETE FROM bucket; DELETE FROM staging; DELETE FROM head;");
  }

  #drop(where: string): void {
    const sql = this.ctx.storage.sql;
    sql.exec(`DELETE FROM unit_chunk WHERE unit IN (SELECT id FROM unit WHERE ${where})`);
    sql.exec(`DELETE FROM unit WHERE ${where}`);
  }
}
