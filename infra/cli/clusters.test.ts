// `edgeadmit operator keygen` and `edgeadmit clusters add|rotate|remove|list|
// import` end to end: the CLI against the real function in workerd
// (startLocalWorker), its OPERATOR_KEYS the key the CLI made.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { storedSnapshot } from "../client/index.js";
import { runCli } from "../../test/node/support/test-io.js";
import { parse } from "yaml";

const dir = mkdtempSync(join(tmpdir(), "edgeadmit-registry-"));
const operatorKey = join(dir, "operator.key");
let worker: LocalWorker;
const target = () => ["--endpoint", worker.url, "--operator-key", operatorKey];
const EFFECT = "every isolate of the function uses it within seconds (docs/operations.md, Running a fleet)\n";

/** A cluster's credentials as edgeadmit keygen and token make them: the public key in a file, a token and its hash. */
async function cluster(name: string) {
  const keys = await generateKeyPair();
  const publicKeyFile = join(dir, `${name}.pub`);
  writeFileSync(publicKeyFile, `${keys.publicKey}\n`);
  const token = generateToken();
  return { ...keys, publicKeyFile, token, hash: await tokenHash(token) };
}

async function reviewStatus(id: string, token: string): Promise<number> {
  const review = readFileSync(join(__dirname, "..", "..", "examples", "reviews", "pod-main-db-allowed.json"), "utf8");
  const response = await fetch(`${worker.url}/v1/${id}/validate`, { method: "POST", body: review, headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  const made = await runCli(["operator", "keygen", "--out", dir]);
  expect(made.code).toBe(0);
  const publicKey = made.stdout.trim();
  expect(publicKey).toMatch(/^ed25519:[A-Za-z0-9+/]{43}=$/);
  expect(readFileSync(join(dir, "operator.pub"), "utf8")).toBe(`${publicKey}\n`);
  expect(statSync(operatorKey).mode & 0o777).toBe(0o600);
  expect(made.stderr).toBe(`wrote ${operatorKey} (mode 0600) and ${join(dir, "operator.pub")}; add the public key above to the function's OPERATOR_KEYS and deploy (docs/operations.md, Running a fleet)\n`);
  const legacy = await generateKeyPair();
  worker = await startLocalWorker({ clusters: { legacy: { publicKey: legacy.publicKey, anonymous: true } }, vars: { OPERATOR_KEYS: publicKey } });
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
});

describe("operator keygen", () => {
  it("keeps an existing key unless --force", async () => {
    expect(await runCli(["operator", "keygen", "--out", dir])).toEqual({ code: 1, stdout: "", stderr: `edgeadmit operator keygen: cannot write ${operatorKey}: it already exists (pass --force to overwrite)\n` });
  });
});

describe("clusters get, --dry-run and the registry context", () => {
  const lineOf = /^(\S+) revision (\d+): /;
  const registered = ["dry-a", "dry-0", "dry-9zzz", "dry-a0", "dry-b"];
  // The registry as the tests after these find it: only what they add.
  afterAll(async () => {
    for (const id of registered) expect((await runCli(["clusters", "remove", id, ...target()])).code).toBe(0);
  });

  it("add --dry-run prints the request and what it would do, and sends nothing; get shows one registration", async () => {
    const dry = await cluster("dry-a");
    const request = { op: "add", cluster: "dry-a", registration: { publicKey: [dry.publicKey], tokenHashes: [dry.hash], withoutSnapshot: "FailOpen", maxAgeSeconds: 86400, labels: { env: "prod" } } };
    const planned = await runCli(["clusters", "add", "dry-a", ...target(), "--public-key", dry.publicKeyFile, "--token-hash", dry.hash, "--label", "env=prod", "--dry-run"]);
    expect(planned).toEqual({
      code: 0,
      stdout: `POST ${worker.url}/v1/registry/clusters\n${JSON.stringify({ changes: [request] })}\nwould register dry-a: 1 signing key, 1 token hash, withoutSnapshot FailOpen, maxAgeSeconds 86400, labels env=prod\n`,
      stderr: "dry run: nothing sent\n",
    });
    expect(await runCli(["clusters", "get", "dry-a", ...target()])).toEqual({ code: 1, stdout: "", stderr: "edgeadmit clusters get: cluster dry-a is not registered: not in the registry, nor in CLUSTERS (edgeadmit clusters list)\n" });
    expect(await reviewStatus("dry-a", dry.token)).toBe(401);

    // Neighbours on both sides of the id: the page after the id before it is dry-a's own.
    for (const id of registered) {
      const c = await cluster(id);
      expect((await runCli(["clusters", "add", id, ...target(), "--public-key", c.publicKeyFile, "--token-hash", c.hash, ...(id === "dry-a" ? ["--label", "env=prod"] : [])])).code).toBe(0);
    }
    const listed = (await runCli(["clusters", "list", ...target()])).stdout.split("\n").find((line) => line.startsWith("dry-a "))!;
    expect(await runCli(["clusters", "get", "dry-a", ...target()])).toEqual({ code: 0, stdout: `${listed}\n`, stderr: "" });
    const json = JSON.parse((await runCli(["clusters", "get", "dry-a", ...target(), "-o", "json"])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ cluster: "dry-a", labels: { env: "prod" }, tokenHashes: [expect.stringMatching(/^sha256:/)] });
    expect(parse((await runCli(["clusters", "get", "dry-a", ...target(), "-o", "yaml"])).stdout)).toEqual(json);
    expect(await runCli(["clusters", "get", "legacy", ...target()])).toEqual({
      code: 0,
      stdout: "legacy: in CLUSTERS, the function's variable, whose registrations are not listed (edgeadmit clusters check reads a CLUSTERS value)\n",
      stderr: "",
    });
    expect(await runCli(["clusters", "add", "dry-a", ...target(), "--public-key", dry.publicKeyFile, "--anonymous", "--dry-run"])).toMatchObject({
      code: 1,
      stderr: `edgeadmit clusters add: dry run: the function would refuse it (409): cluster dry-a is registered already (revision ${lineOf.exec(listed)![2]}): edgeadmit clusters rotate changes a registration; nothing sent\n`,
    });
  });

  it("rotate, label, remove and import --dry-run: what they would do against what is registered, or the refusal; nothing changes", async () => {
    const before = (await runCli(["clusters", "get", "dry-a", ...target()])).stdout;
    const revision = lineOf.exec(before)![2]!;
    const key = (await generateKeyPair()).publicKey;
    const rotate = await runCli(["clusters", "rotate", "dry-a", ...target(), "--add-key", key, "--without-snapshot", "FailClosed", "--dry-run"]);
    expect(rotate).toEqual({
      code: 0,
      stdout: [
        `POST ${worker.url}/v1/registry/clusters`,
        JSON.stringify({ changes: [{ op: "rotate", cluster: "dry-a", addPublicKeys: [key], withoutSnapshot: "FailClosed" }] }),
        `would rotate dry-a (revision ${revision}): added 1 signing key, withoutSnapshot FailClosed`,
        "  now:   1 signing key, 1 token hash, withoutSnapshot FailOpen, maxAgeSeconds 86400, labels env=prod",
        "  after: 2 signing keys, 1 token hash, withoutSnapshot FailClosed, maxAgeSeconds 86400, labels env=prod",
        "",
      ].join("\n"),
      stderr: "dry run: nothing sent\n",
    });
    const onlyKey = (JSON.parse((await runCli(["clusters", "get", "dry-a", ...target(), "-o", "json"])).stdout) as { publicKey: string[] }).publicKey[0]!;
    expect((await runCli(["clusters", "rotate", "dry-a", ...target(), "--remove-key", onlyKey, "--dry-run"])).stderr).toBe(
      "edgeadmit clusters rotate: dry run: the function would refuse it (409): cluster dry-a would have no signing key left: add the new one in the same rotate; nothing sent\n",
    );
    expect((await runCli(["clusters", "label", "dry-a", "ring=canary", "env-", "legacy-", ...target(), "--dry-run"])).stdout).toBe(
      [
        `POST ${worker.url}/v1/registry/clusters`,
        JSON.stringify({ changes: [{ op: "label", cluster: "dry-a", set: { ring: "canary" }, remove: ["env", "legacy"] }] }),
        'label "legacy" not found.',
        `would label dry-a (revision ${revision}): set ring=canary, removed env`,
        "  labels now: env=prod; after: ring=canary",
        "  fleet revision 0 on it: no fleet policy bound, removed or changed",
        "",
      ].join("\n"),
    );
    expect(await runCli(["clusters", "remove", "dry-a", ...target(), "--dry-run", "--if-revision", revision])).toEqual({
      code: 0,
      stdout: [
        `POST ${worker.url}/v1/registry/clusters`,
        JSON.stringify({ changes: [{ op: "remove", cluster: "dry-a", ifRevision: Number(revision) }] }),
        `would remove dry-a (revision ${revision}): 1 signing key, 1 token hash, withoutSnapshot FailOpen, maxAgeSeconds 86400, labels env=prod`,
        "  within seconds its apiserver's reviews and its sync job's pushes get 401, as an unknown cluster's; its stored snapshot stays",
        "",
      ].join("\n"),
      stderr: "dry run: nothing sent\n",
    });
    expect((await runCli(["clusters", "remove", "dry-gone", ...target(), "--dry-run"])).stderr).toBe("edgeadmit clusters remove: dry run: the function would refuse it (404): the registry does not hold cluster dry-gone; nothing sent\n");
    const c = await cluster("dry-new");
    const imported = await runCli(["clusters", "import", ...target(), "--dry-run"], JSON.stringify({ "dry-new": { publicKey: c.publicKey, tokenHashes: [c.hash] }, "dry-b": JSON.parse((await runCli(["clusters", "get", "dry-b", ...target(), "-o", "json"])).stdout) }).replace(/"(cluster|revision|updatedAt)":("[^"]*"|\d+),/g, ""));
    expect(imported.stdout).toBe(`unchanged dry-b: the registry holds the same registration\nPOST ${worker.url}/v1/registry/clusters\n${JSON.stringify({ changes: [{ op: "add", cluster: "dry-new", registration: { publicKey: [c.publicKey], tokenHashes: [c.hash], withoutSnapshot: "FailOpen", maxAgeSeconds: 86400 } }] })}\nwould import dry-new\n`);
    expect(imported.stderr).toBe("dry run: nothing sent; would import 1, unchanged 1\n");
    expect((await runCli(["clusters", "get", "dry-a", ...target()])).stdout).toBe(before);
    expect((await runCli(["clusters", "get", "dry-new", ...target()])).code).toBe(1);
  });

  it("a registry context: EDGEADMIT_ENDPOINT and EDGEADMIT_OPERATOR_KEY, or a context of the contexts file, instead of the flags", async () => {
    const saved = { ...process.env };
    try {
      process.env.EDGEADMIT_CONTEXTS = join(dir, "config", "contexts.yaml");
      expect(await runCli(["context", "set", "local", "--endpoint", worker.url, "--operator-key", operatorKey, "--use"])).toEqual({
        code: 0,
        stdout: `context local created: ${worker.url}, operator key ${operatorKey}\nswitched to context local\n`,
        stderr: `in ${process.env.EDGEADMIT_CONTEXTS}\n`,
      });
      const viaContext = await runCli(["clusters", "get", "dry-a"]);
      expect(viaContext.stdout).toMatch(/^dry-a revision \d+: /);
      // A variable wins over the current context; a flag over both; --context over the variables.
      process.env.EDGEADMIT_ENDPOINT = "http://127.0.0.1:1";
      expect((await runCli(["clusters", "get", "dry-a"])).stderr).toMatch(/^edgeadmit clusters get: cannot reach http:\/\/127\.0\.0\.1:1\/v1\/registry\/clusters\?/);
      expect((await runCli(["clusters", "get", "dry-a", "--endpoint", worker.url])).stdout).toBe(viaContext.stdout);
      expect((await runCli(["clusters", "get", "dry-a", "--context", "local"])).stdout).toBe(viaContext.stdout);
      expect((await runCli(["clusters", "get", "dry-a", "--context", "nope"])).stderr).toBe(`edgeadmit clusters get: --context nope: ${process.env.EDGEADMIT_CONTEXTS} has no such context (edgeadmit context list)\n`);
    } finally {
      // Put back for the files after this one in the same process (vitest.config.ts: isolate false).
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });
});

describe("a cluster's life in the registry, no deploy", () => {
  it("add: the apiserver's token and the sync job's key work at once", async () => {
    const prod = await cluster("prod-eu");
    expect(await reviewStatus("prod-eu", prod.token)).toBe(401);
    const added = await runCli(["clusters", "add", "prod-eu", ...target(), "--public-key", prod.publicKeyFile, "--token-hash", prod.hash, "--without-snapshot", "FailClosed"]);
    expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^registered prod-eu \(revision \d+\): 1 signing key, 1 token hash, withoutSnapshot FailClosed, maxAgeSeconds 86400\n$/), stderr: EFFECT });
    expect(await reviewStatus("prod-eu", prod.token)).toBe(200);
    expect(await storedSnapshot(worker.url, "prod-eu", prod.privateKeyPem)).toBeUndefined();
    const built = await runCli(["snapshot", "build", "-f", join(__dirname, "..", "..", "examples", "demo", "cluster.yaml")]);
    writeFileSync(join(dir, "prod-eu.key"), prod.privateKeyPem);
    expect((await runCli(["snapshot", "push", "--endpoint", worker.url, "--cluster", "prod-eu", "--key", join(dir, "prod-eu.key")], built.stdout)).code).toBe(0);

    // rotate: both tokens while the apiserver moves over, then only the new one
    const next = generateToken();
    const rotated = await runCli(["clusters", "rotate", "prod-eu", ...target(), "--add-token-hash", await tokenHash(next)]);
    expect(rotated).toEqual({ code: 0, stdout: expect.stringMatching(/^rotated prod-eu \(revision \d+\): added 1 token hash\n$/), stderr: EFFECT });
    expect([await reviewStatus("prod-eu", prod.token), await reviewStatus("prod-eu", next)]).toEqual([200, 200]);
    expect((await runCli(["clusters", "rotate", "prod-eu", ...target(), "--remove-token-hash", prod.hash])).code).toBe(0);
    expect([await reviewStatus("prod-eu", prod.token), await reviewStatus("prod-eu", next)]).toEqual([401, 200]);

    // list: one line per registration, then the ids CLUSTERS holds
    const listed = await runCli(["clusters", "list", ...target()]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^prod-eu revision \d+: 1 signing key, 1 token hash, withoutSnapshot FailClosed, maxAgeSeconds 86400, updated \d{4}-\d\d-\d\dT[^\n]*Z\nin CLUSTERS: legacy\n$/);
    expect(listed.stderr).toMatch(/^1 cluster in the registry at revision \d+, 1 in CLUSTERS\n$/);
    const json = JSON.parse((await runCli(["clusters", "list", ...target(), "-o", "json"])).stdout) as { clusters: Array<Record<string, unknown>> };
    expect(json.clusters[0]).toMatchObject({ cluster: "prod-eu", publicKey: [prod.publicKey], tokenHashes: [await tokenHash(next)], withoutSnapshot: "FailClosed" });

    // max age: the operator's limit on how old a snapshot may be and still count
    expect(await runCli(["clusters", "rotate", "prod-eu", ...target(), "--max-age", "600"])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^rotated prod-eu \(revision \d+\): maxAgeSeconds 600\n$/),
      stderr: EFFECT,
    });
    expect((await storedSnapshot(worker.url, "prod-eu", prod.privateKeyPem))?.maxAgeSeconds).toBe(600);

    // reset-snapshot: every stored generation goes; the cluster takes its stance until its sync job pushes
    const generation = (await storedSnapshot(worker.url, "prod-eu", prod.privateKeyPem))!.generation;
    expect(await runCli(["clusters", "reset-snapshot", "prod-eu", ...target()])).toEqual({
      code: 0,
      stdout: `reset prod-eu: dropped generation ${generation}; the cluster takes its withoutSnapshot stance until its sync job pushes\n`,
      stderr: "",
    });
    expect(await storedSnapshot(worker.url, "prod-eu", prod.privateKeyPem)).toBeUndefined();
    expect(await runCli(["clusters", "reset-snapshot", "prod-eu", ...target()])).toEqual({ code: 0, stdout: "reset prod-eu: no snapshot was stored\n", stderr: "" });

    // remove: refused like any unknown cluster
    const revision = /revision (\d+)/.exec((await runCli(["clusters", "list", ...target()])).stdout)![1]!;
    expect((await runCli(["clusters", "remove", "prod-eu", ...target(), "--if-revision", String(Number(revision) - 1)])).stderr).toBe(
      `edgeadmit clusters remove: the function refused the change (409): cluster prod-eu is at revision ${revision}, not ${Number(revision) - 1}: it changed since; list it again; nothing changed\n`,
    );
    expect((await runCli(["clusters", "remove", "prod-eu", ...target(), "--if-revision", revision])).stdout).toMatch(/^removed prod-eu \(revision \d+\)\n$/);
    expect(await reviewStatus("prod-eu", next)).toBe(401);
  });

  it("labels: add --label, clusters label sets and removes them, list shows them and -l selects by them", async () => {
    const [a, b] = [await cluster("tenant-a"), await cluster("tenant-b")];
    const added = await runCli(["clusters", "add", "tenant-a", ...target(), "--public-key", a.publicKeyFile, "--token-hash", a.hash, "--label", "env=prod", "--label", "ring=canary"]);
    expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^registered tenant-a \(revision \d+\): 1 signing key, 1 token hash, withoutSnapshot FailOpen, maxAgeSeconds 86400, labels env=prod,ring=canary\n$/), stderr: EFFECT });
    expect((await runCli(["clusters", "add", "tenant-b", ...target(), "--public-key", b.publicKeyFile, "--token-hash", b.hash, "--label", "env=prod", "--label", "tier=system"])).code).toBe(0);
    const labeled = await runCli(["clusters", "label", "tenant-b", "ring=main", "tier-", ...target()]);
    expect(labeled).toEqual({ code: 0, stdout: expect.stringMatching(/^labeled tenant-b \(revision \d+\): set ring=main, removed tier\n$/), stderr: EFFECT });
    // A label to remove that the cluster lacks is said, and the rest applies (kubectl label, RunLabel: `label "x" not found.`).
    expect(await runCli(["clusters", "label", "tenant-a", "ring=main", "legacy-", ...target()])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^label "legacy" not found\.\nlabeled tenant-a \(revision \d+\): set ring=main\n$/),
      stderr: EFFECT,
    });
    expect((await runCli(["clusters", "label", "tenant-a", "legacy-", ...target()])).stdout).toMatch(/^label "legacy" not found\.\ntenant-a not labeled \(revision \d+\): no label to remove\n$/);
    expect((await runCli(["clusters", "label", "tenant-a", "ring=canary", ...target()])).code).toBe(0);
    const selected = await runCli(["clusters", "list", ...target(), "-l", "env=prod,ring!=canary"]);
    expect(selected.stdout).toMatch(/^tenant-b revision \d+: 1 signing key, 1 token hash, withoutSnapshot FailOpen, maxAgeSeconds 86400, labels env=prod,ring=main, updated [^\n]*Z, sync job not seen yet\nin CLUSTERS: legacy\n$/);
    const json = JSON.parse((await runCli(["clusters", "list", ...target(), "-l", "ring in (canary)", "-o", "json"])).stdout) as { clusters: Array<Record<string, unknown>> };
    expect(json.clusters.map((entry) => [entry.cluster, entry.labels])).toEqual([["tenant-a", { env: "prod", ring: "canary" }]]);
    expect(await runCli(["clusters", "list", ...target(), "-l", "env>1"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'edgeadmit clusters list: -l: selector: "env>1" is not a requirement: use key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)\n',
    });
    expect(await runCli(["clusters", "label", "tenant-a", "Bad Key=x", ...target()])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'edgeadmit clusters label: --label: label key "Bad Key": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric\n',
    });
    for (const id of ["tenant-a", "tenant-b"]) expect((await runCli(["clusters", "remove", id, ...target()])).code).toBe(0);
  });

  it("import: copies a CLUSTERS value in batches, skips what the registry holds alike, stops before anything when it holds one otherwise", async () => {
    const value: Record<string, unknown> = {};
    for (let i = 0; i < 120; i++) {
      const c = await cluster(`imported-${i}`);
      value[`imported-${i}`] = { publicKey: c.publicKey, tokenHashes: [c.hash], ...(i === 7 ? { withoutSnapshot: "FailClosed" } : {}) };
    }
    const file = join(dir, "clusters.json");
    writeFileSync(file, JSON.stringify(value));
    const first = await runCli(["clusters", "import", file, ...target()]);
    expect(first.code).toBe(0);
    expect(first.stdout.split("\n").filter((line) => line.startsWith("imported "))).toHaveLength(120);
    expect(first.stderr).toBe("imported 120, unchanged 0; CLUSTERS takes precedence for the ids it names: drop them from it and deploy, and the registry serves them\n");
    const again = await runCli(["clusters", "import", ...target()], JSON.stringify(value));
    expect(again.stdout.split("\n").filter((line) => line.startsWith("unchanged "))).toHaveLength(120);
    expect(again.stderr).toBe("imported 0, unchanged 120; CLUSTERS takes precedence for the ids it names: drop them from it and deploy, and the registry serves them\n");
    const other = await cluster("other");
    const conflicting = { ...value, "imported-3": { publicKey: other.publicKey, tokenHashes: [other.hash] }, "imported-new": { publicKey: other.publicKey, tokenHashes: [other.hash] } };
    expect(await runCli(["clusters", "import", ...target()], JSON.stringify(conflicting))).toEqual({
      code: 1,
      stdout: "",
      stderr: "edgeadmit clusters import: the registry already holds imported-3 with other credentials: rotate or remove it first; nothing imported\n",
    });
    expect((await runCli(["clusters", "list", ...target(), "-o", "json"])).stdout).not.toContain("imported-new");
    expect(await runCli(["clusters", "import", ...target()], JSON.stringify({ broken: { publicKey: other.publicKey } }))).toEqual({
      code: 1,
      stdout: "",
      stderr: "edgeadmit clusters import: 1 registration cannot be used (edgeadmit clusters check says why): broken: no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach; nothing imported\n",
    });
  });

  it("a CLUSTERS id may be added too: the answer says CLUSTERS keeps serving it", async () => {
    const c = await cluster("legacy");
    expect(await runCli(["clusters", "add", "legacy", ...target(), "--public-key", c.publicKey, "--token-hash", c.hash])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^registered legacy/),
      stderr: `note: cluster legacy is also in CLUSTERS, which takes precedence: the registry's entry serves it once it is dropped from CLUSTERS and deployed\n${EFFECT}`,
    });
  });
});

describe("refusals, one line each", () => {
  it("an operator key the function does not list: exit 1, the registry unchanged", async () => {
    const stranger = join(dir, "stranger.key");
    writeFileSync(stranger, (await generateKeyPair()).privateKeyPem);
    const c = await cluster("by-stranger");
    expect(await runCli(["clusters", "add", "by-stranger", "--endpoint", worker.url, "--operator-key", stranger, "--public-key", c.publicKey, "--token-hash", c.hash])).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "edgeadmit clusters add: the function refused the change (401): the function does not accept this operator key: is its public key (edgeadmit key public --key FILE) in the function's OPERATOR_KEYS, and is the endpoint the function's?\n",
    });
    expect((await runCli(["clusters", "list", "--endpoint", worker.url, "--operator-key", stranger])).stderr).toMatch(/^edgeadmit clusters list: GET .* was refused \(401\): the function does not accept this operator key/);
    expect(await reviewStatus("by-stranger", c.token)).toBe(401);
  });

  it("the function's own refusals: a cluster registered twice, a rotation leaving no credential", async () => {
    const c = await cluster("twice");
    expect((await runCli(["clusters", "add", "twice", ...target(), "--public-key", c.publicKey, "--token-hash", c.hash])).code).toBe(0);
    expect((await runCli(["clusters", "add", "twice", ...target(), "--public-key", c.publicKey, "--token-hash", c.hash])).stderr).toMatch(
      /^edgeadmit clusters add: the function refused the change \(409\): cluster twice is already registered \(revision \d+\): rotate or remove it; nothing changed\n$/,
    );
    expect((await runCli(["clusters", "rotate", "twice", ...target(), "--remove-token-hash", c.hash])).stderr).toBe(
      "edgeadmit clusters rotate: the function refused the change (409): cluster twice would be left with no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach; nothing changed\n",
    );
    expect((await runCli(["clusters", "remove", "nobody", ...target()])).stderr).toBe("edgeadmit clusters remove: the function refused the change (404): cluster nobody is not in the registry; nothing changed\n");
  });

  it.each([
    [["clusters", "add"], "edgeadmit clusters add: say which cluster: edgeadmit clusters add ID (see edgeadmit clusters add --help)\n"],
    [["clusters", "add", "Prod_EU"], "edgeadmit clusters add: cluster id \"Prod_EU\" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit\n"],
    [["clusters", "add", "prod", "--token-hash", "sha256:00"], "edgeadmit clusters add: --public-key is required (see edgeadmit clusters add --help)\n"],
    [["clusters", "add", "prod", "--public-key", "ed25519:AAAA"], 'edgeadmit clusters add: --public-key ed25519:AAAA: public key must be "ed25519:" followed by the base64 of 32 bytes\n'],
    [["clusters", "rotate", "prod", "--add-token-hash", "abc"], 'edgeadmit clusters rotate: --add-token-hash must be "sha256:" and 64 lowercase hex digits (edgeadmit token prints it), not "abc"\n'],
    [["clusters", "rotate", "prod", "--endpoint", "http://x", "--operator-key", "k"], "edgeadmit clusters rotate: nothing to change: give --add-key, --remove-key, --add-token-hash, --remove-token-hash, --without-snapshot or --max-age (see edgeadmit clusters rotate --help)\n"],
    [["clusters", "rotate", "prod", "--max-age", "1e15"], 'edgeadmit clusters rotate: --max-age must be whole seconds from 60 to 604800, not "1e15"\n'],
    [["clusters", "reset-snapshot"], "edgeadmit clusters reset-snapshot: say which cluster: edgeadmit clusters reset-snapshot ID (see edgeadmit clusters reset-snapshot --help)\n"],
    [["clusters", "remove", "prod", "--if-revision", "0"], 'edgeadmit clusters remove: --if-revision must be a revision that edgeadmit clusters list printed, not "0"\n'],
    [["clusters", "list", "--endpoint", "ftp://x", "--operator-key", "k"], 'edgeadmit clusters list: --endpoint must be the function\'s http(s):// base URL, not "ftp://x"\n'],
    [["clusters", "list", "--endpoint", "http://x"], "edgeadmit clusters list: --operator-key is required: pass --operator-key, set EDGEADMIT_OPERATOR_KEY, or choose a context (edgeadmit context set NAME --endpoint URL --operator-key FILE --use; none is current in /nonexistent/edgeadmit/contexts.yaml) (see edgeadmit clusters list --help)\n"],
  ])("%j: exit 2", async (argv, stderr) => {
    expect(await runCli(argv)).toEqual({ code: 2, stdout: "", stderr });
  });
});
