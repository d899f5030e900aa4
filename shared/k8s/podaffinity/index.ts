// Inter-pod (anti-)affinity terms as the scheduler reads them: which pods a
// term selects (labelSelector plus matchLabelKeys/mismatchLabelKeys), in
// which namespaces, and whether a selector names one application.
import * as z from "zod/mini";
import "../../zod/index.js";
import { ownKeys } from "../../json/index.js";
import { parseUnchanged } from "../../zod/unchanged.js";
import { NAMESPACE_NAME_LABEL, selectorIsEmpty, selectorMatches, type Labels } from "../labels/index.js";
import type { LabelSelector, PodAffinity, PodAffinityTerm, PodSpec } from "../schemas/index.js";
import { capped } from "../../text/index.js";

export const HOSTNAME_TOPOLOGY_KEY = "kubernetes.io/hostname";
/** Set by the apiserver on every namespace: a namespaceSelector can be judged on it alone. */

/**
 * Label keys whose value names one application, release or revision: a
 * selector that pins one of them (matchLabels, `In`, or matchLabelKeys) stays
 * inside its workload; a selector on other keys (`volume-group`, `tier`)
 * may match pods of every application that shares the label.
 */
const IDENTIFYING_LABEL_KEYS: ReadonlySet<string> = new Set([
  "app.kubernetes.io/name",
  "app.kubernetes.io/instance",
  "app",
  "name",
  "instance",
  "release",
  "k8s-app",
  "run",
  "helm.toolkit.fluxcd.io/name",
  "apps.cozystack.io/application.name",
  "pod-template-hash",
  "controller-revision-hash",
  "statefulset.kubernetes.io/pod-name",
  "job-name",
  "batch.kubernetes.io/job-name",
  "controller-uid",
  "batch.kubernetes.io/controller-uid",
]);

const labelKeysSchema = z.array(z.string());

/** mismatchLabelKeys is not in the shared schema (it passes through the loose object): read it here. */
function keysOf(value: unknown): readonly string[] {
  if (value == null) return NO_KEYS;
  const parsed = parseUnchanged(labelKeysSchema, value);
  return parsed.success ? parsed.data : NO_KEYS;
}
const NO_KEYS: readonly string[] = [];

export const matchLabelKeysOf = (term: PodAffinityTerm): readonly string[] => keysOf(term.matchLabelKeys);
export const mismatchLabelKeysOf = (term: PodAffinityTerm): readonly string[] => keysOf(term["mismatchLabelKeys"]);

/** Required terms of a podAffinity or podAntiAffinity. */
export function requiredTerms(affinity: PodAffinity | null | undefined): PodAffinityTerm[] {
  return affinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
}

/** Required and preferred terms, in that order: one list of the terms themselves, not a wrapper per term (a workload may hold 20,000). */
export function allTerms(affinity: PodAffinity | null | undefined): readonly PodAffinityTerm[] {
  const required = requiredTerms(affinity);
  const preferred = affinity?.preferredDuringSchedulingIgnoredDuringExecution;
  if (!preferred?.length) return required;
  const terms = required.slice();
  for (const weighted of preferred) terms.push(weighted.podAffinityTerm);
  return terms;
}

/**
 * Whether the term's namespaces include `namespace`: null namespaces and null
 * namespaceSelector mean the pod's own; `{}` means all. Undefined when only
 * namespace labels edgeadmit does not have could tell.
 */
export function termCoversNamespace(term: PodAffinityTerm, namespace: string | undefined): boolean | undefined {
  const namespaces = term.namespaces;
  const namespaceSelector = term.namespaceSelector;
  if (!namespaceSelector && !namespaces?.length) return true;
  if (namespaceSelector && selectorIsEmpty(namespaceSelector)) return true;
  if (namespace === undefined) return undefined;
  if (namespaces?.includes(namespace)) return true;
  if (namespaceSelector && selectorMatches(namespaceSelector, { [NAMESPACE_NAME_LABEL]: namespace })) return true;
  return namespaceSelector ? undefined : false;
}

/**
 * Whether the term selects the workload's own pods (labelled `labels`, in
 * `namespace`). A null labelSelector selects no pod. matchLabelKeys add
 * `key in (own value)`, which own pods always meet; mismatchLabelKeys add
 * `key notin (own value)`, which own pods carrying the key never meet.
 * Undefined when the namespace scope cannot be decided.
 */
export function selectsOwnPods(term: PodAffinityTerm, labels: Labels, namespace: string | undefined): boolean | undefined {
  return selectsOwnLabels(term, labels) ? termCoversNamespace(term, namespace) : false;
}

/** The label half of selectsOwnPods: whether the selector, with (mis)matchLabelKeys merged, selects pods labelled `labels`. */
export function selectsOwnLabels(term: PodAffinityTerm, labels: Labels): boolean {
  if (!term.labelSelector || !selectorMatches(term.labelSelector, labels)) return false;
  for (const key of mismatchLabelKeysOf(term)) if (Object.hasOwn(labels, key)) return false;
  return true;
}

/**
 * Whether the term of a pod labelled `own` selects a peer's pods labelled
 * `peer` in the same namespace. A (mis)matchLabelKeys key missing from the
 * own template may still be set by a controller (pod-template-hash), so it
 * counts as not proven: false.
 */
export function selectsPeerPods(term: PodAffinityTerm, own: Labels, peer: Labels, namespace: string | undefined): boolean {
  if (!term.labelSelector || !selectorMatches(term.labelSelector, peer)) return false;
  for (const key of matchLabelKeysOf(term)) if (!Object.hasOwn(own, key) || peer[key] !== own[key]) return false;
  for (const key of mismatchLabelKeysOf(term)) if (!Object.hasOwn(own, key) || peer[key] === own[key]) return false;
  return termCoversNamespace(term, namespace) === true;
}

/** Whether the term is scoped to one application: it pins an identifying key. */
export function namesOneApplication(term: PodAffinityTerm): boolean {
  // Read in place, not gathered: a workload may repeat its terms by the ten thousand.
  const selector = term.labelSelector;
  if (selector?.matchLabels) for (const key in selector.matchLabels) if (Object.hasOwn(selector.matchLabels, key) && IDENTIFYING_LABEL_KEYS.has(key)) return true;
  const matchExpressions = selector?.matchExpressions;
  if (matchExpressions) for (const requirement of matchExpressions) if (requirement.operator === "In" && IDENTIFYING_LABEL_KEYS.has(requirement.key)) return true;
  for (const key of matchLabelKeysOf(term)) if (IDENTIFYING_LABEL_KEYS.has(key)) return true;
  return false;
}

/** A selector term that will, with matchLabelKeys merged in, constrain nothing: `{}` selects every pod in scope. */
export function selectsEveryPod(term: PodAffinityTerm): boolean {
  return term.labelSelector != null && selectorIsEmpty(term.labelSelector) && matchLabelKeysOf(term).length === 0;
}

/** The pod has a nodeSelector of at least one key (its key list shared with the decode that checked it: it may hold 30,000). */
export const hasNodeSelector = (podSpec: PodSpec): boolean => podSpec.nodeSelector != null && ownKeys(podSpec.nodeSelector).length > 0;

/** The pod may only run on some nodes: a nodeSelector or a required node affinity. */
export function hasNodeConstraint(podSpec: PodSpec): boolean {
  const required = podSpec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return hasNodeSelector(podSpec) || (required?.nodeSelectorTerms.length ?? 0) > 0;
}

/** A required podAffinity term on the node topology that selects the workload's own pods: its pods share one node. */
export function coLocatingTerms(podSpec: PodSpec, labels: Labels, namespace: string | undefined): PodAffinityTerm[] {
  return requiredTerms(podSpec.affinity?.podAffinity).filter(
    (term) => term.topologyKey === HOSTNAME_TOPOLOGY_KEY && selectsOwnPods(term, labels, namespace) === true,
  );
}

/** How many requirements, and values of one, a described selector shows. */
const DESCRIBED = 4;

/** A selector in kubectl's string form, its first few requirements capped: `app=web,tier in (a,b),!legacy`. */
export function describeSelector(selector: LabelSelector): string {
  const parts: string[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (total++ < DESCRIBED) parts.push(`${capped(key)}=${capped(value)}`);
  for (const { key, operator, values } of selector.matchExpressions ?? []) {
    if (total++ >= DESCRIBED) continue;
    if (operator === "Exists") parts.push(capped(key));
    else if (operator === "DoesNotExist") parts.push(`!${capped(key)}`);
    else parts.push(`${capped(key)} ${operator.toLowerCase()} (${(values ?? []).slice(0, DESCRIBED).map((v) => capped(v)).join(",")}${(values ?? []).length > DESCRIBED ? ",…" : ""})`);
  }
  return total > DESCRIBED ? `${parts.join(",")},…` : parts.join(",");
}
