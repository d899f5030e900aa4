// What a cluster's webhook rules, as its sync job last pushed them, do not
// send the function of the fleet policies bound on it: now (gaps), and once
// a later wave is promoted (upcoming). One computation for GET
// /v1/registry/coverage (`fleet status`), the fleet's overview (the
// dashboard) and GET /v1/registry/metrics, so all three say the same.
import { upcomingFleetRulesFor, type FleetPolicies } from "../../shared/fleet/index.js";
import type { Labels } from "../../shared/k8s/labels/index.js";
import { uncoveredPolicyRules, type WebhookRule } from "../../shared/vap/coverage.js";

export interface Coverage {
  /** Unknown until the cluster's sync job pushes the rules it read (an older one does not). */
  coverage: "known" | "unknown";
  gaps: string[];
  upcoming: string[];
}

/** `webhookRules` null or undefined: none pushed. */
export function coverageOf(policies: FleetPolicies | undefined, labels: Labels, webhookRules: readonly WebhookRule[] | null | undefined): Coverage {
  if (webhookRules === undefined || webhookRules === null) return { coverage: "unknown", gaps: [], upcoming: [] };
  const bound = policies?.forCluster(labels);
  return {
    coverage: "known",
    gaps: bound ? uncoveredPolicyRules(webhookRules, bound.set.rules) : [],
    // What a promotion (by hand or promoteAfter) would start enforcing where the rules do not send it.
    upcoming: policies ? uncoveredPolicyRules(webhookRules, upcomingFleetRulesFor(policies.stored.set, policies.stored.stages, labels)) : [],
  };
}
