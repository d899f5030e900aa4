// Who may change what every cluster enforces, and how many must agree: the
// operator keys (the deployment's OPERATOR_KEYS, the root set, and those added
// in the registry by signed changes), the threshold of distinct keys a change
// that widens access or changes enforcement needs (TUF's model: a role, its
// keys and a threshold of their signatures), and what a revoked key's changes
// were, so they can be undone. Pure: the registry's Durable Object
// (functions/registry/governance.ts) applies it.
import * as z from "zod/mini";
import type { Change } from "../clusters/changes.js";
import type { NormalRegistration } from "../clusters/index.js";
import type { FleetChange } from "../fleet/index.js";

/** Distinct operator keys a widening change needs at most: a deployment sets its own (OPERATOR_THRESHOLD), at least 1. */
export const MAX_THRESHOLD = 16;
/** Operator keys the registry holds besides the root set (added, and revoked ones kept as revoked). */
export const MAX_OPERATOR_KEYS = 64;
/** How long a proposal waits for its approvals before it lapses. */
export const PROPOSAL_TTL_MS = 24 * 3_600_000;
/** Proposals waiting at once: each is a stored change, bounded whatever a key sends. */
export const MAX_OPEN_PROPOSALS = 100;
/** The change log keeps every entry of the last year, and at least this many whatever their age. */
export const CHANGE_LOG_MIN_ENTRIES = 100_000;
export const CHANGE_LOG_MIN_AGE_MS = 366 * 24 * 3_600_000;

/** `OPERATOR_THRESHOLD` as a number of keys, or why it is not one (the deployment then takes 1 and /readyz says so). */
export function thresholdOf(text: string | undefined): { threshold: number; problem?: string } {
  if (text === undefined || text.trim() === "") return { threshold: 1 };
  const value = /^\d{1,2}$/.test(text.trim()) ? Number(text.trim()) : 0;
  if (value >= 1 && value <= MAX_THRESHOLD) return { threshold: value };
  return { threshold: 1, problem: `OPERATOR_THRESHOLD must be a whole number from 1 to ${MAX_THRESHOLD}, not ${JSON.stringify(text.slice(0, 20))}` };
}

/** A change an operator key signs, whole: what a proposal stores until enough keys approve it. */
export type GovernedChange =
  | { kind: "registry"; changes: Change[] }
  | { kind: "fleet"; change: FleetChange }
  | { kind: "operator-add"; key: string }
  /** A read-only token for GET /v1/registry/metrics (only its SHA-256 travels and is kept), issued or revoked by name. */
  | { kind: "metrics-token"; op: "issue"; name: string; tokenHash: string }
  | { kind: "metrics-token"; op: "revoke"; name: string };

/** What one registry change widens, or undefined when it only narrows (an incident needs it at once, from one key). */
export function registryChangeWidens(change: Change, current: NormalRegistration | undefined): string | undefined {
  if (change.op === "add") return `registers cluster ${change.cluster}`;
  if (change.op === "remove") return `removes cluster ${change.cluster}`;
  if (change.op === "label") return `relabels cluster ${change.cluster}, which moves it between fleet bindings`;
  const widened: string[] = [];
  if (change.addPublicKeys) widened.push(`adds ${change.addPublicKeys.length === 1 ? "a signing key" : `${change.addPublicKeys.length} signing keys`}`);
  if (change.addTokenHashes) widened.push(`adds ${change.addTokenHashes.length === 1 ? "a token hash" : `${change.addTokenHashes.length} token hashes`}`);
  if (change.anonymous === true && current?.anonymous !== true) widened.push("allows anonymous reviews");
  if (change.withoutSnapshot === "FailOpen" && current?.withoutSnapshot !== "FailOpen") widened.push("loosens its stance to FailOpen");
  if (change.maxAgeSeconds !== undefined && change.maxAgeSeconds > (current?.maxAgeSeconds ?? 0)) widened.push(`lets a snapshot count ${change.maxAgeSeconds}s`);
  return widened.length > 0 ? `${widened.join(", ")} on cluster ${change.cluster}` : undefined;
}

/** What a fleet change widens: every one changes what clusters enforce. */
export function fleetChangeWidens(change: { op: "apply" } | { op: "promote"; binding: string } | { op: "rollback"; toRevision: number }): string {
  return change.op === "apply" ? "replaces the fleet policy set" : change.op === "promote" ? `promotes fleet binding ${change.binding}` : `rolls the fleet back to revision ${change.toRevision}`;
}

/** What a governed change widens, one line each; none: one key applies it at once. */
export function widenings(change: GovernedChange, current: (cluster: string) => NormalRegistration | undefined): string[] {
  if (change.kind === "fleet") return [fleetChangeWidens(change.change)];
  if (change.kind === "operator-add") return [`adds operator key ${change.key.slice(0, 24)}…`];
  // A metrics token reads every cluster's counts and snapshot ages: issuing one widens who may read; revoking narrows.
  if (change.kind === "metrics-token") return change.op === "issue" ? [`issues metrics token ${change.name}, which reads every cluster's verdict counts`] : [];
  return change.changes.map((one) => registryChangeWidens(one, current(one.cluster))).filter((line): line is string => line !== undefined);
}

/** An entry of the change log: what changed, who signed it, and what the registry held before (what an undo restores). */
export interface ChangeLogEntry {
  seq: number;
  /** Milliseconds since the epoch. */
  at: number;
  kind: "registry" | "fleet" | "operator" | "reset" | "undo" | "proposal" | "metrics";
  summary: string;
  clusters: string[];
  /** The operator keys (`ed25519:…`) that signed it: one, or the threshold's approvals. */
  signers: string[];
  registryRevision?: number;
  fleetRevision?: number;
  /** Per cluster a registry change touched: its registration before and after (null: absent). */
  registrations?: Record<string, { before: NormalRegistration | null; after: NormalRegistration | null }>;
  /** Operator keys an `operator` change added or revoked. */
  operatorKeys?: { added?: string[]; revoked?: string[] };
  /** Metrics tokens (by name) a `metrics` change issued or revoked. */
  metricsTokens?: { issued?: string[]; revoked?: string[] };
}

export const changeLogQuerySchema = z.object({
  key: z.optional(z.string().check(z.maxLength(200))),
  cluster: z.optional(z.string().check(z.maxLength(63))),
  since: z.optional(z.int().check(z.minimum(0))),
  until: z.optional(z.int().check(z.minimum(0))),
  /** Entries after this seq (the next page). */
  after: z.optional(z.int().check(z.minimum(0))),
  limit: z.optional(z.int().check(z.minimum(1), z.maximum(1_000))),
});
export type ChangeLogQuery = z.infer<typeof changeLogQuerySchema>;

/** Whether `entry` was signed by revoked keys only: no key still trusted vouched for it. */
export const signedAloneBy = (entry: Pick<ChangeLogEntry, "signers">, revoked: ReadonlySet<string>): boolean =>
  entry.signers.length > 0 && entry.signers.every((key) => revoked.has(key));

/** What undoing a revoked key's changes does, planned before it is applied (and shown first). */
export interface UndoPlan {
  /** The log entries undone, oldest first. */
  undone: Array<Pick<ChangeLogEntry, "seq" | "at" | "kind" | "summary">>;
  /** Per cluster: the registration to restore (null: remove it). */
  registrations: Record<string, NormalRegistration | null>;
  /** The fleet revision to go back to (0: no set), when the one in effect was signed by revoked keys alone. */
  fleetTo?: number;
  /** Operator keys the revoked keys added alone: revoked with them. */
  operatorKeys: string[];
  /** Metrics tokens the revoked keys issued alone: revoked with them. */
  metricsTokens: string[];
  /** What the undo leaves as it is, and why: a later change by another key touched it. */
  kept: string[];
}

/**
 * The undo of every change in `log` (oldest first, since the time asked)
 * that revoked keys signed alone: each registration they touched goes back to
 * what it was before their first change, unless a trusted key changed it
 * since (then it is kept, and said); the fleet to the newest revision no
 * revoked key signed alone; the operator keys they added are revoked too.
 */
export function planUndo(
  log: readonly ChangeLogEntry[],
  revoked: ReadonlySet<string>,
  current: (cluster: string) => NormalRegistration | null,
  fleet: { revision: number; signersOf: (revision: number) => string[] | undefined; kept: readonly number[] },
): UndoPlan {
  const plan: UndoPlan = { undone: [], registrations: {}, operatorKeys: [], metricsTokens: [], kept: [] };
  const touchedByTrusted = new Map<string, number>();
  for (const entry of log) if (!signedAloneBy(entry, revoked)) for (const cluster of Object.keys(entry.registrations ?? {})) touchedByTrusted.set(cluster, entry.seq);
  const restore = new Map<string, { before: NormalRegistration | null; firstSeq: number }>();
  for (const entry of log) {
    if (!signedAloneBy(entry, revoked)) continue;
    if (entry.kind === "registry" || entry.kind === "operator" || entry.kind === "fleet" || entry.kind === "metrics") plan.undone.push({ seq: entry.seq, at: entry.at, kind: entry.kind, summary: entry.summary });
    for (const [cluster, { before }] of Object.entries(entry.registrations ?? {})) if (!restore.has(cluster)) restore.set(cluster, { before, firstSeq: entry.seq });
    for (const key of entry.operatorKeys?.added ?? []) if (!revoked.has(key)) plan.operatorKeys.push(key);
    for (const name of entry.metricsTokens?.issued ?? []) if (!plan.metricsTokens.includes(name)) plan.metricsTokens.push(name);
  }
  for (const [cluster, { before, firstSeq }] of restore) {
    const later = touchedByTrusted.get(cluster);
    if (later !== undefined && later > firstSeq) {
      plan.kept.push(`cluster ${cluster}: changed since by a key still trusted (change ${later}); review it by hand`);
      continue;
    }
    if (JSON.stringify(current(cluster)) !== JSON.stringify(before)) plan.registrations[cluster] = before;
  }
  const tainted = (revision: number) => {
    const signers = fleet.signersOf(revision);
    return signers !== undefined && signedAloneBy({ signers }, revoked);
  };
  if (fleet.revision > 0 && tainted(fleet.revision)) {
    const clean = [...fleet.kept].sort((a, b) => b - a).find((revision) => revision < fleet.revision && !tainted(revision));
    plan.fleetTo = clean ?? 0;
  }
  return plan;
}

/** One line per part of a plan: what `edgeadmit operator undo` shows before it signs. */
export function describeUndo(plan: UndoPlan): string[] {
  const lines = plan.undone.map((entry) => `undo change ${entry.seq} (${new Date(entry.at).toISOString()}, ${entry.kind}): ${entry.summary}`);
  for (const [cluster, registration] of Object.entries(plan.registrations)) lines.push(registration === null ? `remove cluster ${cluster} (registered by the revoked key)` : `restore cluster ${cluster}'s registration as it was before`);
  if (plan.fleetTo !== undefined) lines.push(plan.fleetTo === 0 ? "remove the fleet set (no revision before it was signed by a key still trusted)" : `roll the fleet back to revision ${plan.fleetTo}`);
  for (const key of plan.operatorKeys) lines.push(`revoke operator key ${key.slice(0, 24)}… (added by the revoked key)`);
  for (const name of plan.metricsTokens) lines.push(`revoke metrics token ${name} (issued by the revoked key)`);
  for (const line of plan.kept) lines.push(`keep ${line}`);
  return lines;
}
