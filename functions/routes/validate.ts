// POST /v1/:cluster/validate[/:policy] — the kube-apiserver's AdmissionReviews.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { decodeAdmissionReview, encodeAdmissionResponse } from "../../shared/admission/index.js";
import { review } from "../../shared/dispatcher/index.js";
import { InvalidObjectError } from "../../shared/k8s/workload/index.js";
import { POLICIES, policyById } from "../../policies/index.js";
import { clusterOf, type Env } from "../config/index.js";
import { loadSnapshot } from "../store/cache.js";
import { jsonError, tooLarge } from "./errors.js";

/** The apiserver's own limit on an AdmissionReview body. */
export const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export const validate = new Hono<{ Bindings: Env }>();

validate.post("/:cluster/validate/:policy?", bodyLimit({ maxSize: MAX_REVIEW_BYTES, onError: tooLarge(MAX_REVIEW_BYTES, "AdmissionReview body") }), async (c) => {
  const { cluster: clusterId, policy: policyId } = c.req.param();
  const cluster = await clusterOf(c.env, clusterId);
  if (!cluster) return jsonError(c, 404, `unknown cluster "${clusterId}": register it in the function's CLUSTERS configuration`);
  const policy = policyId === undefined ? undefined : policyById(policyId);
  if (policyId !== undefined && !policy)
    return jsonError(c, 404, `unknown policy "${policyId}"; known policies: ${POLICIES.map((p) => p.id).join(", ")}`);

  const decoded = decodeAdmissionReview(await c.req.text());
  if (!decoded.ok) return jsonError(c, 400, decoded.error);

  const loaded = await loadSnapshot(c.env, cluster.id);
  try {
    const decision = review(decoded.review.request, {
      cluster: cluster.id,
      policies: policy ? [policy] : POLICIES,
      snapshot: loaded && { view: loaded.view, pushedAt: loaded.meta.pushedAt },
      withoutSnapshot: cluster.withoutSnapshot,
      now: Date.now(),
    });
    return c.json(encodeAdmissionResponse(decoded.review, decision));
  } catch (e) {
    if (e instanceof InvalidObjectError) return jsonError(c, 400, e.message);
    throw e;
  }
});
