// POST /v1/:cluster/validate[/:policy] — the kube-apiserver's AdmissionReviews,
// with its bearer token in the Authorization header, or in the path for
// control planes that cannot present one: /v1/:cluster/token/:token/validate[/:policy].
import { Hono } from "hono/tiny";
import type { Context } from "hono";
import { decodeAdmissionReview, encodeAdmissionResponse, type AdmissionRequest, type Decision } from "../../shared/admission/index.js";
import { judged, review, type ReviewContext, type ReviewOutcome } from "../../shared/review/index.js";
import { InvalidObjectError } from "../../shared/k8s/workload/index.js";
import { MAX_LOAD_ROUNDS } from "../../shared/inventory/index.js";
import { reviewUnits, SnapshotView, type LoadedUnit } from "../../shared/snapshot/index.js";
import { POLICIES, policyById } from "../../policies/index.js";
import { deferOf, reviewer, type AuthEnv } from "../auth/index.js";
import { fleetCacheOf } from "../fleet/cache.js";
import { countsOf } from "../fleet/counts.js";
import { RegistryUnavailable, type Defer } from "../registry/cache.js";
import type { ClusterFleet } from "../../shared/fleet/index.js";
import { policySetOf } from "../../shared/vap/index.js";
import { readBody } from "../body/index.js";
import { publicKeyTextsOf } from "../../shared/clusters/index.js";
import { isSubdomainName } from "../../shared/k8s/names/index.js";
import type { Cluster, Env } from "../config/index.js";
import { log } from "../log/index.js";
import { loadShards, loadSnapshot, storeOf } from "../store/cache.js";
import { signedByCurrent } from "../store/signer.js";
import type { SnapshotMeta } from "../store/index.js";

/** The apiserver's own limit on an AdmissionReview body. */
const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export const validate = new Hono<AuthEnv>();

function verdictOf(decision: Decision): "deny" | "warn" | "audit" | "allow" {
  if (!decision.allowed) return "deny";
  if (decision.warnings.length > 0) return "warn";
  return Object.keys(decision.auditAnnotations).length > 0 ? "audit" : "allow";
}

/**
 * Why the stored generation does not count for `cluster` now, whatever it
 * holds: its signer is no longer registered (a key's power ends with the key:
 * removing or rotating it out sends the cluster to its withoutSnapshot stance
 * until a current key pushes), or it is older than the registration allows
 * (the operator's limit; the snapshot's own settings may only be tighter).
 */
function disowned(meta: SnapshotMeta, cluster: Cluster, now: number): string | undefined {
  if (!signedByCurrent(meta, publicKeyTextsOf(cluster)))
    return `the stored snapshot (generation ${meta.generation}) was pushed with a key the cluster's registration does not list now; it counts again once the sync job pushes with a current key`;
  const limit = meta.pushedAt + cluster.maxAgeSeconds * 1000;
  if (now > limit)
    return `the stored snapshot (generation ${meta.generation}) is older than the ${cluster.maxAgeSeconds}s the cluster's registration allows (since ${new Date(limit).toISOString()}); check the sync job`;
  return undefined;
}

/**
 * The review against the cluster part and the units the review reads, all of
 * one generation: first those reviewUnits names (a request no policy looks at
 * loads none), then any an evaluation asked for (an inventory lookup names
 * its index bucket only as it runs), judging again until nothing is missing.
 * Judging is pure, so a review judged again with more units answers as one
 * judged with all of them at once (check's complete view). After
 * MAX_LOAD_ROUNDS, a unit still missing is an evaluation error of the policy
 * that reads it, and its failurePolicy decides. If
 * the store dropped the generation the cluster part is at (two pushes
 * since), the part is read again and the units with it.
 */
/** What reviewWithSnapshot answers when the route names a policy neither built in nor bound in the cluster's snapshot. */
const UNKNOWN_EDGE_POLICY = Symbol("unknown edge policy");

/** A head stored before signers were recorded, adopted by the cluster's first key now registered (SnapshotStore.adoptUnsigned), after the response. */
function adopt(env: Env, cluster: string, key: string, defer: Defer | undefined): void {
  const adopted = storeOf(env, cluster).adoptUnsigned(key);
  if (defer) defer(adopted);
}

async function reviewWithSnapshot(
  env: Env,
  registered: Cluster,
  request: AdmissionRequest,
  context: Omit<ReviewContext, "snapshot" | "unusable">,
  defer: Defer | undefined,
): Promise<ReviewOutcome | typeof UNKNOWN_EDGE_POLICY> {
  const cluster = registered.id;
  for (let attempt = 0; attempt < 2; attempt++) {
    const state = await loadSnapshot(env, cluster, Date.now(), { force: attempt > 0 });
    if (!state.loaded) return review(request, { ...context, snapshot: undefined, ...(state.unusable ? { unusable: state.unusable } : {}) });
    const { facts, meta } = state.loaded;
    const unusable = disowned(meta, registered, context.now);
    if (unusable) return review(request, { ...context, snapshot: undefined, unusable });
    if (meta.signedBy === undefined) adopt(env, cluster, publicKeyTextsOf(registered)[0]!, defer);
    const clusterOnly = new SnapshotView(facts, new Map());
    // A cluster's own policy named in the route must be bound in what the function holds.
    if (context.edgePolicy !== undefined && !policySetOf(clusterOnly.cluster).has(context.edgePolicy)) return UNKNOWN_EDGE_POLICY;
    if (!judged(request, context.policies, clusterOnly, context.withPolicySet, context.edgePolicy, context.fleet)) return review(request, { ...context, snapshot: { view: clusterOnly, pushedAt: meta.pushedAt } });
    const units = new Map<string, LoadedUnit | null>();
    let names = reviewUnits(request, facts);
    for (let round = 0; ; round++) {
      const loaded = await loadShards(env, cluster, state.loaded, names);
      if (!loaded.ok) {
        if (loaded.gone) break;
        return review(request, { ...context, snapshot: undefined, unusable: loaded.corrupt });
      }
      for (const [name, unit] of loaded.shards) units.set(name, unit);
      const missing = round < MAX_LOAD_ROUNDS ? new Set<string>() : undefined;
      const outcome = review(request, { ...context, snapshot: { view: new SnapshotView(facts, units, missing ? { missing } : {}), pushedAt: meta.pushedAt } });
      if (!missing || missing.size === 0) return outcome;
      names = [...missing];
    }
  }
  return review(request, { ...context, snapshot: undefined, unusable: "the stored snapshot changed generations twice while this review read it" });
}

async function judge(c: Context<AuthEnv>) {
  const started = Date.now();
  const cluster = c.get("cluster");
  const policyId = c.req.param("policy");
  const policy = policyId === undefined ? undefined : policyById(policyId);
  // Not a built-in id: the name of one of the cluster's own ValidatingAdmissionPolicies (a DNS subdomain), known once the snapshot is read.
  const edgePolicy = policyId !== undefined && !policy ? policyId : undefined;
  const unknownPolicy = () =>
    c.json({ error: `unknown policy "${policyId!.slice(0, 63)}": neither a built-in policy (${POLICIES.map((p) => p.id).join(", ")}) nor a ValidatingAdmissionPolicy bound at the edge in the cluster's snapshot` }, 404);
  if (edgePolicy !== undefined && !isSubdomainName(edgePolicy)) return unknownPolicy();
  const counts = countsOf(c.env);
  const failed = (status: 400 | 413, error: string) => {
    log({ event: "review-failed", cluster: cluster.id, status, reason: error, durationMs: Date.now() - started });
    counts?.flusher.counter.countError(cluster.id, started);
    return c.json({ error }, status);
  };

  const body = await readBody(c, MAX_REVIEW_BYTES, "AdmissionReview body");
  if (!body.ok) return failed(body.status, body.error);
  const decoded = decodeAdmissionReview(new TextDecoder().decode(body.bytes));
  if (!decoded.ok) return failed(400, decoded.error);
  const { request } = decoded.review;

  const policies = policy ? [policy] : edgePolicy !== undefined ? [] : POLICIES;
  const only = policy ? { withPolicySet: false } : edgePolicy !== undefined ? { edgePolicy } : {};
  // The fleet's policies on the cluster's main route; a per-policy route judges its one policy.
  let fleet: ClusterFleet | undefined;
  const fleetSource = policyId !== undefined ? undefined : fleetCacheOf(c.env);
  if (fleetSource) {
    try {
      fleet = (await fleetSource.cache.current(fleetSource.reader, Date.now(), deferOf(c)))?.forCluster(cluster.labels);
    } catch (e) {
      if (!(e instanceof RegistryUnavailable)) throw e;
      return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
    }
  }
  let answer: ReviewOutcome | typeof UNKNOWN_EDGE_POLICY;
  try {
    answer = await reviewWithSnapshot(c.env, cluster, request, { cluster: cluster.id, policies, withoutSnapshot: cluster.withoutSnapshot, now: Date.now(), fleet, ...only }, deferOf(c));
  } catch (e) {
    if (e instanceof InvalidObjectError) return failed(400, e.message);
    throw e;
  }
  if (answer === UNKNOWN_EDGE_POLICY) return unknownPolicy();
  const outcome = answer;
  if (counts) {
    counts.flusher.counter.countReview(cluster.id, outcome, started);
    counts.flusher.maybeFlush(counts.writer, started, deferOf(c));
  }
  const verdict = verdictOf(outcome.decision);
  if (verdict === "deny" || verdict === "warn" || c.env.LOG_REVIEWS === "all")
    log({
      event: "review",
      cluster: cluster.id,
      uid: request.uid,
      operation: request.operation,
      kind: request.kind.kind,
      verdict,
      policies: [...new Set(outcome.results.map((r) => r.policy))],
      durationMs: Date.now() - started,
    });
  return c.json(encodeAdmissionResponse(decoded.review, outcome.decision));
}

validate.post("/:cluster/validate/:policy?", reviewer, judge);
validate.post("/:cluster/token/:token/validate/:policy?", reviewer, judge);
