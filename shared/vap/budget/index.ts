// The edge's cost budget per review, across every bound policy. The
// apiserver gives each policy binding evaluation its own 10,000,000 units per
// phase (RUNTIME_COST_BUDGET), so a review of 60 policies may spend 600M; the
// edge runs every policy of a cluster in one request's CPU time, so it adds
// one budget for the whole review: the fleet's policies and the cluster's
// own, every round the function judges it in (ReviewSession). Each phase of a policy draws from both:
// it starts with the apiserver's budget or what the review has left, if less,
// and what it spends is the review's spending. The review's budget is also
// the evaluations' edge meter (shared/cel EdgeMeter): it takes the units the
// edge charges beyond the apiserver's cost, and stops an expression that
// would take more than it has left.

/**
 * Cost units one review may spend over all its policies' expressions: twice
 * the apiserver's budget of one policy, so that one policy (or two) can
 * spend its own in full and meets the apiserver's limits and messages, while
 * 60 bound policies can no longer spend 60 times it.
 */
export const REVIEW_COST_BUDGET = 20_000_000;

/** A review's budget; `cut` once a phase ran out of it where the apiserver's own budget would have let it go on. */
export interface ReviewBudget {
  readonly limit: number;
  spent: number;
  cut: boolean;
}

export const createReviewBudget = (limit: number = REVIEW_COST_BUDGET): ReviewBudget => ({ limit, spent: 0, cut: false });

/** Whether the review's budget is spent: a policy that would start now is cut by the edge without running. */
export const reviewExhausted = (review: ReviewBudget): boolean => review.cut || review.spent >= review.limit;

/** What a phase whose apiserver budget is `budget` may spend: that, or what `review` has left, if less. */
export const phaseLimit = (review: ReviewBudget | undefined, budget: number): number =>
  review === undefined ? budget : Math.max(0, Math.min(budget, review.limit - review.spent));

/**
 * One review's budget and the evaluations it may take again as they were,
 * across its judgement rounds (the function judges a review again once it
 * has loaded the units an inventory lookup named: functions/routes/validate.ts)
 * and both policy sets (the fleet's, then the cluster's own). An evaluation
 * that met no unit its round lacked is final (judging is pure): a later round
 * takes its result instead of running it again, so a review spends what one
 * judgement holding every unit would, plus what the evaluations that met an
 * unloaded unit spent on the way, all from one budget.
 */
export class ReviewSession {
  readonly budget: ReviewBudget;
  /** Per policy set (its dispatcher), the final evaluations by policy, binding and param (shared/vap/dispatcher). */
  readonly kept = new WeakMap<object, Map<string, unknown>>();
  /** How many times the round's view has answered a unit it lacked as absent (shared/snapshot SnapshotView.missed); set each round by who judges. */
  missed: () => number = () => 0;

  constructor(limit: number = REVIEW_COST_BUDGET) {
    this.budget = createReviewBudget(limit);
  }
}
