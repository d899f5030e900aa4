// Verdict counts: per cluster, per policy (built-in, the cluster's own
// ValidatingAdmissionPolicies, the fleet's), per outcome, per hour. Counted
// in the isolate as reviews are judged (a Map increment per result, no
// storage write) and flushed in bounded batches (functions/fleet/counts.ts).
import type { ReviewOutcome } from "../review/index.js";

export const OUTCOMES = ["allow", "deny", "warn", "audit", "error", "exempted"] as const;
export type CountOutcome = (typeof OUTCOMES)[number];

/** Where a counted policy comes from; `review` is the review as a whole (policy `*`). */
export const ORIGINS = ["builtin", "cluster", "fleet", "review"] as const;
export type CountOrigin = (typeof ORIGINS)[number];

/** The policy name of a review's own row: every review counts once there, by its verdict (or `error`). */
export const WHOLE_REVIEW = "*";

export const HOUR_MS = 3_600_000;
/** Hours of counts kept: 7 days, and one more so a 7-day window ending now is whole. */
export const KEPT_HOURS = 8 * 24;

/** One stored row: the hour (since the epoch), cluster, origin, policy, outcome and how many. */
export type CountRow = [hour: number, cluster: string, origin: CountOrigin, policy: string, outcome: CountOutcome, count: number];

/** Distinct (hour, cluster, origin, policy) an isolate holds between flushes: beyond it, counts are dropped and the drop is counted (a bound on memory, whatever the traffic). */
export const MAX_PENDING_ROWS = 20_000;

const OUTCOME_INDEX: Readonly<Record<CountOutcome, number>> = { allow: 0, deny: 1, warn: 2, audit: 3, error: 4, exempted: 5 };
const MODE_OUTCOME = { Deny: OUTCOME_INDEX.deny, Warn: OUTCOME_INDEX.warn, Audit: OUTCOME_INDEX.audit } as const;

/** origin → policy → a count per outcome. */
type ClusterCounts = Map<CountOrigin, Map<string, number[]>>;

/**
 * Counts not yet flushed: hour → cluster → origin → policy → a count per
 * outcome. Nested maps keyed by the strings the review already holds (the
 * cluster's id, the policies' names), so counting builds no key: a few map
 * lookups and increments per result.
 */
export class VerdictCounter {
  #pending = new Map<number, Map<string, ClusterCounts>>();
  #rows = 0;
  /** Counts dropped because MAX_PENDING_ROWS rows were pending; reported with the next flush's log line. */
  dropped = 0;

  #counts(hour: number, cluster: string, origin: CountOrigin, policy: string): number[] | undefined {
    const found = this.#pending.get(hour)?.get(cluster)?.get(origin)?.get(policy);
    if (found !== undefined) return found;
    // Past the bound nothing new is made, not even an empty map.
    if (this.#rows >= MAX_PENDING_ROWS) return undefined;
    let clusters = this.#pending.get(hour);
    if (clusters === undefined) this.#pending.set(hour, (clusters = new Map()));
    let origins = clusters.get(cluster);
    if (origins === undefined) clusters.set(cluster, (origins = new Map()));
    let policies = origins.get(origin);
    if (policies === undefined) origins.set(origin, (policies = new Map()));
    const counts = [0, 0, 0, 0, 0, 0];
    policies.set(policy, counts);
    this.#rows++;
    return counts;
  }

  #add(hour: number, cluster: string, origin: CountOrigin, policy: string, outcome: number, by = 1): void {
    const counts = this.#counts(hour, cluster, origin, policy);
    if (counts) counts[outcome]! += by;
    else this.dropped += by;
  }

  /** One review's verdict and each policy's result, in the hour of `now`. */
  countReview(cluster: string, outcome: ReviewOutcome, now: number): void {
    const hour = Math.floor(now / HOUR_MS);
    const { decision } = outcome;
    // Audit is a finding in Audit mode, never an annotation alone: the one naming what an exception set aside makes the review `exempted`.
    const verdict = !decision.allowed
      ? OUTCOME_INDEX.deny
      : decision.warnings.length > 0
        ? OUTCOME_INDEX.warn
        : outcome.results.some((result) => result.mode === "Audit")
          ? OUTCOME_INDEX.audit
          : outcome.skipped.length > 0
            ? OUTCOME_INDEX.exempted
            : OUTCOME_INDEX.allow;
    this.#add(hour, cluster, "review", WHOLE_REVIEW, verdict);
    for (const result of outcome.results) this.#add(hour, cluster, originOf(result), result.policy, MODE_OUTCOME[result.mode]);
    for (const result of outcome.skipped) this.#add(hour, cluster, originOf(result), result.policy, OUTCOME_INDEX.exempted);
  }

  /** A review that could not be judged (a body that is not an AdmissionReview): an error of the review as a whole. */
  countError(cluster: string, now: number): void {
    this.#add(Math.floor(now / HOUR_MS), cluster, "review", WHOLE_REVIEW, OUTCOME_INDEX.error);
  }

  /** Pending (hour, cluster, origin, policy) entries. */
  get size(): number {
    return this.#rows;
  }

  /** The pending counts of up to `max` entries, as rows (one per outcome counted), removed from what is pending. */
  take(max: number): CountRow[] {
    const rows: CountRow[] = [];
    let taken = 0;
    for (const [hour, clusters] of this.#pending) {
      for (const [cluster, origins] of clusters) {
        for (const [origin, policies] of origins) {
          for (const [policy, counts] of policies) {
            if (taken >= max) return rows;
            taken++;
            this.#rows--;
            policies.delete(policy);
            counts.forEach((count, index) => {
              if (count > 0) rows.push([hour, cluster, origin, policy, OUTCOMES[index]!, count]);
            });
          }
          if (policies.size === 0) origins.delete(origin);
        }
        if (origins.size === 0) clusters.delete(cluster);
      }
      if (clusters.size === 0) this.#pending.delete(hour);
    }
    return rows;
  }

  /** Rows a failed flush could not store, pending again. */
  giveBack(rows: readonly CountRow[]): void {
    for (const [hour, cluster, origin, policy, outcome, count] of rows) this.#add(hour, cluster, origin, policy, OUTCOME_INDEX[outcome], count);
  }
}

function originOf(result: ReviewOutcome["results"][number]): CountOrigin {
  if (result.origin !== "ValidatingAdmissionPolicy") return "builtin";
  return result.fleet !== undefined ? "fleet" : "cluster";
}
