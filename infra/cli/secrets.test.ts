// Secrets of the operator's own are written inside a git work tree only when git ignores them.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test/node/support/test-io.js";

/** A fresh git work tree with `gitignore` as its .gitignore. */
function repo(gitignore?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "edgeadmit-repo-"));
  execFileSync("git", ["init", "-q", dir]);
  if (gitignore !== undefined) writeFileSync(join(dir, ".gitignore"), gitignore);
  return dir;
}

describe("secrets inside a git work tree", () => {
  it("keygen refuses a key git would not ignore, writes nothing, and names the way out", async () => {
    const dir = repo();
    const out = join(dir, "keys", "prod-eu");
    expect(await runCli(["keygen", "--out", out, "--cluster", "prod-eu"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit keygen: not writing ${join(out, "edgeadmit.key")}: it would hold a secret inside the git work tree ${dir}, and git does not ignore it (add it to .gitignore, write it outside the work tree, or pass --allow-unignored)\n`,
    });
    expect(existsSync(out)).toBe(false);
    expect((await runCli(["keygen", "--out", out, "--cluster", "prod-eu", "--allow-unignored"])).code).toBe(0);
    expect(existsSync(join(out, "edgeadmit.key"))).toBe(true);
  });

  it("keygen, token and operator keygen write where .gitignore covers them", async () => {
    const dir = repo("*.key\n*.token\n*.token.previous\nwebhook-kubeconfig.yaml\n");
    const out = join(dir, "keys");
    expect((await runCli(["keygen", "--out", out])).code).toBe(0);
    expect((await runCli(["operator", "keygen", "--out", out])).code).toBe(0);
    expect((await runCli(["token", "--cluster", "my-cluster", "--url", "https://h", "--out", out])).code).toBe(0);
    expect((await runCli(["token", "--cluster", "my-cluster", "--url", "https://h", "--out", out, "--rotate"])).code).toBe(0);
    // What git sees: the public halves and the admission configuration, nothing secret.
    expect(execFileSync("git", ["-C", dir, "status", "--porcelain", "--untracked-files=all"], { encoding: "utf8" }).split("\n").filter(Boolean).sort()).toEqual([
      "?? .gitignore",
      "?? keys/admission-configuration.yaml",
      "?? keys/edgeadmit.pub",
      "?? keys/operator.pub",
    ]);
  });

  it("token refuses the kubeconfig (it holds the token) when only the token is ignored, before writing either", async () => {
    const dir = repo("*.token\n*.token.previous\n");
    const out = join(dir, "keys");
    const refused = await runCli(["token", "--cluster", "c", "--url", "https://h", "--out", out]);
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit token: not writing ${join(out, "webhook-kubeconfig.yaml")}: it would hold a secret inside the git work tree ${dir}, and git does not ignore it (add it to .gitignore, write it outside the work tree, or pass --allow-unignored)\n`,
    });
    expect(existsSync(out)).toBe(false);
    // The URL form writes no kubeconfig.
    expect((await runCli(["token", "--cluster", "c", "--url", "https://h", "--out", out, "--form", "url"])).code).toBe(0);
  });

  it("this project's .gitignore and .dockerignore cover the files the CLI writes secrets to", () => {
    const root = join(__dirname, "..", "..");
    const probe = mkdtempSync(join(tmpdir(), "edgeadmit-ignore-"));
    execFileSync("git", ["init", "-q", probe]);
    writeFileSync(join(probe, ".gitignore"), readFileSync(join(root, ".gitignore")));
    mkdirSync(join(probe, "elsewhere"));
    for (const file of ["elsewhere/edgeadmit.key", "elsewhere/edgeadmit.token", "elsewhere/edgeadmit.token.previous", "elsewhere/webhook-kubeconfig.yaml", "elsewhere/operator.key", "keys/prod-eu/admission-configuration.yaml"])
      expect(() => execFileSync("git", ["-C", probe, "check-ignore", "-q", "--no-index", file]), file).not.toThrow();
    const docker = readFileSync(join(root, ".dockerignore"), "utf8").split("\n");
    for (const pattern of ["*.key", "*.token", "*.token.previous", "webhook-kubeconfig.yaml", "*.kubeconfig", "keys"]) expect(docker, pattern).toContain(pattern);
  });
});
