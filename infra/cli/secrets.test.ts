// Secrets of the operator's own are written inside a git work tree only when git ignores them.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { execFile } from "node:child_process";
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

  it("webhook-config --token-file refuses a file git would not ignore, given with -o or as stdout redirected to it; writes where git ignores it", async () => {
    const dir = repo("*.token\nsecret-*.yaml\n");
    const token = join(dir, "edgeadmit.token");
    writeFileSync(token, `edgeadmit_${"a".repeat(43)}\n`);
    const flags = ["webhook-config", "--url", "https://edgeadmit.example.com", "--cluster", "prod-eu", "--token-file", token];
    const committed = join(dir, "clusters", "prod-eu", "webhook.yaml");
    const refusal = `edgeadmit webhook-config: not writing ${committed}: it would hold the apiserver's token (in the webhook URL, --token-file) inside the git work tree ${dir}, and git does not ignore it (add it to .gitignore, write it outside the work tree, or pass --allow-unignored)\n`;
    expect(await runCli([...flags, "-o", committed])).toEqual({ code: 1, stdout: "", stderr: refusal });
    expect(await runCli(flags, "", { stdoutFile: committed })).toEqual({ code: 1, stdout: "", stderr: refusal });
    expect(existsSync(committed)).toBe(false);
    // Without a token nothing secret is printed: a GitOps repository may hold it.
    expect((await runCli(flags.slice(0, -2), "", { stdoutFile: committed })).code).toBe(0);
    expect((await runCli([...flags, "-o", join(dir, "secret-webhook.yaml")])).stderr).toBe(`wrote ${join(dir, "secret-webhook.yaml")}\n`);
    expect(readFileSync(join(dir, "secret-webhook.yaml"), "utf8")).toContain(`/v1/prod-eu/token/edgeadmit_${"a".repeat(43)}/validate`);
    expect((await runCli(flags, "", { stdoutFile: "" })).stderr).toBe(
      "warning: stdout is a file, and it holds the apiserver's token (in the webhook URL, --token-file): keep it out of git (docs/operations.md, the token in the URL)\n",
    );
    // As a shell redirects it: the file the shell made stays empty.
    mkdirSync(join(dir, "clusters", "prod-eu"), { recursive: true });
    const shell = await promisify(execFile)("bash", ["-c", `node bin/edgeadmit.mjs ${flags.join(" ")} > ${committed.replace("webhook.yaml", "redirected.yaml")}; echo "exit $?"`], { cwd: join(__dirname, "..", "..") }).catch(() => undefined);
    expect(shell?.stdout).toBe("exit 1\n");
    expect(readFileSync(committed.replace("webhook.yaml", "redirected.yaml"), "utf8")).toBe("");
  }, 60_000);

  it("install --key refuses stdout redirected to a file git would not ignore", async () => {
    const dir = repo();
    const keys = mkdtempSync(join(tmpdir(), "edgeadmit-install-key-"));
    expect((await runCli(["keygen", "--out", keys])).code).toBe(0);
    const file = join(dir, "install.yaml");
    expect(await runCli(["install", "--cluster", "c", "--endpoint", "https://h", "--image", "registry.example.com/edgeadmit:0.1.0", "--key", join(keys, "edgeadmit.key")], "", { stdoutFile: file })).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit install: not writing ${file}: it would hold the cluster's private signing key (in the Secret, --key) inside the git work tree ${dir}, and git does not ignore it (add it to .gitignore, write it outside the work tree, or pass --allow-unignored)\n`,
    });
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
