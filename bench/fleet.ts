// Section: a fleet on one deployment. Snapshots in shards, the byte-bounded
// isolate cache and incremental pushes, measured on the function's own code
// in Node (the Hono app, its cache, its push route) with the Durable Object
// replaced by an in-memory store of the same interface (bench/memory-store.ts).
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { HEAP_PER_STORED_BYTE, cacheStats, forget, loadShards, loadSnapshot } from "../functions/store/cache.js";
import { decodeAdmissionReview } from "../shared/admission/index.js";
import { review } from "../shared/review/index.js";
import { bucketOf, BUCKETS, encodeSnapshot, pushBodies, reviewUnits, SnapshotView, type EncodedSnapshot, type Snapshot } from "../shared/snapshot/index.js";
import { POLICIES } from "../policies/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { envOf, storeWith, throughApp } from "./app.js";
import { applicationRef, type ClusterShape } from "./cluster.js";
import { figure, goalsHold, type Section } from "./figures.js";
import { podReviewOf } from "./review.js";
import { buildClusterSnapshot } from "./snapshot.js";
import { exact, nowMs, quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";

const run = promisify(execFile);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const en = (n: number) => n.toLocaleString("en");
const MB = 2 ** 20;
const LARGE = 1_000_000;
const FLEET_CLUSTERS = 1_000;
const FLEET_APPLICATIONS = 10_000;
const CHANGE_APPLICATIONS = 100_000;
const CHILD_COMMAND = "node --expose-gc --max-old-space-size=128 scripts/tsrun.mjs bench/fleet-push-child.ts <dir of push bodies>";

function settledHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function bytesFigure(name: string, bytes: number) {
  return bytes < MB ? figure(name, "KB", exact(bytes / 1024)) : figure(name, "MB", exact(bytes / MB));
}

/** The same snapshot one namespace later: application `j` names another of its tenant's classes. */
function changedOne(snapshot: Snapshot, shape: ClusterShape, j: number): Snapshot {
  const app = applicationRef(j, shape);
  const key = `${app.namespace}/${app.helmRelease}`;
  const changed = { ...snapshot, generation: snapshot.generation + 1, applications: { ...snapshot.applications } };
  changed.applications[key] = { ...changed.applications[key]!, affinityClass: "pool-moved" };
  return changed;
}

/** The units of `next` that differ from `base`, and the names `base` has that `next` does not: what `sync` finds. */
function difference(base: EncodedSnapshot, next: EncodedSnapshot) {
  const before = new Map(base.units.map((unit) => [unit.name, unit.sha256]));
  const changed = next.units.filter((unit) => before.get(unit.name) !== unit.sha256);
  const names = new Set(next.units.map((unit) => unit.name));
  const removed = base.units.filter((unit) => !names.has(unit.name)).map((unit) => unit.name);
  const buckets = new Set([...changed.map((unit) => bucketOf(unit.name)), ...removed.map(bucketOf)]);
  return { changed, removed, buckets };
}

const bodyBytes = (bodies: readonly string[]) => bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);

export async function fleet(dir: string): Promise<Section> {
  const section: Section = { id: "fleet", title: "2. Fleet: snapshots in shards", figures: [], commands: [`${CHILD_COMMAND}   # full push, then a one-namespace incremental push`], notes: [] };

  // --- 1,000,000 applications in one cluster ---
  let started = nowMs();
  const large = buildClusterSnapshot(LARGE);
  const buildSeconds = (nowMs() - started) / 1000;
  started = nowMs();
  const encoded = await encodeSnapshot(large.snapshot);
  const encodeSeconds = (nowMs() - started) / 1000;
  const clusterUnit = encoded.units.find((unit) => unit.name === "")!;
  const shardSizes = encoded.units.filter((unit) => unit.name !== "" && !unit.name.includes("/")).map((unit) => unit.bytes.length);
  const totalBytes = encoded.units.reduce((sum, unit) => sum + unit.bytes.length, 0);
  section.notes.push(
    `The 1,000,000-application cluster: bench/cluster.ts's objects (${en(large.shape.affinityClasses)} AffinityClasses, ${en(large.shape.tenants)} Tenants, ${en(LARGE)} HelmReleases, a RWO PVC and its PV for every second application) built by buildSnapshot in batches of 50,000 applications (${buildSeconds.toFixed(0)} s), split and encoded into units (encodeSnapshot: schema pass and SHA-256 per unit, ${encodeSeconds.toFixed(0)} s, what sync does).`,
  );
  section.figures.push(
    figure(`${en(LARGE)} apps: units`, "", exact(encoded.units.length)),
    bytesFigure(`${en(LARGE)} apps: all units`, totalBytes),
    bytesFigure(`${en(LARGE)} apps: cluster-wide part`, clusterUnit.bytes.length),
    bytesFigure(`${en(LARGE)} apps: median namespace shard`, quantile(shardSizes, 0.5)),
  );

  // Pushes through the route, in a fresh process: full, then one namespace changed.
  const bodiesDir = join(dir, "push-bodies");
  rmSync(bodiesDir, { recursive: true, force: true });
  mkdirSync(bodiesDir, { recursive: true });
  const fullBodies = pushBodies(large.snapshot.generation, encoded.units, { base: null, builtAt: large.snapshot.builtAt, removed: [], digest: encoded.digest });
  fullBodies.forEach((body, i) => writeFileSync(join(bodiesDir, `full-${i}.json`), body));
  const moved = changedOne(large.snapshot, large.shape, 7);
  const movedEncoded = await encodeSnapshot(moved);
  const largeDiff = difference(encoded, movedEncoded);
  const incrementalBodies = pushBodies(moved.generation, largeDiff.changed, { base: large.snapshot.generation, builtAt: moved.builtAt, removed: largeDiff.removed, digest: movedEncoded.digest });
  incrementalBodies.forEach((body, i) => writeFileSync(join(bodiesDir, `incremental-${i}.json`), body));
  // The child's old space is capped at an isolate's 128 MB, so V8 collects as it would there instead of letting garbage pile up.
  const { stdout } = await run(process.execPath, ["--expose-gc", "--max-old-space-size=128", join(PROJECT_ROOT, "scripts/tsrun.mjs"), "bench/fleet-push-child.ts", bodiesDir], {
    cwd: PROJECT_ROOT,
    maxBuffer: 1 << 20,
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const pushed = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<"full" | "incremental", { peakBytes: number; bodies: number; bytes: number; ms: number }>;
  rmSync(bodiesDir, { recursive: true, force: true });
  section.figures.push(
    figure(`${en(LARGE)} apps: full push, peak heap on the function side`, "MB", exact(pushed.full.peakBytes / MB), { op: "<=", value: 128 }),
    figure(`${en(LARGE)} apps: one-namespace incremental push, peak heap on the function side`, "MB", exact(pushed.incremental.peakBytes / MB), { op: "<=", value: 16 }),
  );
  section.notes.push(
    `Pushes: the full push is ${en(pushed.full.bodies)} bodies, ${(pushed.full.bytes / MB).toFixed(0)} MB, through the route in ${(pushed.full.ms / 1000).toFixed(1)} s; the incremental one (application 7 names another class) is ${pushed.incremental.bodies} body of ${(pushed.incremental.bytes / 1024).toFixed(1)} KB: ${largeDiff.changed.map((unit) => unit.name).join(", ")}. Peak heap = the most heapUsed + arrayBuffers seen at each store call and after each request, above the heap before the push (garbage not yet collected included), in a fresh process whose store keeps hashes only and whose old space is capped at 128 MB, as an isolate's is (a push that needed more would fail there).`,
  );

  // An isolate's first sight of a namespace, and the review of a pod there: through the cache, a new namespace each time.
  const largeStore = await storeWith(large.snapshot);
  const largeEnv = await envOf(new Map([["large", largeStore]]));
  forget();
  started = nowMs();
  const state = await loadSnapshot(largeEnv, "large");
  const clusterSightMs = nowMs() - started;
  if (!state.loaded) throw new Error("the large cluster's snapshot did not load");
  const sights: number[] = [];
  for (let j = 1; j < 2_000 && sights.length < 25; j += 79) {
    const text = podReviewOf(large.shape, j);
    const decoded = decodeAdmissionReview(text);
    if (!decoded.ok) throw new Error(decoded.error);
    const t0 = nowMs();
    const shards = await loadShards(largeEnv, "large", state.loaded, reviewUnits(decoded.review.request, state.loaded.facts));
    if (!shards.ok) throw new Error("shards did not load");
    review(decoded.review.request, { cluster: "large", policies: POLICIES, snapshot: { view: new SnapshotView(state.loaded.facts, shards.shards), pushedAt: Date.now() }, withoutSnapshot: "FailOpen", now: Date.now() });
    sights.push(nowMs() - t0);
  }
  section.figures.push(
    figure(`${en(LARGE)} apps: first sight of the cluster-wide part`, "ms", exact(clusterSightMs)),
    figure(`${en(LARGE)} apps: first sight of a namespace (shard read, decode, the review)`, "ms", spread(sights), { op: "<=", value: 10 }),
  );

  // A review at 1,000,000 applications against one at 10, warm, through the app, in turns.
  const small = buildClusterSnapshot(10);
  const smallEnv = await envOf(new Map([["small", await storeWith(small.snapshot)]]));
  const texts = { large: podReviewOf(large.shape, 1), small: podReviewOf(small.shape, 1) };
  const samples = await interleave(
    [
      { name: "large", run: () => throughApp(texts.large, largeEnv, "large") },
      { name: "small", run: () => throughApp(texts.small, smallEnv, "small") },
    ],
    { rounds: 9, warmupMs: 900, batchMs: 100, minBatch: 400 },
  );
  const medians = (name: string) => samples[name]!.map((round) => quantile(round, 0.5) / 1e3);
  const [largeMedians, smallMedians] = [medians("large"), medians("small")];
  section.figures.push(
    figure(`${en(LARGE)} apps: review median, through the app (3 KB pod)`, "µs", spread(largeMedians)),
    figure("10 apps: review median, through the app (3 KB pod)", "µs", spread(smallMedians)),
    figure(`review cost ${en(LARGE)} / 10 apps`, "×", spread(largeMedians.map((m, i) => m / smallMedians[i]!)), { op: "<=", value: 1.1 }),
  );
  largeStore.onCall = undefined;

  // --- 1,000 clusters × 10,000 applications, reviewed round-robin, in a fresh process ---
  const rounds = 3;
  const fleetRun = await run(process.execPath, ["--expose-gc", join(PROJECT_ROOT, "scripts/tsrun.mjs"), "bench/fleet-isolate-child.ts", String(FLEET_CLUSTERS), String(FLEET_APPLICATIONS), String(rounds)], {
    cwd: PROJECT_ROOT,
    maxBuffer: 1 << 20,
  });
  const isolate = JSON.parse(fleetRun.stdout.trim().split("\n").at(-1)!) as { retained: number; estimate: number; entries: number; reviews: number; ms: number; namespaces: number };
  section.commands.push(`node --expose-gc scripts/tsrun.mjs bench/fleet-isolate-child.ts ${FLEET_CLUSTERS} ${FLEET_APPLICATIONS} ${rounds}`);
  section.figures.push(
    figure(`${en(FLEET_CLUSTERS)} clusters × ${en(FLEET_APPLICATIONS)} apps round-robin: isolate heap retained`, "MB", exact(isolate.retained / MB), { op: "<=", value: 64 }),
    figure(`${en(FLEET_CLUSTERS)} clusters × ${en(FLEET_APPLICATIONS)} apps: cache's own estimate`, "MB", exact(isolate.estimate / MB)),
  );
  section.notes.push(
    `Fleet: ${en(FLEET_CLUSTERS)} clusters registered, each holding a ${en(FLEET_APPLICATIONS)}-application snapshot (${en(isolate.namespaces)} namespaces), their pods reviewed in turns, ${rounds} rounds (${en(isolate.reviews)} reviews through the app, ${(isolate.ms / isolate.reviews).toFixed(2)} ms each on average, most a first sight), in a fresh process. Retained = heapUsed after two forced GCs minus before the first of them, with the cache at its default 32 MB bound (${en(isolate.entries)} entries at the end; the estimate counts ${HEAP_PER_STORED_BYTE} bytes of heap per stored byte).`,
  );

  // The estimate against the heap: shards of one cluster, decoded and kept.
  forget();
  const tenThousand = buildClusterSnapshot(FLEET_APPLICATIONS);
  const calibrationStore = new Map([["calibration", await storeWith(tenThousand.snapshot)]]);
  const calibrationEnv = await envOf(calibrationStore, { SNAPSHOT_CACHE_MB: "1024" });
  const calibrationState = await loadSnapshot(calibrationEnv, "calibration");
  const namespaces = Object.keys(tenThousand.snapshot.tenants);
  const heapBefore = settledHeap();
  const estimateBefore = cacheStats.bytes;
  const loaded = await loadShards(calibrationEnv, "calibration", calibrationState.loaded!, namespaces);
  if (!loaded.ok) throw new Error("calibration shards did not load");
  for (const facts of loaded.shards.values()) if (facts && "lineageIndex" in facts) facts.lineageIndex();
  const heapPerByte = (settledHeap() - heapBefore) / ((cacheStats.bytes - estimateBefore) / HEAP_PER_STORED_BYTE);
  section.figures.push(figure("heap per stored byte of a shard, decoded and indexed", "×", exact(heapPerByte)));
  forget();

  // --- one namespace changed at 100,000 applications ---
  const hundred = buildClusterSnapshot(CHANGE_APPLICATIONS);
  const hundredEncoded = await encodeSnapshot(hundred.snapshot);
  const hundredMoved = changedOne(hundred.snapshot, hundred.shape, 7);
  const hundredMovedEncoded = await encodeSnapshot(hundredMoved);
  const diff = difference(hundredEncoded, hundredMovedEncoded);
  const full = bodyBytes(pushBodies(hundred.snapshot.generation, hundredEncoded.units, { base: null, builtAt: hundred.snapshot.builtAt, removed: [], digest: hundredEncoded.digest }));
  const incremental = bodyBytes(pushBodies(hundredMoved.generation, diff.changed, { base: hundred.snapshot.generation, builtAt: hundredMoved.builtAt, removed: diff.removed, digest: hundredMovedEncoded.digest }));
  const bucketListing = JSON.stringify({ cluster: "c", generation: hundred.snapshot.generation, buckets: Object.fromEntries([...hundredEncoded.buckets].map(([b, d]) => [String(b), d])) }).length;
  section.figures.push(
    bytesFigure(`${en(CHANGE_APPLICATIONS)} apps: full push`, full),
    bytesFigure(`${en(CHANGE_APPLICATIONS)} apps: one namespace changed, incremental push`, incremental),
    figure(`${en(CHANGE_APPLICATIONS)} apps: full push / one-namespace push, bytes`, "×", exact(full / incremental), { op: ">=", value: 100 }),
  );
  section.notes.push(
    `One namespace changed at ${en(CHANGE_APPLICATIONS)} applications: application 7 names another class, which changes its namespace's shard and the references of the two classes (${diff.changed.map((unit) => unit.name).join(", ")}). Before pushing, sync reads the ${BUCKETS} bucket digests (${(bucketListing / 1024).toFixed(0)} KB) and the unit hashes of the ${diff.buckets.size} buckets that differ; those GETs are not counted as pushed bytes.`,
  );
  if (!goalsHold(section)) section.biggestCost = `Fleet: ${section.figures.filter((f) => f.pass === false).map((f) => `${f.name} is ${f.value.median.toFixed(2)} ${f.unit} (goal ${f.goal!.op} ${f.goal!.value})`).join("; ")}.`;
  return section;
}
