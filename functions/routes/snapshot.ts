// PUT /v1/:cluster/snapshot — a signed push from the sync job.
// GET /v1/:cluster/snapshot — what is stored: metadata only, never the content.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { contentHash, decodeSnapshot, SnapshotView } from "../../shared/snapshot/index.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyPush } from "../../shared/signing/index.js";
import { clusterOf, type Env } from "../config/index.js";
import { remember, storeOf } from "../store/cache.js";
import type { SnapshotMeta } from "../store/index.js";
import { jsonError, tooLarge } from "./errors.js";

/** Room for ~170,000 applications, ~68,000 with a tracked volume each (docs/operations.md); below the Durable Object RPC limit of 32 MiB. */
export const MAX_SNAPSHOT_BYTES = 24 * 1024 * 1024;

export const snapshot = new Hono<{ Bindings: Env }>();

function describe(cluster: string, meta: SnapshotMeta, now: number) {
  return {
    cluster,
    generation: meta.generation,
    contentHash: meta.contentHash,
    builtAt: meta.builtAt,
    pushedAt: new Date(meta.pushedAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((now - meta.pushedAt) / 1000)),
    bytes: meta.bytes,
  };
}

snapshot.put("/:cluster/snapshot", bodyLimit({ maxSize: MAX_SNAPSHOT_BYTES, onError: tooLarge(MAX_SNAPSHOT_BYTES, "snapshot") }), async (c) => {
  const clusterId = c.req.param("cluster");
  const cluster = await clusterOf(c.env, clusterId);
  if (!cluster) return jsonError(c, 404, `unknown cluster "${clusterId}": register it in the function's CLUSTERS configuration`);

  const body = new Uint8Array(await c.req.arrayBuffer());
  const now = Date.now();
  const verified = await verifyPush(
    cluster.publicKeys,
    cluster.id,
    body,
    { signature: c.req.header(SIGNATURE_HEADER), timestamp: c.req.header(TIMESTAMP_HEADER) },
    Math.floor(now / 1000),
  );
  if (!verified.ok) return jsonError(c, verified.status, verified.error);

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body);
  } catch {
    return jsonError(c, 400, "snapshot is not UTF-8 text");
  }
  const decoded = decodeSnapshot(text);
  if (!decoded.ok) return jsonError(c, 400, decoded.error);

  const meta: SnapshotMeta = {
    generation: decoded.snapshot.generation,
    contentHash: await contentHash(decoded.snapshot),
    builtAt: decoded.snapshot.builtAt,
    pushedAt: now,
    bytes: body.length,
  };
  // The schema's output, defaults filled in: isolates read it back without a second schema pass.
  const result = await storeOf(c.env, cluster.id).write(JSON.stringify(decoded.snapshot), meta);
  if (!result.stored)
    return jsonError(
      c,
      409,
      `generation ${meta.generation} is not newer than the stored generation ${result.current.generation}: a stale or replayed push; nothing was stored`,
    );
  remember(cluster.id, { meta, view: new SnapshotView(decoded.snapshot) }, now);
  return c.json(describe(cluster.id, meta, now));
});

snapshot.get("/:cluster/snapshot", async (c) => {
  const clusterId = c.req.param("cluster");
  const cluster = await clusterOf(c.env, clusterId);
  if (!cluster) return jsonError(c, 404, `unknown cluster "${clusterId}": register it in the function's CLUSTERS configuration`);
  const meta = await storeOf(c.env, cluster.id).head();
  if (!meta) return jsonError(c, 404, `no snapshot has been pushed for cluster "${cluster.id}" yet`);
  return c.json(describe(cluster.id, meta, Date.now()));
});
