// The report for scripts: every object checked, in input order, with its
// results; messages as the webhook writes them; then the input errors and
// what was skipped. Fields are only ever added.
import { describeResult, type PolicyResult } from "../../../shared/dispatcher/index.js";
import type { Source } from "../../objects/yaml.js";
import { countsOf, type CheckReport } from "./index.js";

const at = (source: Source | undefined) => (source ? { file: source.file, ...(source.line !== undefined ? { line: source.line } : {}) } : {});

const resultOf = (result: PolicyResult) => ({
  policy: result.policy,
  ...(result.origin ? { origin: result.origin } : {}),
  ...(result.binding !== undefined ? { binding: result.binding } : {}),
  mode: result.mode,
  message: describeResult(result),
  ...(result.field !== undefined ? { field: result.field } : {}),
});

export function renderJson(report: CheckReport): string {
  const objects = report.objects.map(({ ref, source, scope, results, skipped, error }) => ({
    ...ref,
    ...at(source),
    ...(scope !== undefined ? { scope } : {}),
    ...(error !== undefined ? { error } : { allowed: !results.some((result) => result.mode === "Deny") }),
    results: results.map(resultOf),
    ...(skipped.length > 0 ? { skipped: skipped.map((result) => ({ ...resultOf(result), exception: result.exception })) } : {}),
  }));
  const errors = report.errors.map((error) => ({ ...at(error.source), ...(error.object ? { object: error.object } : {}), message: error.message }));
  const skipped = report.skipped.map(({ source, reason }) => ({ ...at(source), reason }));
  return `${JSON.stringify({ apiVersion: "edgeadmit.io/v1alpha1", kind: "CheckReport", summary: { ...countsOf(report), clusters: report.scopes }, objects, errors, skipped, ...(report.missingFacts ? { missingFacts: report.missingFacts } : {}) }, null, 2)}\n`;
}
