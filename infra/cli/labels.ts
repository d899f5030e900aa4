// A cluster's labels on the command line: --label key=value, -l SELECTOR
// (kubectl's syntax), and key=value,… as a registration's labels print.
import { clusterLabelsError } from "../../shared/clusters/index.js";
import { parseSelector, selectorMatches } from "../../shared/k8s/labels/index.js";
import { optionalString, type ParsedArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";

/** `--label key=value` values as labels, checked as the registry checks them. */
export function labelFlags(values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const value of values) {
    const equals = value.indexOf("=");
    if (equals < 0) throw new CliError(`--label must be key=value, not "${value.slice(0, 80)}"`, EXIT_USAGE);
    labels[value.slice(0, equals)] = value.slice(equals + 1);
  }
  const problem = clusterLabelsError(labels);
  if (problem) throw new CliError(`--label: ${problem}`, EXIT_USAGE);
  return labels;
}

/** `key=value,other=x` as a registration's labels print. */
export function labelsText(labels: Readonly<Record<string, string>> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
}

/** -l SELECTOR: which registrations a listing keeps (kubectl's syntax). */
export function selectorFlag(args: ParsedArgs): ((labels: Readonly<Record<string, string>> | undefined) => boolean) | undefined {
  const text = optionalString(args, "selector");
  if (text === undefined) return undefined;
  const selector = parseSelector(text);
  if (typeof selector === "string") throw new CliError(`-l: ${selector}`, EXIT_USAGE);
  return (labels) => selectorMatches(selector, labels ?? {});
}
