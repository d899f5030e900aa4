// What `edgeadmit check` reports, and how: one report, three renderings
// (text for people, json for scripts, sarif for code-scanning dashboards).
import { ENFORCEMENT_MODES, type EnforcementMode, type Policy } from "../../../shared/policy/index.js";
import type { JudgedObject, ObjectRef } from "../../../shared/judge/index.js";
import type { Source } from "../../objects/yaml.js";

export interface CheckedObject {
  judged: JudgedObject;
  source: Source | undefined;
}

export interface CheckReport {
  objects: readonly CheckedObject[];
  /** The built-in policies run (a SARIF rule each, whether or not they found anything). */
  policies: readonly Policy[];
}

export type Counts = Record<EnforcementMode, number> & { objects: number; unreadable: number };

export function countsOf(report: CheckReport): Counts {
  const counts: Counts = { objects: report.objects.length, unreadable: 0, Deny: 0, Warn: 0, Audit: 0 };
  for (const { judged } of report.objects) {
    if (judged.error !== undefined) counts.unreadable++;
    for (const result of judged.results) counts[result.mode]++;
  }
  return counts;
}


/** `Deployment shop/web`, as the text report and SARIF's logical locations name an object. */
export function describeRef(ref: ObjectRef): string {
  return `${ref.kind} ${ref.namespace !== undefined ? `${ref.namespace}/` : ""}${ref.name}`;
}

/** The modes that fail a run under --fail-on: deny always; warn and audit add the milder modes. */
export const FAIL_ON = ["deny", "warn", "audit"] as const;
export type FailOn = (typeof FAIL_ON)[number];

export function failingModes(failOn: FailOn): readonly EnforcementMode[] {
  return ENFORCEMENT_MODES.slice(0, FAIL_ON.indexOf(failOn) + 1);
}
