// The edge's cost budget per review, across every bound policy. The
// apiserver gives each policy binding evaluation its own 10,000,000 units per
// phase (RUNTIME_COST_BUDGET), so a review of 60 policies may spend 600M; the
// edge runs every policy of a cluster in one request's CPU time, so it adds
// one budget for the whole review. Each phase of a policy draws from both:
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
