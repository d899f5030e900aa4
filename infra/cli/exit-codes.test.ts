// One exit-code contract for every verb (infra/base/errors.ts): 0 ok; 1
// findings, a refused request or a failure on the way; 2 a command line or
// input that cannot be used, the cluster a verb reads included. Each verb is
// held to it here, in one table, so a verb that drifts fails by name.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../test/node/support/test-io.js";
import { startFakeApiServer } from "../../test/node/support/fake-apiserver.js";

const ROOT = join(__dirname, "..", "..");
const MISSING = "/nonexistent/edgeadmit-input";
const dir = mkdtempSync(join(tmpdir(), "edgeadmit-exit-"));
const pod = readFileSync(join(ROOT, "examples", "demo", "cluster.yaml"), "utf8");
const denied = JSON.parse(readFileSync(join(ROOT, "examples", "reviews", "pod-main-db-denied.json"), "utf8")).request.object;
const deniedFile = join(dir, "denied.yaml");
writeFileSync(deniedFile, `${pod}\n---\n${JSON.stringify(denied)}\n`);

// A server that is not edgeadmit: an HTML 501, as a web server's default page answers.
let other: Server;
let otherUrl = "";
let keyFile = "";
beforeAll(async () => {
  other = createServer((_request, response) => response.writeHead(501, { "content-type": "text/html" }).end("<!DOCTYPE HTML><html><body>Unsupported method</body></html>"));
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  keyFile = join(dir, "keys", "edgeadmit.key");
  expect((await runCli(["keygen", "--out", join(dir, "keys"), "--cluster", "c"])).code).toBe(0);
  writeFileSync(join(dir, "snapshot.json"), (await runCli(["snapshot", "build", "-f", join(ROOT, "examples", "demo", "cluster.yaml")])).stdout);
});
afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

describe("exit 2: a command line or input that cannot be used, every verb", () => {
  it.each<[string, () => string[], string]>([
    ["keygen", () => ["keygen"], "edgeadmit keygen: --out is required (see edgeadmit keygen --help)\n"],
    ["key public", () => ["key", "public", "--key", MISSING], `edgeadmit key public: cannot read key ${MISSING}: no such file\n`],
    ["token", () => ["token", "--cluster", "c", "--out", dir], "edgeadmit token: --url is required (see edgeadmit token --help)\n"],
    ["clusters check", () => ["clusters", "check", MISSING], `edgeadmit clusters check: cannot read CLUSTERS file ${MISSING}: no such file\n`],
    ["clusters add", () => ["clusters", "add", "c", "--endpoint", "http://127.0.0.1:8787", "--operator-key", MISSING, "--public-key", join(dir, "keys", "edgeadmit.pub"), "--anonymous"], `edgeadmit clusters add: cannot read key ${MISSING}: no such file\n`],
    ["clusters list", () => ["clusters", "list", "--endpoint", "http://127.0.0.1:8787/v1", "--operator-key", keyFile], "edgeadmit clusters list: --endpoint is the function's base URL, and http://127.0.0.1:8787/v1 already holds its /v1/ route: pass --endpoint http://127.0.0.1:8787\n"],
    ["operator keygen", () => ["operator", "keygen"], "edgeadmit operator keygen: --out is required (see edgeadmit operator keygen --help)\n"],
    ["snapshot build", () => ["snapshot", "build", "-f", MISSING], `edgeadmit snapshot build: cannot read ${MISSING}: no such file\n`],
    ["snapshot push (key)", () => ["snapshot", "push", "--endpoint", "http://127.0.0.1:1", "--cluster", "c", "--key", MISSING], `edgeadmit snapshot push: cannot read key ${MISSING}: no such file\n`],
    ["snapshot push (file)", () => ["snapshot", "push", "--endpoint", "http://127.0.0.1:1", "--cluster", "c", "--key", keyFile, MISSING], `edgeadmit snapshot push: cannot read snapshot ${MISSING}: no such file\n`],
    ["snapshot push (/v1)", () => ["snapshot", "push", "--endpoint", "http://127.0.0.1:8787/v1", "--cluster", "c", "--key", keyFile], "edgeadmit snapshot push: --endpoint is the function's base URL, and http://127.0.0.1:8787/v1 already holds its /v1/ route: pass --endpoint http://127.0.0.1:8787\n"],
    ["snapshot push (query)", () => ["snapshot", "push", "--endpoint", "https://h/?x=1", "--cluster", "c", "--key", keyFile], "edgeadmit snapshot push: --endpoint must be the function's base URL, without user info, query or fragment: pass --endpoint https://h\n"],
    ["sync", () => ["sync", "--endpoint", "http://127.0.0.1:1", "--cluster", "c", "--key", MISSING], `edgeadmit sync: cannot read key ${MISSING}: no such file\n`],
    ["audit", () => ["audit", "--page-size", "0"], 'edgeadmit audit: --page-size must be a whole number ≥ 1, not "0"\n'],
    ["review", () => ["review", "-f", MISSING], `edgeadmit review: cannot read ${MISSING}: no such file\n`],
    ["check", () => ["check", "-f", MISSING], `edgeadmit check: cannot read ${MISSING}: no such file\n`],
    ["test", () => ["test", MISSING], `edgeadmit test: cannot read ${MISSING}: no such file\n`],
    ["webhook-config (token)", () => ["webhook-config", "--url", "https://h", "--cluster", "c", "--token-file", MISSING], `edgeadmit webhook-config: cannot read token file ${MISSING}: no such file\n`],
    ["webhook-config (snapshot)", () => ["webhook-config", "--url", "https://h", "--cluster", "c", "--snapshot", MISSING], `edgeadmit webhook-config: cannot read snapshot ${MISSING}: no such file\n`],
  ])("%s", async (_verb, argv, stderr) => {
    expect(await runCli(argv())).toEqual({ code: 2, stdout: "", stderr });
  });

  describe("a cluster the verb reads that cannot be read: a --context the kubeconfig lacks, an apiserver that does not answer", () => {
    const verbs: Array<[string, string[]]> = [
      ["sync", ["sync", "--endpoint", "http://127.0.0.1:1", "--cluster", "c", "--key", MISSING.replace("input", "key")]],
      ["audit", ["audit", "--dry-run"]],
      ["snapshot build --from-cluster", ["snapshot", "build", "--from-cluster"]],
      ["check --from-cluster", ["check", "-f", deniedFile, "--from-cluster"]],
    ];
    let kubeconfig: string | undefined;
    let api: Awaited<ReturnType<typeof startFakeApiServer>>;
    beforeAll(async () => {
      api = await startFakeApiServer([]);
      kubeconfig = process.env.KUBECONFIG;
      process.env.KUBECONFIG = api.kubeconfig;
    });
    afterAll(async () => {
      // Put back for the files after this one in the same process (vitest.config.ts: isolate false).
      if (kubeconfig === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = kubeconfig;
      await api.stop();
    });

    it.each(verbs)("%s", async (_verb, argv) => {
      // sync reads its key first: give it one, so the cluster is what fails.
      const args = argv.map((arg) => (arg === MISSING.replace("input", "key") ? keyFile : arg));
      const unknown = await runCli([...args, "--context", "nope"]);
      expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no context "nope" in the kubeconfig (contexts: fake, elsewhere, wrong-token)')]);
      const unreachable = await runCli([...args, "--context", "elsewhere"]);
      expect([unreachable.code, unreachable.stderr]).toEqual([2, expect.stringMatching(/cannot reach the API server at https?:\/\/127\.0\.0\.1:\d+: ECONNREFUSED\n$/)]);
    });
  });

  it("bare edgeadmit prints the help to stderr, --help to stdout with 0", async () => {
    const bare = await runCli([]);
    expect(bare).toMatchObject({ code: 2, stdout: "" });
    expect(bare.stderr).toContain("Usage: edgeadmit <verb> [flags]");
    const asked = await runCli(["--help"]);
    expect(asked).toMatchObject({ code: 0, stderr: "", stdout: bare.stderr });
  });
});

describe("exit 1: findings, a refused request", () => {
  it("check with a Deny, clusters check with an unusable entry", async () => {
    const checked = await runCli(["check", "-f", deniedFile]);
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain("7 objects checked: 1 Deny, 0 Warn, 0 Audit");
    expect(await runCli(["clusters", "check", "-"], '{"c": {"publicKey": "ed25519:nope"}}')).toMatchObject({ code: 1 });
  });

  it("a server that is not edgeadmit is named as such, not quoted", async () => {
    expect(await runCli(["snapshot", "push", "--endpoint", otherUrl, "--cluster", "c", "--key", keyFile, join(dir, "snapshot.json")])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit snapshot push: ${otherUrl}/v1/c/snapshot answered 501 with text/html, not an edgeadmit answer: is --endpoint the function's base URL (https://HOST, without /v1)?\n`,
    });
  });

  it("https:// to a port that serves plain http says to use http://", async () => {
    const result = await runCli(["snapshot", "push", "--endpoint", otherUrl.replace("http:", "https:"), "--cluster", "c", "--key", keyFile, join(dir, "snapshot.json")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^edgeadmit snapshot push: cannot reach ${otherUrl.replace("http:", "https:")}/v1/c/snapshot: [A-Z_]+; if that port serves plain http \\(npm start does\\), use ${otherUrl}\\n$`));
  });
});

describe("exit 0, and the streams", () => {
  it("-f takes several paths after it, as its usage says", async () => {
    const other = join(dir, "configmap.yaml");
    writeFileSync(other, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: tenant-acme}\n");
    const both = await runCli(["check", "-f", deniedFile, other]);
    expect(both.code).toBe(1);
    expect(both.stdout).toContain("8 objects checked: 1 Deny");
    expect(await runCli(["check", join(ROOT, "examples", "demo", "cluster.yaml")])).toEqual({ code: 2, stdout: "", stderr: `edgeadmit check: unexpected argument "${join(ROOT, "examples", "demo", "cluster.yaml")}": paths follow -f (see edgeadmit check --help)\n` });
  });

  it("a reader that stops early (| head -1) ends the CLI quietly: no EPIPE stack, exit 0", async () => {
    const big = join(dir, "big.yaml");
    writeFileSync(big, Array.from({ length: 3000 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}, namespace: default}\n`).join("---\n"));
    const { stdout, stderr } = await promisify(execFile)("bash", ["-c", `set -o pipefail; node bin/edgeadmit.mjs review -f ${big} | head -c 20; echo " exit \${PIPESTATUS[0]}"`], { cwd: ROOT });
    expect({ stdout, stderr }).toEqual({ stdout: '{"apiVersion":"admis exit 0\n', stderr: "" });
  }, 60_000);
});
