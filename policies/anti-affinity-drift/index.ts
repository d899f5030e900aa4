// anti-affinity-drift (incident C): a podAntiAffinity term meant to spread the
// workload's own pods whose selector no longer matches their labels (a chart's
// nameOverride renamed the pods but not the hard-coded selector): it spreads
// nothing. A term on another application's pods (`app=db` on `app=web`: keep
// web off the database's nodes) is a correct pattern with the same shape, so a
// finding needs evidence that the selector meant this workload: a value it
// pins, in place of the pods' own, made only of words of the workload's own
// name and labels (`kafscale-proxy` for pods of `kafscale-foo-proxy`).
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { isWorkloadWrite, userWorkload, workloadRef } from "../../shared/k8s/controller/index.js";
import type { Labels } from "../../shared/k8s/labels/index.js";
import { allTerms, selectsOwnLabels, selectsOwnPods, termCoversNamespace } from "../../shared/k8s/podaffinity/index.js";
import type { LabelSelector, ObjectMeta } from "../../shared/k8s/schemas/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import { capped, MAX_LISTED } from "../../shared/text/index.js";

export const id = "anti-affinity-drift";

const wordsOf = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/** The words of the workload's name and of its pods' label values. */
function ownWords(metadata: ObjectMeta, labels: Labels): Set<string> {
  const words = new Set<string>();
  for (const text of [metadata.name ?? "", metadata.generateName ?? "", ...Object.values(labels)]) for (const word of wordsOf(text)) words.add(word);
  return words;
}

interface Drift {
  key: string;
  /** The pod's own value, which the selector should say. */
  own: string;
  /** What the selector pins instead. */
  pinned: readonly string[];
}

/** Each key the selector pins (matchLabels, `In`) that the pods carry with another value. */
function driftOf(selector: LabelSelector, labels: Labels): Drift[] {
  const pinned = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, values: [value] })),
    ...(selector.matchExpressions ?? []).filter((r) => r.operator === "In").map((r) => ({ key: r.key, values: r.values ?? [] })),
  ];
  return pinned.filter(({ key, values }) => Object.hasOwn(labels, key) && !values.includes(labels[key]!)).map(({ key, values }) => ({ key, own: labels[key]!, pinned: values }));
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
  let words: Set<string> | undefined;
  const meantForThisWorkload = (drift: Drift) =>
    drift.pinned.some((value) => {
      const valueWords = wordsOf(value);
      words ??= ownWords(workload.metadata, labels);
      return valueWords.length > 0 && valueWords.every((word) => words!.has(word));
    });
  const ref = workloadRef(workload.kind, workload.metadata);
  const drifted = terms.flatMap(({ term }): Drift[][] => {
    // Drift pins a key the pods carry to a value they no longer have.
    // `app notin (web)` or `!legacy` keep other pods away on purpose.
    const drift = term.labelSelector ? driftOf(term.labelSelector, labels) : [];
    if (drift.length === 0 || selectsOwnLabels(term, labels) || termCoversNamespace(term, namespace) === false || !drift.some(meantForThisWorkload)) return [];
    return [drift];
  });
  const fix = (drift: Drift[]) => drift.slice(0, MAX_LISTED).map(({ key, own }) => `${capped(key)}=${capped(own)}`).join(",") + (drift.length > MAX_LISTED ? ",…" : "");
  const findings: Finding[] = drifted.slice(0, MAX_LISTED).map((drift) => ({
    message: `${ref}: podAntiAffinity misses its own pods (spreads nothing); use ${fix(drift)}`,
    field: `${workload.podSpecPath}.affinity.podAntiAffinity`,
  }));
  if (drifted.length > MAX_LISTED) findings.push({ message: `${ref}: and ${drifted.length - MAX_LISTED} more podAntiAffinity terms like these`, field: `${workload.podSpecPath}.affinity.podAntiAffinity` });
  return findings;
}

export const antiAffinityDriftPolicy: Policy = {
  id,
  description: "podAntiAffinity terms that share keys with the pod's labels also select the pod",
  defaultMode: "Warn",
  matches: isWorkloadWrite,
  evaluate,
};
