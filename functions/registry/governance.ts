// The registry Durable Object's record of who may change it and who did:
// operator keys added and revoked by signed changes (beside OPERATOR_KEYS, the
// root set), proposals waiting for a threshold of distinct keys, and the
// change log, every registry change and fleet revision with its signers. New
// tables in 0.2.0: a registry of 0.1.0 (after a rollback) never reads them
// and applies OPERATOR_KEYS' single signatures as it did.
import { CHANGE_LOG_MIN_AGE_MS, CHANGE_LOG_MIN_ENTRIES, MAX_OPEN_PROPOSALS, type ChangeLogEntry, type ChangeLogQuery, type GovernedChange } from "../../shared/governance/index.js";

export interface Proposal {
  id: string;
  change: GovernedChange;
  /** What it widens, one line each: what approvers are shown. */
  widens: string[];
  proposer: string;
  /** Distinct keys that signed it, the proposer first. */
  approvals: string[];
  createdAt: number;
  expiresAt: number;
  state: "open" | "applied" | "expired" | "cancelled" | "failed";
  /** Why it failed or was cancelled; what applying it answered. */
  outcome?: string;
}

interface ProposalRow extends Record<string, SqlStorageValue> {
  id: string;
  body: string;
  widens: string;
  proposer: string;
  approvals: string;
  created_at: number;
  expires_at: number;
  state: string;
  outcome: string | null;
}

interface LogRow extends Record<string, SqlStorageValue> {
  seq: number;
  at: number;
  kind: string;
  summary: string;
  clusters: string;
  signers: string;
  registry_revision: number | null;
  fleet_revision: number | null;
  detail: string | null;
}

const proposalOf = (row: ProposalRow): Proposal => ({
  id: row.id,
  change: JSON.parse(row.body) as GovernedChange,
  widens: JSON.parse(row.widens) as string[],
  proposer: row.proposer,
  approvals: JSON.parse(row.approvals) as string[],
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  state: row.state as Proposal["state"],
  ...(row.outcome !== null ? { outcome: row.outcome } : {}),
});

const entryOf = (row: LogRow): ChangeLogEntry => {
  const detail = row.detail === null ? {} : (JSON.parse(row.detail) as Pick<ChangeLogEntry, "registrations" | "operatorKeys">);
  return {
    seq: row.seq,
    at: row.at,
    kind: row.kind as ChangeLogEntry["kind"],
    summary: row.summary,
    clusters: JSON.parse(row.clusters) as string[],
    signers: JSON.parse(row.signers) as string[],
    ...(row.registry_revision !== null ? { registryRevision: row.registry_revision } : {}),
    ...(row.fleet_revision !== null ? { fleetRevision: row.fleet_revision } : {}),
    ...detail,
  };
};

export class GovernanceTables {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS operator_key (key TEXT PRIMARY KEY, added_at INTEGER NOT NULL, added_seq INTEGER NOT NULL);
       CREATE TABLE IF NOT EXISTS operator_revocation (key TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL, revoked_seq INTEGER NOT NULL);
       CREATE TABLE IF NOT EXISTS proposal (id TEXT PRIMARY KEY, body TEXT NOT NULL, widens TEXT NOT NULL, proposer TEXT NOT NULL, approvals TEXT NOT NULL,
         created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, state TEXT NOT NULL, outcome TEXT);
       CREATE INDEX IF NOT EXISTS proposal_by_state ON proposal (state, expires_at);
       CREATE TABLE IF NOT EXISTS change_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, kind TEXT NOT NULL, summary TEXT NOT NULL,
         clusters TEXT NOT NULL, signers TEXT NOT NULL, registry_revision INTEGER, fleet_revision INTEGER, detail TEXT);
       CREATE INDEX IF NOT EXISTS change_log_by_time ON change_log (at);
       CREATE INDEX IF NOT EXISTS change_log_by_fleet_revision ON change_log (fleet_revision);`,
    );
  }

  /** The keys added in the registry (not revoked) and every revoked key, root ones included. */
  keys(): { added: string[]; revoked: string[] } {
    const sql = this.storage.sql;
    const revoked = sql.exec<{ key: string }>("SELECT key FROM operator_revocation ORDER BY key").toArray().map((row) => row.key);
    const added = sql.exec<{ key: string }>("SELECT key FROM operator_key WHERE key NOT IN (SELECT key FROM operator_revocation) ORDER BY key").toArray().map((row) => row.key);
    return { added, revoked };
  }

  /** The keys that may sign now: the root set and the added ones, less every revoked one. */
  trusted(rootKeys: readonly string[]): Set<string> {
    const { added, revoked } = this.keys();
    const out = new Set(revoked);
    return new Set([...rootKeys, ...added].filter((key) => !out.has(key)));
  }

  isRevoked(key: string): boolean {
    return this.storage.sql.exec("SELECT 1 FROM operator_revocation WHERE key = ?", key).toArray().length > 0;
  }

  addKey(key: string, now: number, seq: number): void {
    this.storage.sql.exec("INSERT OR IGNORE INTO operator_key (key, added_at, added_seq) VALUES (?, ?, ?)", key, now, seq);
  }

  revokeKey(key: string, now: number, seq: number): void {
    this.storage.sql.exec("INSERT OR IGNORE INTO operator_revocation (key, revoked_at, revoked_seq) VALUES (?, ?, ?)", key, now, seq);
  }

  /** Appends an entry (its seq the next one), trimming what is older than a year past CHANGE_LOG_MIN_ENTRIES. */
  log(entry: Omit<ChangeLogEntry, "seq">): number {
    const sql = this.storage.sql;
    const detail = entry.registrations || entry.operatorKeys ? JSON.stringify({ ...(entry.registrations ? { registrations: entry.registrations } : {}), ...(entry.operatorKeys ? { operatorKeys: entry.operatorKeys } : {}) }) : null;
    const seq = sql
      .exec<{ seq: number }>(
        "INSERT INTO change_log (at, kind, summary, clusters, signers, registry_revision, fleet_revision, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
        entry.at,
        entry.kind,
        entry.summary,
        JSON.stringify(entry.clusters),
        JSON.stringify(entry.signers),
        entry.registryRevision ?? null,
        entry.fleetRevision ?? null,
        detail,
      )
      .one().seq;
    sql.exec("DELETE FROM change_log WHERE at < ? AND seq <= ?", entry.at - CHANGE_LOG_MIN_AGE_MS, seq - CHANGE_LOG_MIN_ENTRIES);
    return seq;
  }

  /** The next seq the log will give: what an entry about to be written refers to. */
  nextSeq(): number {
    return (this.storage.sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM change_log").one().seq ?? 0) + 1;
  }

  /** Entries matching `query`, oldest first, a page at a time. */
  entries(query: ChangeLogQuery): { entries: ChangeLogEntry[]; next?: number } {
    const limit = query.limit ?? 1_000;
    const where: string[] = ["seq > ?"];
    const args: SqlStorageValue[] = [query.after ?? 0];
    if (query.since !== undefined) (where.push("at >= ?"), args.push(query.since));
    if (query.until !== undefined) (where.push("at < ?"), args.push(query.until));
    if (query.key !== undefined) (where.push("EXISTS (SELECT 1 FROM json_each(signers) WHERE value = ?)"), args.push(query.key));
    if (query.cluster !== undefined) (where.push("EXISTS (SELECT 1 FROM json_each(clusters) WHERE value = ?)"), args.push(query.cluster));
    const rows = this.storage.sql.exec<LogRow>(`SELECT * FROM change_log WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`, ...args, limit + 1).toArray();
    const entries = rows.slice(0, limit).map(entryOf);
    return { entries, ...(rows.length > limit ? { next: entries.at(-1)!.seq } : {}) };
  }

  /** The signers the log recorded for fleet revision `revision`; undefined when it recorded none (a revision of 0.1.0). */
  fleetSigners(revision: number): string[] | undefined {
    const row = this.storage.sql.exec<{ signers: string }>("SELECT signers FROM change_log WHERE fleet_revision = ? ORDER BY seq DESC LIMIT 1", revision).toArray()[0];
    return row ? (JSON.parse(row.signers) as string[]) : undefined;
  }

  // Proposals.

  /** Lapses the open proposals past their time. */
  expire(now: number): void {
    this.storage.sql.exec("UPDATE proposal SET state = 'expired', outcome = 'no threshold of approvals before it lapsed' WHERE state = 'open' AND expires_at <= ?", now);
  }

  openCount(): number {
    return this.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM proposal WHERE state = 'open'").one().n;
  }

  fitsAnother(): boolean {
    return this.openCount() < MAX_OPEN_PROPOSALS;
  }

  propose(proposal: Proposal): void {
    this.storage.sql.exec(
      "INSERT INTO proposal (id, body, widens, proposer, approvals, created_at, expires_at, state, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
      proposal.id,
      JSON.stringify(proposal.change),
      JSON.stringify(proposal.widens),
      proposal.proposer,
      JSON.stringify(proposal.approvals),
      proposal.createdAt,
      proposal.expiresAt,
      proposal.state,
    );
  }

  proposal(id: string): Proposal | undefined {
    const row = this.storage.sql.exec<ProposalRow>("SELECT * FROM proposal WHERE id = ?", id).toArray()[0];
    return row ? proposalOf(row) : undefined;
  }

  /** The open proposals, oldest first; `since` adds those closed after it too. */
  proposals(since?: number): Proposal[] {
    return this.storage.sql
      .exec<ProposalRow>("SELECT * FROM proposal WHERE state = 'open' OR created_at >= ? ORDER BY created_at", since ?? Number.MAX_SAFE_INTEGER)
      .toArray()
      .map(proposalOf);
  }

  update(id: string, approvals: readonly string[], state: Proposal["state"], outcome?: string): void {
    this.storage.sql.exec("UPDATE proposal SET approvals = ?, state = ?, outcome = ? WHERE id = ?", JSON.stringify(approvals), state, outcome ?? null, id);
  }

  /** What revoked keys proposed is cancelled; their approvals of others' proposals no longer count. */
  dropSignaturesOf(revoked: ReadonlySet<string>): void {
    for (const proposal of this.proposals()) {
      if (revoked.has(proposal.proposer)) this.update(proposal.id, proposal.approvals, "cancelled", "its proposer's key was revoked");
      else this.update(proposal.id, proposal.approvals.filter((key) => !revoked.has(key)), "open");
    }
  }
}
