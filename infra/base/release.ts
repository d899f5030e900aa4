// Which release and commit this CLI is: `edgeadmit --version` prints them and
// every call to the function names them (infra/client), so the function can
// hold the peer to its skew window and the registry shows each cluster's
// sync job release (docs/operations.md, "Upgrading").
import { execFileSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { RELEASE } from "../../shared/version/index.js";
import { projectRootOf } from "./project.js";

let commit: string | null | undefined;

/**
 * The git commit the CLI was built from: fixed into the CronJob's bundle and
 * the image when they are built (infra/bundle/build.ts defines
 * EDGEADMIT_COMMIT; "" when it was not known), read from the checkout the CLI
 * runs from otherwise; undefined when neither says.
 */
export function releaseCommit(): string | undefined {
  const fixed = process.env.EDGEADMIT_COMMIT;
  if (commit === undefined) commit = fixed !== undefined ? fixed || null : checkoutCommit();
  return commit ?? undefined;
}

/** HEAD of the checkout the CLI runs from; null when it is not one (a release unpacked inside another checkout is not). */
function checkoutCommit(): string | null {
  const project = projectRootOf(dirname(fileURLToPath(import.meta.url)));
  if (project === undefined) return null;
  try {
    const [top, head] = execFileSync("git", ["rev-parse", "--show-toplevel", "--short=12", "HEAD"], { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 }).split("\n");
    return realpathSync(top ?? "") === realpathSync(project) && /^[0-9a-f]{7,40}$/.test(head ?? "") ? head! : null;
  } catch {
    return null;
  }
}

/** `edgeadmit 0.2.0 (commit 1a2b3c4d5e6f)`: what --version prints. */
export function releaseLine(): string {
  const built = releaseCommit();
  return `edgeadmit ${RELEASE}${built ? ` (commit ${built})` : ""}`;
}
