// Section 6: reviews anyone who knows a cluster id can send, shaped to make a
// policy do more than linear work, each timed against a benign review of the
// same byte size in the same run; and the heap of an isolate that judges
// 10,000 reviews naming 10,000 different namespaces.
import { wrapReview } from "../shared/admission/wrap.js";
import { buildSnapshot, type KubeObject } from "../shared/snapshot/builder/index.js";
import { SnapshotView } from "../shared/snapshot/view.js";
import {
  adversarialCluster,
  applicationNamingClass,
  CLAIM_USERS,
  coLocationTerms,
  deadlockTerms,
  deletedClass,
  deployment,
  driftedTerms,
  enforcementClass,
  hugeRequest,
  invalidKeysClass,
  lineage,
  NAMESPACE,
  podInNamespace,
  selectingOthers,
  splitTerms,
  tenantAllowingMissing,
  WIDE_CLASS_TERMS,
  wideClassPod,
} from "../test/fixtures/adversarial/index.js";
import { figure, goalsHold, type Section } from "./figures.js";
import { handleReview, reviewContext } from "./review.js";
import { buildClusterSnapshot, viewOf } from "./snapshot.js";
import { quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";

interface AdversarialShape {
  name: string;
  /** What the shape attacks, for the report's notes. */
  attacks: string;
  /** The AdmissionReview body. */
  text: string;
  view: SnapshotView;
  /** A review of the same byte size that raises nothing, against the same snapshot. */
  benign: string;
}

const reviewText = (object: KubeObject, operation: "CREATE" | "DELETE" = "CREATE") =>
  JSON.stringify(wrapReview(object, { namespace: NAMESPACE, operation, uid: "9d3c1a2b-5e6f-4a7b-8c9d-0e1f2a3b4c5d" }));

/**
 * A Deployment of the `plain` application that every policy looks at and none
 * objects to (its class's nodeSelector, three replicas spread by a preferred
 * anti-affinity, Recreate), padded with environment variables (what makes real
 * pods big) to `bytes`.
 */
export function benignReview(bytes: number): string {
  const labels = { ...lineage("plain"), "app.kubernetes.io/name": "plain" };
  const antiAffinity = { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: labels }, topologyKey: "kubernetes.io/hostname" } }] };
  const make = (variables: number) =>
    reviewText(
      deployment(
        "plain",
        labels,
        {
          nodeSelector: { "topology.kubernetes.io/zone": "dc1" },
          affinity: { podAntiAffinity: antiAffinity },
          containers: [{ name: "main", image: "registry.example/app:1", env: Array.from({ length: variables }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}` })) }],
        },
        { replicas: 3, strategy: { type: "Recreate" } },
      ),
    );
  const perVariable = make(1_001).length - make(1_000).length;
  let text = make(Math.max(0, Math.round((bytes - make(0).length) / perVariable)));
  // Pad the last few bytes into the image tag, so the sizes match exactly.
  if (text.length < bytes) text = text.replace("registry.example/app:1", `registry.example/app:1${"0".repeat(bytes - text.length)}`);
  return text;
}

function viewOfObjects(objects: KubeObject[]): SnapshotView {
  const { snapshot, problems } = buildSnapshot(objects, { generation: 1, builtAt: new Date().toISOString() });
  if (problems.length > 0) throw new Error(`adversarial cluster has problems: ${problems.slice(0, 3).join("; ")}`);
  return new SnapshotView(snapshot);
}

const DELETE_SNAPSHOT_APPLICATIONS = 100_000;

/** Every shape, at the sizes the outsider's measurements used, up to the 3 MiB body limit. */
function adversarialShapes(): AdversarialShape[] {
  const view = viewOfObjects(adversarialCluster());
  const large = viewOf(buildClusterSnapshot(DELETE_SNAPSHOT_APPLICATIONS));
  const shape = (name: string, attacks: string, object: KubeObject, on = view, operation: "CREATE" | "DELETE" = "CREATE"): AdversarialShape => {
    const text = reviewText(object, operation);
    return { name, attacks, text, view: on, benign: benignReview(text.length) };
  };
  const deadlock = (terms: number, keys: number) =>
    shape(`${terms.toLocaleString("en")} podAffinity terms × ${keys.toLocaleString("en")} nodeSelector keys`, "pod-affinity-deadlock: terms × nodeSelector keys", deadlockTerms(terms, keys));
  return [
    deadlock(3_000, 3_000),
    deadlock(10_000, 10_000),
    deadlock(20_000, 30_000),
    shape("150 node affinity terms of 256 In values × 1,500 nodeSelector keys (OR class)", "affinity-class: nodeSelector copied per term, terms re-decoded per In split", splitTerms(150, 256, 1_500)),
    shape(`plain pod, class of ${WIDE_CLASS_TERMS.toLocaleString("en")} ORed terms`, "affinity-class: every class term tried against every pod term", wideClassPod()),
    shape("AffinityClass with a 2 MB spec.enforcement", "affinity-class-definitions: caller string echoed uncapped", enforcementClass(2_000_000)),
    shape("AffinityClass with 20,000 invalid nodeSelector keys", "affinity-class-definitions: label checks and one message per problem", invalidKeysClass(20_000)),
    shape(`AffinityClass DELETE, ${DELETE_SNAPSHOT_APPLICATIONS.toLocaleString("en")} applications`, "affinity-class-definitions: every application and tenant scanned per DELETE", deletedClass("unused"), large, "DELETE"),
    shape("Tenant allowing 100,000 unknown classes", "affinity-class-references: every missing name in the message", tenantAllowingMissing(100_000)),
    shape("required podAffinity selecting 50,000 values", "describeSelector: a selector printed whole", selectingOthers(50_000)),
    shape("20,000 drifted podAntiAffinity terms", "anti-affinity-drift: one finding per term", driftedTerms(20_000)),
    shape(`2,000 co-location terms × ${CLAIM_USERS} users of a claim`, "rwo-shared: terms × users", coLocationTerms(2_000)),
    shape("resource request of 1.5 million digits", "quantity parsing (ha-spread)", hugeRequest(1_500_000)),
    shape("application naming a 1 MB class", "affinity-class-references: caller string echoed uncapped", applicationNamingClass(1_000_000)),
  ];
}

/** What the function answers for `text`, summarised: allowed or denied, and how many bytes of messages. */
export function verdictOf(text: string, view: SnapshotView): string {
  const { response } = JSON.parse(handleReview(text, reviewContext(view))) as { response: { allowed: boolean; status?: { message: string }; warnings?: string[]; auditAnnotations?: Record<string, string> } };
  const messages = [response.status?.message ?? "", ...(response.warnings ?? []), ...Object.values(response.auditAnnotations ?? {})];
  const parts = [response.allowed ? "allowed" : "denied"];
  if (response.warnings?.length) parts.push(`${response.warnings.length} warning(s)`);
  if (response.auditAnnotations) parts.push(`audit ${Object.keys(response.auditAnnotations).join(", ")}`);
  parts.push(`${messages.reduce((sum, m) => sum + m.length, 0).toLocaleString("en")} bytes of messages`);
  return parts.join(", ");
}

const ADVERSARIAL_TIMING = { rounds: 5, warmupMs: 200, batchMs: 150, minBatch: 3 };
const NAMESPACE_REVIEWS = 10_000;
const NAMESPACE_BYTES = 10_000;
/** A review costs at most this many times a benign review of its size. */
const RATIO_GOAL = 5;
/** Heap the isolate may keep after 10,000 reviews naming new namespaces. */
const HEAP_GOAL_MB = 2;

const gc = (globalThis as { gc?: () => void }).gc;

/** Live heap after a full collection, in bytes. */
function liveHeap(): number {
  if (!gc) throw new Error("run with node --expose-gc (npm run bench does)");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Reviews of one pod of the `plain` application, each naming a new 10 KB namespace: what the isolate keeps of them. */
function namespaceHeap(view: SnapshotView): { before: number; after: number } {
  const review = (namespace: string) => JSON.stringify(wrapReview(podInNamespace(namespace), { namespace, uid: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0" }));
  const context = reviewContext(view);
  handleReview(review(NAMESPACE), context);
  const before = liveHeap();
  for (let i = 0; i < NAMESPACE_REVIEWS; i++) handleReview(review(`${String(i).padStart(8, "0")}-${"n".repeat(NAMESPACE_BYTES)}`), context);
  return { before, after: liveHeap() };
}

/**
 * What any JavaScript reader of the body pays before a policy runs: JSON.parse
 * and one listing of every object's keys (what a check that a map holds only
 * strings, or only label keys, must do once). An object of tens of thousands
 * of keys is a V8 dictionary, whose parse costs more per byte than the twin's
 * small objects and whose keys V8 sorts back into order on every listing.
 */
function readBody(text: string): number {
  const pending: unknown[] = [JSON.parse(text)];
  let keys = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) for (const item of value) pending.push(item);
    else
      for (const key of Object.keys(value)) {
        keys++;
        pending.push((value as Record<string, unknown>)[key]);
      }
  }
  return keys;
}

export async function adversarial(): Promise<Section> {
  const shapes = adversarialShapes();
  const section: Section = {
    id: "adversarial",
    title: "6. Adversarial reviews, in process (Node)",
    figures: [],
    commands: ["npm run bench   # section 6 runs inside the orchestrator (bench/adversarial.ts)"],
    notes: [
      `Each shape is an AdmissionReview anyone who knows the cluster id can send; its benign twin is a Deployment of the same byte size (environment variables) that every policy judges and none objects to. Both go through decode → review() with every policy → encode, as in section 1. ${ADVERSARIAL_TIMING.rounds} rounds; each round times a batch of each (≥ ${ADVERSARIAL_TIMING.minBatch} calls, ~${ADVERSARIAL_TIMING.batchMs} ms) in turns; the ratio is of the per-round medians. Goal: ≤ ${RATIO_GOAL}× (a small constant factor: the shapes pack selectors and terms, which are schema-checked, where the twin packs plain strings).`,
      `"JSON.parse and key listing alone / benign": timed in the same turns, the shape's body parsed and every object's keys listed once (Object.keys), nothing else, against the twin's whole review: what any JavaScript reader of that body pays before a policy runs. A map of tens of thousands of keys is a V8 dictionary, which JSON.parse builds at several times the cost per byte of the twin's small objects and whose keys V8 sorts back into insertion order on every listing (Object.keys, for-in, Object.entries alike), so a shape whose reading alone is near ${RATIO_GOAL}× cannot be judged within ${RATIO_GOAL}× in JavaScript.`,
      `The heap figure: ${NAMESPACE_REVIEWS.toLocaleString("en")} reviews of one pod, each naming a new ${NAMESPACE_BYTES.toLocaleString("en")}-byte namespace, live heap after a full GC before and after; an index keyed by caller input would keep ~${Math.round((NAMESPACE_REVIEWS * NAMESPACE_BYTES) / 2 ** 20)} MB.`,
    ],
  };
  for (const shape of shapes) {
    section.notes.push(`${shape.name} (${shape.text.length.toLocaleString("en")} bytes; ${shape.attacks}): ${verdictOf(shape.text, shape.view)}`);
    const context = reviewContext(shape.view);
    const samples = await interleave(
      [
        { name: "shape", run: () => handleReview(shape.text, context).length },
        { name: "benign", run: () => handleReview(shape.benign, context).length },
        { name: "read", run: () => readBody(shape.text) },
      ],
      ADVERSARIAL_TIMING,
    );
    const medians = (rounds: number[][]) => rounds.map((round) => quantile(round, 0.5) / 1e6);
    const shapeMs = medians(samples.shape!);
    const benignMs = medians(samples.benign!);
    const readMs = medians(samples.read!);
    section.figures.push(
      figure(`${shape.name}: median`, "ms", spread(shapeMs)),
      figure(`${shape.name}: benign twin median`, "ms", spread(benignMs)),
      figure(`${shape.name}: median / benign`, "×", spread(shapeMs.map((m, i) => m / benignMs[i]!)), { op: "<=", value: RATIO_GOAL }),
      figure(`${shape.name}: its body's JSON.parse and key listing alone / benign`, "×", spread(readMs.map((m, i) => m / benignMs[i]!))),
    );
  }
  const heap = namespaceHeap(shapes[0]!.view);
  section.figures.push(figure(`heap kept after ${NAMESPACE_REVIEWS.toLocaleString("en")} reviews naming new namespaces`, "MB", spread([(heap.after - heap.before) / 2 ** 20]), { op: "<=", value: HEAP_GOAL_MB }));
  if (!goalsHold(section)) {
    const read = (name: string) => section.figures.find((f) => f.name === name.replace(/median \/ benign$/, "its body's JSON.parse and key listing alone / benign"));
    const failing = section.figures
      .filter((f) => f.pass === false)
      .map((f) => `${f.name} ${f.value.median.toFixed(2)}${f.unit === "×" ? "×" : ` ${f.unit}`}${read(f.name) ? ` (reading its body alone ${read(f.name)!.value.median.toFixed(2)}×)` : ""}`);
    section.biggestCost = `Adversarial reviews: ${failing.join("; ")}.`;
  }
  return section;
}
