// The report for people: one line per result, columns aligned, the message as
// the webhook writes it; input errors after every verdict; then the counts and
// what was skipped, one line each.
import { describeResult } from "../../../shared/review/index.js";
import { where } from "../../objects/yaml.js";
import { countsOf, describeRef, missingFactsLine, skippedSummary, type CheckReport } from "./index.js";

/** How much of a message a text line shows: a quoted value can run to kilobytes; -o json carries it whole. */
export const TEXT_MESSAGE_CHARS = 300;
/**
 * How much of that is the message's end: what a message says last is why
 * (`… resulted in error: no such key: tolerations`), and the long part is
 * what it quotes before that (the expression, a value).
 */
export const TEXT_MESSAGE_END_CHARS = 100;

/** `text` cut at `at` or just before it, never inside a surrogate pair. */
const cutAt = (text: string, at: number): number => {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
};

/** A message on one line; past TEXT_MESSAGE_CHARS, its middle is cut and its end kept. */
function shown(message: string): string {
  const line = message.replace(/\s*\n\s*/g, " ");
  if (line.length <= TEXT_MESSAGE_CHARS) return line;
  const head = line.slice(0, cutAt(line, TEXT_MESSAGE_CHARS - TEXT_MESSAGE_END_CHARS));
  const tail = line.slice(cutAt(line, line.length - TEXT_MESSAGE_END_CHARS));
  return `${head}… (${line.length - head.length - tail.length} characters cut: -o json has the whole message) …${tail}`;
}

/** SGR colours of the mode column on a terminal: what blocks in red, what only warns in yellow. */
const COLOURS: Readonly<Record<string, string>> = { Deny: "31", Error: "31", Warn: "33", Audit: "36", Skip: "2" };

export function renderText(report: CheckReport, { colour = false }: { colour?: boolean } = {}): string {
  const rows = report.objects.flatMap(({ ref, source, results, skipped, error }) => {
    const location = source ? where(source) : "-";
    const object = describeRef(ref);
    if (error !== undefined) return [[location, object, "-", "Error", error]];
    return [
      ...results.map((result) => [location, object, result.policy, result.mode, describeResult(result)]),
      ...skipped.map((result) => [location, object, result.policy, "Skip", `skipped by EdgeAdmissionException ${result.exception}: ${describeResult(result)}`]),
    ];
  });
  for (const error of report.errors) rows.push([error.source ? where(error.source) : "-", error.object ? describeRef(error.object) : "-", "-", "Error", error.message]);
  const widths = [0, 1, 2, 3].map((column) => Math.max(0, ...rows.map((row) => row[column]!.length)));
  // Padded first, coloured after: escape codes take no columns.
  const paint = (cell: string, text: string) => (colour && COLOURS[cell] ? `\u001b[${COLOURS[cell]}m${text}\u001b[0m` : text);
  const lines = rows.map((row) => row.map((cell, column) => (column === 3 ? paint(cell, cell.padEnd(widths[column]!)) : column < widths.length ? cell.padEnd(widths[column]!) : shown(cell))).join("  "));
  const counts = countsOf(report);
  const extra = [
    ...(counts.unreadable > 0 ? [`${counts.unreadable} unreadable`] : []),
    ...(counts.exempted > 0 ? [`${counts.exempted} skipped by exceptions`] : []),
    ...(counts.inputErrors > 0 ? [`${counts.inputErrors} input ${counts.inputErrors === 1 ? "error" : "errors"}`] : []),
  ];
  const clusters = report.scopes > 1 ? ` as ${report.scopes} separate clusters` : "";
  const summary = `${counts.objects} ${counts.objects === 1 ? "object" : "objects"} checked${clusters}: ${counts.Deny} Deny, ${counts.Warn} Warn, ${counts.Audit} Audit${extra.map((part) => `, ${part}`).join("")}`;
  const notes = [skippedSummary(report.skipped), missingFactsLine(report)].filter((line) => line !== undefined);
  return [...lines, ...(lines.length > 0 ? [""] : []), summary, ...notes, ""].join("\n");
}
