// A review whose inventory lookups each need the one before (issue 33): c0's
// ConfigMap `link` names c1, c1's names c2, …, so the function loads one
// namespace's shard per judgement round; beside it, policies that burn the
// review's cost budget (a regular expression over a 200,000-character
// annotation, ~920,000 units each). For tests and the bench.
import { wrapReview } from "../../shared/admission/wrap.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";

/** Never false; ~920,000 units to the apiserver (test/worker/review-budget.test.ts COSTLY, on an annotation). */
const BURN = `!object.metadata.annotations.big.matches('^${"A?".repeat(90)}$')`;

/** The ConfigMaps c0/link … c<depth>/link, each naming the next namespace. */
export const chainLinks = (depth: number): KubeObject[] =>
  Array.from({ length: depth + 1 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "link", namespace: `c${i}` }, data: { next: `c${i + 1}` } }));

const chain = (depth: number): string => (depth === 0 ? "'c0'" : `inventory.get('v1', 'ConfigMap', ${chain(depth - 1)}, 'link').value().data.next`);

/** A policy on Service CREATEs with `burns` copies of BURN, then, with `chainDepth`, the chain that deep; bound with Deny. */
export function serviceCreatePolicy(name: string, burns: number, chainDepth?: number): KubeObject[] {
  const expressions = [...Array.from({ length: burns }, () => BURN), ...(chainDepth === undefined ? [] : [`${chain(chainDepth)} == 'c${chainDepth}'`])];
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name, annotations: { "edgeadmit.io/inventory": JSON.stringify({ kinds: [{ apiVersion: "v1", kind: "ConfigMap", fields: ["data"] }] }) } },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["services"] }] },
        validations: expressions.map((expression) => ({ expression })),
      },
    },
    { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name, validationActions: ["Deny"] } },
  ];
}

/** The CREATE of a Service whose 200,000-character annotation the burners read. */
export const burningService = () =>
  wrapReview({ apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "elsewhere", annotations: { big: "a".repeat(200_000) } }, spec: { ports: [{ port: 80 }] } }, { namespace: "elsewhere", operation: "CREATE" });
