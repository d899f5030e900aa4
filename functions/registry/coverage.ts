// After an automatic wave promotion (promoteAfter), the clusters the new wave
// starts enforcing the policy on whose ValidatingWebhookConfiguration, as
// their sync jobs last pushed its rules, does not send the function what the
// policy matches: no operator ran the promotion, so the function's log says
// it (`edgeadmit fleet promote` warns by hand; `fleet status` shows it after).
import { actionsFor, rulesOf, type FleetSet } from "../../shared/fleet/index.js";
import type { Labels } from "../../shared/k8s/labels/index.js";
import { uncoveredPolicyRules } from "../../shared/vap/coverage.js";
import { log } from "../log/index.js";
import { loadSnapshot, type StoreEnv } from "../store/cache.js";
import type { AutomaticPromotion } from "./fleet.js";

/** Clusters whose snapshot one promotion reads at most: the log names these, and counts the rest for `edgeadmit fleet status`. */
export const MAX_CHECKED_CLUSTERS = 50;
const RENDER_AGAIN = "its webhook rules miss what the policy now enforced there matches: render edgeadmit webhook-config --operator-key again and apply it";
/** Snapshot reads in flight at once. */
const READS = 8;

/** Logs one warning per cluster `promotion` now enforces its policy on whose pushed webhook rules miss it, and one for the clusters whose rules are unknown or not read. */
export async function warnUncovered(env: StoreEnv, set: FleetSet, promotion: AutomaticPromotion, registrations: ReadonlyArray<{ cluster: string; labels: Labels }>, now: number): Promise<void> {
  const { binding, wave, change } = promotion;
  const rules = rulesOf(set, new Set([binding.spec.policyName]));
  const enforced = registrations.filter((entry) => actionsFor(binding, wave, entry.labels) !== undefined);
  const checked = enforced.slice(0, MAX_CHECKED_CLUSTERS);
  const unknown: string[] = [];
  for (let start = 0; start < checked.length; start += READS) {
    await Promise.all(
      checked.slice(start, start + READS).map(async ({ cluster }) => {
        const webhookRules = (await loadSnapshot(env, cluster, now)).loaded?.facts.part.webhookRules;
        if (webhookRules === undefined) return unknown.push(cluster);
        const missing = uncoveredPolicyRules(webhookRules, rules);
        if (missing.length > 0) log({ event: "fleet-coverage", change, cluster, missing, reason: RENDER_AGAIN });
      }),
    );
  }
  if (unknown.length > 0) log({ event: "fleet-coverage", change, clusters: unknown.sort(), reason: "coverage unknown: their sync jobs pushed no webhook rules (edgeadmit fleet status)" });
  const unchecked = enforced.length - checked.length;
  if (unchecked > 0) log({ event: "fleet-coverage", change, reason: `${unchecked} more clusters not checked here: edgeadmit fleet status ${binding.spec.policyName} shows each` });
}
