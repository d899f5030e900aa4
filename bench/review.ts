// Section 1: one review in process, as the function does it (decode → match →
// evaluate → decide → encode → JSON), against the floor of parsing and
// re-serialising the same bytes, for pods of about 3, 13 and 60 KB.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeAdmissionReview, encodeAdmissionResponse } from "../shared/admission/index.js";
import { matchPolicies, review, type ReviewContext } from "../shared/review/index.js";
import type { SnapshotView } from "../shared/snapshot/view.js";
import { POLICIES } from "../policies/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { applicationPod, applicationRef, type ClusterShape } from "./cluster.js";
import { figure, goalsHold, type Figure, type Section } from "./figures.js";
import { quantile, spread } from "./stats.js";
import { gcLoad, interleave, type GcLoad, type InterleaveOptions } from "./timing.js";

interface ReviewCase {
  name: string;
  text: string;
  containers: number;
  operation: "CREATE" | "UPDATE";
}

/** The application whose pods are judged: index 1 names its class, and exists in every cluster shape. */
const BENCH_APPLICATION = 1;

function admissionReview(object: Record<string, unknown>, operation: "CREATE" | "UPDATE", oldObject: Record<string, unknown> | null, namespace: string, uid: string) {
  const metadata = object.metadata as { name?: string };
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      requestResource: { group: "", version: "v1", resource: "pods" },
      ...(metadata.name ? { name: metadata.name } : {}),
      namespace,
      operation,
      userInfo: {
        username: "system:serviceaccount:kube-system:replicaset-controller",
        groups: ["system:serviceaccounts", "system:authenticated"],
      },
      object,
      oldObject,
      dryRun: false,
      options: { apiVersion: "meta.k8s.io/v1", kind: operation === "CREATE" ? "CreateOptions" : "UpdateOptions" },
    },
  };
}

/** ~3 KB: one container; ~13 KB: six containers, UPDATE of a running pod; ~60 KB: fifty containers. */
export function reviewCases(shape: ClusterShape): ReviewCase[] {
  const app = applicationRef(BENCH_APPLICATION, shape);
  if (!app.namesClass) throw new Error(`application ${app.name} relies on its tenant's default class; the benchmark pod's nodeSelector needs one that names its class`);
  const small = applicationPod({ app, containers: 1, sidecarEnv: 0 });
  const running = applicationPod({ app, containers: 6, sidecarEnv: 0, running: true });
  const relabelled = { ...running, metadata: { ...(running.metadata as object), labels: { ...((running.metadata as { labels: object }).labels), "example.org/canary": "true" } } };
  const large = applicationPod({ app, containers: 50, sidecarEnv: 11 });
  const uid = "b7d1c2e3-f4a5-4b6c-9d8e-0f1a2b3c4d5e";
  return [
    { name: "3 KB pod", text: JSON.stringify(admissionReview(small, "CREATE", null, app.namespace, uid)), containers: 1, operation: "CREATE" },
    { name: "13 KB pod", text: JSON.stringify(admissionReview(relabelled, "UPDATE", running, app.namespace, uid)), containers: 6, operation: "UPDATE" },
    { name: "60 KB pod", text: JSON.stringify(admissionReview(large, "CREATE", null, app.namespace, uid)), containers: 50, operation: "CREATE" },
  ];
}

export function reviewContext(view: SnapshotView): ReviewContext {
  const now = Date.now();
  return { cluster: "bench", policies: POLICIES, snapshot: { view, pushedAt: now }, withoutSnapshot: "FailOpen", now };
}

/** What POST /v1/:cluster/validate does between reading the body and writing the response. */
export function handleReview(text: string, context: ReviewContext): string {
  const decoded = decodeAdmissionReview(text);
  if (!decoded.ok) throw new Error(decoded.error);
  return JSON.stringify(encodeAdmissionResponse(decoded.review, review(decoded.review.request, context).decision));
}

/** The floor: any webhook must at least parse the body and produce JSON. */
export function floor(text: string): string {
  return JSON.stringify(JSON.parse(text));
}

/** What the case exercises, checked before it is timed: the verdict and the policies that looked at it. */
function describeCase(reviewCase: ReviewCase, context: ReviewContext): string {
  const decoded = decodeAdmissionReview(reviewCase.text);
  if (!decoded.ok) throw new Error(`${reviewCase.name}: ${decoded.error}`);
  const response = JSON.parse(handleReview(reviewCase.text, context)) as { response: { allowed: boolean } };
  if (!response.response.allowed) throw new Error(`${reviewCase.name} was denied; the benchmark pods must be allowed`);
  const matched = matchPolicies(decoded.review.request, context.policies, context.snapshot?.view).map((p) => p.id);
  return `${reviewCase.name}: ${reviewCase.text.length} bytes, ${reviewCase.containers} container(s), ${reviewCase.operation}, allowed; policies evaluated: ${matched.join(", ") || "none match this request"}`;
}

const GC_CALLS = 1_000;

const REVIEW_TIMING: InterleaveOptions = { rounds: 9, warmupMs: 800, batchMs: 120, minBatch: 600 };

export async function perReview(view: SnapshotView, shape: ClusterShape): Promise<Section> {
  const context = reviewContext(view);
  const section: Section = {
    id: "per-review",
    title: "1. Per review, in process (Node)",
    figures: [],
    commands: ["npm run bench   # section 1 runs inside the orchestrator (bench/review.ts)"],
    notes: [
      `Candidate: decodeAdmissionReview → review() with POLICIES (${POLICIES.map((p) => p.id).join(", ")}) → encodeAdmissionResponse → JSON.stringify; floor: JSON.stringify(JSON.parse(body)), as the issue defines it; the floor re-serialises the whole body while the function answers a few hundred bytes, so for large pods the review can cost less than the floor. Snapshot: ${shape.applications.toLocaleString("en")} applications, ${shape.affinityClasses.toLocaleString("en")} classes, ${shape.tenants.toLocaleString("en")} tenants.`,
      `${REVIEW_TIMING.rounds} rounds per pod size; each round times every call of one candidate batch and one floor batch (≥ ${REVIEW_TIMING.minBatch} calls, ~${REVIEW_TIMING.batchMs} ms), taking turns; figures are the median (min–max) of the per-round statistic.`,
      "\"of which policy\": what each policy adds in dispatch order (the review with the first k policies minus the review with the first k−1); the first policy that decodes the pod (workloadOf) carries that decode for the ones after it. Young-generation GCs: counted over 1,000 calls, three times, with a gc PerformanceObserver.",
    ],
  };
  const cases = reviewCases(shape);
  for (const reviewCase of cases) {
    section.notes.push(describeCase(reviewCase, context));
    const samples = await interleave(
      [
        { name: "candidate", run: () => handleReview(reviewCase.text, context).length },
        { name: "floor", run: () => floor(reviewCase.text).length },
        // Only to split the candidate's cost; not a figure with a goal.
        { name: "decode", run: () => Number(decodeAdmissionReview(reviewCase.text).ok) },
      ],
      REVIEW_TIMING,
    );
    const medians = roundMedians(samples.candidate!);
    // Garbage made per call, in turns; one at a time, as gc entries are process-wide.
    const gc: [GcLoad[], GcLoad[]] = [[], []];
    for (let i = 0; i < 3; i++) {
      gc[0].push(await gcLoad({ name: "candidate", run: () => handleReview(reviewCase.text, context).length }, GC_CALLS));
      gc[1].push(await gcLoad({ name: "floor", run: () => floor(reviewCase.text).length }, GC_CALLS));
    }
    const floorMedians = roundMedians(samples.floor!);
    section.figures.push(
      figure(`${reviewCase.name}: median`, "µs", spread(medians)),
      figure(`${reviewCase.name}: p99`, "µs", spread(samples.candidate!.map((round) => quantile(round, 0.99) / 1e3)), { op: "<=", value: 1000 }),
      figure(`${reviewCase.name}: floor median`, "µs", spread(floorMedians)),
      figure(`${reviewCase.name}: floor p99`, "µs", spread(samples.floor!.map((round) => quantile(round, 0.99) / 1e3))),
      figure(`${reviewCase.name}: median / floor`, "×", spread(medians.map((m, i) => m / floorMedians[i]!)), { op: "<=", value: 2 }),
      figure(`${reviewCase.name}: of which decode (JSON.parse + AdmissionReview schema)`, "µs", spread(roundMedians(samples.decode!))),
      figure(`${reviewCase.name}: young-generation GCs per 1,000 reviews`, "GCs", spread(gc[0].map((g) => g.minorPer1000))),
      figure(`${reviewCase.name}: young-generation GCs per 1,000 floor calls`, "GCs", spread(gc[1].map((g) => g.minorPer1000))),
      figure(`${reviewCase.name}: mean young-generation GC pause (reviews)`, "ms", spread(gc[0].map((g) => g.minorPauseMs))),
      figure(`${reviewCase.name}: mean young-generation GC pause (floor)`, "ms", spread(gc[1].map((g) => g.minorPauseMs))),
    );
  }
  const policies = await policyCosts(cases.at(-1)!, context);
  section.figures.push(...policies);
  if (!goalsHold(section)) section.biggestCost = perReviewCost(section, cases, policies);
  return section;
}

function perReviewCost(section: Section, cases: readonly ReviewCase[], policies: readonly Figure[]): string {
  const value = (name: string) => section.figures.find((f) => f.name === name)!.value.median;
  const fails = (name: string) => section.figures.find((f) => f.name === name)!.pass === false;
  const sentences: string[] = [];
  const slow = cases.filter((c) => fails(`${c.name}: median / floor`));
  if (slow.length > 0) {
    const costliest = [...policies].sort((a, b) => b.value.median - a.value.median).filter((f) => f.value.median >= 1);
    const parts = slow.map((c) => {
      const total = value(`${c.name}: median`);
      const decode = value(`${c.name}: of which decode (JSON.parse + AdmissionReview schema)`);
      return `the ${c.name} takes ${total.toFixed(0)} µs, ${value(`${c.name}: median / floor`).toFixed(2)}× the floor's ${value(`${c.name}: floor median`).toFixed(0)} µs: decode ${decode.toFixed(0)} µs, policies + encode ${(total - decode).toFixed(0)} µs`;
    });
    sentences.push(`Per review: ${parts.join("; ")}. The costliest policies (60 KB pod): ${costliest.map((f) => `${f.name.replace(/^.*policy /, "")} ${f.value.median.toFixed(1)} µs`).join(", ")}.`);
  }
  for (const c of cases.filter((c) => fails(`${c.name}: p99`))) {
    const pause = value(`${c.name}: mean young-generation GC pause (reviews)`);
    const floorPause = value(`${c.name}: mean young-generation GC pause (floor)`);
    sentences.push(
      `Tail: the ${c.name}'s p99 is ${value(`${c.name}: p99`).toFixed(0)} µs against the floor's ${value(`${c.name}: floor p99`).toFixed(0)} µs. Reviews bring ${value(`${c.name}: young-generation GCs per 1,000 reviews`).toFixed(0)} young-generation GCs per 1,000 (the floor ${value(`${c.name}: young-generation GCs per 1,000 floor calls`).toFixed(0)}) pausing ${pause.toFixed(2)} ms each (the floor's ${floorPause.toFixed(2)} ms); a review that meets one pays its pause, so the p99 is the GC pause.`,
    );
    if (pause > 3 * floorPause && /new WeakMap/.test(readFileSync(join(PROJECT_ROOT, "shared/k8s/workload/index.ts"), "utf8")))
      sentences.push(
        "What the reviews keep beyond a call is shared/k8s/workload's module-level WeakMap of decoded workloads, keyed by request objects: V8's scavenger treats WeakMap entries as ephemerons, so their number shows in every young-generation pause. Decoding the workload once per request and handing it to the policies (no module-level cache) keeps the single decode without that cost.",
      );
  }
  return sentences.join(" ");
}

const roundMedians = (rounds: number[][]) => rounds.map((round) => quantile(round, 0.5) / 1e3);

/**
 * What each policy adds to a review of the largest pod, in dispatch order: the
 * review with the first k policies minus the review with the first k-1, each
 * call on a freshly decoded request (a decode a policy shares with the ones
 * before it is not counted twice).
 */
async function policyCosts(reviewCase: ReviewCase, context: ReviewContext): Promise<Figure[]> {
  const prefixes = context.policies.map((_, k) => context.policies.slice(0, k + 1));
  const samples = await interleave(
    [[], ...prefixes].map((policies, k) => ({ name: String(k), run: () => handleReview(reviewCase.text, { ...context, policies }).length })),
    { rounds: 5, warmupMs: 400, batchMs: 40, minBatch: 300 },
  );
  const medians = [[], ...prefixes].map((_, k) => roundMedians(samples[String(k)]!));
  return context.policies.map((policy, k) =>
    figure(`${reviewCase.name}: of which policy ${policy.id}`, "µs", spread(medians[k + 1]!.map((m, round) => m - medians[k]![round]!))),
  );
}

/** The 3 KB pod review of application `j`, as its ReplicaSet creates the pod. */
export function podReviewOf(shape: ClusterShape, j: number, uid = "b7d1c2e3-f4a5-4b6c-9d8e-0f1a2b3c4d5e"): string {
  const app = applicationRef(j, shape);
  return JSON.stringify(admissionReview(applicationPod({ app, containers: 1, sidecarEnv: 0 }), "CREATE", null, app.namespace, uid));
}
