// What `npm start` keeps between starts (.edgeadmit/state: the function's
// Durable Objects, as workerd stores them) follows the deployed state's rule
// (docs/operations.md, "Upgrading"): a release reads what the releases of
// its skew window stored, and what the next one stored (a checkout one
// release back is a rollback). Anything further is started over, with the
// command that does it, rather than half read.
import { parseRelease, readsStateOf, RELEASE } from "../shared/version/index.js";

/** The file in the local state naming the release that last served it. */
export const STATE_RELEASE_FILE = "release";

/** How to start over: in every message about the local state. */
export const RESET_LOCAL_STATE = "stop npm start, run rm -rf .edgeadmit/state (the demo's keys and token stay), and npm start again";

/** Why this release must not serve the local state `written` (the release the file names) left, or undefined. */
export function localStateProblem(written: string | undefined, current = RELEASE): string | undefined {
  if (written === undefined) return undefined;
  const was = parseRelease(written);
  if (was && readsStateOf(was, parseRelease(current)!)) return undefined;
  return `the local state in .edgeadmit/state was written by edgeadmit ${written.slice(0, 40)}, which this checkout (${current}) does not read: ${RESET_LOCAL_STATE}`;
}
