// Verdict counts: per cluster, per policy (built-in, the cluster's own
// ValidatingAdmissionPolicies, the fleet's), per outcome, per hour. Counted
// in the isolate as reviews are judged (a Map increment per result, no
// storage write) and flushed in bounded batches (functions/fleet/counts.ts).
import type { ReviewOutcome } from "../dispatcher/index.js";

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

/** Distinct rows an isolate holds between flushes: beyond it, counts are dropped and the drop is counted (a bound on memory, whatever the traffic). */
export const MAX_PENDING_ROWS = 20_000;

const SEP = "\u0000";

/** Counts not yet flushed, keyed by row; what a flush takes and, on failure, gives back. */
export class VerdictCounter {
  #pending = new Map<string, number>();
  /** Counts dropped because MAX_PENDING_ROWS rows were pending; reported with the next flush's log line. */
  dropped = 0;

  #add(key: string, by = 1): void {
    const count = this.#pending.get(key);
    if (count !== undefined) this.#pending.set(key, count + by);
    else if (this.#pending.size < MAX_PENDING_ROWS) this.#pending.set(key, by);
    else this.dropped += by;
  }

  /** One review's verdict and each policy's result, in the hour of `now`. */
  countReview(cluster: string, outcome: ReviewOutcome, now: number): void {
    const prefix = `${Math.floor(now / HOUR_MS)}${SEP}${cluster}${SEP}`;
    const { decision } = outcome;
    const verdict: CountOutcome = !decision.allowed ? "deny" : decision.warnings.length > 0 ? "warn" : Object.keys(decision.auditAnnotations).length > 0 ? "audit" : "allow";
    this.#add(`${prefix}review${SEP}${WHOLE_REVIEW}${SEP}${verdict}`);
    for (const result of outcome.results) this.#add(`${prefix}${originOf(result)}${SEP}${result.policy}${SEP}${result.mode === "Deny" ? "deny" : result.mode === "Warn" ? "warn" : "audit"}`);
    for (const result of outcome.skipped) this.#add(`${prefix}${originOf(result)}${SEP}${result.policy}${SEP}exempted`);
  }

  /** A review that could not be judged (a body that is not an AdmissionReview): an error of the review as a whole. */
  countError(cluster: string, now: number): void {
    this.#add(`${Math.floor(now / HOUR_MS)}${SEP}${cluster}${SEP}review${SEP}${WHOLE_REVIEW}${SEP}error`);
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Up to `max` pending rows, removed from what is pending. */
  take(max: number): CountRow[] {
    const rows: CountRow[] = [];
    for (const [key, count] of this.#pending) {
      if (rows.length >= max) break;
      this.#pending.delete(key);
      const [hour, cluster, origin, policy, outcome] = key.split(SEP) as [string, string, CountOrigin, string, CountOutcome];
      rows.push([Number(hour), cluster, origin, policy, outcome, count]);
    }
    return rows;
  }

  /** Rows a failed flush could not store, pending again. */
  giveBack(rows: readonly CountRow[]): void {
    for (const [hour, cluster, origin, policy, outcome, count] of rows) this.#add([hour, cluster, origin, policy, outcome].join(SEP), count);
  }
}

function originOf(result: ReviewOutcome["results"][number]): CountOrigin {
  if (result.origin !== "ValidatingAdmissionPolicy") return "builtin";
  return result.fleet !== undefined ? "fleet" : "cluster";
}
