// `snapshot push` and `sync` end to end: the CLI against the real function in
// workerd (startLocalWorker), with the cluster side served by the fake API server.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Registration } from "../../shared/clusters/index.js";
import { generateKeyPair, publicKeyOf } from "../../shared/signing/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { storedSnapshot, type StoredSnapshot } from "../client/index.js";
import { startFakeApiServer, type FakeApiServer } from "../../test/node/support/fake-apiserver.js";
import { objectsFromText } from "../objects/yaml.js";
import { wrapReview } from "../../shared/admission/wrap.js";
import { webhookConfiguration } from "../webhook/index.js";
import { pushReason } from "./sync.js";
import { runCli, withoutLeaving } from "../../test/node/support/test-io.js";

const ROOT = join(__dirname, "..", "..");
const DEMO = join(ROOT, "examples", "demo", "cluster.yaml");
const dir = mkdtempSync(join(tmpdir(), "edgeadmit-e2e-"));
let worker: LocalWorker;
let apiServer: FakeApiServer;
const clusterObjects: KubeObject[] = objectsFromText(readFileSync(join(ROOT, "infra", "objects", "testdata", "live-cluster.yaml"), "utf8"), "live");
const keyFile = (cluster: string) => join(dir, `${cluster}.key`);

/** A loopback port nothing listens on (fetch refuses well-known ones like 9 outright). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  const clusters: Record<string, Registration> = {};
  for (const cluster of ["pushed", "synced", "policies", "stranger", "retiring"]) {
    const pair = await generateKeyPair();
    writeFileSync(keyFile(cluster), pair.privateKeyPem, { mode: 0o600 });
    if (cluster !== "stranger" && cluster !== "retiring") clusters[cluster] = { publicKey: pair.publicKey, anonymous: true };
  }
  // Mid-rotation: "rotated" accepts the retiring key and its own.
  const own = await generateKeyPair();
  writeFileSync(keyFile("rotated"), own.privateKeyPem, { mode: 0o600 });
  clusters.rotated = { publicKey: [await publicKeyOf(readFileSync(keyFile("retiring"), "utf8")), own.publicKey], anonymous: true };
  worker = await startLocalWorker({ clusters });
  apiServer = await startFakeApiServer(clusterObjects);
  process.env.KUBECONFIG = apiServer.kubeconfig;
}, WORKER_START_TIMEOUT_MS);

// Put back for the files after this one in the same process (vitest.config.ts: isolate false).
const KUBECONFIG = process.env.KUBECONFIG;
afterAll(async () => {
  await worker?.stop();
  await apiServer?.stop();
  if (KUBECONFIG === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = KUBECONFIG;
});

/** What the CLI says when the function does not take a key for a cluster (a wrong key, or a cluster it does not know). */
const refusedKey = (cluster: string) =>
  `the function does not accept this key for cluster "${cluster}": is the cluster registered (edgeadmit clusters list, or the function's CLUSTERS) with this key's public key (edgeadmit key public --key FILE)?`;

const pushArgs = (cluster: string, key = keyFile(cluster)) => ["snapshot", "push", "--endpoint", worker.url, "--cluster", cluster, "--key", key];

describe("snapshot build | snapshot push", () => {
  let built: string;
  let stored: StoredSnapshot;

  it("stores the snapshot from stdin and prints the stored generation", async () => {
    built = (await runCli(["snapshot", "build", "-f", DEMO])).stdout;
    const { code, stdout, stderr } = await runCli(pushArgs("pushed"), built);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    stored = (await storedSnapshot(worker.url, "pushed", readFileSync(keyFile("pushed"), "utf8")))!;
    expect(stored.generation).toBe(JSON.parse(built).generation);
    // What went on the wire (one body of every unit), and what the function stores in all.
    expect(stdout).toMatch(new RegExp(`^stored generation ${stored.generation} for cluster pushed \\(content ${stored.contentHash.slice(0, 12)}\\): every unit: ${stored.units} units in 1 body, \\d+ bytes sent; the function stores ${stored.bytes} bytes\\n$`));
  });

  it("the function then enforces it: the demo's denied pod is denied", async () => {
    const review = readFileSync(join(ROOT, "examples", "reviews", "pod-main-db-denied.json"), "utf8");
    const response = await fetch(`${worker.url}/v1/pushed/validate`, { method: "POST", body: review, headers: { "content-type": "application/json" } });
    const body = (await response.json()) as { response: { allowed: boolean; status?: { message?: string } } };
    expect(body.response.allowed).toBe(false);
    expect(body.response.status?.message).toContain('AffinityClass "dc1"');
  });

  it("a replayed push is refused with the function's reason, exit 1, nothing changes", async () => {
    const file = join(dir, "snapshot.json");
    writeFileSync(file, built);
    const result = await runCli([...pushArgs("pushed"), file]);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit snapshot push: the function refused the snapshot (409): generation ${stored.generation} is not newer than the stored generation ${stored.generation}: a stale or replayed push; nothing was stored\n`,
    });
    expect((await storedSnapshot(worker.url, "pushed", readFileSync(keyFile("pushed"), "utf8")))?.generation).toBe(stored.generation);
  });

  it("a push signed with another key is refused", async () => {
    const { stdout } = await runCli(["snapshot", "build", "-f", DEMO]);
    const result = await runCli(pushArgs("pushed", keyFile("stranger")), stdout);
    expect(result).toEqual({ code: 1, stdout: "", stderr: `edgeadmit snapshot push: the function refused the snapshot (401): ${refusedKey("pushed")}\n` });
  });

  it("an unknown cluster, an unreachable endpoint, a bad key file and a bad snapshot each fail in one line", async () => {
    expect((await runCli(pushArgs("nobody", keyFile("pushed")), built)).stderr).toBe(
      `edgeadmit snapshot push: the function refused the snapshot (401): ${refusedKey("nobody")}\n`,
    );
    const port = await closedPort();
    expect(await runCli(["snapshot", "push", "--endpoint", `http://127.0.0.1:${port}`, "--cluster", "pushed", "--key", keyFile("pushed")], built)).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit snapshot push: cannot reach http://127.0.0.1:${port}/v1/pushed/snapshot: ECONNREFUSED\n`,
    });
    const notAKey = join(dir, "not-a.key");
    writeFileSync(notAKey, "ssh-ed25519 AAAA...\n");
    expect((await runCli(pushArgs("pushed", notAKey), built)).stderr).toBe(`edgeadmit snapshot push: --key ${notAKey}: not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)\n`);
    expect((await runCli(pushArgs("pushed"), '{"apiVersion":"edgeadmit.io/v1alpha1","kind":"Snapshot"}')).stderr).toMatch(
      /^edgeadmit snapshot push: <stdin>: snapshot does not match the schema: generation: Invalid input: expected number, received undefined[^\n]*\n$/,
    );
  });
});

/** The fake cluster has no ValidatingWebhookConfiguration edgeadmit: sync reads it every time, warns, and still pushes. */
const NO_WEBHOOK = "warning: no ValidatingWebhookConfiguration edgeadmit: the apiserver sends the function nothing, so no policy is enforced at the edge and the function's coverage stays unknown (edgeadmit webhook-config renders it)\n";

describe("sync", () => {
  const syncArgs = () => ["sync", "--endpoint", worker.url, "--cluster", "synced", "--key", keyFile("synced")];

  it("pushes the first time, skips an unchanged cluster (no write: generation unchanged), pushes when the cluster changes", async () => {
    const first = await runCli(syncArgs());
    expect(first.stderr).toBe(NO_WEBHOOK);
    const afterFirst = (await storedSnapshot(worker.url, "synced", readFileSync(keyFile("synced"), "utf8")))!;
    expect(first.stdout).toMatch(/^what leaves the cluster .*\n {2}cozystack\.io AffinityClass: \d+ objects, \d+ bytes: spec\.nodeSelector, spec\.nodeAffinity, spec\.enforcement; asked by built-in affinity-class, /);
    expect(withoutLeaving(first.stdout)).toMatch(
      new RegExp(`^pushed generation ${afterFirst.generation}: the function holds no snapshot yet; every unit: ${afterFirst.units} units in 1 body, \\d+ bytes sent; the function stores ${afterFirst.bytes} bytes\\n$`),
    );

    const second = await runCli(syncArgs());
    expect(second.code).toBe(0);
    const afterSecond = (await storedSnapshot(worker.url, "synced", readFileSync(keyFile("synced"), "utf8")))!;
    expect(afterSecond.generation).toBe(afterFirst.generation);
    expect(afterSecond.pushedAt).toBe(afterFirst.pushedAt);
    // The age is whole seconds at the job's GET: it may tick between that GET and this test's.
    expect(withoutLeaving(second.stdout)).toMatch(new RegExp(`^unchanged: the function holds generation ${afterFirst.generation} with content ${afterFirst.contentHash.slice(0, 12)}, \\d+s old; nothing pushed\\n$`));

    clusterObjects.push({ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc3" }, spec: { nodeSelector: { "topology.kubernetes.io/zone": "dc3" } } });
    const third = await runCli(syncArgs());
    const afterThird = (await storedSnapshot(worker.url, "synced", readFileSync(keyFile("synced"), "utf8")))!;
    expect(afterThird.generation).toBeGreaterThan(afterFirst.generation);
    expect(afterThird.contentHash).not.toBe(afterFirst.contentHash);
    // Incremental: the wire carried the changed units only, far fewer bytes than the function stores.
    const sent = new RegExp(
      `^pushed generation ${afterThird.generation}: content changed \\(was ${afterFirst.contentHash.slice(0, 12)}\\); incremental against generation ${afterFirst.generation}: (\\d+) of ${afterThird.units} units in 1 body, (\\d+) bytes sent; the function stores ${afterThird.bytes} bytes\\n$`,
    ).exec(withoutLeaving(third.stdout));
    expect(sent, third.stdout).not.toBeNull();
    expect(Number(sent![1])).toBeLessThan(afterThird.units);

    clusterObjects.pop();
    const json = await runCli([...syncArgs(), "-o", "json"]);
    const report = JSON.parse(json.stdout) as { pushed: boolean; incremental: boolean; base: number; sent: { bodies: number; bytes: number; units: number }; storedBytes: number; leaving: Array<{ source: string }> };
    expect(report).toEqual(expect.objectContaining({ pushed: true, incremental: true, base: afterThird.generation }));
    expect(report.sent.bodies).toBe(1);
    expect(report.sent.bytes).toBeGreaterThan(0);
    expect(report.leaving.map((entry) => entry.source)).toContain("cozystack.io AffinityClass");
  });

  it("pushes above the stored generation when the clock is behind it", async () => {
    const ahead = (await storedSnapshot(worker.url, "synced", readFileSync(keyFile("synced"), "utf8")))!.generation + 60_000;
    const built = JSON.parse((await runCli(["snapshot", "build", "-f", DEMO])).stdout);
    expect((await runCli(pushArgs("synced"), JSON.stringify({ ...built, generation: ahead }))).code).toBe(0);
    const { stdout } = await runCli(syncArgs());
    expect((await storedSnapshot(worker.url, "synced", readFileSync(keyFile("synced"), "utf8")))!.generation).toBe(ahead + 1);
    expect(withoutLeaving(stdout)).toMatch(new RegExp(`^pushed generation ${ahead + 1}: content changed \\(was [0-9a-f]{12}\\); incremental against generation ${ahead}: `));
  });

  it("fails loudly with a wrong key, even when nothing changed, so a key rotation is checked for real", async () => {
    expect((await runCli(syncArgs())).code).toBe(0);
    const result = await runCli(["sync", "--endpoint", worker.url, "--cluster", "synced", "--key", keyFile("stranger")]);
    expect(result).toEqual({ code: 1, stdout: "", stderr: `${NO_WEBHOOK}edgeadmit sync: GET ${worker.url}/v1/synced/snapshot was refused (401): ${refusedKey("synced")}\n` });
  });

  it("replaces an unchanged copy another key pushed, with every unit: after a rotation only the current key's pushes count", async () => {
    const built = (await runCli(["snapshot", "build", "--from-cluster"])).stdout;
    expect((await runCli(pushArgs("rotated", keyFile("retiring")), built)).code).toBe(0);
    const before = (await storedSnapshot(worker.url, "rotated", readFileSync(keyFile("rotated"), "utf8")))!;
    expect(before.signedBy).toBe(await publicKeyOf(readFileSync(keyFile("retiring"), "utf8")));
    const { stdout } = await runCli(["sync", "--endpoint", worker.url, "--cluster", "rotated", "--key", keyFile("rotated")]);
    const after = (await storedSnapshot(worker.url, "rotated", readFileSync(keyFile("rotated"), "utf8")))!;
    expect(after).toMatchObject({ contentHash: before.contentHash, signedBy: await publicKeyOf(readFileSync(keyFile("rotated"), "utf8")) });
    const signer = before.signedBy!.slice(0, 20).replace(/[+]/g, "\\+");
    expect(withoutLeaving(stdout)).toMatch(
      new RegExp(`^pushed generation ${after.generation}: the stored copy was pushed with another key \\(${signer}…\\), not this job's; every unit \\(another key pushed the function's stored copy\\): \\d+ units in 1 body, \\d+ bytes sent; the function stores ${after.bytes} bytes\n$`),
    );
  });

  it("a cluster-side failure stops before anything is sent", async () => {
    const result = await runCli([...syncArgs(), "--context", "elsewhere"]);
    expect(result).toEqual({ code: 2, stdout: "", stderr: "edgeadmit sync: cannot reach the API server at http://127.0.0.1:2: ECONNREFUSED\n" });
  });
});

describe("a cluster's own ValidatingAdmissionPolicy, from the cluster to the verdict", () => {
  // Unchanged policy YAML, bound at the edge with a param of the cluster's own kind; a second binding of the same policy only warns.
  const policyObjects = objectsFromText(
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: example.io/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
    - expression: "object.spec.replicas <= params.maxReplicas"
      messageExpression: "'at most ' + string(params.maxReplicas) + ' replicas, not ' + string(object.spec.replicas)"
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: replica-limit}
spec:
  policyName: replica-limit
  paramRef: {name: limit, parameterNotFoundAction: Deny}
  validationActions: [Deny]
  matchResources: {namespaceSelector: {matchLabels: {limits: strict}}}
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: replica-limit-advice}
spec:
  policyName: replica-limit
  paramRef: {name: limit, parameterNotFoundAction: Deny}
  validationActions: [Warn]
  matchResources: {namespaceSelector: {matchLabels: {limits: advice}}}
---
apiVersion: example.io/v1
kind: ReplicaLimit
metadata: {name: limit, namespace: shop}
maxReplicas: 5
---
apiVersion: example.io/v1
kind: ReplicaLimit
metadata: {name: limit, namespace: lab}
maxReplicas: 5
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {limits: strict}}
---
apiVersion: v1
kind: Namespace
metadata: {name: lab, labels: {limits: advice}}
`,
    "policies.yaml",
  );

  async function review(namespace: string, replicas: number) {
    const object = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace }, spec: { replicas, selector: {}, template: {} } };
    const response = await fetch(`${worker.url}/v1/policies/validate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(wrapReview(object, { namespace })) });
    expect(response.status).toBe(200);
    return ((await response.json()) as { response: { allowed: boolean; status?: { code: number; reason: string; message: string }; warnings?: string[] } }).response;
  }

  it("sync carries the policy, its bindings, params and namespaces; the function denies and warns with the apiserver's words", async () => {
    const server = await startFakeApiServer([...clusterObjects, ...policyObjects, webhookConfiguration({ url: "https://edgeadmit.example.com", cluster: "policies" })]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runCli(["sync", "--endpoint", worker.url, "--cluster", "policies", "--key", keyFile("policies")]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(withoutLeaving(stdout)).toMatch(/^pushed generation \d+: the function holds no snapshot yet; every unit: \d+ units in 1 body, \d+ bytes sent; the function stores \d+ bytes\n1 ValidatingAdmissionPolicy bound at the edge\n$/);
    } finally {
      await server.stop();
      process.env.KUBECONFIG = apiServer.kubeconfig;
    }
    expect(await review("shop", 12)).toMatchObject({
      allowed: false,
      status: { code: 422, reason: "Invalid", message: "ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit' denied request: at most 5 replicas, not 12" },
    });
    expect((await review("shop", 3)).allowed).toBe(true);
    expect(await review("lab", 12)).toMatchObject({
      allowed: true,
      warnings: ["Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-advice': at most 5 replicas, not 12"],
    });
  });
});

describe("when sync pushes", () => {
  const OWN_KEY = "ed25519:own";
  const stored = (contentHash: string, ageSeconds: number): StoredSnapshot => ({
    cluster: "c",
    generation: 1,
    contentHash,
    builtAt: "",
    pushedAt: "",
    ageSeconds,
    bytes: 1,
    units: 1,
    boundPolicies: 0,
    policyProblems: [],
    signedBy: OWN_KEY,
  });

  it("pushes when nothing is stored or the content differs", () => {
    expect(pushReason(undefined, "abc", 3600, OWN_KEY)).toBe("the function holds no snapshot yet");
    expect(pushReason(stored("0123456789abcdef", 10), "abc", 3600, OWN_KEY)).toBe("content changed (was 0123456789ab)");
  });

  it("pushes an unchanged snapshot another key, or an unrecorded one, pushed: it counts only while that key is registered", () => {
    expect(pushReason({ ...stored("abc", 10), signedBy: "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }, "abc", 3600, OWN_KEY)).toBe(
      "the stored copy was pushed with another key (ed25519:AAAAAAAAAAAA…), not this job's",
    );
    expect(pushReason({ ...stored("abc", 10), signedBy: null }, "abc", 3600, OWN_KEY)).toBe("the stored copy was pushed with an unrecorded key, not this job's");
  });

  it("skips an unchanged snapshot younger than half of maxAgeSeconds, re-pushes it from there on", () => {
    expect(pushReason(stored("abc", 1799), "abc", 3600, OWN_KEY)).toBeUndefined();
    expect(pushReason(stored("abc", 1800), "abc", 3600, OWN_KEY)).toBe("unchanged, but the stored copy is 1800s old, at least half of maxAgeSeconds 3600");
    // The registration's lower limit wins.
    expect(pushReason({ ...stored("abc", 300), maxAgeSeconds: 600 }, "abc", 3600, OWN_KEY)).toBe("unchanged, but the stored copy is 300s old, at least half of maxAgeSeconds 600");
  });
});
