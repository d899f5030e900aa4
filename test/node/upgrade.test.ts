// A deploy never changes a verdict (docs/operations.md, "Upgrading"): the
// previous release (shared/version RELEASES, installed from this clone's
// history) runs a fleet from empty storage with its own function, CLI and
// sync jobs; then this release's function takes over the same storage, as
// `wrangler deploy` does, and judges every cluster exactly as the previous
// one did from its first request, while the previous release's sync jobs and
// CLI keep working against it; then this release's CLI and sync jobs change
// things, and the previous release's function takes the storage back (what
// `wrangler rollback` does) and judges exactly as this one did, this
// release's sync jobs still pushing to it; and forward again.
//
// Clusters: FailOpen and FailClosed, with and without a policy that reads the
// inventory, one in CLUSTERS, one never synced, one left out of the fleet's
// binding by its labels. A cluster falling into its withoutSnapshot stance
// because of an upgrade is a release blocker: it fails here.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { wrapReview, type WrappableObject } from "../../shared/admission/wrap.js";
import { startLocalWorker, WORKER_START_TIMEOUT_MS, type LocalWorker } from "../../scripts/local-worker.js";
import { generateKeyPair } from "../../shared/signing/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { RELEASE } from "../../shared/version/index.js";
import { startFakeApiServer, type FakeApiServer } from "./support/fake-apiserver.js";
import { installPreviousRelease, PREVIOUS_RELEASE, type InstalledRelease } from "./support/previous-release.js";

const run = promisify(execFile);
/** Each step runs CLIs (a Node start and an esbuild build each) and starts workerd: minutes on a loaded 2-core machine. */
const STEP_TIMEOUT_MS = 600_000;

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), "utf8");
const objectsOf = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);

const demoObjects = objectsOf(read("examples/demo/cluster.yaml"));
const inventoryObjects = [...demoObjects, ...objectsOf(read("examples/inventory/unique-ingress-host/policy.yaml")), ...objectsOf(read("examples/inventory/unique-ingress-host/cluster.yaml"))];

interface TestCluster {
  id: string;
  withoutSnapshot: "FailOpen" | "FailClosed";
  /** The cluster its sync job lists; none: never synced. */
  source: "plain" | "inventory" | undefined;
  labels?: Record<string, string>;
  /** Registered in CLUSTERS instead of the registry. */
  inVariable?: boolean;
}

const CLUSTERS: TestCluster[] = [
  { id: "open-plain", withoutSnapshot: "FailOpen", source: "plain", labels: { tier: "system" } },
  { id: "closed-plain", withoutSnapshot: "FailClosed", source: "plain", labels: { ring: "canary" } },
  { id: "open-inventory", withoutSnapshot: "FailOpen", source: "inventory" },
  { id: "closed-inventory", withoutSnapshot: "FailClosed", source: "inventory" },
  { id: "closed-variable", withoutSnapshot: "FailClosed", source: "plain", inVariable: true },
  { id: "closed-never-synced", withoutSnapshot: "FailClosed", source: undefined },
];

/** What each cluster is asked, the same in every phase. */
const REVIEWS: Array<[name: string, review: unknown]> = [
  ["pod denied by its AffinityClass", JSON.parse(read("examples/reviews/pod-main-db-denied.json"))],
  ["pod allowed", JSON.parse(read("examples/reviews/pod-main-db-allowed.json"))],
  ["Deployment of 7 replicas (the fleet's max-replicas)", wrapReview({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "big", namespace: "tenant-acme" }, spec: { replicas: 7 } })],
  ["Ingress taking a served host", wrapReview(objectsOf(read("examples/inventory/unique-ingress-host/requests.yaml"))[0]! as WrappableObject)],
  ["Ingress of a new host", wrapReview(objectsOf(read("examples/inventory/unique-ingress-host/requests.yaml"))[1]! as WrappableObject)],
];

const dir = mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "upgrade-"));
/** The fleet set both releases read alike: at most 5 replicas of a Deployment, on every cluster not labelled tier=system. */
const fleetFile = join(dir, "fleet.yaml");
writeFileSync(
  fleetFile,
  `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: edgeadmit.io/v1alpha1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - expression: "!has(object.spec.replicas) || object.spec.replicas <= params.spec.max"
    messageExpression: "'at most ' + string(params.spec.max) + ' replicas on a tenant cluster'"
---
apiVersion: edgeadmit.io/v1alpha1
kind: ReplicaLimit
metadata: {name: tenant-default}
spec: {max: 5}
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: tenant-replicas}
spec:
  policyName: max-replicas
  paramRef: {name: tenant-default, parameterNotFoundAction: Deny}
  clusterSelector:
    matchExpressions: [{key: tier, operator: NotIn, values: [system]}]
  validationActions: [Deny]
`,
);
const persistTo = join(dir, "state");
let previous: InstalledRelease;
let operatorKey = "";
let operatorPublicKey = "";
const credentials = new Map<string, { keyFile: string; publicKey: string; token: string; tokenHash: string }>();
const sources = new Map<string, FakeApiServer>();
let worker: LocalWorker | undefined;

/** One CLI run of the release at `root`, with the cluster its sync job lists (KUBECONFIG). */
async function cli(root: string, args: string[], source?: FakeApiServer): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(root, "bin", "edgeadmit.mjs"), ...args], {
      cwd: dir,
      env: { ...process.env, ...(source ? { KUBECONFIG: source.kubeconfig } : {}), NO_COLOR: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? String(e) };
  }
}

async function ok(root: string, args: string[], source?: FakeApiServer): Promise<string> {
  const result = await cli(root, args, source);
  if (result.code !== 0) throw new Error(`edgeadmit ${args.slice(0, 2).join(" ")} (${root === PROJECT_ROOT ? RELEASE : previous.version}) exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

const operatorFlags = () => ["--endpoint", worker!.url, "--operator-key", operatorKey];

/** Starts the function of `root` (this release or the previous one) over the fleet's storage. */
async function serve(root: string): Promise<void> {
  await worker?.stop();
  const variable = CLUSTERS.filter((c) => c.inVariable).map((c) => [c.id, { publicKey: credentials.get(c.id)!.publicKey, tokenHashes: [credentials.get(c.id)!.tokenHash], withoutSnapshot: c.withoutSnapshot }]);
  worker = await startLocalWorker({
    clusters: Object.fromEntries(variable),
    vars: { OPERATOR_KEYS: operatorPublicKey },
    persistTo,
    entry: join(root, "functions", "index.ts"),
    config: join(root, "wrangler.toml"),
  });
}

/** Every synced cluster's sync job of the release at `root`, as its CronJob runs it. */
async function syncAll(root: string): Promise<string[]> {
  const synced = CLUSTERS.filter((c) => c.source !== undefined);
  return Promise.all(synced.map((c) => ok(root, ["sync", "--endpoint", worker!.url, "--cluster", c.id, "--key", credentials.get(c.id)!.keyFile], sources.get(c.source!))));
}

type Verdicts = Record<string, Record<string, unknown>>;

/** Every cluster's answer to every review, without the uid: what must not change across a deploy. */
async function verdicts(): Promise<Verdicts> {
  const all: Verdicts = {};
  for (const cluster of CLUSTERS) {
    all[cluster.id] = {};
    for (const [name, review] of REVIEWS) {
      const response = await fetch(`${worker!.url}/v1/${cluster.id}/validate`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${credentials.get(cluster.id)!.token}` },
        body: JSON.stringify(review),
      });
      expect(response.status, `${cluster.id}: ${name}`).toBe(200);
      const { uid: _uid, ...answer } = ((await response.json()) as { response: Record<string, unknown> }).response;
      all[cluster.id]![name] = answer;
    }
  }
  return all;
}

const allowed = (verdict: unknown) => (verdict as { allowed: boolean }).allowed;
const message = (verdict: unknown) => (verdict as { status?: { message?: string } }).status?.message ?? "";

beforeAll(async () => {
  previous = await installPreviousRelease();
  const operator = await generateKeyPair();
  operatorKey = join(dir, "operator.key");
  writeFileSync(operatorKey, operator.privateKeyPem, { mode: 0o600 });
  operatorPublicKey = operator.publicKey;
  for (const cluster of CLUSTERS) {
    const keys = await generateKeyPair();
    const keyFile = join(dir, `${cluster.id}.key`);
    writeFileSync(keyFile, keys.privateKeyPem, { mode: 0o600 });
    const token = generateToken();
    credentials.set(cluster.id, { keyFile, publicKey: keys.publicKey, token, tokenHash: await tokenHash(token) });
  }
  sources.set("plain", await startFakeApiServer([...demoObjects]));
  sources.set("inventory", await startFakeApiServer([...inventoryObjects]));
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
  for (const source of sources.values()) await source.stop();
});

describe(`an upgrade from ${PREVIOUS_RELEASE.version} (${PREVIOUS_RELEASE.commit!.slice(0, 7)}) to ${RELEASE}, and a rollback`, () => {
  let before: Verdicts;

  it(`${PREVIOUS_RELEASE.version} runs the fleet: clusters registered, a fleet set applied, every sync job pushed`, async () => {
    await serve(previous.root);
    for (const cluster of CLUSTERS.filter((c) => !c.inVariable)) {
      const { publicKey, tokenHash: hash } = credentials.get(cluster.id)!;
      const labels = Object.entries(cluster.labels ?? {}).flatMap(([key, value]) => ["--label", `${key}=${value}`]);
      await ok(previous.root, ["clusters", "add", cluster.id, ...operatorFlags(), "--public-key", publicKey, "--token-hash", hash, "--without-snapshot", cluster.withoutSnapshot, ...labels]);
    }
    await ok(previous.root, ["fleet", "apply", "-f", fleetFile, ...operatorFlags()]);
    await syncAll(previous.root);
    before = await verdicts();
    // What the fleet decides under the previous release, so "unchanged" below means something: each cluster judged
    // by its snapshot (the AffinityClass denial), the inventory policy where bound, the fleet's binding where selected.
    expect(message(before["closed-plain"]!["pod denied by its AffinityClass"])).toContain('AffinityClass "dc1"');
    expect(allowed(before["closed-plain"]!["pod allowed"])).toBe(true);
    expect(message(before["closed-inventory"]!["Ingress taking a served host"])).toContain("host www.shop.example.com is already served by Ingress shop/web");
    expect(allowed(before["closed-inventory"]!["Ingress of a new host"])).toBe(true);
    expect(allowed(before["closed-plain"]!["Ingress taking a served host"])).toBe(true);
    expect(message(before["closed-plain"]!["Deployment of 7 replicas (the fleet's max-replicas)"])).toContain("at most 5 replicas");
    expect(allowed(before["open-plain"]!["Deployment of 7 replicas (the fleet's max-replicas)"])).toBe(true);
    expect(message(before["closed-variable"]!["pod denied by its AffinityClass"])).toContain('AffinityClass "dc1"');
    expect(message(before["closed-never-synced"]!["pod allowed"])).toContain("fail-closed");
  }, STEP_TIMEOUT_MS);

  let upgraded: Verdicts;

  it(`${RELEASE}'s function over the same storage judges every cluster exactly as ${PREVIOUS_RELEASE.version} did, from its first request`, async () => {
    await serve(PROJECT_ROOT);
    upgraded = await verdicts();
    expect(upgraded).toEqual(before);
  }, STEP_TIMEOUT_MS);

  it(`${PREVIOUS_RELEASE.version}'s sync jobs and CLI keep working against ${RELEASE}: nothing to push, a change pushed, the registry listed and changed`, async () => {
    for (const said of await syncAll(previous.root)) expect(said).toMatch(/^(unchanged: the function holds generation|pushed generation)/m);
    // A change in a cluster reaches the function through the previous release's job: another Ingress now serves docs.example.com.
    const [, docs] = objectsOf(read("examples/inventory/unique-ingress-host/requests.yaml"));
    sources.get("inventory")!.objects.push({ ...docs!, metadata: { name: "docs-old", namespace: "wiki" } });
    await syncAll(previous.root);
    const changed = await verdicts();
    expect(message(changed["closed-inventory"]!["Ingress of a new host"])).toContain("host docs.example.com is already served by Ingress wiki/docs-old");
    expect({ ...changed, "closed-inventory": {}, "open-inventory": {} }).toEqual({ ...upgraded, "closed-inventory": {}, "open-inventory": {} });
    expect(await ok(previous.root, ["clusters", "list", ...operatorFlags()])).toMatch(/^closed-plain revision \d+: /m);
    await ok(previous.root, ["clusters", "label", "open-inventory", "team=shop", ...operatorFlags()]);
    await ok(previous.root, ["fleet", "status", ...operatorFlags()]);
  }, STEP_TIMEOUT_MS);

  let rolledOut: Verdicts;

  it(`${RELEASE}'s CLI and sync jobs change the fleet: a cluster registered and labelled, every job pushing, each job's release listed`, async () => {
    const added = { id: "closed-added", withoutSnapshot: "FailClosed" as const, source: "plain" as const, labels: { ring: "late" } };
    const keys = await generateKeyPair();
    const keyFile = join(dir, `${added.id}.key`);
    writeFileSync(keyFile, keys.privateKeyPem, { mode: 0o600 });
    const token = generateToken();
    credentials.set(added.id, { keyFile, publicKey: keys.publicKey, token, tokenHash: await tokenHash(token) });
    CLUSTERS.push(added);
    await ok(PROJECT_ROOT, ["clusters", "add", added.id, ...operatorFlags(), "--public-key", keys.publicKey, "--token-hash", await tokenHash(token), "--without-snapshot", "FailClosed", "--label", "ring=late"]);
    await ok(PROJECT_ROOT, ["clusters", "label", "closed-plain", "ring=main", ...operatorFlags()]);
    await syncAll(PROJECT_ROOT);
    rolledOut = await verdicts();
    expect(message(rolledOut["closed-added"]!["pod denied by its AffinityClass"])).toContain('AffinityClass "dc1"');
    const listing = JSON.parse(await ok(PROJECT_ROOT, ["clusters", "list", ...operatorFlags(), "-o", "json"])) as { clusters: Array<{ cluster: string; lastSync?: { release: string | null; verb: string | null } }> };
    expect(listing.clusters.find((c) => c.cluster === "closed-added")?.lastSync).toMatchObject({ release: RELEASE, verb: "sync" });
  }, STEP_TIMEOUT_MS);

  it(`${PREVIOUS_RELEASE.version}'s function takes the storage back (a rollback) and judges every cluster exactly as ${RELEASE} did; both releases' sync jobs push to it`, async () => {
    await serve(previous.root);
    expect(await verdicts()).toEqual(rolledOut);
    await syncAll(PROJECT_ROOT);
    await syncAll(previous.root);
    expect(await verdicts()).toEqual(rolledOut);
    expect(await ok(previous.root, ["clusters", "list", ...operatorFlags()])).toMatch(/^closed-added revision \d+: /m);
  }, STEP_TIMEOUT_MS);

  it(`and ${RELEASE} again, over what ${PREVIOUS_RELEASE.version} stored meanwhile, judges exactly as both did`, async () => {
    await serve(PROJECT_ROOT);
    expect(await verdicts()).toEqual(rolledOut);
    await syncAll(PROJECT_ROOT);
    expect(await verdicts()).toEqual(rolledOut);
  }, STEP_TIMEOUT_MS);
});
