// The report for code scanning (GitHub, GitLab, IDEs): SARIF 2.1.0, a rule per
// policy, a result per finding at the file and line of its object's document.
import { isAbsolute, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { describeResult, type PolicyResult } from "../../../shared/review/index.js";
import type { EnforcementMode } from "../../../shared/policy/index.js";
import type { Source } from "../../objects/yaml.js";
import { describeRef, type CheckReport } from "./index.js";

const LEVELS: Record<EnforcementMode, "error" | "warning" | "note"> = { Deny: "error", Warn: "warning", Audit: "note" };

/** The rule of objects no policy could read (the function answers their reviews 400). */
const UNREADABLE_RULE = "unreadable-object";
/** The rule of input that could not be judged as given: a bad file or document, a duplicate object. */
const INPUT_RULE = "input-error";

interface Rule {
  id: string;
  shortDescription: { text: string };
}

const ruleIdOf = (result: PolicyResult) => (result.origin ? `${result.origin}/${result.policy}` : result.policy);

/** A relative path stays relative (resolved against the checkout by the viewer); an absolute one becomes a file: URL. */
function uriOf(file: string): string {
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file.split(sep).map(encodeURIComponent).join("/");
}

function locationOf(source: Source | undefined, object: string) {
  const logicalLocations = [{ fullyQualifiedName: object, kind: "resource" }];
  // Objects read from stdin have no artifact a viewer could open.
  if (!source || source.file === "<stdin>") return { logicalLocations };
  const region = source.line !== undefined ? { region: { startLine: source.line } } : {};
  return { physicalLocation: { artifactLocation: { uri: uriOf(source.file) }, ...region }, logicalLocations };
}

export function renderSarif(report: CheckReport): string {
  const rules: Rule[] = report.policies.map((policy) => ({ id: policy.id, shortDescription: { text: policy.description } }));
  const ruleIndex = (id: string, description: string): number => {
    const known = rules.findIndex((rule) => rule.id === id);
    if (known >= 0) return known;
    return rules.push({ id, shortDescription: { text: description } }) - 1;
  };
  const results = report.objects.flatMap(({ ref, source, results: found, skipped, error }) => {
    const object = describeRef(ref);
    const locations = [locationOf(source, object)];
    if (error !== undefined) {
      const index = ruleIndex(UNREADABLE_RULE, "An object no policy can read: the function refuses its review");
      return [{ ruleId: UNREADABLE_RULE, ruleIndex: index, level: "error", message: { text: `${object}: ${error}` }, locations }];
    }
    const resultOf = (result: PolicyResult) => {
      const id = ruleIdOf(result);
      const index = ruleIndex(id, `The cluster's ValidatingAdmissionPolicy ${result.policy}`);
      return { ruleId: id, ruleIndex: index, level: LEVELS[result.mode], message: { text: describeResult(result) }, locations };
    };
    // An exception's results stay visible as suppressed, as code scanning shows a dismissed alert.
    return [
      ...found.map(resultOf),
      ...skipped.map((result) => ({ ...resultOf(result), suppressions: [{ kind: "external", justification: `EdgeAdmissionException ${result.exception}` }] })),
    ];
  });
  for (const error of report.errors) {
    const index = ruleIndex(INPUT_RULE, "Input that cannot be judged as given: a bad file or document, or two objects with one identity in one cluster");
    const object = error.object ? describeRef(error.object) : (error.source?.file ?? "input");
    results.push({ ruleId: INPUT_RULE, ruleIndex: index, level: "error", message: { text: error.message }, locations: [locationOf(error.source, object)] });
  }
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [{ tool: { driver: { name: "edgeadmit", rules } }, results }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
