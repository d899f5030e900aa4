// PUT /v1/:cluster/snapshot — a push from the sync job, signed with the cluster's key.
// GET /v1/:cluster/snapshot — what is stored: metadata only, never the content.
import { Hono } from "hono";
import { sha256Hex } from "../../shared/digest/index.js";
import { truncateUtf8 } from "../../shared/admission/index.js";
import { contentHash, decodeSnapshot, MAX_SNAPSHOT_BYTES, SnapshotView } from "../../shared/snapshot/index.js";
import { policySetOf } from "../../shared/vap/index.js";
import { CONTENT_SHA256_HEADER } from "../../shared/signing/index.js";
import { reader, signer, type AuthEnv } from "../auth/index.js";
import { readBody } from "../body/index.js";
import { log } from "../log/index.js";
import { remember, storeOf } from "../store/cache.js";
import type { SnapshotMeta } from "../store/index.js";

/** Problems reported per push: enough to fix the worst, bounded like every answer. */
const MAX_REPORTED_PROBLEMS = 50;

export const snapshot = new Hono<AuthEnv>();

function describe(cluster: string, meta: SnapshotMeta, now: number) {
  return {
    cluster,
    generation: meta.generation,
    contentHash: meta.contentHash,
    builtAt: meta.builtAt,
    pushedAt: new Date(meta.pushedAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((now - meta.pushedAt) / 1000)),
    bytes: meta.bytes,
    boundPolicies: meta.boundPolicies,
    policyProblems: meta.policyProblems,
    ...(meta.corrupt ? { corrupt: meta.corrupt } : {}),
  };
}

snapshot.put("/:cluster/snapshot", signer("PUT"), async (c) => {
  const started = Date.now();
  const cluster = c.get("cluster");
  const refused = (status: 400 | 403 | 409 | 413, error: string) => {
    log({ event: "push", cluster: cluster.id, status, reason: error, durationMs: Date.now() - started });
    return c.json({ error }, status);
  };
  const body = await readBody(c, MAX_SNAPSHOT_BYTES, "snapshot");
  if (!body.ok) return refused(body.status, body.error);
  if ((await sha256Hex(body.bytes)) !== c.get("contentSha256"))
    return refused(403, `the body is not the one signed: its SHA-256 differs from ${CONTENT_SHA256_HEADER}; nothing was stored`);

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body.bytes);
  } catch {
    return refused(400, "snapshot is not UTF-8 text");
  }
  const decoded = decodeSnapshot(text);
  if (!decoded.ok) return refused(400, decoded.error);

  // Compiled now, so the pusher hears of a policy that cannot be used; kept for this isolate's reviews.
  const policySet = policySetOf(decoded.snapshot);
  // The schema's output, defaults filled in: isolates read it back without a second schema pass.
  const stored = new TextEncoder().encode(JSON.stringify(decoded.snapshot));
  const now = Date.now();
  const meta: SnapshotMeta = {
    generation: decoded.snapshot.generation,
    contentHash: await contentHash(decoded.snapshot),
    builtAt: decoded.snapshot.builtAt,
    pushedAt: now,
    bytes: body.bytes.length,
    storedSha256: await sha256Hex(stored),
    boundPolicies: policySet.bound,
    policyProblems: policySet.problems.slice(0, MAX_REPORTED_PROBLEMS).map((problem) => truncateUtf8(problem, 500)),
  };
  const result = await storeOf(c.env, cluster.id).write(stored, meta);
  if (!result.stored)
    return refused(409, `generation ${meta.generation} is not newer than the stored generation ${result.current.generation}: a stale or replayed push; nothing was stored`);
  remember(cluster.id, { meta, view: new SnapshotView(decoded.snapshot) }, now);
  log({ event: "push", cluster: cluster.id, status: 200, generation: meta.generation, bytes: meta.bytes, durationMs: Date.now() - started });
  return c.json(describe(cluster.id, meta, now));
});

snapshot.get("/:cluster/snapshot", reader, async (c) => {
  const cluster = c.get("cluster");
  const meta = await storeOf(c.env, cluster.id).head();
  if (!meta) return c.json({ error: `no snapshot has been pushed for cluster "${cluster.id}" yet` }, 404);
  return c.json(describe(cluster.id, meta, Date.now()));
});
