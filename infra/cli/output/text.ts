// The report for people: one line per result, columns aligned, the message as
// the webhook writes it; then the counts.
import { describeResult } from "../../../shared/dispatcher/index.js";
import { where } from "../../objects/yaml.js";
import { countsOf, describeRef, type CheckReport } from "./index.js";

export function renderText(report: CheckReport): string {
  const rows = report.objects.flatMap(({ judged, source }) => {
    const location = source ? where(source) : "-";
    const object = describeRef(judged.ref);
    if (judged.error !== undefined) return [[location, object, "-", "Error", judged.error]];
    return judged.results.map((result) => [location, object, result.policy, result.mode, describeResult(result)]);
  });
  const widths = [0, 1, 2, 3].map((column) => Math.max(0, ...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) => row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]!) : cell)).join("  "));
  const counts = countsOf(report);
  const unreadable = counts.unreadable > 0 ? `, ${counts.unreadable} unreadable` : "";
  const summary = `${counts.objects} ${counts.objects === 1 ? "object" : "objects"} checked: ${counts.Deny} Deny, ${counts.Warn} Warn, ${counts.Audit} Audit${unreadable}`;
  return [...lines, ...(lines.length > 0 ? [""] : []), summary, ""].join("\n");
}
