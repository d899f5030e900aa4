// `edgeadmit check`'s exit codes (docs/check.md), shared with `edgeadmit test`.
import { CliError, EXIT_FAILURE, EXIT_USAGE, firstLine } from "../../base/errors.js";
import { countsOf, failingModes, type CheckReport, type FailOn } from "../output/index.js";

/**
 * Findings at an enforced level (--fail-on) exit 1, whatever else happened;
 * else input that could not be judged exits 2 under --strict, or when no
 * object at all could be judged; else 0 (the errors are still reported).
 */
export function exitCodeOf(report: CheckReport, failOn: FailOn, strict: boolean): number {
  const counts = countsOf(report);
  if (failingModes(failOn).some((mode) => counts[mode] > 0)) return EXIT_FAILURE;
  const problems = counts.inputErrors + counts.unreadable;
  if (problems > 0 && (strict || counts.objects - counts.unreadable === 0)) return EXIT_USAGE;
  return 0;
}

/** Exit 1 says "denied" (or "an expectation failed"), so anything that stops the verb from running is 2, in one line. */
export function cannotRun(e: unknown): CliError {
  if (e instanceof CliError) return new CliError(e.message, EXIT_USAGE);
  return new CliError(firstLine(e instanceof Error ? e.message : String(e)), EXIT_USAGE);
}
