// The report for scripts: every object checked, in input order, with its
// results; messages as the webhook writes them; then the input errors and
// what was skipped. Fields are only ever added. -o yaml (yaml.ts) writes the
// same parts.
import { describeResult, type PolicyResult } from "../../../shared/review/index.js";
import type { Source } from "../../objects/yaml.js";
import { countsOf, type CheckedObject, type CheckReport } from "./index.js";

const at = (source: Source | undefined) =>
  source ? { file: source.file, ...(source.line !== undefined ? { line: source.line } : {}), ...(source.column !== undefined ? { column: source.column } : {}) } : {};

const resultOf = (result: PolicyResult) => ({
  policy: result.policy,
  ...(result.origin ? { origin: result.origin } : {}),
  ...(result.binding !== undefined ? { binding: result.binding } : {}),
  mode: result.mode,
  message: describeResult(result),
  ...(result.field !== undefined ? { field: result.field } : {}),
});

const objectOf = ({ ref, source, scope, results, skipped, error, defaulted }: CheckedObject) => ({
  ...ref,
  ...at(source),
  ...(scope !== undefined ? { scope } : {}),
  ...(error !== undefined ? { error } : { allowed: !results.some((result) => result.mode === "Deny") }),
  results: results.map(resultOf),
  ...(skipped.length > 0 ? { skipped: skipped.map((result) => ({ ...resultOf(result), exception: result.exception })) } : {}),
  ...(defaulted !== undefined ? { defaulted } : {}),
});

/** The report's parts, for renderings that write it piece by piece: what comes before the objects, each object (made as it is written), what comes after. */
export function reportParts(report: CheckReport) {
  return {
    head: { apiVersion: "edgeadmit.io/v1alpha1", kind: "CheckReport", summary: { ...countsOf(report), clusters: report.scopes } },
    *objects(): Generator<ReturnType<typeof objectOf>> {
      for (const checked of report.objects) yield objectOf(checked);
    },
    tail: {
      errors: report.errors.map((error) => ({ ...at(error.source), ...(error.object ? { object: error.object } : {}), message: error.message })),
      skipped: report.skipped.map(({ source, reason }) => ({ ...at(source), reason })),
      ...(report.missingFacts ? { missingFacts: report.missingFacts } : {}),
    },
  };
}

/** `value` as JSON.stringify(value, null, 2) writes it at `depth` levels of indentation. */
const indented = (value: unknown, depth: number) => JSON.stringify(value, null, 2).replace(/\n/g, `\n${"  ".repeat(depth)}`);

/**
 * The report in pieces, one per object, exactly as JSON.stringify(report,
 * null, 2) would write it whole: a report of 45,000 objects is never one
 * string, nor a second copy of the verdicts.
 */
export function* jsonChunks(report: CheckReport): Generator<string> {
  const { head, objects, tail } = reportParts(report);
  yield `${indented(head, 0).slice(0, -2)},\n  "objects": [`;
  let first = true;
  for (const object of objects()) {
    yield `${first ? "\n" : ",\n"}    ${indented(object, 2)}`;
    first = false;
  }
  yield first ? "]" : "\n  ]";
  yield `,\n${indented(tail, 0).slice(2, -2)}\n}\n`;
}

export function renderJson(report: CheckReport): string {
  return [...jsonChunks(report)].join("");
}
