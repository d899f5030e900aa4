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
import { actionsFor, type FleetRevision } from "../../shared/fleet/index.js";
import { describeUndo, planUndo, PROPOSAL_TTL_MS, widenings, type ChangeLogEntry, type ChangeLogQuery, type GovernedChange, type UndoPlan } from "../../shared/governance/index.js";
import { FleetTables, type FleetHistory, type FleetSince } from "./fleet.js";
import { GovernanceTables, type Proposal } from "./governance.js";
import { Refusal } from "./refusal.js";
import { CountTables, type CountHour, type CountQuery, type CountSum, type TotalsCursor } from "./counts.js";
import { PeerTables, type LastPeer, type PeerSighting } from "./peers.js";
import { SnapshotTables, type SnapshotRecord, type SnapshotSighting } from "./snapshots.js";
import { MAX_METRICS_TOKENS, MetricsTokenTables, type MetricsToken } from "./metrics-tokens.js";
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

/** A registration as `clusters list` shows it: with its sync job's last call, when one was seen. */
export interface ListedRegistration extends StoredRegistration {
  lastSync?: LastPeer;
}

/** A registration as the fleet's overview shows it: with its committed snapshot as the registry last heard of it. */
export interface OverviewRegistration extends ListedRegistration {
  snapshot?: SnapshotRecord;
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

/** Who signed an operator's request, as the route verified it, and what the deployment asks of signers (OPERATOR_KEYS, OPERATOR_THRESHOLD). */
export interface Signing {
  signer: string;
  rootKeys: readonly string[];
  threshold: number;
  /** Whether the CLI that signed knows proposals (0.2.0 and later): an older one is told to upgrade instead of answered with one. */
  canPropose: boolean;
}

/** A proposal as the operator sees it: what it changes and widens, and how many approvals it has of how many it needs. */
export interface ProposalView {
  id: string;
  change: GovernedChange;
  widens: string[];
  proposer: string;
  approvals: string[];
  threshold: number;
  createdAt: number;
  expiresAt: number;
  state: Proposal["state"];
  outcome?: string;
}

/** What an applied change did, by kind. */
export interface Applied {
  seq: number;
  signers: string[];
  registry?: { revision: number; applied: AppliedChange[] };
  fleet?: { revision: number; change: string };
  operator?: { added?: string; revoked?: string };
  metrics?: { issued?: string; revoked?: string };
}

/** A change refused, with its status and why: nothing changed. */
export type Refused = { ok: false; status: 401 | 404 | 409; error: string };

/** An operator's change: applied now, waiting for approvals as a proposal, or refused (nothing changed). */
export type GovernedAnswer = ({ ok: true; state: "applied" } & Applied) | { ok: true; state: "proposed"; proposal: ProposalView } | Refused;

/** The operator keys one isolate checks signatures of reads with: those added in the registry, and every one revoked. */
export interface OperatorKeyState {
  added: string[];
  revoked: string[];
}

/** What `operator undo` answers: the plan, applied or (dry run) only shown. */
export type UndoAnswer = { ok: true; applied: boolean; plan: UndoPlan; lines: string[]; seq?: number; registrations?: AppliedChange[] } | Refused;

/**
 * The governed methods of the registry Durable Object as its stub answers
 * them: a change's objects are `unknown` to TypeScript, which the RPC types
 * cannot carry, though the values are plain JSON.
 */
export interface GovernanceStub {
  submit(change: GovernedChange, changeId: string, now: number, rememberUntil: number, signing: Signing): Promise<GovernedAnswer>;
  approve(id: string, changeId: string, now: number, rememberUntil: number, signing: Signing): Promise<GovernedAnswer>;
  proposals(now: number, threshold: number, since?: number): Promise<ProposalView[]>;
  proposal(id: string, now: number, threshold: number): Promise<ProposalView | null>;
  revoke(key: string, since: number, changeId: string, now: number, rememberUntil: number, signing: Signing): Promise<{ ok: true; seq: number; signed: ChangeLogEntry[] } | Refused>;
  undo(keys: readonly string[], since: number, dryRun: boolean, changeId: string, now: number, rememberUntil: number, signing: Signing): Promise<UndoAnswer>;
  changeLog(query: ChangeLogQuery): Promise<{ entries: ChangeLogEntry[]; next?: number }>;
  metricsTokens(): Promise<MetricsToken[]>;
  logReset(cluster: string, dropped: number | null, signer: string, now: number): Promise<void>;
  operatorKeys(): Promise<OperatorKeyState>;
}

/** The registry's reads for the fleet's overview and metrics as its stub answers them (RPC types lose tuples). */
export interface OverviewStub {
  overview(after: string, limit: number): Promise<{ revision: number; clusters: OverviewRegistration[]; next?: string }>;
  snapshotRecordsOf(clusters: string[]): Promise<Array<[cluster: string, record: SnapshotRecord]>>;
  verdictTotals(after: TotalsCursor | null, limit: number): Promise<CountSum[]>;
}

/** Not a change of the registry's: a generic 401, as for any key the function does not know. */
const UNTRUSTED = "the operator key is not one the function trusts now (revoked, or not in OPERATOR_KEYS or the registry)";

interface RegistryPage<T = ListedRegistration> {
  revision: number;
  clusters: T[];
  /** The last id of this page when more follow: the next page starts after it. */
  next?: string;
}

interface RegistrationRow extends Record<string, SqlStorageValue> {
  cluster: string;
  revision: number;
  body: string;
  updated_at: number;
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
  /** Each cluster's sync job as last seen, flushed with the counts. */
  private readonly peers: PeerTables;
  /** Operator keys, proposals waiting for a threshold, and the change log with its signers. */
  private readonly governance: GovernanceTables;
  /** Each cluster's committed snapshot, flushed with the counts. */
  private readonly snapshots: SnapshotTables;
  /** Read-only tokens for GET /v1/registry/metrics, as hashes. */
  private readonly metricsTokenTable: MetricsTokenTables;

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
    this.governance = new GovernanceTables(ctx.storage);
    this.fleet = new FleetTables(ctx.storage, (revision, change, now) =>
      this.governance.log({ at: now, kind: "fleet", summary: change, clusters: [], signers: [], fleetRevision: revision }),
    );
    this.counts = new CountTables(ctx.storage);
    this.peers = new PeerTables(ctx.storage);
    this.snapshots = new SnapshotTables(ctx.storage);
    this.metricsTokenTable = new MetricsTokenTables(ctx.storage);
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
    const clusters: ListedRegistration[] = rows.slice(0, limit).map(stored);
    const peers = this.peers.of(clusters.map((entry) => entry.cluster));
    for (const entry of clusters) {
      const peer = peers.get(entry.cluster);
      if (peer) entry.lastSync = peer;
    }
    return { revision: this.revision(), clusters, ...(rows.length > limit ? { next: clusters.at(-1)!.cluster } : {}) };
  }

  /** A page of `list` with each cluster's committed snapshot as last flushed: the fleet's overview, one table read per page. */
  overview(after: string, limit: number): RegistryPage<OverviewRegistration> {
    const page: RegistryPage<OverviewRegistration> = this.list(after, limit);
    const records = this.snapshots.of(page.clusters.map((entry) => entry.cluster));
    for (const entry of page.clusters) {
      const record = records.get(entry.cluster);
      if (record) entry.snapshot = record;
    }
    return page;
  }

  /**
   * An operator's change, signed by `signing.signer`: applied at once when it
   * only narrows (revoking a credential, tightening a stance) or the
   * deployment's threshold is 1; otherwise kept as a proposal until
   * `threshold` distinct trusted keys approve it (approve). `changeId` names
   * the signed request (the SHA-256 of its signed bytes): kept until
   * `rememberUntil` (ms), past which the request's signing time is refused
   * anyway, so the same request sent again is refused as a replay, whether it
   * applied or was refused (a refused change replayed after the registry
   * moved on must not apply: the operator meant it against what it saw).
   */
  submit(change: GovernedChange, changeId: string, now: number, rememberUntil: number, signing: Signing): GovernedAnswer {
    if (!recordChange(this.ctx.storage, changeId, now, rememberUntil)) return { ok: false, status: 409, error: REPLAYED };
    return this.answer((): GovernedAnswer => {
      this.governance.expire(now);
      if (!this.governance.trusted(signing.rootKeys).has(signing.signer)) throw new Refusal(401, UNTRUSTED);
      if (change.kind === "operator-add" && this.governance.isRevoked(change.key)) throw new Refusal(409, "that key was revoked: a revoked key is not trusted again; make a new one (edgeadmit operator keygen)");
      const widens = widenings(change, (cluster) => this.row(cluster)?.registration);
      if (widens.length === 0 || signing.threshold <= 1) return { ok: true, state: "applied", ...this.applyGoverned(change, now, [signing.signer]) };
      if (!signing.canPropose)
        throw new Refusal(409, `this change ${widens.join("; ")}, which needs ${signing.threshold} operator keys: propose it with edgeadmit 0.2.0 or later, and approve it with others (edgeadmit approve)`);
      // Refused now if it could not apply now: a proposal is a change that would.
      this.tryOnly(() => this.applyGoverned(change, now, [signing.signer]));
      if (!this.governance.fitsAnother()) throw new Refusal(409, "too many proposals wait for approval: approve them or let them lapse (edgeadmit proposals)");
      const proposal: Proposal = { id: crypto.randomUUID(), change, widens, proposer: signing.signer, approvals: [signing.signer], createdAt: now, expiresAt: now + PROPOSAL_TTL_MS, state: "open" };
      this.governance.propose(proposal);
      return { ok: true, state: "proposed", proposal: this.view(proposal, signing.threshold) };
    });
  }

  /** One more trusted key's approval of proposal `id`; with the threshold reached, its change applies, signed by all of them. */
  approve(id: string, changeId: string, now: number, rememberUntil: number, signing: Signing): GovernedAnswer {
    if (!recordChange(this.ctx.storage, changeId, now, rememberUntil)) return { ok: false, status: 409, error: REPLAYED };
    return this.answer((): GovernedAnswer => {
      this.governance.expire(now);
      const trusted = this.governance.trusted(signing.rootKeys);
      if (!trusted.has(signing.signer)) throw new Refusal(401, UNTRUSTED);
      const proposal = this.governance.proposal(id);
      if (!proposal) throw new Refusal(404, `no proposal ${id.slice(0, 40)} (edgeadmit proposals lists those waiting)`);
      if (proposal.state !== "open") throw new Refusal(409, `proposal ${id} is ${proposal.state}${proposal.outcome ? `: ${proposal.outcome}` : ""}`);
      const approvals = [...new Set([...proposal.approvals.filter((key) => trusted.has(key)), signing.signer])];
      if (approvals.length < signing.threshold) {
        this.governance.update(id, approvals, "open");
        return { ok: true, state: "proposed", proposal: this.view({ ...proposal, approvals }, signing.threshold) };
      }
      let applied: Applied;
      try {
        applied = this.ctx.storage.transactionSync(() => this.applyGoverned(proposal.change, now, approvals));
      } catch (e) {
        if (!(e instanceof Refusal)) throw e;
        this.governance.update(id, approvals, "failed", e.message);
        return { ok: false, status: e.status, error: `proposal ${id} could not apply: ${e.message}` };
      }
      this.governance.update(id, approvals, "applied", `change ${applied.seq}`);
      return { ok: true, state: "applied", ...applied };
    });
  }

  /** The proposals waiting, and those closed since `since` (ms). */
  proposals(now: number, threshold: number, since?: number): ProposalView[] {
    this.governance.expire(now);
    return this.governance.proposals(since).map((proposal) => this.view(proposal, threshold));
  }

  proposal(id: string, now: number, threshold: number): ProposalView | null {
    this.governance.expire(now);
    const proposal = this.governance.proposal(id);
    return proposal ? this.view(proposal, threshold) : null;
  }

  /**
   * Revokes operator key `key` at once (one trusted signature: an incident
   * cannot wait), root ones included: this registry refuses its signatures
   * from now on, and every isolate within seconds (operatorKeys). What it
   * proposed lapses; its approvals stop counting. Answers the changes it
   * signed since `since`, for the undo.
   */
  revoke(key: string, since: number, changeId: string, now: number, rememberUntil: number, signing: Signing): { ok: true; seq: number; signed: ChangeLogEntry[] } | Refused {
    if (!recordChange(this.ctx.storage, changeId, now, rememberUntil)) return { ok: false, status: 409, error: REPLAYED };
    return this.answer(() => {
      if (!this.governance.trusted(signing.rootKeys).has(signing.signer)) throw new Refusal(401, UNTRUSTED);
      if (this.governance.isRevoked(key)) throw new Refusal(409, "that key is revoked already");
      const seq = this.governance.log({ at: now, kind: "operator", summary: `revoke operator key ${key}`, clusters: [], signers: [signing.signer], operatorKeys: { revoked: [key] } });
      this.governance.revokeKey(key, now, seq);
      this.governance.dropSignaturesOf(new Set([key]));
      return { ok: true as const, seq, signed: this.signedBy(key, since) };
    });
  }

  /** The change log entries `key` signed since `since` (ms). */
  private signedBy(key: string, since: number): ChangeLogEntry[] {
    const signed: ChangeLogEntry[] = [];
    let after = 0;
    for (;;) {
      const page = this.governance.entries({ key, since, after });
      signed.push(...page.entries);
      if (page.next === undefined) return signed;
      after = page.next;
    }
  }

  /**
   * Undoes what revoked keys signed alone since `since` (ms), in one
   * transaction (shared/governance planUndo): registrations back to what
   * they were, the fleet to the newest revision a trusted key signed, the
   * operator keys they added revoked. One trusted signature; `dryRun` only
   * plans. `keys` must all be revoked already.
   */
  undo(keys: readonly string[], since: number, dryRun: boolean, changeId: string, now: number, rememberUntil: number, signing: Signing): UndoAnswer {
    if (!dryRun && !recordChange(this.ctx.storage, changeId, now, rememberUntil)) return { ok: false, status: 409, error: REPLAYED };
    return this.answer((): UndoAnswer => {
      if (!this.governance.trusted(signing.rootKeys).has(signing.signer)) throw new Refusal(401, UNTRUSTED);
      const notRevoked = keys.find((key) => !this.governance.isRevoked(key));
      if (notRevoked) throw new Refusal(409, `operator key ${notRevoked.slice(0, 24)}… is not revoked: revoke it first (edgeadmit operator revoke)`);
      const revoked = new Set(keys);
      const fleet = this.fleet.revisions();
      const plan = planUndo(this.entriesSince(since), revoked, (cluster) => this.row(cluster)?.registration ?? null, { ...fleet, signersOf: (revision) => this.governance.fleetSigners(revision) });
      const lines = describeUndo(plan);
      if (dryRun) return { ok: true, applied: false, plan, lines };
      const registryRevision = this.restore(plan.registrations, now);
      const registrations = Object.entries(plan.registrations).map(([cluster, registration]): AppliedChange => ({ op: registration === null ? "remove" : "rotate", cluster, revision: registryRevision! }));
      const fleetApplied = plan.fleetTo === undefined ? undefined : this.fleetTo(plan.fleetTo, now);
      for (const key of plan.operatorKeys) this.governance.revokeKey(key, now, this.governance.nextSeq());
      const tokensRevoked = plan.metricsTokens.filter((name) => this.metricsTokenTable.revoke(name));
      this.governance.dropSignaturesOf(new Set([...revoked, ...plan.operatorKeys]));
      const seq = this.governance.log({
        at: now,
        kind: "undo",
        summary: `undo of what ${keys.join(", ")} signed alone since ${new Date(since).toISOString()}: ${lines.length} steps`,
        clusters: Object.keys(plan.registrations),
        signers: [signing.signer],
        ...(registryRevision !== undefined ? { registryRevision } : {}),
        ...(fleetApplied ? { fleetRevision: fleetApplied.revision } : {}),
        ...(plan.operatorKeys.length > 0 ? { operatorKeys: { revoked: plan.operatorKeys } } : {}),
        ...(tokensRevoked.length > 0 ? { metricsTokens: { revoked: tokensRevoked } } : {}),
      });
      return { ok: true, applied: true, plan, lines, seq, registrations };
    });
  }

  /** Each cluster's registration as given (null: removed), as one new registry revision; undefined when there was none to write. */
  private restore(registrations: Record<string, NormalRegistration | null>, now: number): number | undefined {
    const clusters = Object.entries(registrations);
    if (clusters.length === 0) return undefined;
    const sql = this.ctx.storage.sql;
    const revision = this.revision() + 1;
    for (const [cluster, registration] of clusters) {
      if (registration !== null) this.write(cluster, registration, revision, now);
      else {
        sql.exec("DELETE FROM registration WHERE cluster = ?", cluster);
        sql.exec("INSERT OR REPLACE INTO removal (cluster, revision) VALUES (?, ?)", cluster, revision);
        this.forgetCluster(cluster);
      }
    }
    sql.exec("UPDATE registry_state SET revision = ? WHERE id = 1", revision);
    return revision;
  }

  /** The change log, as `edgeadmit changes` reads it. */
  changeLog(query: ChangeLogQuery): { entries: ChangeLogEntry[]; next?: number } {
    return this.governance.entries(query);
  }

  /** What the registry keeps of a cluster beside its registration: gone with it. */
  private forgetCluster(cluster: string): void {
    this.peers.forget(cluster);
    this.snapshots.forget(cluster);
    this.counts.forget(cluster);
  }

  /** Records the operator's reset of a cluster's snapshot (it is applied by the cluster's own store), and forgets the generation it had. */
  logReset(cluster: string, dropped: number | null, signer: string, now: number): void {
    this.snapshots.forget(cluster);
    this.governance.log({ at: now, kind: "reset", summary: `reset cluster ${cluster}'s snapshot${dropped === null ? " (none was stored)" : `: dropped generation ${dropped}`}`, clusters: [cluster], signers: [signer] });
  }

  /** What isolates check operator signatures against besides OPERATOR_KEYS (polled every few seconds). */
  operatorKeys(): OperatorKeyState {
    return this.governance.keys();
  }

  private entriesSince(since: number): ChangeLogEntry[] {
    const entries: ChangeLogEntry[] = [];
    let after = 0;
    for (;;) {
      const page = this.governance.entries({ since, after });
      entries.push(...page.entries);
      if (page.next === undefined) return entries;
      after = page.next;
    }
  }

  private view(proposal: Proposal, threshold: number): ProposalView {
    const { id, change, widens, proposer, approvals, createdAt, expiresAt, state, outcome } = proposal;
    return { id, change, widens, proposer, approvals, threshold, createdAt, expiresAt, state, ...(outcome !== undefined ? { outcome } : {}) };
  }

  /** `work` in one transaction; a Refusal thrown inside rolls it back and is the answer. */
  private answer<T>(work: () => T): T | Refused {
    try {
      return this.ctx.storage.transactionSync(work);
    } catch (e) {
      if (e instanceof Refusal) return { ok: false, status: e.status, error: e.message };
      throw e;
    }
  }

  /** `work` tried and rolled back (a nested transaction): a Refusal it throws is thrown on. */
  private tryOnly(work: () => unknown): void {
    try {
      this.ctx.storage.transactionSync(() => {
        work();
        throw new DryRun();
      });
    } catch (e) {
      if (!(e instanceof DryRun)) throw e;
    }
  }

  /** Applies `change` (inside the caller's transaction) as signed by `signers`, and logs it. */
  private applyGoverned(change: GovernedChange, now: number, signers: string[]): Applied {
    if (change.kind === "registry") {
      const before = new Map(change.changes.map((one) => [one.cluster, this.row(one.cluster)?.registration ?? null]));
      const registry = this.applyRegistry(change.changes, now);
      const registrations = Object.fromEntries([...before].map(([cluster, was]) => [cluster, { before: was, after: this.row(cluster)?.registration ?? null }]));
      const summary = change.changes.map((one) => `${one.op} ${one.cluster}`).join(", ");
      const seq = this.governance.log({ at: now, kind: "registry", summary, clusters: [...before.keys()], signers, registryRevision: registry.revision, registrations });
      return { seq, signers, registry };
    }
    if (change.kind === "fleet") {
      const fleet = this.fleet.apply(change.change, now);
      const seq = this.governance.log({ at: now, kind: "fleet", summary: fleet.change, clusters: [], signers, fleetRevision: fleet.revision });
      return { seq, signers, fleet };
    }
    if (change.kind === "metrics-token") return this.applyMetricsToken(change, now, signers);
    const seq = this.governance.log({ at: now, kind: "operator", summary: `add operator key ${change.key}`, clusters: [], signers, operatorKeys: { added: [change.key] } });
    this.governance.addKey(change.key, now, seq);
    return { seq, signers, operator: { added: change.key } };
  }

  /** Issues or revokes a metrics token (inside the caller's transaction), and logs it; a Refusal says why not. */
  private applyMetricsToken(change: Extract<GovernedChange, { kind: "metrics-token" }>, now: number, signers: string[]): Applied {
    const tokens = this.metricsTokenTable;
    if (change.op === "revoke") {
      if (!tokens.revoke(change.name)) throw new Refusal(404, `no metrics token ${change.name} (edgeadmit metrics tokens lists them)`);
      const seq = this.governance.log({ at: now, kind: "metrics", summary: `revoke metrics token ${change.name}`, clusters: [], signers, metricsTokens: { revoked: [change.name] } });
      return { seq, signers, metrics: { revoked: change.name } };
    }
    if (tokens.has(change.name)) throw new Refusal(409, `metrics token ${change.name} exists: revoke it first, or issue one of another name and revoke this one once scrapers use the new one`);
    if (tokens.count() >= MAX_METRICS_TOKENS) throw new Refusal(409, `${MAX_METRICS_TOKENS} metrics tokens are issued, the limit: revoke one first`);
    const seq = this.governance.log({ at: now, kind: "metrics", summary: `issue metrics token ${change.name}`, clusters: [], signers, metricsTokens: { issued: [change.name] } });
    tokens.issue(change.name, change.tokenHash, now, seq);
    return { seq, signers, metrics: { issued: change.name } };
  }

  /** Applies registry `changes` in order as one new revision, inside the caller's transaction; a Refusal says why not. */
  private applyRegistry(changes: readonly Change[], now: number): { revision: number; applied: AppliedChange[] } {
    const sql = this.ctx.storage.sql;
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
          this.forgetCluster(change.cluster);
        } else {
          const next = change.op === "label" ? relabeled(current.registration, change) : rotated(current.registration, change);
          if (typeof next === "string") throw new Refusal(409, `${label}${next}`);
          this.write(change.cluster, next, revision, now);
        }
      }
      const absent = change.op === "label" && current ? (change.remove ?? []).filter((key) => !Object.hasOwn(current.registration.labels ?? {}, key)) : [];
      applied.push({ op: change.op, cluster: change.cluster, revision, ...(absent.length > 0 ? { absentLabels: absent } : {}) });
    });
    if (changes.length > 0) sql.exec("UPDATE registry_state SET revision = ? WHERE id = 1", revision);
    return { revision: changes.length > 0 ? revision : this.revision(), applied };
  }

  /** The fleet back to revision `to` (0: an empty set), as one new revision. */
  private fleetTo(to: number, now: number): { revision: number; change: string } {
    const empty = { policies: [], bindings: [], params: [], modes: [], exceptions: [] };
    return to === 0 ? this.fleet.apply({ op: "apply", requestId: "undo-0000000000000000", set: empty }, now) : this.fleet.apply({ op: "rollback", requestId: "undo-0000000000000000", toRevision: to }, now);
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

  /** The fleet's revisions, each with the keys that signed it (none recorded: an automatic promotion, or a revision of 0.1.0). */
  fleetHistory(): FleetHistory {
    const history = this.fleet.history();
    return { ...history, revisions: history.revisions.map((entry) => ({ ...entry, signers: this.governance.fleetSigners(entry.revision) ?? [] })) };
  }

  /** A kept revision whole, or null: what `fleet rollback --dry-run` compares with the one in effect. */
  fleetRevision(revision: number): FleetRevision | null {
    return this.fleet.at(revision) ?? null;
  }

  /** One isolate's batch of verdict counts, added to the hourly rows and the totals, the sync jobs and the commits it saw. */
  addCounts(rows: CountRow[], now: number, peers: PeerSighting[] = [], snapshots: SnapshotSighting[] = []): void {
    this.counts.add(rows, now);
    this.peers.add(peers);
    this.snapshots.add(snapshots);
  }

  countSums(query: CountQuery, now: number): CountSum[] {
    return this.counts.sums(query, now);
  }

  countHours(query: CountQuery, now: number): CountHour[] {
    return this.counts.hours(query, now);
  }

  /** A page of the counters GET /v1/registry/metrics exports. */
  verdictTotals(after: TotalsCursor | null, limit: number): CountSum[] {
    return this.counts.totals(after, limit);
  }

  /** The committed snapshots of `clusters` (CLUSTERS' ids: the registry lists only its own) as last flushed. */
  snapshotRecordsOf(clusters: string[]): Array<[cluster: string, record: SnapshotRecord]> {
    return [...this.snapshots.of(clusters)];
  }

  /** The metrics tokens issued: their names, hashes and when. */
  metricsTokens(): MetricsToken[] {
    return this.metricsTokenTable.list();
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

/** Thrown to roll back a change tried only to see that it applies (a proposal must be one that would). */
class DryRun extends Error {}
