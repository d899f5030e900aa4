// Section 2: does a review cost more in a bigger cluster, and what does an
// isolate pay once to hold the snapshot? Clusters of 10, 1,000 and 100,000
// applications, built from Kubernetes objects by the real buildSnapshot.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { wrapReview } from "../shared/admission/wrap.js";
import { buildSnapshot } from "../shared/snapshot/build/index.js";
import { decodeSnapshot, decodeStoredSnapshot, LINEAGE_LABELS, SnapshotView, type Lineage } from "../shared/snapshot/index.js";
import { PROJECT_ROOT } from "../scripts/local-worker.js";
import { applicationRef, className, clusterObjects, clusterShape, type ClusterShape } from "./cluster.js";
import { figure, goalsHold, type Section } from "./figures.js";
import { BENCH_APPLICATION, handleReview, reviewCases, reviewContext } from "./review.js";
import { exact, nowMs, quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";

const run = promisify(execFile);

export interface BuiltSnapshot {
  shape: ClusterShape;
  objects: number;
  /** What the sync job pushes. */
  json: string;
  /** What the push route stores and isolates read: the schema's output. */
  stored: string;
}

export function buildClusterSnapshot(applications: number): BuiltSnapshot {
  const shape = clusterShape(applications);
  const objects = clusterObjects(shape);
  const { snapshot, problems } = buildSnapshot(objects, { generation: Date.now(), builtAt: new Date().toISOString() });
  if (problems.length > 0) throw new Error(`benchmark cluster of ${applications} applications has problems: ${problems.slice(0, 3).join("; ")}`);
  if (Object.keys(snapshot.applications).length !== applications) throw new Error(`snapshot holds ${Object.keys(snapshot.applications).length} applications, expected ${applications}`);
  const json = JSON.stringify(snapshot);
  const validated = decodeSnapshot(json);
  if (!validated.ok) throw new Error(validated.error);
  return { shape, objects: objects.length, json, stored: JSON.stringify(validated.snapshot) };
}

/** What an isolate does with a stored snapshot (functions/store/cache.ts): decode, then wrap it in a view. */
export function viewOf(stored: string): SnapshotView {
  const decoded = decodeStoredSnapshot(stored);
  if (!decoded.ok) throw new Error(decoded.error);
  return new SnapshotView(decoded.snapshot);
}

export const SNAPSHOT_SIZES = [10, 1_000, 100_000] as const;
const CHILD_RUNS = 5;
const CHILD_COMMAND = "node --expose-gc scripts/tsrun.mjs bench/snapshot-child.ts <stored-snapshot.json> <namespace> <lineage>";

interface FirstSight {
  firstSightMs: number;
  decodeMs: number;
  viewMs: number;
  firstLookupMs: number;
  pushValidateMs: number;
  retainedBytes: number;
  viewBytes: number;
}

/** The benchmark pod's application, which the first review looks up. */
function firstLookup(shape: ClusterShape): [namespace: string, lineage: Lineage] {
  const app = applicationRef(BENCH_APPLICATION, shape);
  const labels = (JSON.parse(reviewCases(shape)[0]!.text) as { request: { object: { metadata: { labels: Record<string, string> } } } }).request.object.metadata.labels;
  return [app.namespace, { group: labels[LINEAGE_LABELS.group]!, kind: labels[LINEAGE_LABELS.kind]!, name: labels[LINEAGE_LABELS.name]! }];
}

async function firstSight(file: string, shape: ClusterShape): Promise<FirstSight> {
  const [namespace, lineage] = firstLookup(shape);
  const args = ["--expose-gc", join(PROJECT_ROOT, "scripts/tsrun.mjs"), "bench/snapshot-child.ts", file, namespace, JSON.stringify(lineage)];
  const { stdout } = await run(process.execPath, args, {
    cwd: PROJECT_ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as FirstSight;
}

/** Deleting the class the benchmark application uses: the policy must find every HelmRelease and Tenant that still names it. */
function classDeletion(shape: ClusterShape): string {
  const name = className(applicationRef(BENCH_APPLICATION, shape).affinityClass);
  return JSON.stringify(wrapReview({ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name }, spec: {} }, { operation: "DELETE" }));
}

const DELETION_ROUNDS = 5;

/** KB below a megabyte, MB above (2^10, 2^20 bytes). */
function bytesFigure(name: string, bytes: number) {
  return bytes < 2 ** 20 ? figure(name, "KB", exact(bytes / 2 ** 10)) : figure(name, "MB", exact(bytes / 2 ** 20));
}

/** Milliseconds per AffinityClass DELETE review in each cluster, one call per cluster in turns (a call at 100,000 applications takes long enough alone). */
function deletionCosts(contexts: ReadonlyArray<{ shape: ClusterShape; context: ReturnType<typeof reviewContext> }>): number[][] {
  const reviews = contexts.map(({ shape }) => classDeletion(shape));
  contexts.forEach(({ context }, i) => handleReview(reviews[i]!, context)); // warm-up
  const costs: number[][] = contexts.map(() => []);
  for (let round = 0; round < DELETION_ROUNDS; round++) {
    contexts.forEach(({ context }, i) => {
      const start = nowMs();
      const answer = JSON.parse(handleReview(reviews[i]!, context)) as { response: { allowed: boolean } };
      costs[i]!.push(nowMs() - start);
      if (answer.response.allowed) throw new Error("deleting a class in use was allowed; the benchmark expects the references check to find its applications");
    });
  }
  return costs;
}

export async function snapshotScale(dir: string): Promise<Section> {
  const section: Section = {
    id: "snapshot-scale",
    title: "2. Snapshot scale",
    figures: [],
    commands: [`${CHILD_COMMAND}   # ${CHILD_RUNS} fresh processes per size`],
    notes: [],
  };
  const built = SNAPSHOT_SIZES.map((applications) => buildClusterSnapshot(applications));
  const en = (n: number) => n.toLocaleString("en");
  section.notes.push(
    `Clusters: ${built.map((b) => `${en(b.shape.applications)} applications with ${en(b.shape.affinityClasses)} AffinityClasses and ${en(b.shape.tenants)} Tenants (${en(b.objects)} objects)`).join("; ")}. Tenants fan out 20 from tenant-root in chains of up to 4 namespaces; top-level tenants allow 5 classes, every third child narrows its parent's list. HelmReleases carry lineage labels, two in three name a class (the rest use the tenant default); every second application has a RWO PVC and its PV. Objects → buildSnapshot → JSON.stringify.`,
  );

  // The same 3 KB review against each cluster, batches taking turns.
  const contexts = built.map((b) => ({ shape: b.shape, context: reviewContext(viewOf(b.stored)) }));
  const contenders = built.map((b, i) => {
    const context = contexts[i]!.context;
    const text = reviewCases(b.shape)[0]!.text;
    return { name: String(b.shape.applications), run: () => handleReview(text, context).length };
  });
  const samples = await interleave(contenders, { rounds: 9, warmupMs: 900, batchMs: 100, minBatch: 600 });
  const medianOf = (name: string) => samples[name]!.map((round) => quantile(round, 0.5) / 1e3);
  for (const b of built) section.figures.push(figure(`${b.shape.applications.toLocaleString("en")} apps: review median (3 KB pod)`, "µs", spread(medianOf(String(b.shape.applications)))));
  const smallest = medianOf(String(SNAPSHOT_SIZES[0]));
  const largest = medianOf(String(SNAPSHOT_SIZES.at(-1)));
  section.figures.push(figure("review cost 100,000 / 10 apps", "×", spread(largest.map((m, i) => m / smallest[i]!)), { op: "<=", value: 1.1 }));
  deletionCosts(contexts).forEach((costs, i) =>
    section.figures.push(figure(`${built[i]!.shape.applications.toLocaleString("en")} apps: AffinityClass DELETE review`, "ms", spread(costs))),
  );
  section.notes.push(
    "The pod review is the one the goal is about; the AffinityClass DELETE review (no goal) is the one review that looks at the whole snapshot: affinity-class-definitions lists every HelmRelease and Tenant still naming the class, a scan of all applications. It is rare (an operator deleting a class) but grows with the cluster.",
  );

  for (const b of built) {
    const file = join(dir, `snapshot-${b.shape.applications}.json`);
    writeFileSync(file, b.stored);
    const runs: FirstSight[] = [];
    for (let i = 0; i < CHILD_RUNS; i++) runs.push(await firstSight(file, b.shape));
    const label = `${b.shape.applications.toLocaleString("en")} apps`;
    const isLargest = b.shape.applications === SNAPSHOT_SIZES.at(-1);
    const ms = (pick: (r: FirstSight) => number) => spread(runs.map(pick));
    section.figures.push(
      bytesFigure(`${label}: snapshot bytes`, Buffer.byteLength(b.json)),
      figure(`${label}: first sight (decode + view + first lookup)`, "ms", ms((r) => r.firstSightMs), isLargest ? { op: "<=", value: 250 } : undefined),
      figure(`${label}: retained heap`, "MB", ms((r) => r.retainedBytes / 2 ** 20), isLargest ? { op: "<=", value: 64 } : undefined),
    );
    if (isLargest)
      section.figures.push(
        figure(`${label}: of which decodeStoredSnapshot (JSON.parse + top-level check)`, "ms", ms((r) => r.decodeMs)),
        figure(`${label}: of which new SnapshotView`, "ms", ms((r) => r.viewMs)),
        figure(`${label}: of which the first lookup (index one namespace)`, "ms", ms((r) => r.firstLookupMs)),
        figure(`${label}: retained by the view and its indexes`, "MB", ms((r) => r.viewBytes / 2 ** 20)),
        figure(`${label}: schema pass on push (decodeSnapshot, once per push)`, "ms", ms((r) => r.pushValidateMs)),
      );
  }
  if (!goalsHold(section)) section.biggestCost = snapshotCost(section);
  section.notes.push(
    "First sight = what an isolate does once (functions/store/cache.ts): decodeStoredSnapshot of the stored form (the push route stores the schema's output, so reading it back is JSON.parse and a top-level check) + new SnapshotView, then the first review's applicationByLineage, which indexes that namespace; cold, in a fresh Node process per run. The schema pass the push route runs once per push is timed after it on the same text. Retained heap = heapUsed after two forced GCs with the view held and the JSON text dropped, minus heapUsed before reading the file. KB = 2^10, MB = 2^20 bytes.",
  );
  return section;
}

function snapshotCost(section: Section): string {
  const label = `${SNAPSHOT_SIZES.at(-1)!.toLocaleString("en")} apps`;
  const value = (name: string) => section.figures.find((f) => f.name === `${label}: ${name}`)!.value.median;
  const ratio = section.figures.find((f) => f.name.startsWith("review cost"))!;
  const decode = value("of which decodeStoredSnapshot (JSON.parse + top-level check)");
  const heapFails = section.figures.find((f) => f.name === `${label}: retained heap`)!.pass === false;
  const parts = [
    `Snapshot scale: at ${label} (${value("snapshot bytes").toFixed(1)} MB of JSON) an isolate's first sight takes ${value("first sight (decode + view + first lookup)").toFixed(0)} ms: decodeStoredSnapshot ${decode.toFixed(0)} ms, new SnapshotView ${value("of which new SnapshotView").toFixed(0)} ms, the first lookup ${value("of which the first lookup (index one namespace)").toFixed(0)} ms. The snapshot and the view retain ${value("retained heap").toFixed(0)} MB, ${value("retained by the view and its indexes").toFixed(0)} MB of it the view.`,
  ];
  const steps: Array<[string, number]> = [
    ["JSON.parse of the whole snapshot (decodeStoredSnapshot)", decode],
    ["new SnapshotView", value("of which new SnapshotView")],
    ["the first lookup", value("of which the first lookup (index one namespace)")],
  ];
  const [biggest, biggestMs] = steps.sort((a, b) => b[1] - a[1])[0]!;
  parts.push(
    biggest.startsWith("JSON.parse")
      ? `The biggest cost is ${biggest}, ${biggestMs.toFixed(0)} ms${heapFails ? ", and the decoded objects it leaves on the heap" : ""}: meeting the goal${heapFails ? "s" : ""} at this size needs a smaller wire form (applications keyed by lineage, without repeating group and kind on every entry) or a snapshot split by namespace and decoded on first use, not a faster decoder.`
      : `The biggest cost is ${biggest}, ${biggestMs.toFixed(0)} ms.`,
  );
  if (ratio.pass === false) parts.push(`The per-review cost ratio is ${ratio.value.median.toFixed(2)}×: lookups are hash-map lookups, so the difference is the larger heap (cache misses, GC).`);
  return parts.join(" ");
}
