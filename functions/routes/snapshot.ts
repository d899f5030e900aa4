// PUT /v1/:cluster/snapshot — a push from the sync job, signed with the cluster's
// key: a SnapshotPush body (shared/snapshot/push.ts) that stages units and,
// in its last body, commits them as one generation.
// GET /v1/:cluster/snapshot — what is stored: metadata only, never the content.
// GET /v1/:cluster/snapshot/buckets[/:bucket] — the digests `sync` compares to
// send only the units that changed: per bucket, then per unit of one bucket.
// Only for the sync job's signature: the listing names every namespace and
// AffinityClass, more than the apiserver (whose token may show in a URL) needs.
import { Hono } from "hono/tiny";
import { truncateUtf8 } from "../../shared/admission/index.js";
import { sha256Hex } from "../../shared/digest/index.js";
import {
  BUCKETS,
  CLUSTER_UNIT,
  decodeUnit,
  encodeUnit,
  MAX_PUSH_BYTES,
  MAX_SNAPSHOT_DEPTH,
  pushBodySchema,
  unitNameProblem,
  type ClusterPart,
} from "../../shared/snapshot/index.js";
import { publicKeyTextsOf } from "../../shared/clusters/index.js";
import { CONTENT_SHA256_HEADER, MAX_CLOCK_SKEW_SECONDS } from "../../shared/signing/index.js";
import { policySetOf } from "../../shared/vap/index.js";
import { describeKind } from "../../shared/inventory/index.js";
import { decodeJson } from "../../shared/zod/index.js";
import { reader, signer, type AuthEnv } from "../auth/index.js";
import { readBody } from "../body/index.js";
import { log } from "../log/index.js";
import { describePeer, pushUnreadableHint } from "../../shared/version/index.js";
import { forgetCluster, storeOf } from "../store/cache.js";
import type { Commit, SnapshotMeta, StagedUnit } from "../store/index.js";

/** Problems reported per push: enough to fix the worst, bounded like every answer. */
const MAX_REPORTED_PROBLEMS = 50;
/**
 * Generations are the pusher's clock in milliseconds (edgeadmit sync); one
 * further ahead of the function's clock than a signature may be is refused,
 * so no push, even with a leaked key, can put the stored generation where the
 * owner's next pushes could not pass it.
 */
export const MAX_GENERATION_LEAD_MS = MAX_CLOCK_SKEW_SECONDS * 1000;
/** Longest refusal text built from a caller's body (a schema error can quote its keys), what follows it included. */
const MAX_ERROR_BYTES = 1000;

export const snapshot = new Hono<AuthEnv>();

/**
 * The inventory objects the sync job left out for breaking a limit, as the
 * cluster part names them: reported with the policies' problems (stored,
 * answered to the push and to GET), since the policies reading their kind
 * meet an evaluation error and their failurePolicy decides.
 */
function leftOutProblems(part: ClusterPart): string[] {
  const problems: string[] = [];
  for (const [key, { leftOut }] of Object.entries(part.inventory)) {
    if (!leftOut) continue;
    const named = Object.entries(leftOut.objects);
    for (const [id, why] of named)
      problems.push(`inventory: ${describeKind(key)} ${id} is left out of the snapshot (${why}): the policies reading the kind meet an evaluation error, and their failurePolicy decides`);
    if (leftOut.total > named.length) problems.push(`inventory: ${leftOut.total - named.length} more objects of ${describeKind(key)} are left out of the snapshot`);
  }
  return problems;
}

function describe(cluster: string, meta: SnapshotMeta, now: number) {
  return {
    cluster,
    generation: meta.generation,
    contentHash: meta.contentHash,
    builtAt: meta.builtAt,
    pushedAt: new Date(meta.pushedAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((now - meta.pushedAt) / 1000)),
    signedBy: meta.signedBy ?? null,
    bytes: meta.bytes,
    units: meta.units,
    boundPolicies: meta.boundPolicies,
    policyProblems: meta.policyProblems,
    ...(meta.corrupt ? { corrupt: meta.corrupt } : {}),
  };
}

snapshot.put("/:cluster/snapshot", signer("PUT"), async (c) => {
  const started = Date.now();
  const cluster = c.get("cluster");
  const refused = (status: 400 | 403 | 409 | 413, error: string) => {
    log({ event: "push", cluster: cluster.id, status, peer: describePeer(c.get("peer")), reason: error, durationMs: Date.now() - started });
    return c.json({ error }, status);
  };
  const body = await readBody(c, MAX_PUSH_BYTES, "push body");
  if (!body.ok) return refused(body.status, body.error);
  if ((await sha256Hex(body.bytes)) !== c.get("contentSha256"))
    return refused(403, `the body is not the one signed: its SHA-256 differs from ${CONTENT_SHA256_HEADER}; nothing was stored`);

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body.bytes);
  } catch {
    return refused(400, "push body is not UTF-8 text");
  }
  // A body this release cannot read: what is wrong, that nothing changed, and which releases the job and the function are.
  const unreadable = (error: string) => {
    const hint = pushUnreadableHint(c.get("peer"));
    const tail = `; nothing was stored${hint ? ` (${hint})` : ""}`;
    return refused(400, `${truncateUtf8(error, MAX_ERROR_BYTES - new TextEncoder().encode(tail).length)}${tail}`);
  };
  const decoded = decodeJson(text, pushBodySchema, "push body", "does not match the schema", MAX_SNAPSHOT_DEPTH);
  if (!decoded.ok) {
    // The whole-snapshot body of releases before units: say what changed, not which field is missing.
    if (/"kind"\s*:\s*"Snapshot"/.test(text.slice(0, 4096))) return unreadable("push body is a whole Snapshot: this function takes SnapshotPush bodies");
    return unreadable(decoded.error);
  }
  const push = decoded.value;
  if (push.generation > Date.now() + MAX_GENERATION_LEAD_MS)
    return refused(
      400,
      `generation ${push.generation} is more than ${MAX_CLOCK_SKEW_SECONDS}s ahead of the function's clock (${new Date().toISOString()}): a generation is the pusher's clock in milliseconds; nothing was stored`,
    );
  for (const [index, name] of (push.commit?.removed ?? []).entries()) {
    const problem = unitNameProblem(name);
    if (problem) return refused(400, `commit.removed[${index}] "${truncateUtf8(name, 63)}": ${problem}; nothing was stored`);
  }

  // Each unit through its schema; its output, as JSON, is what is stored and hashed.
  const units: StagedUnit[] = [];
  let clusterPart: ClusterPart | undefined;
  for (const [name, content] of Object.entries(push.units)) {
    const unit = decodeUnit(name, content);
    if (!unit.ok) return unreadable(`unit ${name === CLUSTER_UNIT ? "(cluster part)" : `"${truncateUtf8(name, 63)}"`}: ${unit.error}`);
    if (name === CLUSTER_UNIT) {
      if (!push.commit) return refused(400, "the cluster part travels in the body that commits; nothing was stored");
      clusterPart = unit.value as ClusterPart;
    }
    units.push(await encodeUnit(name, unit.value));
  }

  let commit: Commit | undefined;
  if (push.commit) {
    commit = { ...push.commit, pushedAt: Date.now() };
    if (clusterPart) {
      // Compiled now, so the pusher hears of a policy that cannot be used.
      const policySet = policySetOf(clusterPart);
      const problems = [...policySet.problems, ...leftOutProblems(clusterPart)];
      commit.policies = { bound: policySet.bound, problems: problems.slice(0, MAX_REPORTED_PROBLEMS).map((problem) => truncateUtf8(problem, 500)) };
    } else if (push.commit.base === null) return refused(400, "a push that sends every unit (base null) must send the cluster part; nothing was stored");
  }

  const result = await storeOf(c.env, cluster.id).push(push.generation, units, { key: c.get("signedBy"), current: publicKeyTextsOf(cluster) }, commit);
  if (!result.ok) {
    if (result.refusal === "stale")
      return refused(409, `generation ${push.generation} is not newer than the stored generation ${result.current.generation}: a stale or replayed push; nothing was stored`);
    if (result.refusal === "base")
      return refused(
        409,
        result.current
          ? `base generation ${push.commit!.base} is not the stored generation ${result.current.generation}${result.current.corrupt ? " (which failed its integrity check)" : ""}: push every unit (sync does so by itself); nothing was stored`
          : `base generation ${push.commit!.base}: no snapshot is stored; push every unit; nothing was stored`,
      );
    return refused(400, `${result.detail}; nothing was stored`);
  }
  const sentBytes = body.bytes.length;
  if (result.startedOver)
    log({ event: "snapshot-started-over", cluster: cluster.id, generation: result.startedOver.generation, reason: `the stored generation ${result.startedOver.generation} was signed by ${result.startedOver.signedBy ?? "an unrecorded key"}, which the registration no longer lists: dropped` });
  if (!result.meta) {
    log({ event: "push", cluster: cluster.id, status: 200, peer: describePeer(c.get("peer")), generation: push.generation, staged: result.staged, bytes: sentBytes, durationMs: Date.now() - started });
    return c.json({ cluster: cluster.id, generation: push.generation, staged: result.staged });
  }
  // This isolate reads the new generation with its next review.
  forgetCluster(cluster.id);
  const now = Date.now();
  log({ event: "push", cluster: cluster.id, status: 200, peer: describePeer(c.get("peer")), generation: result.meta.generation, staged: result.staged, bytes: sentBytes, durationMs: now - started });
  return c.json(describe(cluster.id, result.meta, now));
});

snapshot.get("/:cluster/snapshot", reader, async (c) => {
  const cluster = c.get("cluster");
  const meta = await storeOf(c.env, cluster.id).head();
  if (!meta) return c.json({ error: `no snapshot has been pushed for cluster "${cluster.id}" yet` }, 404);
  // The registration's limit, so the sync job re-pushes an unchanged snapshot before it stops counting.
  return c.json({ ...describe(cluster.id, meta, Date.now()), maxAgeSeconds: cluster.maxAgeSeconds });
});

snapshot.get("/:cluster/snapshot/buckets", signer("GET"), async (c) => {
  const cluster = c.get("cluster");
  const listed = await storeOf(c.env, cluster.id).buckets();
  if (!listed) return c.json({ error: `no snapshot has been pushed for cluster "${cluster.id}" yet` }, 404);
  return c.json({ cluster: cluster.id, ...listed });
});

snapshot.get("/:cluster/snapshot/buckets/:bucket", signer("GET"), async (c) => {
  const cluster = c.get("cluster");
  const text = c.req.param("bucket");
  const bucket = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(bucket < BUCKETS)) return c.json({ error: `a bucket is a whole number from 0 to ${BUCKETS - 1}` }, 400);
  const listed = await storeOf(c.env, cluster.id).bucketUnits(bucket);
  if (!listed) return c.json({ error: `no snapshot has been pushed for cluster "${cluster.id}" yet` }, 404);
  return c.json({ cluster: cluster.id, bucket, ...listed });
});
