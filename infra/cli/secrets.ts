// Files that hold a secret of the operator's own (a private key, a token, a
// kubeconfig with a token in it) are written only where git will not pick
// them up: inside a git work tree the file must be ignored, or the operator
// says --allow-unignored. A key committed once is a key to rotate.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { CliError } from "../base/errors.js";
import type { CliIo } from "../base/io.js";

/** The flag that lets a secret be written where git would not ignore it. */
export const ALLOW_UNIGNORED = "allow-unignored";
export const ALLOW_UNIGNORED_FLAG = { [ALLOW_UNIGNORED]: { type: "boolean" } } as const;
export const ALLOW_UNIGNORED_HELP = `Inside a git work tree a file holding a secret is written only when git
ignores it (this project's .gitignore ignores *.key, *.token, the kubeconfig
and keys/); --${ALLOW_UNIGNORED} writes it anyway.`;

/** The top of the git work tree `path` would be in, if any (the path itself need not exist yet). */
function workTreeOf(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Throws unless every one of `files` may hold a secret: outside any git work
 * tree, ignored by git, or `allow` (--allow-unignored). Checked before anything
 * is written, so a refusal leaves nothing behind.
 */
export function refuseUnignoredSecrets(files: readonly string[], allow: boolean, secret = "a secret"): void {
  if (allow) return;
  for (const file of files) {
    const absolute = resolve(file);
    const tree = workTreeOf(absolute);
    if (tree === undefined) continue;
    try {
      // Exit 0: ignored; 1: not ignored. --no-index: judge the rules, also for a file git already tracks.
      execFileSync("git", ["-C", tree, "check-ignore", "-q", "--no-index", "--", relative(tree, absolute)], { stdio: "ignore" });
    } catch (e) {
      const status = (e as { status?: number | null }).status;
      throw new CliError(
        status === 1
          ? `not writing ${file}: it would hold ${secret} inside the git work tree ${tree}, and git does not ignore it (add it to .gitignore, write it outside the work tree, or pass --${ALLOW_UNIGNORED})`
          : `not writing ${file}: it would hold ${secret} inside the git work tree ${tree}, and git cannot say whether it ignores it (${(e as Error).message.split("\n")[0]}); pass --${ALLOW_UNIGNORED} to write it anyway`,
      );
    }
  }
}

/**
 * Before a verb prints `secret` (a token in a webhook URL, a private key in a
 * Secret): the file it goes to, given as -o or as stdout redirected by the
 * shell (`> webhook.yaml`), is held to refuseUnignoredSecrets, as keygen's
 * key file is: refused, nothing written. Where this system cannot tell the
 * redirected file's path, a warning on stderr says what the file holds.
 */
export function refuseSecretOutput(output: string | undefined, io: CliIo, allow: boolean, secret: string): void {
  const target = output ?? io.stdoutFile;
  if (target === undefined || allow) return;
  if (target === "") {
    io.err(`warning: stdout is a file, and it holds ${secret}: keep it out of git (docs/operations.md, the token in the URL)\n`);
    return;
  }
  refuseUnignoredSecrets([target], false, secret);
}
