// The previous release, installed by the test that upgrades from it
// (test/node/upgrade.test.ts): its sources at its commit, out of this
// clone's own history (git archive), unpacked once into
// .edgeadmit/releases/<commit>/. Its packages resolve from this checkout's
// node_modules when its lock file asks for the same ones; otherwise it gets
// its own with `npm ci`. Its function runs in workerd from its own
// wrangler.toml, its CLI from its own bin/edgeadmit.mjs.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../../infra/base/root.js";
import { RELEASES } from "../../../shared/version/index.js";

const run = promisify(execFile);

/** The release before this one (shared/version RELEASES), which this one must upgrade from and roll back to. */
export const PREVIOUS_RELEASE = RELEASES.at(-2)!;

export interface InstalledRelease {
  version: string;
  commit: string;
  /** Where its sources are unpacked. */
  root: string;
}

/** A lock file's packages, without the project's own entry (its version is the release's, not a package's). */
function lockedPackages(lockFile: string): string {
  const lock = JSON.parse(readFileSync(lockFile, "utf8")) as { packages: Record<string, unknown> };
  const { "": _project, ...packages } = lock.packages;
  return JSON.stringify(packages);
}

/** The previous release's sources, unpacked and ready to run (see the module's comment). */
export async function installPreviousRelease(): Promise<InstalledRelease> {
  const commit = PREVIOUS_RELEASE.commit!;
  const root = join(PROJECT_ROOT, ".edgeadmit", "releases", commit);
  if (!existsSync(join(root, "package.json"))) {
    try {
      execFileSync("git", ["cat-file", "-e", `${commit}^{commit}`], { cwd: PROJECT_ROOT, stdio: "ignore" });
    } catch {
      throw new Error(
        `the previous release ${PREVIOUS_RELEASE.version} (commit ${commit}) is not in this clone's history: the upgrade test installs it from there; clone the repository whole (git fetch --unshallow)`,
      );
    }
    const staging = `${root}.${process.pid}.tmp`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    await run("sh", ["-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", commit, staging], { cwd: PROJECT_ROOT });
    try {
      renameSync(staging, root);
    } catch {
      // unpacked by another process first
      rmSync(staging, { recursive: true, force: true });
    }
  }
  if (lockedPackages(join(root, "package-lock.json")) !== lockedPackages(join(PROJECT_ROOT, "package-lock.json")) && !existsSync(join(root, "node_modules")))
    await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return { version: PREVIOUS_RELEASE.version, commit, root };
}
