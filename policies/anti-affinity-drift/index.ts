// anti-affinity-drift (incident C): a podAntiAffinity term meant to spread the
// workload's own pods whose selector no longer matches their labels (a chart's
// nameOverride renamed the pods but not the hard-coded selector): it spreads
// nothing. Drift: the selector pins (matchLabels, `In`) a key the pods carry
// to values they do not have.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { isWorkloadWrite, userWorkload, workloadRef } from "../../shared/k8s/controller/index.js";
import type { Labels } from "../../shared/k8s/labels/index.js";
import { allTerms, selectsOwnLabels, selectsOwnPods, termCoversNamespace } from "../../shared/k8s/podaffinity/index.js";
import type { LabelSelector } from "../../shared/k8s/schemas/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";

export const id = "anti-affinity-drift";

/** The pod's own `key=value` for each key the selector pins to another value: what the selector should say. */
function ownValuesFor(selector: LabelSelector, labels: Labels): string[] {
  const pinned = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, values: [value] })),
    ...(selector.matchExpressions ?? []).filter((r) => r.operator === "In").map((r) => ({ key: r.key, values: r.values ?? [] })),
  ];
  return pinned.filter(({ key, values }) => Object.hasOwn(labels, key) && !values.includes(labels[key]!)).map(({ key }) => `${key}=${labels[key]}`);
}

function evaluate(request: AdmissionRequest): Finding[] {
  const workload = userWorkload(request);
  if (!workload) return [];
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const terms = allTerms(workload.podSpec.affinity?.podAntiAffinity);
  // A workload that already spreads its own pods keeps other terms on
  // purpose: `app=db` beside `app=web` keeps web away from the database.
  if (terms.some(({ term }) => selectsOwnPods(term, labels, namespace) === true)) return [];
  const ref = workloadRef(workload.kind, workload.metadata);
  return terms.flatMap(({ term }): Finding[] => {
    // Drift pins a key the pods carry to a value they no longer have.
    // `app notin (web)` or `!legacy` keep other pods away on purpose.
    const drifted = term.labelSelector ? ownValuesFor(term.labelSelector, labels) : [];
    if (drifted.length === 0 || selectsOwnLabels(term, labels) || termCoversNamespace(term, namespace) === false) return [];
    const message = `${ref}: podAntiAffinity misses its own pods (spreads nothing); use ${drifted.join(",")}`;
    return [{ message, field: `${workload.podSpecPath}.affinity.podAntiAffinity` }];
  });
}

export const antiAffinityDriftPolicy: Policy = {
  id,
  description: "podAntiAffinity terms that share keys with the pod's labels also select the pod",
  defaultMode: "Warn",
  matches: isWorkloadWrite,
  evaluate,
};
