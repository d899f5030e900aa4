// POST /v1/:cluster/validate[/:policy] — the kube-apiserver's AdmissionReviews,
// with its bearer token in the Authorization header, or in the path for
// control planes that cannot present one: /v1/:cluster/token/:token/validate[/:policy].
import { Hono } from "hono/tiny";
import type { Context } from "hono";
import { decodeAdmissionReview, encodeAdmissionResponse, type AdmissionRequest, type Decision } from "../../shared/admission/index.js";
import { judged, review, type ReviewContext, type ReviewOutcome } from "../../shared/dispatcher/index.js";
import { InvalidObjectError } from "../../shared/k8s/workload/index.js";
import { MAX_LOAD_ROUNDS } from "../../shared/inventory/index.js";
import { reviewUnits, SnapshotView, type LoadedUnit } from "../../shared/snapshot/index.js";
import { POLICIES, policyById } from "../../policies/index.js";
import { deferOf, reviewer, type AuthEnv } from "../auth/index.js";
import { fleetCacheOf } from "../fleet/cache.js";
import { countsOf } from "../fleet/counts.js";
import { RegistryUnavailable } from "../registry/cache.js";
import type { ClusterFleet } from "../../shared/fleet/index.js";
import { readBody } from "../body/index.js";
import type { Env } from "../config/index.js";
import { log } from "../log/index.js";
import { loadShards, loadSnapshot } from "../store/cache.js";

/** The apiserver's own limit on an AdmissionReview body. */
const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export const validate = new Hono<AuthEnv>();

function verdictOf(decision: Decision): "deny" | "warn" | "audit" | "allow" {
  if (!decision.allowed) return "deny";
  if (decision.warnings.length > 0) return "warn";
  return Object.keys(decision.auditAnnotations).length > 0 ? "audit" : "allow";
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
async function reviewWithSnapshot(env: Env, cluster: string, request: AdmissionRequest, context: Omit<ReviewContext, "snapshot" | "unusable">): Promise<ReviewOutcome> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const state = await loadSnapshot(env, cluster, Date.now(), { force: attempt > 0 });
    if (!state.loaded) return review(request, { ...context, snapshot: undefined, ...(state.unusable ? { unusable: state.unusable } : {}) });
    const { facts, meta } = state.loaded;
    const clusterOnly = new SnapshotView(facts, new Map());
    if (!judged(request, context.policies, clusterOnly, true, context.fleet)) return review(request, { ...context, snapshot: { view: clusterOnly, pushedAt: meta.pushedAt } });
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
  if (policyId !== undefined && !policy)
    return c.json({ error: `unknown policy "${policyId.slice(0, 63)}"; known policies: ${POLICIES.map((p) => p.id).join(", ")}` }, 404);
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

  const policies = policy ? [policy] : POLICIES;
  // The fleet's policies on the cluster's main route; a per-policy route judges its one built-in policy.
  let fleet: ClusterFleet | undefined;
  const fleetSource = policy ? undefined : fleetCacheOf(c.env);
  if (fleetSource) {
    try {
      fleet = (await fleetSource.cache.current(fleetSource.reader, Date.now(), deferOf(c)))?.forCluster(cluster.labels);
    } catch (e) {
      if (!(e instanceof RegistryUnavailable)) throw e;
      return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
    }
  }
  let outcome: ReviewOutcome;
  try {
    outcome = await reviewWithSnapshot(c.env, cluster.id, request, { cluster: cluster.id, policies, withoutSnapshot: cluster.withoutSnapshot, now: Date.now(), fleet });
  } catch (e) {
    if (e instanceof InvalidObjectError) return failed(400, e.message);
    throw e;
  }
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
