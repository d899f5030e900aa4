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

/**
 * Hands each word of `text` (a run of [a-z0-9] once lowercased) to `visit`
 * until it answers false; whether it never did. Only the words are
 * allocated: a workload may pin a value in 20,000 terms.
 */
function everyWord(text: string, visit: (word: string) => boolean): boolean {
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const char = i < lower.length ? lower.charCodeAt(i) : -1;
    // a-z or 0-9
    if ((char >= 0x61 && char <= 0x7a) || (char >= 0x30 && char <= 0x39)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (!visit(lower.slice(start, i))) return false;
      start = -1;
    }
  }
  return true;
}

/** The words of the workload's name and of its pods' label values. */
function ownWords(metadata: ObjectMeta, labels: Labels): Set<string> {
  const words = new Set<string>();
  const add = (word: string) => {
    words.add(word);
    return true;
  };
  for (const text of [metadata.name ?? "", metadata.generateName ?? "", ...Object.values(labels)]) everyWord(text, add);
  return words;
}

interface Drift {
  key: string;
  /** The pod's own value, which the selector should say. */
  own: string;
  /** What the selector pins instead. */
  pinned: readonly string[];
}

const NO_DRIFT: readonly Drift[] = [];

/** Each key the selector pins (matchLabels, then `In`) that the pods carry with another value; read per term, so nothing is allocated for a term without drift. */
function driftOf(selector: LabelSelector, labels: Labels): readonly Drift[] {
  let drift: Drift[] | undefined;
  const matchLabels = selector.matchLabels;
  if (matchLabels)
    for (const key in matchLabels) {
      const value = matchLabels[key]!;
      if (Object.hasOwn(matchLabels, key) && Object.hasOwn(labels, key) && labels[key] !== value) (drift ??= []).push({ key, own: labels[key]!, pinned: [value] });
    }
  const matchExpressions = selector.matchExpressions;
  if (matchExpressions)
    for (const { key, operator, values } of matchExpressions) {
      const pinned = values ?? [];
      if (operator === "In" && Object.hasOwn(labels, key) && !pinned.includes(labels[key]!)) (drift ??= []).push({ key, own: labels[key]!, pinned });
    }
  return drift ?? NO_DRIFT;
}

function evaluate(request: AdmissionRequest): Finding[] {
  const workload = userWorkload(request);
  if (!workload) return [];
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const terms = allTerms(workload.podSpec.affinity?.podAntiAffinity);
  // A workload that already spreads its own pods keeps other terms on
  // purpose: `app=db` beside `app=web` keeps web away from the database.
  if (terms.some((term) => selectsOwnPods(term, labels, namespace) === true)) return [];
  let words: Set<string> | undefined;
  const isOwnWord = (word: string) => (words ??= ownWords(workload.metadata, labels)).has(word);
  // A pinned value made of the workload's own words only, and of at least one.
  const madeOfOwnWords = (value: string) => {
    let count = 0;
    const allOwn = everyWord(value, (word) => {
      count++;
      return isOwnWord(word);
    });
    return allOwn && count > 0;
  };
  const meantForThisWorkload = (drift: Drift) => drift.pinned.some(madeOfOwnWords);
  const ref = workloadRef(workload.kind, workload.metadata);
  // Only the first few drifted terms are kept for messages, the rest counted.
  const reported: Array<readonly Drift[]> = [];
  let drifted = 0;
  for (const term of terms) {
    // Drift pins a key the pods carry to a value they no longer have.
    // `app notin (web)` or `!legacy` keep other pods away on purpose.
    const drift = term.labelSelector ? driftOf(term.labelSelector, labels) : NO_DRIFT;
    if (drift.length === 0 || selectsOwnLabels(term, labels) || termCoversNamespace(term, namespace) === false || !drift.some(meantForThisWorkload)) continue;
    if (drifted++ < MAX_LISTED) reported.push(drift);
  }
  const fix = (drift: readonly Drift[]) => drift.slice(0, MAX_LISTED).map(({ key, own }) => `${capped(key)}=${capped(own)}`).join(",") + (drift.length > MAX_LISTED ? ",…" : "");
  const findings: Finding[] = reported.map((drift) => ({
    message: `${ref}: podAntiAffinity misses its own pods (spreads nothing); use ${fix(drift)}`,
    field: `${workload.podSpecPath}.affinity.podAntiAffinity`,
  }));
  if (drifted > MAX_LISTED) findings.push({ message: `${ref}: and ${drifted - MAX_LISTED} more podAntiAffinity terms like these`, field: `${workload.podSpecPath}.affinity.podAntiAffinity` });
  return findings;
}

export const antiAffinityDriftPolicy: Policy = {
  id,
  description: "podAntiAffinity terms that share keys with the pod's labels also select the pod",
  defaultMode: "Warn",
  matches: isWorkloadWrite,
  evaluate,
};
