// `edgeadmit token` and `edgeadmit clusters check`: what an operator runs to
// give a cluster's apiserver its credential and to check CLUSTERS.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { tokenHash } from "../../shared/tokens/index.js";
import { runCli } from "../../test/node/support/test-io.js";

const fresh = () => mkdtempSync(join(tmpdir(), "edgeadmit-token-"));
const tokenIn = (dir: string) => readFileSync(join(dir, "edgeadmit.token"), "utf8").trim();

describe("edgeadmit token", () => {
  it("makes a token, the apiserver's kubeconfig and admission configuration, and prints only the token's hash", async () => {
    const dir = fresh();
    const { code, stdout, stderr } = await runCli(["token", "--cluster", "prod-eu", "--url", "https://edgeadmit.example.com", "--out", dir]);
    expect(code).toBe(0);
    const token = tokenIn(dir);
    expect(token).toMatch(/^edgeadmit_[A-Za-z0-9_-]{43}$/);
    expect(stdout).toBe(`${JSON.stringify({ tokenHashes: [await tokenHash(token)] })}\n`);
    expect(stdout).not.toContain(token);
    for (const file of ["edgeadmit.token", "webhook-kubeconfig.yaml", "admission-configuration.yaml"]) expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    expect(parse(readFileSync(join(dir, "webhook-kubeconfig.yaml"), "utf8"))).toEqual({
      apiVersion: "v1",
      kind: "Config",
      users: [{ name: "edgeadmit.example.com", user: { token } }],
    });
    expect(parse(readFileSync(join(dir, "admission-configuration.yaml"), "utf8"))).toEqual({
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "AdmissionConfiguration",
      plugins: [
        {
          name: "ValidatingAdmissionWebhook",
          configuration: { apiVersion: "apiserver.config.k8s.io/v1", kind: "WebhookAdmissionConfiguration", kubeConfigFile: "/etc/kubernetes/edgeadmit/webhook-kubeconfig.yaml" },
        },
      ],
    });
    expect(stderr).toMatch(/^wrote .*edgeadmit\.token, .*webhook-kubeconfig\.yaml, .*admission-configuration\.yaml \(mode 0600\); add the tokenHashes above to the "prod-eu" entry/);
  });

  it("names the webhook's host with its port in the kubeconfig when it is not 443", async () => {
    const dir = fresh();
    await runCli(["token", "--cluster", "lab", "--url", "https://edgeadmit.lab.internal:8443", "--out", dir, "--kubeconfig-path", "/srv/k8s/webhook.yaml"]);
    expect(parse(readFileSync(join(dir, "webhook-kubeconfig.yaml"), "utf8")).users[0].name).toBe("edgeadmit.lab.internal:8443");
    expect(parse(readFileSync(join(dir, "admission-configuration.yaml"), "utf8")).plugins[0].configuration.kubeConfigFile).toBe("/srv/k8s/webhook.yaml");
  });

  it("prints the webhook URL with the token in its path for managed control planes", async () => {
    const dir = fresh();
    const { code, stdout } = await runCli(["token", "--cluster", "prod-eu", "--url", "https://edgeadmit.example.com/", "--out", dir, "--form", "url"]);
    expect(code).toBe(0);
    const token = tokenIn(dir);
    expect(stdout).toBe(`${JSON.stringify({ tokenHashes: [await tokenHash(token)] })}\nhttps://edgeadmit.example.com/v1/prod-eu/token/${token}/validate\n`);

    // What docs/operations.md does next: webhook-config --token-file puts that same URL in the configuration.
    const config = await runCli(["webhook-config", "--url", "https://edgeadmit.example.com", "--cluster", "prod-eu", "--token-file", join(dir, "edgeadmit.token")]);
    expect(config.code).toBe(0);
    expect(parse(config.stdout).webhooks[0].clientConfig).toEqual({ url: stdout.split("\n")[1] });
  });

  it("webhook-config --token-file refuses a file without a token", async () => {
    const file = join(fresh(), "edgeadmit.token");
    writeFileSync(file, "not a token\n");
    expect(await runCli(["webhook-config", "--url", "https://h", "--cluster", "c", "--token-file", file])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit webhook-config: --token-file ${file} does not hold a token (edgeadmit token --form url writes one)\n`,
    });
  });

  it("run again, keeps the token (the other --form needs the same one); rotates: keeps the previous token and prints both hashes, so CLUSTERS accepts either meanwhile", async () => {
    const dir = fresh();
    await runCli(["token", "--cluster", "prod-eu", "--url", "https://edgeadmit.example.com", "--out", dir]);
    const previous = tokenIn(dir);
    // docs/operations.md runs the header form, then (managed control planes) the URL form into the same DIR.
    const again = await runCli(["token", "--cluster", "prod-eu", "--url", "https://edgeadmit.example.com", "--out", dir, "--form", "url"]);
    expect(again).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ tokenHashes: [await tokenHash(previous)] })}\nhttps://edgeadmit.example.com/v1/prod-eu/token/${previous}/validate\n`,
      stderr: `kept the token already in ${join(dir, "edgeadmit.token")} (--rotate replaces it); add the tokenHashes above to the "prod-eu" entry of the function's CLUSTERS, then: edgeadmit webhook-config --url https://edgeadmit.example.com --cluster prod-eu --token-file ${join(dir, "edgeadmit.token")} | kubectl apply -f -\n`,
    });
    expect(tokenIn(dir)).toBe(previous);
    const { code, stdout } = await runCli(["token", "--cluster", "prod-eu", "--url", "https://edgeadmit.example.com", "--out", dir, "--rotate"]);
    expect(code).toBe(0);
    expect(readFileSync(join(dir, "edgeadmit.token.previous"), "utf8").trim()).toBe(previous);
    expect(stdout).toBe(`${JSON.stringify({ tokenHashes: [await tokenHash(previous), await tokenHash(tokenIn(dir))] })}\n`);
  });

  it("after keygen into the same DIR, prints the cluster's whole CLUSTERS entry, which clusters check accepts as printed", async () => {
    const dir = fresh();
    const made = await runCli(["keygen", "--out", dir, "--cluster", "prod-eu"]);
    expect(made.stdout.split("\n")).toHaveLength(2); // the public key only: no token yet, so no entry that would be unusable
    const { code, stdout } = await runCli(["token", "--cluster", "prod-eu", "--url", "https://edgeadmit.example.com", "--out", dir]);
    expect(code).toBe(0);
    const hash = await tokenHash(tokenIn(dir));
    const entry = JSON.stringify({ "prod-eu": { publicKey: made.stdout.split("\n")[0], tokenHashes: [hash], withoutSnapshot: "FailOpen" } });
    expect(stdout).toBe(`${JSON.stringify({ tokenHashes: [hash] })}\n${entry}\n`);
    expect(await runCli(["clusters", "check", "-"], entry)).toEqual({ code: 0, stdout: "ok prod-eu: 1 signing key, 1 token hash, withoutSnapshot FailOpen, maxAgeSeconds 86400\n", stderr: "" });
    // keygen run after token (--force: a new key) prints the whole entry itself.
    const again = await runCli(["keygen", "--out", dir, "--cluster", "prod-eu", "--force"]);
    const publicKey = again.stdout.split("\n")[0];
    expect(again.stdout).toBe(`${publicKey}\n${JSON.stringify({ "prod-eu": { publicKey, tokenHashes: [hash], withoutSnapshot: "FailOpen" } })}\n`);
  });

  it("takes an http:// URL on this machine (npm start), nowhere else", async () => {
    const dir = fresh();
    const { code, stdout } = await runCli(["token", "--cluster", "demo", "--url", "http://127.0.0.1:8787", "--out", dir, "--form", "url"]);
    expect(code).toBe(0);
    expect(stdout.split("\n")[1]).toBe(`http://127.0.0.1:8787/v1/demo/token/${tokenIn(dir)}/validate`);
  });

  it.each([
    [["--cluster", "Prod_EU", "--url", "https://h", "--out", "x"], `edgeadmit token: --cluster: cluster id "Prod_EU" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit\n`],
    [["--cluster", "prod", "--url", "http://h", "--out", "x"], 'edgeadmit token: --url must be the function\'s https:// (http:// only for 127.0.0.1, localhost or [::1]) base URL, not "http://h"\n'],
    [["--cluster", "prod", "--url", "https://h?x=1", "--out", "x"], "edgeadmit token: --url must be the function's base URL, without user info, query or fragment: pass --url https://h\n"],
    [["--cluster", "prod", "--url", "https://h", "--out", "x", "--form", "cookie"], 'edgeadmit token: --form must be one of header, url, not "cookie"\n'],
    [["--cluster", "prod", "--url", "https://h/v1/prod/validate", "--out", "x"], "edgeadmit token: --url is the function's base URL, and https://h/v1/prod/validate already holds its /v1/ route: pass --url https://h\n"],
  ])("refuses %j in one line", async (args, message) => {
    expect(await runCli(["token", ...args])).toEqual({ code: 2, stdout: "", stderr: message });
  });
});

describe("edgeadmit clusters check", () => {
  it("loads CLUSTERS as the function does: the usable clusters, and every disabled one with why", async () => {
    const { publicKey } = await generateKeyPair();
    const file = join(fresh(), "clusters.json");
    writeFileSync(
      file,
      JSON.stringify({
        "prod-eu": { publicKey, tokenHashes: [await tokenHash("edgeadmit_aaaaaaaaaaaaaaaaaaaa")], withoutSnapshot: "FailClosed" },
        lab: { publicKey: [publicKey, publicKey], anonymous: true },
        My_Cluster: { publicKey },
        "no-token": { publicKey },
      }),
    );
    expect(await runCli(["clusters", "check", file])).toEqual({
      code: 1,
      stdout: [
        "ok prod-eu: 1 signing key, 1 token hash, withoutSnapshot FailClosed, maxAgeSeconds 86400",
        "ok lab: 2 signing keys, anonymous reviews allowed (never on the internet), withoutSnapshot FailOpen, maxAgeSeconds 86400",
        "unusable My_Cluster: cluster id \"My_Cluster\" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit",
        "unusable no-token: no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("exits 0 when every registration is usable, reading stdin", async () => {
    const { publicKey } = await generateKeyPair();
    const value = JSON.stringify({ lab: { publicKey, anonymous: true } });
    expect(await runCli(["clusters", "check"], value)).toEqual({ code: 0, stdout: "ok lab: 1 signing key, anonymous reviews allowed (never on the internet), withoutSnapshot FailOpen, maxAgeSeconds 86400\n", stderr: "" });
  });

  it("says what is wrong with a value that is not JSON", async () => {
    const { code, stdout } = await runCli(["clusters", "check", "-"], "{nope");
    expect(code).toBe(1);
    expect(stdout).toMatch(/^unusable \(CLUSTERS\): CLUSTERS is not JSON: /);
  });
});
