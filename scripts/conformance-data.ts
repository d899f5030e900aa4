// Where `npm run conformance` finds the team's acceptance data: the team
// folder `shared/` beside the clone (../shared), never inside it. Checked
// before any test is collected, so a clone without it gets one sentence
// saying where the data must be instead of an ENOENT from deep in an import.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** The folders the conformance tests read, relative to the team folder. */
const CONFORMANCE_DATA = ["fixtures/real-world", "conformance/kubescape-cel-admission-library", "conformance/kubernetes-apiserver"] as const;

/** Why conformance cannot run from `projectRoot` (its data is missing), or undefined when it can. */
export function missingConformanceData(projectRoot: string): string | undefined {
  const team = resolve(projectRoot, "..", "shared");
  const missing = CONFORMANCE_DATA.filter((folder) => !existsSync(join(team, folder)));
  if (missing.length === 0) return undefined;
  return `npm run conformance reads the team's data beside this clone, in ${team}: ${missing.map((folder) => join(team, folder)).join(" and ")} ${missing.length === 1 ? "is" : "are"} missing. Put the team folder there (a copy or a symlink named shared next to the clone); npm test needs none of it.`;
}
