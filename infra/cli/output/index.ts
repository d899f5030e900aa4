// What `edgeadmit check` reports, and how: one report, three renderings
// (text for people, json for scripts, sarif for code-scanning dashboards).
import type { PolicyResult, SkippedResult } from "../../../shared/review/index.js";
import type { ObjectRef } from "../../../shared/judge/index.js";
import { ENFORCEMENT_MODES, type EnforcementMode, type Policy } from "../../../shared/policy/index.js";
import { where, type Source } from "../../objects/yaml.js";

/** One object's verdict, without the object: a report of many objects holds only this. */
export interface CheckedObject {
  ref: ObjectRef;
  source: Source | undefined;
  /** The cluster (scope) it was judged in, when the input was judged as more than one. */
  scope?: string;
  results: readonly PolicyResult[];
  /** Results an EdgeAdmissionException set aside. */
  skipped: readonly SkippedResult[];
  /** Why no policy could read it (the function answers its review 400). */
  error?: string;
  /** What the apiserver would have set before validation, by the function or plugin that sets it (-o json only). */
  defaulted?: ReadonlyArray<{ by: string; fields: readonly string[] }>;
}

/** Input that could not be judged as given: a bad file or document, a duplicate object under --strict. Reported after the verdicts; the run exits 2 under --strict or when nothing could be judged. */
export interface InputError {
  source?: Source;
  /** The object it is about, when there is one. */
  object?: ObjectRef;
  message: string;
}

/** A file or document read but not judged, and why (not a Kubernetes object, a kustomization, a patch). */
export interface SkippedInput {
  source: Source;
  reason: string;
}

export interface CheckReport {
  objects: readonly CheckedObject[];
  /** The built-in policies run (a SARIF rule each, whether or not they found anything). */
  policies: readonly Policy[];
  errors: readonly InputError[];
  skipped: readonly SkippedInput[];
  /** How many separate clusters the input was judged as. */
  scopes: number;
  /**
   * Namespaces the resources are in that the cluster facts do not define (so
   * only their names are known), when some bound policy's namespaceSelector
   * needs other labels: those verdicts were decided by failurePolicy.
   */
  missingFacts?: { namespaces: readonly string[]; labels: ReadonlyArray<{ policy: string; labels: readonly string[] }> };
}

/** The missing facts in one line, or undefined. */
export function missingFactsLine(report: CheckReport, named = 5): string | undefined {
  const missing = report.missingFacts;
  if (!missing) return undefined;
  const names = missing.namespaces.slice(0, named).join(", ") + (missing.namespaces.length > named ? `, … and ${missing.namespaces.length - named} more` : "");
  const needs = missing.labels.map(({ policy, labels }) => `${policy} needs ${labels.join(", ")}`).join("; ");
  return `missing facts: the labels of namespaces ${names} (not in the input: only their names are known); namespaceSelectors read them (${needs}), so failurePolicy decided: define the Namespaces (--policies) or check against --snapshot or --from-cluster`;
}

export type Counts = Record<EnforcementMode, number> & { objects: number; unreadable: number; exempted: number; inputErrors: number; skippedInputs: number };

export function countsOf(report: CheckReport): Counts {
  const counts: Counts = { objects: report.objects.length, unreadable: 0, Deny: 0, Warn: 0, Audit: 0, exempted: 0, inputErrors: report.errors.length, skippedInputs: report.skipped.length };
  for (const checked of report.objects) {
    if (checked.error !== undefined) counts.unreadable++;
    for (const result of checked.results) counts[result.mode]++;
    counts.exempted += checked.skipped.length;
  }
  return counts;
}

/** `Deployment shop/web`, as the text report and SARIF's logical locations name an object. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace !== undefined ? `${ref.namespace}/` : ""}${ref.name}`;
}

/** Skip reasons are plural; their singular, for a count of one. */
const SINGULAR: Readonly<Record<string, string>> = {
  "not Kubernetes objects": "not a Kubernetes object",
  kustomizations: "kustomization",
  "kustomize patches": "kustomize patch",
  "kustomize replacements": "kustomize replacement",
  "Helm templates": "Helm template",
  "dangling symlinks": "dangling symlink",
  "variants of an object read before (judged, not cluster facts)": "variant of an object read before (judged, not a cluster fact)",
};

/** How many inputs of each reason were skipped, naming the first few of each: one line however many there are. */
export function skippedSummary(skipped: readonly SkippedInput[], named = 3): string | undefined {
  if (skipped.length === 0) return undefined;
  const byReason = new Map<string, Source[]>();
  for (const { source, reason } of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), source]);
  const parts = [...byReason].map(([reason, sources]) => {
    const shown = sources.slice(0, named).map(where).join(", ");
    return `${sources.length} ${sources.length === 1 ? (SINGULAR[reason] ?? reason) : reason} (${shown}${sources.length > named ? `, … and ${sources.length - named} more` : ""})`;
  });
  return `skipped ${skipped.length} ${skipped.length === 1 ? "input" : "inputs"}: ${parts.join("; ")}`;
}

/** The modes that fail a run under --fail-on: deny always; warn and audit add the milder modes. */
export const FAIL_ON = ["deny", "warn", "audit"] as const;
export type FailOn = (typeof FAIL_ON)[number];

export function failingModes(failOn: FailOn): readonly EnforcementMode[] {
  return ENFORCEMENT_MODES.slice(0, FAIL_ON.indexOf(failOn) + 1);
}
