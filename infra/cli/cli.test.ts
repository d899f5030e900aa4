import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { importPrivateKey, publicKeyOf } from "../../shared/signing/index.js";
import { runCli } from "../../test/node/support/test-io.js";

const ROOT = join(__dirname, "..", "..");
const run = promisify(execFile);

describe("edgeadmit (the installed bin)", () => {
  it("--help lists every verb with an example", async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, "bin", "edgeadmit.mjs"), "--help"], { cwd: ROOT });
    for (const verb of ["keygen", "snapshot build", "snapshot push", "sync", "review", "webhook-config"]) {
      expect(stdout).toMatch(new RegExp(`^  ${verb} +\\S`, "m"));
      expect(stdout).toMatch(new RegExp(`^  edgeadmit ${verb} `, "m"));
    }
  });

  it("a failure is one line on stderr, never a stack trace (a key that cannot be read: exit 2)", async () => {
    const failure = await run(process.execPath, [join(ROOT, "bin", "edgeadmit.mjs"), "snapshot", "push", "--endpoint", "http://127.0.0.1:1", "--cluster", "x", "--key", "/nonexistent.key"], {
      cwd: ROOT,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(failure).toMatchObject({ code: 2, stdout: "", stderr: "edgeadmit snapshot push: cannot read key /nonexistent.key: no such file\n" });
  });
});

describe("command line errors: one line, exit 2", () => {
  it.each([
    [["frobnicate"], 'edgeadmit: unknown verb "frobnicate" (edgeadmit --help lists them)\n'],
    [["snapshot"], "edgeadmit snapshot: say which: snapshot build, snapshot push\n"],
    [["snapshot", "pull"], 'edgeadmit: unknown verb "snapshot pull" (edgeadmit --help lists them)\n'],
    [["keygen"], "edgeadmit keygen: --out is required (see edgeadmit keygen --help)\n"],
    [["keygen", "--out"], "edgeadmit keygen: Option '--out <value>' argument missing (see edgeadmit keygen --help)\n"],
    [["review", "-f", "x.yaml", "--operation", "PATCH"], 'edgeadmit review: --operation must be one of CREATE, UPDATE, DELETE, not "PATCH"\n'],
    [["snapshot", "build", "-f", "a.yaml", "--from-cluster"], "edgeadmit snapshot build: give either -f PATH... or --from-cluster (see edgeadmit snapshot build --help)\n"],
    [["snapshot", "push", "--endpoint", "ftp://x", "--cluster", "c", "--key", "k"], "edgeadmit snapshot push: --endpoint must be the function's http(s):// base URL, not \"ftp://x\"\n"],
    [["snapshot", "push", "--cluster", "c", "--key", "k", "a.json", "b.json"], 'edgeadmit snapshot push: unexpected argument "b.json" (see edgeadmit snapshot push --help)\n'],
    [["sync", "--endpoint", "http://x"], "edgeadmit sync: --cluster is required (see edgeadmit sync --help)\n"],
  ])("%j", async (argv, stderr) => {
    expect(await runCli(argv)).toEqual({ code: 2, stdout: "", stderr });
  });

  it("offers -o yaml beside -o json, on every verb that prints json", async () => {
    const help = (await runCli(["--help"])).stdout;
    const names = [...help.matchAll(/^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*)?) {2,}/gm)].map((match) => match[1]!);
    const outputs = new Map<string, string>();
    for (const name of names) {
      const synopsis = (await runCli([...name.split(" "), "--help"])).stdout.split("\n\n")[0]!;
      const choices = /\[-o ([a-z|]+)\]/.exec(synopsis)?.[1];
      if (choices) outputs.set(name, choices);
    }
    expect(outputs.size).toBeGreaterThan(10);
    expect([...outputs].filter(([, choices]) => choices.split("|").includes("json") !== choices.split("|").includes("yaml"))).toEqual([]);
  });

  it("--version and -V print the release of package.json and the commit of the checkout", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const head = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    for (const flag of ["--version", "-V"]) expect(await runCli([flag])).toEqual({ code: 0, stdout: `edgeadmit ${version} (commit ${head})\n`, stderr: "" });
  });

  it("no arguments prints the help and exits 2; each verb has --help", async () => {
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("Usage: edgeadmit <verb> [flags]");
    const verbHelp = await runCli(["snapshot", "push", "--help"]);
    expect(verbHelp.code).toBe(0);
    expect(verbHelp.stdout).toMatch(/^edgeadmit snapshot push --endpoint URL --cluster ID --key FILE \[--allow-empty\] \[-o text\|json\|yaml\] \[FILE\|-\]\n/);
    const groupHelp = await runCli(["snapshot", "--help"]);
    expect(groupHelp.code).toBe(0);
    expect(groupHelp.stdout).toMatch(/^edgeadmit snapshot build \(-f PATH\.\.\. \[-n NS\] \[--kubernetes-version V\] \| --from-cluster[^\n]*\n[\s\S]*\nedgeadmit snapshot push --endpoint/);
  });
});

describe("keygen", () => {
  it("writes a 0600 PKCS#8 key and prints the public key as CLUSTERS wants it, and how to complete the registration", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "edgeadmit-keygen-")), "keys");
    const { code, stdout, stderr } = await runCli(["keygen", "--out", dir, "--cluster", "prod-eu"]);
    expect(code).toBe(0);
    const pem = readFileSync(join(dir, "edgeadmit.key"), "utf8");
    expect(statSync(join(dir, "edgeadmit.key")).mode & 0o777).toBe(0o600);
    await importPrivateKey(pem);
    const publicKey = await publicKeyOf(pem);
    expect(publicKey).toMatch(/^ed25519:[A-Za-z0-9+/]{43}=$/);
    expect(stdout).toBe(`${publicKey}\n`);
    expect(readFileSync(join(dir, "edgeadmit.pub"), "utf8")).toBe(`${publicKey}\n`);
    expect(stderr).toBe(
      `wrote ${join(dir, "edgeadmit.key")} (mode 0600) and ${join(dir, "edgeadmit.pub")}; register the cluster with its apiserver's credential: edgeadmit token --cluster prod-eu --url https://<function> --out ${dir} makes the token and prints the whole CLUSTERS entry ` +
        `(or, in the function's registry: edgeadmit clusters add prod-eu --public-key ${join(dir, "edgeadmit.pub")} --token-hash …)\n`,
    );

    expect(await runCli(["keygen", "--out", dir])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit keygen: cannot write ${join(dir, "edgeadmit.key")}: it already exists (pass --force to overwrite)\n`,
    });
    expect(readFileSync(join(dir, "edgeadmit.key"), "utf8")).toBe(pem);
    const forced = await runCli(["keygen", "--out", dir, "--force"]);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, "edgeadmit.key"), "utf8")).not.toBe(pem);
    expect(forced.stdout.split("\n")[0]).toBe(await publicKeyOf(readFileSync(join(dir, "edgeadmit.key"), "utf8")));
  });

  it("refuses a cluster id the function would refuse, before writing anything", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "edgeadmit-keygen-")), "keys");
    expect(await runCli(["keygen", "--out", dir, "--cluster", "Prod_EU"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `edgeadmit keygen: --cluster: cluster id "Prod_EU" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit\n`,
    });
    expect(existsSync(dir)).toBe(false);
  });

  it("cannot write into a path that is a file: one readable line", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "edgeadmit-keygen-")), "file");
    writeFileSync(file, "");
    expect(await runCli(["keygen", "--out", join(file, "keys")])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit keygen: cannot write ${join(file, "keys")}: a part of the path is not a directory\n`,
    });
  });
});

describe("key public", () => {
  it("prints the public key keygen printed, from the private key file or stdin", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-key-"));
    const made = await runCli(["keygen", "--out", dir, "--cluster", "c"]);
    const publicKey = made.stdout.split("\n")[0]!;
    expect(await runCli(["key", "public", "--key", join(dir, "edgeadmit.key")])).toEqual({ code: 0, stdout: `${publicKey}\n`, stderr: "" });
    expect(await runCli(["key", "public", "--key", "-"], readFileSync(join(dir, "edgeadmit.key"), "utf8"))).toEqual({ code: 0, stdout: `${publicKey}\n`, stderr: "" });
  });

  it.each([
    [["--key", "/nonexistent.key"], 2, "cannot read key /nonexistent.key: no such file"],
    [["--key", "/"], 2, "cannot read key /: it is a directory"],
    [["--key", "-"], 2, "--key -: not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)"],
    [[], 2, "--key is required (see edgeadmit key public --help)"],
  ])("%j fails in one line", async (argv, code, message) => {
    expect(await runCli(["key", "public", ...argv], "ssh-ed25519 AAAA\n")).toEqual({ code, stdout: "", stderr: `edgeadmit key public: ${message}\n` });
  });
});

describe("review", () => {
  const dir = mkdtempSync(join(tmpdir(), "edgeadmit-review-"));
  const pod = join(dir, "pod.yaml");
  writeFileSync(pod, "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers: [{ name: web, image: nginx }]\n");

  it("wraps one object into one indented AdmissionReview v1, in --namespace", async () => {
    const { code, stdout } = await runCli(["review", "-f", pod, "--namespace", "tenant-acme"]);
    expect(code).toBe(0);
    expect(stdout.startsWith('{\n  "apiVersion": "admission.k8s.io/v1",')).toBe(true);
    const review = JSON.parse(stdout);
    expect(review.request).toMatchObject({
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace: "tenant-acme",
      operation: "CREATE",
      object: { kind: "Pod", metadata: { generateName: "web-", namespace: "tenant-acme" } },
      oldObject: null,
    });
  });

  it("several objects give one JSON per line", async () => {
    const many = await runCli(["review", "-f", join(ROOT, "examples", "demo", "cluster.yaml")]);
    const lines = many.stdout.trimEnd().split("\n");
    expect(lines.map((line) => JSON.parse(line).request.kind.kind)).toEqual(["AffinityClass", "AffinityClass", "AffinityClass", "Tenant", "Tenant", "HelmRelease"]);
    expect(JSON.parse(lines[0]!).request.resource).toEqual({ group: "cozystack.io", version: "v1alpha1", resource: "affinityclasses" });
  });

  describe("--old", () => {
    const deployment = (replicas: number, namespace = "") =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web${namespace ? `, namespace: ${namespace}` : ""} }\nspec: { replicas: ${replicas} }\n`;
    const newer = join(dir, "new.yaml");
    writeFileSync(newer, `${deployment(3)}---\napiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec: {}\n`);

    it("matches old objects to new ones by group, kind, namespace and name: a match is an UPDATE, the rest CREATEs", async () => {
      const old = join(dir, "old.yaml");
      writeFileSync(old, deployment(2));
      const { code, stdout, stderr } = await runCli(["review", "-f", newer, "--old", old]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const [update, create] = stdout.trimEnd().split("\n").map((line) => JSON.parse(line).request);
      expect(update).toMatchObject({ kind: { kind: "Deployment" }, operation: "UPDATE", object: { spec: { replicas: 3 } }, oldObject: { spec: { replicas: 2 } } });
      expect(create).toMatchObject({ kind: { kind: "Pod" }, namespace: "default", operation: "CREATE", oldObject: null });
    });

    it.each([
      ["another namespace", deployment(2, "elsewhere"), "Deployment.apps elsewhere/web"],
      ["another group", deployment(2).replace("apps/v1", "extensions/v1beta1"), "Deployment.extensions default/web"],
      ["another kind", "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: web }\n", "ConfigMap default/web"],
    ])("an old object in %s matches none: named with file and line, exit 1", async (_, text, name) => {
      const old = join(dir, "unmatched.yaml");
      writeFileSync(old, `${deployment(2)}---\n${text}`);
      expect(await runCli(["review", "-f", newer, "--old", old])).toEqual({
        code: 1,
        stdout: "",
        stderr: `edgeadmit review: --old: no object in -f has the group, kind, namespace and name of ${name} (${old}:6)\n`,
      });
    });

    it("--operation sets one operation for every object", async () => {
      const old = join(dir, "old.yaml");
      writeFileSync(old, deployment(2));
      const { stdout } = await runCli(["review", "-f", newer, "--old", old, "--operation", "UPDATE"]);
      expect(stdout.trimEnd().split("\n").map((line) => JSON.parse(line).request.operation)).toEqual(["UPDATE", "UPDATE"]);
    });
  });
});

describe("webhook-config", () => {
  it("prints the configuration for the URL and cluster", async () => {
    const { code, stdout } = await runCli(["webhook-config", "--url", "https://admit.example.org/", "--cluster", "prod-eu", "--failure-policy", "Ignore", "--timeout", "3"]);
    expect(code).toBe(0);
    const [webhook] = parse(stdout).webhooks;
    expect(webhook).toMatchObject({
      clientConfig: { url: "https://admit.example.org/v1/prod-eu/validate" },
      failurePolicy: "Ignore",
      timeoutSeconds: 3,
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    });
  });

  it.each([
    [["--url", "http://admit.example.org", "--cluster", "c"], "--url must be https:// (the kube-apiserver calls webhooks over TLS only), not http://"],
    [["--url", "https://admit.example.org/?token=x", "--cluster", "c"], "--url may not carry a query string, fragment or user info: the kube-apiserver refuses them in clientConfig.url"],
    [["--url", "https://admit.example.org", "--cluster", "Prod_EU"], "--cluster: cluster id \"Prod_EU\" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit"],
    [["--url", "https://admit.example.org", "--cluster", "c", "--timeout", "31"], "--timeout must be a whole number of seconds from 1 to 30 (the kube-apiserver's range), not 31"],
    [["--url", "https://admit.example.org", "--cluster", "c", "--failure-policy", "Open"], "--failure-policy must be one of Fail, Ignore, not \"Open\""],
    [["--url", "https://h/v1/prod-eu/validate", "--cluster", "prod-eu"], "--url is the function's base URL, and https://h/v1/prod-eu/validate already holds its /v1/ route: pass --url https://h"],
    [["--url", "https://h/edge/v1", "--cluster", "prod-eu"], "--url is the function's base URL, and https://h/edge/v1 already holds its /v1/ route: pass --url https://h/edge"],
  ])("refuses %j", async (argv, message) => {
    expect(await runCli(["webhook-config", ...argv])).toEqual({ code: 2, stdout: "", stderr: `edgeadmit webhook-config: ${message}\n` });
  });

  describe("--ca-bundle", () => {
    // A self-signed certificate (public part only), as docs/local-kind.md makes one with openssl.
    const caFile = join(ROOT, "test", "fixtures", "tls", "ca.crt");
    const pem = readFileSync(caFile, "utf8");
    const argv = ["webhook-config", "--url", "https://172.18.0.1:8443", "--cluster", "kind", "--ca-bundle"];

    it("puts the certificates in clientConfig.caBundle, base64 as the API's []byte is", async () => {
      const { code, stdout, stderr } = await runCli([...argv, caFile]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(parse(stdout).webhooks[0].clientConfig).toEqual({ url: "https://172.18.0.1:8443/v1/kind/validate", caBundle: Buffer.from(pem).toString("base64") });
    });

    it("takes a bundle of several certificates whole", async () => {
      const dir = mkdtempSync(join(tmpdir(), "edgeadmit-ca-"));
      writeFileSync(join(dir, "bundle.crt"), `${pem}\n${pem}`);
      const { stdout } = await runCli([...argv, join(dir, "bundle.crt")]);
      expect(Buffer.from(parse(stdout).webhooks[0].clientConfig.caBundle, "base64").toString()).toBe(`${pem.trim()}\n${pem.trim()}\n`);
    });

    it.each([
      ["a private key beside the certificate", `${pem}-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n`, "must hold PEM certificates (-----BEGIN CERTIFICATE-----) and nothing else: never a private key"],
      ["no certificate", "not a certificate\n", "must hold PEM certificates (-----BEGIN CERTIFICATE-----) and nothing else: never a private key"],
      ["a certificate Node cannot read", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "certificate 1 cannot be read"],
    ])("refuses a file with %s, exit 2, nothing printed", async (_what, content, message) => {
      const dir = mkdtempSync(join(tmpdir(), "edgeadmit-ca-"));
      const file = join(dir, "ca.crt");
      writeFileSync(file, content);
      const result = await runCli([...argv, file]);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
      expect(result.stderr.startsWith(`edgeadmit webhook-config: --ca-bundle ${file}`)).toBe(true);
      expect(result.stderr).toContain(message);
    });

    it("refuses a missing file, exit 2", async () => {
      const result = await runCli([...argv, "/nonexistent/ca.crt"]);
      expect(result).toMatchObject({ code: 2, stdout: "" });
      expect(result.stderr).toMatch(/^edgeadmit webhook-config: cannot read CA bundle \/nonexistent\/ca\.crt: /);
    });
  });
});
