// Scratch files of a bench run (snapshots for child processes, bundles, YAML,
// the autocannon body) live in the project's git-ignored .edgeadmit/bench/,
// under fixed names so the commands the report shows can be re-run as printed.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../infra/base/root.js";

const SCRATCH_ROOT = join(PROJECT_ROOT, ".edgeadmit", "bench");

/** An empty directory for one section; what an earlier run left there is removed. */
export function scratchDir(name: string): string {
  const dir = join(SCRATCH_ROOT, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}
