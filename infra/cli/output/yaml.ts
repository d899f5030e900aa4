// The report as -o yaml: the json report's data (json.ts) as one YAML
// document, written object by object as json's is.
import { yamlOf } from "../output-flag.js";
import type { CheckReport } from "./index.js";
import { reportParts } from "./json.js";

/** The report in pieces, exactly as yamlOf(report) would write it whole. */
export function* yamlChunks(report: CheckReport): Generator<string> {
  const { head, objects, tail } = reportParts(report);
  yield yamlOf(head);
  let first = true;
  for (const object of objects()) {
    // A key's list is written at the key's indentation (yamlOf): each object is a one-item list of its own.
    yield `${first ? "objects:\n" : ""}${yamlOf([object])}`;
    first = false;
  }
  if (first) yield "objects: []\n";
  yield yamlOf(tail);
}

export function renderYaml(report: CheckReport): string {
  return [...yamlChunks(report)].join("");
}
