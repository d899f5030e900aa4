// The report for scripts: every object checked, in input order, with its
// results; messages as the webhook writes them. Fields are only ever added.
import { describeResult } from "../../../shared/dispatcher/index.js";
import { countsOf, type CheckReport } from "./index.js";

export function renderJson(report: CheckReport): string {
  const objects = report.objects.map(({ judged, source }) => ({
    ...judged.ref,
    ...(source ? { file: source.file, ...(source.line !== undefined ? { line: source.line } : {}) } : {}),
    ...(judged.error !== undefined ? { error: judged.error } : { allowed: judged.decision.allowed }),
    results: judged.results.map((result) => ({
      policy: result.policy,
      ...(result.origin ? { origin: result.origin } : {}),
      ...(result.binding !== undefined ? { binding: result.binding } : {}),
      mode: result.mode,
      message: describeResult(result),
      ...(result.field !== undefined ? { field: result.field } : {}),
    })),
  }));
  return `${JSON.stringify({ apiVersion: "edgeadmit.io/v1alpha1", kind: "CheckReport", summary: countsOf(report), objects }, null, 2)}\n`;
}
