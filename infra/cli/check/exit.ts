// `edgeadmit check`'s exit codes (docs/check.md), shared with `edgeadmit test`.
import { CliError, EXIT_FAILURE, EXIT_USAGE, firstLine } from "../../base/errors.js";
import { countsOf, failingModes, type CheckReport, type FailOn } from "../output/index.js";

/**
 * Findings at an enforced level (--fail-on) exit 1, whatever else happened;
 * else an input error or an object that could not be judged exits 2: a
 * Kubernetes object that cannot be read as written fails a CI run, as it
 * would fail kubectl apply (what is skipped never does, but under --strict,
 * where it is an error); else 0.
 */
export function exitCodeOf(report: CheckReport, failOn: FailOn): number {
  const counts = countsOf(report);
  if (failingModes(failOn).some((mode) => counts[mode] > 0)) return EXIT_FAILURE;
  return counts.inputErrors + counts.unreadable > 0 ? EXIT_USAGE : 0;
}

/** Exit 1 says "denied" (or "an expectation failed"), so anything that stops the verb from running is 2, in one line. */
export function cannotRun(e: unknown): CliError {
  if (e instanceof CliError) return new CliError(e.message, EXIT_USAGE);
  return new CliError(firstLine(e instanceof Error ? e.message : String(e)), EXIT_USAGE);
}
