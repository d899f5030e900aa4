// POST /v1/:cluster/validate[/:policy] — the kube-apiserver's AdmissionReviews,
// with its bearer token in the Authorization header, or in the path for
// control planes that cannot present one: /v1/:cluster/token/:token/validate[/:policy].
import { Hono, type Context } from "hono";
import { decodeAdmissionReview, encodeAdmissionResponse, type Decision } from "../../shared/admission/index.js";
import { review } from "../../shared/dispatcher/index.js";
import { InvalidObjectError } from "../../shared/k8s/workload/index.js";
import { POLICIES, policyById } from "../../policies/index.js";
import { reviewer, type AuthEnv } from "../auth/index.js";
import { readBody } from "../body/index.js";
import { log } from "../log/index.js";
import { loadSnapshot } from "../store/cache.js";

/** The apiserver's own limit on an AdmissionReview body. */
export const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

export const validate = new Hono<AuthEnv>();

function verdictOf(decision: Decision): "deny" | "warn" | "audit" | "allow" {
  if (!decision.allowed) return "deny";
  if (decision.warnings.length > 0) return "warn";
  return Object.keys(decision.auditAnnotations).length > 0 ? "audit" : "allow";
}

async function judge(c: Context<AuthEnv>) {
  const started = Date.now();
  const cluster = c.get("cluster");
  const policyId = c.req.param("policy");
  const policy = policyId === undefined ? undefined : policyById(policyId);
  if (policyId !== undefined && !policy)
    return c.json({ error: `unknown policy "${policyId.slice(0, 63)}"; known policies: ${POLICIES.map((p) => p.id).join(", ")}` }, 404);
  const failed = (status: 400 | 413, error: string) => {
    log({ event: "review-failed", cluster: cluster.id, status, reason: error, durationMs: Date.now() - started });
    return c.json({ error }, status);
  };

  const body = await readBody(c, MAX_REVIEW_BYTES, "AdmissionReview body");
  if (!body.ok) return failed(body.status, body.error);
  const decoded = decodeAdmissionReview(new TextDecoder().decode(body.bytes));
  if (!decoded.ok) return failed(400, decoded.error);
  const { request } = decoded.review;

  const state = await loadSnapshot(c.env, cluster.id);
  let outcome: ReturnType<typeof review>;
  try {
    outcome = review(request, {
      cluster: cluster.id,
      policies: policy ? [policy] : POLICIES,
      snapshot: state.loaded && { view: state.loaded.view, pushedAt: state.loaded.meta.pushedAt },
      ...(state.unusable ? { unusable: state.unusable } : {}),
      withoutSnapshot: cluster.withoutSnapshot,
      now: Date.now(),
    });
  } catch (e) {
    if (e instanceof InvalidObjectError) return failed(400, e.message);
    throw e;
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
