// Section 12: fleet policy sets (docs/fleet.md). 10,000 registered clusters
// with labels, a 60-policy fleet set whose bindings select them by label:
// the review's cost against the same 60 policies bound in the cluster
// itself, the isolate's heap holding the set and every cluster's selection,
// and what counting verdicts adds to a review.
import type { KubeObject } from "../shared/snapshot/builder/index.js";
import { decodeAdmissionReview, encodeAdmissionResponse } from "../shared/admission/index.js";
import { review, type ReviewContext } from "../shared/review/index.js";
import { VerdictCounter } from "../shared/counts/index.js";
import { FleetPolicies, fleetSetOf, fleetSetSchema } from "../shared/fleet/index.js";
import { figure, goalsHold, type Section } from "./figures.js";
import { handleReview, reviewContext } from "./review.js";
import { exact, nowNs, quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";
import { deploymentReview, syntheticPolicies, viewOfObjects } from "./vap.js";

const CLUSTERS = 10_000;
const POLICIES = 60;
const TIMING = { rounds: 7, warmupMs: 400, batchMs: 120, minBatch: 200 };
const COUNT_CALLS = 200_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heapMb = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/** The same 60 policies as fleet bindings: 20 on every prod cluster, 20 on one of 10 regions' clusters… spread so clusters get different selections. */
function fleetObjects(): unknown[] {
  return syntheticPolicies(POLICIES, 0).map((object: KubeObject, index) => {
    if (object.kind !== "EdgeAdmissionPolicyBinding") return object;
    const policy = Math.floor(index / 2);
    const clusterSelector =
      policy % 3 === 0 ? { matchLabels: { env: "prod" } } : policy % 3 === 1 ? { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["system"] }] } : {};
    const spec = object.spec as Record<string, unknown>;
    return { ...object, spec: { ...spec, clusterSelector } };
  });
}

/** Cluster i's labels: every cluster prod (so all 60 bind on each), ten regions, one in a hundred canary. */
const labelsOf = (i: number) => Object.freeze({ env: "prod", region: `r${i % 10}`, ...(i % 100 === 0 ? { ring: "canary" } : {}) });

export async function fleetPolicies(): Promise<Section> {
  const section: Section = {
    id: "fleet-policies",
    title: `12. Fleet policy sets: ${CLUSTERS.toLocaleString("en")} clusters, a ${POLICIES}-policy set selected by labels (Node)`,
    figures: [],
    commands: ["npm run bench -- --only 'fleet policy'   # bench/fleet-policies.ts"],
    notes: [],
  };
  const text = deploymentReview();
  const inCluster = reviewContext(viewOfObjects(syntheticPolicies(POLICIES, 0)));

  const before = heapMb();
  const set = fleetSetSchema.parse(fleetSetOf(fleetObjects()));
  const fleet = new FleetPolicies({ revision: 1, set, stages: {}, appliedAt: Date.now(), change: "apply" });
  const labels = Array.from({ length: CLUSTERS }, (_, i) => labelsOf(i));
  for (const one of labels) if (fleet.forCluster(one)?.set.bound !== POLICIES) throw new Error("every cluster should get the 60 fleet policies");
  const heap = heapMb() - before;

  // The fleet's review: the cluster's snapshot holds no policy of its own; the selection is looked up per review, clusters in turn.
  const emptyView = viewOfObjects([]);
  let next = 0;
  const fleetContext = (): ReviewContext => ({ ...reviewContext(emptyView), fleet: fleet.forCluster(labels[next++ % CLUSTERS]!) });
  const viaFleet = (body: string) => {
    const decoded = decodeAdmissionReview(body);
    if (!decoded.ok) throw new Error(decoded.error);
    return JSON.stringify(encodeAdmissionResponse(decoded.review, review(decoded.review.request, fleetContext()).decision));
  };
  const inClusterAnswer = JSON.parse(handleReview(text, inCluster)) as { response: unknown };
  const fleetAnswer = JSON.parse(viaFleet(text)) as { response: unknown };
  if (JSON.stringify(inClusterAnswer.response) !== JSON.stringify(fleetAnswer.response)) throw new Error("the fleet's verdict differs from the in-cluster one");

  const samples = await interleave(
    [
      { name: "in-cluster", run: () => handleReview(text, inCluster).length },
      { name: "fleet", run: () => viaFleet(text).length },
    ],
    TIMING,
  );
  const medians = (rounds: number[][]) => rounds.map((round) => quantile(round, 0.5) / 1e3);
  const own = medians(samples["in-cluster"]!);
  const viaSet = medians(samples.fleet!);
  section.figures.push(
    figure(`${POLICIES} policies bound in the cluster: median`, "µs", spread(own)),
    figure(`the same ${POLICIES} as a fleet set, ${CLUSTERS.toLocaleString("en")} clusters in turn: median`, "µs", spread(viaSet)),
    figure("fleet / in-cluster", "×", spread(viaSet.map((m, i) => m / own[i]!)), { op: "<=", value: 1.1 }),
    figure(`isolate heap: the set and ${CLUSTERS.toLocaleString("en")} clusters' selections`, "MB", exact(heap), { op: "<=", value: 64 }),
  );

  // Counting: one review's verdict and its per-policy results into the isolate's counter.
  const request = (JSON.parse(text) as { request: Parameters<typeof review>[0] }).request;
  const allowed = review(request, { ...reviewContext(emptyView), fleet: fleet.forCluster(labels[0]!) });
  // The same Deployment without its app label: every one of the 60 policies denies it.
  const unlabelled = { ...request, object: { ...(request.object as Record<string, unknown>), metadata: { name: "web", namespace: "shop" } } };
  const denied = review(unlabelled, { ...reviewContext(emptyView), fleet: fleet.forCluster(labels[0]!) });
  // The route counts under the registration's id, a string it already holds.
  const ids = Array.from({ length: CLUSTERS }, (_, i) => `cluster-${i}`);
  const timeCounting = (outcome: typeof allowed) => {
    const counter = new VerdictCounter();
    const perCall: number[] = [];
    for (let round = 0; round < 5; round++) {
      const started = nowNs();
      for (let i = 0; i < COUNT_CALLS; i++) counter.countReview(ids[i % CLUSTERS]!, outcome, 1_800_000_000_000);
      perCall.push((nowNs() - started) / COUNT_CALLS / 1e3);
    }
    return spread(perCall);
  };
  section.figures.push(
    figure(`counting an allowed review, ${CLUSTERS.toLocaleString("en")} clusters in turn`, "µs", timeCounting(allowed), { op: "<=", value: 2 }),
    figure(`counting a denied review with ${denied.results.length} policy results`, "µs", timeCounting(denied)),
  );
  section.notes.push(
    `The review: the ${text.length.toLocaleString("en")}-byte 6-container Deployment CREATE of section 7, allowed by the ${POLICIES} synthetic Deployment policies (three validations each), as decode → review() → encode. In-cluster: the policies and their EdgeAdmissionPolicyBindings in the cluster's snapshot. Fleet: the same objects as a fleet set whose bindings carry cluster selectors (env=prod, tier notin (system), {}), the cluster's snapshot empty, each review for the next of ${CLUSTERS.toLocaleString("en")} clusters with their own labels objects (forCluster's lookup included). Verdicts checked equal first.`,
    `Heap: heapUsed after two forced GCs, before and after decoding the set and selecting for every cluster (clusters with equal selections share one compiled set).`,
    `In effect on every isolate: by design within REFRESH_MS (5 s) plus one registry round trip (functions/fleet/cache.ts), at once in the isolate that applied the change; held by functions/fleet/cache.test.ts, not timed here. Storage writes for counts: at most one per isolate per 10 s (FLUSH_MS), held by functions/fleet/counts.test.ts.`,
  );
  if (!goalsHold(section)) {
    const failing = section.figures.filter((f) => f.pass === false).map((f) => `${f.name} ${f.value.median.toFixed(2)} ${f.unit}`);
    section.biggestCost = `Fleet policy sets: ${failing.join("; ")}.`;
  }
  return section;
}
