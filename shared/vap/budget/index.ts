// The edge's cost budget per review, across every bound policy. The
// apiserver gives each policy binding evaluation its own 10,000,000 units per
// phase (RUNTIME_COST_BUDGET), so a review of 60 policies may spend 600M; the
// edge runs every policy of a cluster in one request's CPU time, so it adds
// one budget for the whole review. Each phase of a policy draws from both:
// its budget's limit is the apiserver's or what the review has left, if less,
// and what it spends is the review's spending.
import { createBudget, RUNTIME_COST_BUDGET, type Budget } from "../../cel/index.js";

/**
 * Cost units one review may spend over all its policies' expressions: twice
 * the apiserver's budget of one policy, so that one policy (or two) can
 * spend its own in full and meets the apiserver's limits and messages, while
 * 60 bound policies can no longer spend 60 times it.
 */
export const REVIEW_COST_BUDGET = 20_000_000;

/** A review's budget; `cut` once a phase ran out of it where the apiserver's own budget would have let it go on. */
export interface ReviewBudget extends Budget {
  cut: boolean;
}

export const createReviewBudget = (limit: number = REVIEW_COST_BUDGET): ReviewBudget => ({ limit, spent: 0, cut: false });

/** Whether the review's budget is spent: a policy that would start now is cut by the edge without running. */
export const reviewExhausted = (review: ReviewBudget): boolean => review.cut || review.spent >= review.limit;

/**
 * The budget of one phase of one policy: the apiserver's per-phase budget,
 * capped by what `review` has left, charging its spending to `review` as
 * well. Without a review budget, the apiserver's alone.
 */
export function phaseBudget(review: ReviewBudget | undefined): Budget {
  if (review === undefined) return createBudget(RUNTIME_COST_BUDGET);
  const start = review.spent;
  const limit = Math.max(0, Math.min(RUNTIME_COST_BUDGET, review.limit - start));
  return {
    limit,
    get spent() {
      return review.spent - start;
    },
    set spent(spent: number) {
      review.spent = start + spent;
      // Evaluations overspend by the step that crossed the limit; past the apiserver's own limit the apiserver's message stands.
      if (spent > limit && limit < RUNTIME_COST_BUDGET) review.cut = true;
    },
  };
}
