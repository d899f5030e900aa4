// Section: the cluster's inventory inside CEL. examples/inventory's
// unique-ingress-host policy over a cluster of 100,000 Ingresses: what the
// snapshot carries (projected to the hosts, cut into namespace shards and
// index buckets), a review through the app against one of 10 Ingresses (in
// turns), an isolate's first sight of the index bucket a host needs, and a
// chain of dependent lookups beside policies spending most of the review's
// budget against the same review without it (one review, one budget), on
// the function's own code in Node with the Durable Object replaced by an
// in-memory store of the same interface (bench/memory-store.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { cacheStats, forget, HEAP_PER_STORED_BYTE, loadShards, loadSnapshot } from "../functions/store/cache.js";
import { indexBucketOf, indexKey, INVENTORY_INDEX_UNIT, INVENTORY_KIND_UNIT, MAX_LOAD_ROUNDS } from "../shared/inventory/index.js";
import { buildSnapshot, type KubeObject } from "../shared/snapshot/builder/index.js";
import { encodeSnapshot, type Snapshot } from "../shared/snapshot/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { envOf, storeWith, throughApp } from "./app.js";
import { figure, goalsHold, type Section } from "./figures.js";
import { exact, nowMs, quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";
import { wrapReview } from "../shared/admission/wrap.js";
import { burningService, chainLinks, serviceCreatePolicy } from "../test/support/chain.js";

const en = (n: number) => n.toLocaleString("en");
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function settledHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
const MB = 2 ** 20;
const LARGE = 100_000;
const SMALL = 10;
/** Ingresses per namespace: 1,000 namespaces at 100,000. */
const PER_NAMESPACE = 100;
const KIND = "networking.k8s.io/v1/Ingress";
const FIELD = "spec.rules[*].host";
/** Dependent lookups in the one-budget review: as many as one review loads. */
const CHAIN_DEPTH = MAX_LOAD_ROUNDS;

const POLICY_FILE = join(PROJECT_ROOT, "examples", "inventory", "unique-ingress-host", "policy.yaml");

/** An Ingress as the API serves it (what the sync job lists): two hosts, TLS, paths, labels, annotations, managed fields, status. */
function ingress(i: number): KubeObject {
  const namespace = `team-${Math.floor(i / PER_NAMESPACE)}`;
  const hosts = [`app-${i}.example.com`, `www.app-${i}.example.com`];
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      name: `app-${i}`,
      namespace,
      uid: `0b6a0c34-4c57-4d0e-9f6b-${String(i).padStart(12, "0")}`,
      resourceVersion: String(1_000_000 + i),
      generation: 1,
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { "app.kubernetes.io/name": `app-${i}`, "app.kubernetes.io/instance": `app-${i}`, "app.kubernetes.io/managed-by": "Helm" },
      annotations: { "cert-manager.io/cluster-issuer": "letsencrypt", "nginx.ingress.kubernetes.io/proxy-body-size": "16m", "meta.helm.sh/release-name": `app-${i}`, "meta.helm.sh/release-namespace": namespace },
      managedFields: [{ manager: "helm", operation: "Update", apiVersion: "networking.k8s.io/v1", time: "2026-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:rules": {}, "f:tls": {} } } }],
    },
    spec: {
      ingressClassName: "nginx",
      tls: [{ hosts, secretName: `app-${i}-tls` }],
      rules: hosts.map((host) => ({ host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: `app-${i}`, port: { number: 80 } } } }] } })),
    },
    status: { loadBalancer: { ingress: [{ ip: "203.0.113.10" }] } },
  };
}

function clusterOf(ingresses: number): { snapshot: Snapshot; rawBytes: number } {
  const policy = parseAllDocuments(readFileSync(POLICY_FILE, "utf8")).map((doc) => doc.toJS() as KubeObject);
  const objects = Array.from({ length: ingresses }, (_, i) => ingress(i));
  const rawBytes = objects.reduce((sum, object) => sum + Buffer.byteLength(JSON.stringify(object)), 0);
  const { snapshot, problems } = buildSnapshot([...policy, ...objects], { generation: Date.now(), builtAt: new Date().toISOString() });
  if (problems.length > 0) throw new Error(`the inventory bench cluster has problems: ${problems.join("; ")}`);
  return { snapshot, rawBytes };
}

/** The AdmissionReview creating a new Ingress in `namespace` for `hosts`. */
function ingressReview(name: string, namespace: string, hosts: readonly string[]): string {
  const object = {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name, namespace, labels: { "app.kubernetes.io/name": name } },
    spec: { ingressClassName: "nginx", rules: hosts.map((host) => ({ host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name, port: { number: 80 } } } }] } })) },
  };
  return JSON.stringify(wrapReview(object, { uid: "6f0e4c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b", username: "alice" }));
}

const bytesFigure = (name: string, bytes: number) => (bytes < MB ? figure(name, "KB", exact(bytes / 1024)) : figure(name, "MB", exact(bytes / MB)));

export async function inventory(): Promise<Section> {
  const section: Section = { id: "inventory", title: "10. Inventory inside CEL", figures: [], commands: [], notes: [] };

  // --- What the snapshot carries ---
  let started = nowMs();
  const large = clusterOf(LARGE);
  const buildSeconds = (nowMs() - started) / 1000;
  started = nowMs();
  const encoded = await encodeSnapshot(large.snapshot);
  const encodeSeconds = (nowMs() - started) / 1000;
  const sizes = (test: (name: string) => boolean) => encoded.units.filter((unit) => test(unit.name)).map((unit) => unit.bytes.length);
  const buckets = sizes((name) => name.startsWith(INVENTORY_INDEX_UNIT));
  const shards = sizes((name) => name !== "" && !name.includes("/"));
  const total = encoded.units.reduce((sum, unit) => sum + unit.bytes.length, 0);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  section.figures.push(
    bytesFigure(`${en(LARGE)} Ingresses as listed (JSON)`, large.rawBytes),
    bytesFigure(`${en(LARGE)} Ingresses: all units`, total),
    bytesFigure(`${en(LARGE)} Ingresses: cluster-wide part`, sizes((name) => name === "")[0]!),
    bytesFigure(`${en(LARGE)} Ingresses: namespace shards, together`, sum(shards)),
    bytesFigure(`${en(LARGE)} Ingresses: index buckets, together`, sum(buckets)),
    bytesFigure(`${en(LARGE)} Ingresses: median index bucket`, quantile(buckets, 0.5)),
    bytesFigure(`${en(LARGE)} Ingresses: largest index bucket`, Math.max(...buckets)),
    bytesFigure(`${en(LARGE)} Ingresses: the kind's directory`, sizes((name) => name.startsWith(INVENTORY_KIND_UNIT))[0]!),
  );
  // One Ingress's host changed: what an incremental push sends.
  const changed = structuredClone(large.snapshot);
  const key = `team-0/app-7`;
  (changed.inventory[KIND]!.objects[key] as { spec: { rules: Array<{ host: string }> } }).spec.rules[0]!.host = "renamed.example.com";
  const changedEncoded = await encodeSnapshot(changed);
  const before = new Map(encoded.units.map((unit) => [unit.name, unit.sha256]));
  const sent = changedEncoded.units.filter((unit) => before.get(unit.name) !== unit.sha256);
  section.figures.push(bytesFigure(`${en(LARGE)} Ingresses: one host changed, units pushed`, sum(sent.map((unit) => unit.bytes.length))));
  section.notes.push(
    `${en(LARGE)} Ingresses in ${en(LARGE / PER_NAMESPACE)} namespaces, two hosts each, as the API serves them (TLS, paths, labels, annotations, managed fields, status), with examples/inventory/unique-ingress-host bound: buildSnapshot projects each to its identity and hosts (${buildSeconds.toFixed(1)} s), encodeSnapshot cuts and hashes ${en(encoded.units.length)} units (${encodeSeconds.toFixed(1)} s): one shard per namespace, ${en(buckets.length)} index buckets (value → the Ingresses having it), the kind's directory of namespaces. The index holds each Ingress once per host, beside its shard: the price of reading one bucket per lookup. One Ingress's host renamed changes ${sent.map((unit) => (unit.name === "" ? "the cluster part" : unit.name)).join(", ")}: that is all an incremental push sends.`,
  );

  // --- Reviews through the app: 100,000 Ingresses against 10, warm, in turns ---
  const small = clusterOf(SMALL);
  const largeEnv = await envOf(new Map([["large", await storeWith(large.snapshot, undefined, encoded)]]));
  const smallEnv = await envOf(new Map([["small", await storeWith(small.snapshot)]]));
  const texts = { fresh: ingressReview("shop", "team-7", ["shop.example.com", "www.shop.example.com"]), taken: ingressReview("copy", "team-7", ["app-5.example.com"]) };
  for (const [env, cluster] of [[largeEnv, "large"], [smallEnv, "small"]] as const) await throughApp(texts.fresh, env, cluster);
  const samples = await interleave(
    [
      { name: "large", run: () => throughApp(texts.fresh, largeEnv, "large") },
      { name: "small", run: () => throughApp(texts.fresh, smallEnv, "small") },
    ],
    { rounds: 9, warmupMs: 900, batchMs: 100, minBatch: 300 },
  );
  const medians = (name: string) => samples[name]!.map((round) => quantile(round, 0.5) / 1e3);
  const [largeMedians, smallMedians] = [medians("large"), medians("small")];
  section.figures.push(
    figure(`${en(LARGE)} Ingresses: unique-host review median, through the app`, "µs", spread(largeMedians)),
    figure(`${en(SMALL)} Ingresses: unique-host review median, through the app`, "µs", spread(smallMedians)),
    figure(`unique-host review ${en(LARGE)} / ${en(SMALL)} Ingresses`, "×", spread(largeMedians.map((m, i) => m / smallMedians[i]!)), { op: "<=", value: 2 }),
  );
  // A denial is logged (one JSON line per review): silenced here, so the figure is the review's and the console stays readable.
  const log = console.log;
  console.log = () => {};
  let denied: number[][];
  try {
    denied = (await interleave([{ name: "taken", run: () => throughApp(texts.taken, largeEnv, "large") }], { rounds: 5, warmupMs: 300, batchMs: 100, minBatch: 300 }))["taken"]!;
  } finally {
    console.log = log;
  }
  section.figures.push(figure(`${en(LARGE)} Ingresses: review of a taken host (denied), through the app`, "µs", spread(denied.map((round) => quantile(round, 0.5) / 1e3))));

  // --- An isolate's first sight of the bucket a host needs ---
  forget();
  started = nowMs();
  const state = await loadSnapshot(largeEnv, "large");
  const clusterSightMs = nowMs() - started;
  if (!state.loaded) throw new Error("the inventory bench snapshot did not load");
  // The request's namespace is read once first, so each review after it meets a bucket it has not seen and nothing else new.
  await throughApp(ingressReview("warm", "team-7", ["warm.example.com"]), largeEnv, "large");
  const seen = new Set<number>([indexBucketOf(KIND, FIELD, indexKey("warm.example.com")!)]);
  const sights: number[] = [];
  const readsBefore = cacheStats.shardReads + cacheStats.absentReads;
  for (let i = 0; sights.length < 25; i++) {
    const host = `new-${i}.example.com`;
    const bucket = indexBucketOf(KIND, FIELD, indexKey(host)!);
    if (seen.has(bucket)) continue;
    seen.add(bucket);
    const text = ingressReview(`new-${i}`, "team-7", [host]);
    const t0 = nowMs();
    await throughApp(text, largeEnv, "large");
    sights.push(nowMs() - t0);
  }
  const readsPerSight = (cacheStats.shardReads + cacheStats.absentReads - readsBefore) / sights.length;
  section.figures.push(
    figure(`${en(LARGE)} Ingresses: first sight of the cluster-wide part`, "ms", exact(clusterSightMs)),
    figure(`${en(LARGE)} Ingresses: review meeting an index bucket for the first time, through the app`, "ms", spread(sights), { op: "<=", value: 10 }),
    figure("units read per such review", "", exact(readsPerSight)),
  );
  section.notes.push(
    `How the review stays flat: the policy looks hosts up in inventory.index('networking.k8s.io/v1', 'Ingress', '${FIELD}'), a map whose lookup reads the one bucket (of 1,024) that holds the host, built at push time and kept decoded in the isolate's cache with a Map over its entries. No list of Ingresses is walked. A first sight judges the review, finds the bucket it lacks (the view names it), reads it and judges again.`,
    `Reviews: a new Ingress with two free hosts (allowed), and one taking app-5.example.com (denied, the holder named), through the Hono app with the store in memory; ${en(SMALL)} Ingresses against ${en(LARGE)} in interleaved batches. First sight: the cache emptied, the cluster part read, the request's namespace read once, then 25 reviews each of a host in a bucket not read before (one store read each, as counted).`,
  );
  // The cache's estimate (HEAP_PER_STORED_BYTE) against the heap an index bucket takes, decoded.
  forget();
  const calibrationEnv = await envOf(new Map([["calibration", await storeWith(large.snapshot, undefined, encoded)]]), { SNAPSHOT_CACHE_MB: "1024" });
  const calibration = await loadSnapshot(calibrationEnv, "calibration");
  const bucketNames = encoded.units.filter((unit) => unit.name.startsWith(INVENTORY_INDEX_UNIT)).slice(0, 200);
  const heapBefore = settledHeap();
  const loaded = await loadShards(calibrationEnv, "calibration", calibration.loaded!, bucketNames.map((unit) => unit.name));
  if (!loaded.ok) throw new Error("the calibration buckets did not load");
  const heapPerByte = (settledHeap() - heapBefore) / sum(bucketNames.map((unit) => unit.bytes.length));
  section.figures.push(figure("heap per stored byte of an index bucket, decoded", "×", exact(heapPerByte), { op: "<=", value: HEAP_PER_STORED_BYTE }));
  forget();

  // --- One review, one budget: a chain of dependent lookups beside two policies that spend most of it ---
  const chainSnapshot = (objects: KubeObject[]) => buildSnapshot(objects, { generation: Date.now(), builtAt: new Date().toISOString() }).snapshot;
  const burners = [...serviceCreatePolicy("a-burn", 10), ...serviceCreatePolicy("b-burn", 10)];
  const chainEnv = await envOf(
    new Map([
      ["chained", await storeWith(chainSnapshot([...burners, ...serviceCreatePolicy("c-chain", 0, CHAIN_DEPTH), ...chainLinks(CHAIN_DEPTH)]))],
      ["plain", await storeWith(chainSnapshot([...burners, ...chainLinks(CHAIN_DEPTH)]))],
    ]),
  );
  const serviceText = JSON.stringify(burningService());
  const chainSamples = await interleave(
    [
      { name: "chained", run: () => throughApp(serviceText, chainEnv, "chained") },
      { name: "plain", run: () => throughApp(serviceText, chainEnv, "plain") },
    ],
    { rounds: 5, warmupMs: 3000, batchMs: 0, minBatch: 3, clock: "cpu" },
  );
  const chainMedians = (name: string) => chainSamples[name]!.map((round) => quantile(round, 0.5) / 1e6);
  const [chained, plain] = [chainMedians("chained"), chainMedians("plain")];
  section.figures.push(
    figure(`review beside two policies spending 9.2M units each, with a chain of ${CHAIN_DEPTH} dependent lookups: median, through the app`, "ms", spread(chained)),
    figure("the same review without the chain: median, through the app", "ms", spread(plain)),
    figure(`chain of ${CHAIN_DEPTH} dependent lookups beside the two: review / the same review without the chain`, "×", spread(chained.map((m, i) => m / plain[i]!)), { op: "<=", value: 1.2 }),
  );
  section.notes.push(
    `One review, one budget (issue 33): a Service CREATE judged by two policies that each spend 9.2M of the review's 20M units (10 regular expressions over a 200,000-character annotation) and, in the chained cluster, a third whose inventory.get of c0/link names c1, … ${CHAIN_DEPTH} deep (test/support/chain.ts): the function judges it ${CHAIN_DEPTH + 1} times, loading one shard each time. Only the chain's evaluation, which met a shard not loaded yet, runs again; the two others are taken as they were (before, every round judged all three again with a fresh budget: 4.4 to 4.7× the review without the chain, measured so; the issue measured 4.6 to 6.1×). CPU time of each review, in interleaved batches of 3.`,
  );
  if (!goalsHold(section)) section.biggestCost = `Inventory: ${section.figures.filter((f) => f.pass === false).map((f) => `${f.name} is ${f.value.median.toFixed(2)} ${f.unit} (goal ${f.goal!.op} ${f.goal!.value})`).join("; ")}.`;
  return section;
}
