// Coverage: whether a cluster's ValidatingWebhookConfiguration sends the
// function what its policies match. A policy the apiserver never asks about
// is a policy that is not enforced. Used by the sync job (a warning per
// uncovered rule), `edgeadmit webhook-config`, and the function, which knows
// per cluster and fleet policy whether the rules the sync job pushed reach it.
import type { WebhookRule } from "../k8s/schemas/index.js";
import type { NamedRule } from "./schema/index.js";
import { withoutCredentials } from "../admission/credentials.js";

export type { WebhookRule };


/** Whether `list` holds `value` or the wildcard; a resource `x/*` or `*\/*` also covers subresources. */
function listCovers(list: readonly string[], value: string): boolean {
  return list.includes("*") || list.includes(value);
}

function resourceCovered(resources: readonly string[], resource: string): boolean {
  if (resources.includes(resource) || resources.includes("*/*")) return true;
  const slash = resource.indexOf("/");
  return slash < 0 ? resources.includes("*") : resources.includes(`${resource.slice(0, slash)}/*`) || resources.includes(`*/${resource.slice(slash + 1)}`);
}

/**
 * What the bound policies match that `webhookRules` do not send the
 * function, one line per policy rule: a policy the apiserver never asks
 * about is a policy that is not enforced. Conservative: a wildcard in the
 * policy's rule must be a wildcard in one webhook rule.
 */
export function uncoveredPolicyRules(webhookRules: readonly WebhookRule[], policyRules: ReadonlyArray<{ policy: string; rule: NamedRule }>): string[] {
  const missing: string[] = [];
  for (const { policy, rule } of policyRules) {
    // What the policy can be sent: never a credential resource (the webhook's rules leave them out, written out where a wildcard reached them).
    const holes = withoutCredentials(rule).flatMap((part) => holesOf(webhookRules, part));
    if (holes.length > 0) missing.push(`ValidatingAdmissionPolicy '${policy}' matches ${holes.slice(0, 5).join(", ")}${holes.length > 5 ? ` and ${holes.length - 5} more` : ""}`);
  }
  return missing;
}

/** What of one policy rule `webhookRules` do not send, as `<operation> <resource>.<group>/<version>`. */
function holesOf(webhookRules: readonly WebhookRule[], rule: NamedRule): string[] {
  const holes: string[] = [];
  for (const group of rule.apiGroups)
    for (const version of rule.apiVersions)
      for (const resource of rule.resources)
        for (const operation of rule.operations) {
          const sent = webhookRules.some(
            (w) =>
              listCovers(w.apiGroups, group) &&
              listCovers(w.apiVersions, version) &&
              resourceCovered(w.resources, resource) &&
              listCovers(w.operations, operation) &&
              // A resource has one scope: only opposite explicit scopes exclude each other.
              (w.scope === "*" || rule.scope === "*" || w.scope === rule.scope),
          );
          if (!sent) holes.push(`${operation} ${group === "" ? resource : `${resource}.${group}`}/${version}`);
        }
  return holes;
}
