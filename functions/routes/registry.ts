// POST /v1/registry/clusters — changes to the cluster registry, signed with the operator's key.
// GET /v1/registry/clusters[?after=<id>&limit=<n>] — what it holds, a page at a time, for the operator.
// POST /v1/registry/clusters/<id>/reset-snapshot — drops every generation stored for a cluster, signed likewise.
import { Hono } from "hono/tiny";
import type { Context } from "hono";
import { changeLabel, changeRequestSchema, emptyLabelChange, emptyRotation, MAX_CHANGE_BYTES, type Change } from "../../shared/clusters/changes.js";
import { CLUSTER_ID, clusterIdError, loadRegistration } from "../../shared/clusters/index.js";
import * as z from "zod/mini";
import { sha256Hex } from "../../shared/digest/index.js";
import { CONTENT_SHA256_HEADER, importPublicKey } from "../../shared/signing/index.js";
import { decodeJson } from "../../shared/zod/index.js";
import { operator, replayableUntil, unauthenticated, type OperatorEnv } from "../auth/index.js";
import { proposedBody } from "./governance.js";
import { readBody } from "../body/index.js";
import { clustersOf, registryOf } from "../config/index.js";
import { log } from "../log/index.js";
import { countsOf } from "../fleet/counts.js";
import { describePeer } from "../../shared/version/index.js";
import type { ListedRegistration } from "../registry/index.js";
import { REPLAYED } from "../registry/replay.js";
import { forgetCluster, storeOf } from "../store/cache.js";

/** Registrations per page of GET …/clusters, at most and by default. */
const MAX_PAGE = 1_000;

export const registry = new Hono<OperatorEnv>();

const NO_REGISTRY = "this deployment has no cluster registry: wrangler.toml lacks the REGISTRY Durable Object binding (README, Deploy)";

/** What a registry change can be refused with before it reaches the registry: keys that do not import, a rotate that does nothing. */
async function problemOf(change: Change, label: string): Promise<string | undefined> {
  if (change.op === "add") {
    const loaded = await loadRegistration(change.cluster, change.registration);
    return typeof loaded === "string" ? `${label}${loaded}` : undefined;
  }
  if (change.op === "label") {
    const empty = emptyLabelChange(change);
    return empty === undefined ? undefined : `${label}${empty}`;
  }
  if (change.op === "rotate") {
    const empty = emptyRotation(change);
    if (empty) return `${label}${empty}`;
    for (const key of change.addPublicKeys ?? []) {
      const imported = await importPublicKey(key);
      if (typeof imported === "string") return `${label}addPublicKeys: ${imported}`;
    }
  }
  return undefined;
}

/** What the operator should know of CLUSTERS beside a change: it wins for the ids it names. */
function shadowNotes(changes: readonly Change[], named: ReadonlySet<string>): string[] {
  return changes
    .filter((change) => named.has(change.cluster))
    .map((change) =>
      change.op === "remove"
        ? `cluster ${change.cluster} is still in CLUSTERS, which keeps serving it until it is dropped from there and deployed`
        : `cluster ${change.cluster} is also in CLUSTERS, which takes precedence: the registry's entry serves it once it is dropped from CLUSTERS and deployed`,
    );
}

registry.post("/registry/clusters", operator("POST"), async (c) => {
  const started = Date.now();
  let described: string[] = [];
  const answer = (status: 200 | 202 | 400 | 403 | 404 | 409 | 413 | 503, body: Record<string, unknown>, revision?: number) => {
    const reason = typeof body.error === "string" ? body.error : undefined;
    log({ event: "registry-change", status, peer: describePeer(c.get("peer")), changes: described, ...(revision !== undefined ? { revision } : {}), ...(reason ? { reason } : {}), durationMs: Date.now() - started });
    return c.json(body, status);
  };
  const body = await readBody(c, MAX_CHANGE_BYTES, "registry change");
  if (!body.ok) return answer(body.status, { error: body.error });
  if ((await sha256Hex(body.bytes)) !== c.get("contentSha256"))
    return answer(403, { error: `the body is not the one signed: its SHA-256 differs from ${CONTENT_SHA256_HEADER}; nothing changed` });
  const decoded = decodeJson(new TextDecoder().decode(body.bytes), changeRequestSchema, "registry change", "does not fit", 20);
  if (!decoded.ok) return answer(400, { error: `${decoded.error}; nothing changed` });
  const { changes } = decoded.value;
  described = changes.map((change) => `${change.op} ${change.cluster}`);
  for (const [index, change] of changes.entries()) {
    const problem = await problemOf(change, changeLabel(change, index, changes.length));
    if (problem) return answer(400, { error: `${problem}; nothing changed` });
  }
  const target = registryOf(c.env);
  if (!target) return answer(503, { error: NO_REGISTRY });
  const result = await target.governance().submit({ kind: "registry", changes }, c.get("changeId"), Date.now(), replayableUntil(c.get("signedAt")), c.get("signing"));
  if (!result.ok) return result.status === 401 ? unauthenticated(c) : answer(result.status, { error: `${result.error}; nothing changed` });
  if (result.state === "proposed") return answer(202, proposedBody(result.proposal));
  target.cache.noteApplied(result.registry!.applied);
  const notes = shadowNotes(changes, (await clustersOf(c.env)).named);
  return answer(200, { revision: result.registry!.revision, applied: result.registry!.applied, change: result.seq, signers: result.signers, ...(notes.length > 0 ? { notes } : {}) }, result.registry!.revision);
});

function listed(entry: ListedRegistration, named: ReadonlySet<string>) {
  const { lastSync } = entry;
  return {
    cluster: entry.cluster,
    revision: entry.revision,
    updatedAt: new Date(entry.updatedAt).toISOString(),
    ...entry.registration,
    ...(named.has(entry.cluster) ? { shadowedByClusters: true } : {}),
    // The sync job's release as it last called (null: it named none, 0.1.0 or older); absent: never seen since 0.2.0.
    ...(lastSync ? { lastSync: { release: lastSync.release, verb: lastSync.verb, commit: lastSync.commit, at: new Date(lastSync.at).toISOString() } } : {}),
  };
}

function pageQuery(c: Context<OperatorEnv>): { after: string; limit: number } | string {
  const after = c.req.query("after") ?? "";
  if (after !== "" && (after.length > 63 || !CLUSTER_ID.test(after))) return "after must be a cluster id (the next of the previous page)";
  const limitText = c.req.query("limit");
  const limit = limitText === undefined ? MAX_PAGE : /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (limit < 1 || limit > MAX_PAGE) return `limit must be a whole number from 1 to ${MAX_PAGE}`;
  return { after, limit };
}

registry.get("/registry/clusters", operator("GET"), async (c) => {
  const query = pageQuery(c);
  if (typeof query === "string") return c.json({ error: query }, 400);
  const target = registryOf(c.env);
  if (!target) return c.json({ error: NO_REGISTRY }, 503);
  // The sync jobs this isolate saw, first: a listing shows them; other isolates flush within 10 s.
  const counts = countsOf(c.env);
  if (counts) await counts.flusher.flush(counts.writer, Date.now());
  const page = await target.stub().list(query.after, query.limit);
  const { named } = await clustersOf(c.env);
  return c.json({
    revision: page.revision,
    clusters: page.clusters.map((entry) => listed(entry, named)),
    ...(page.next !== undefined ? { next: page.next } : {}),
    // Once, with the first page: the ids CLUSTERS registers, which the registry cannot change.
    ...(query.after === "" ? { clustersVariable: [...named].sort().map((id) => id.slice(0, 80)) } : {}),
  });
});

/** A reset's body: only what makes two resets signed in the same second two requests. */
const resetRequestSchema = z.strictObject({ requestId: changeRequestSchema.shape.requestId });
const MAX_RESET_BYTES = 1024;

/**
 * The operator's reset of a cluster's stored snapshot: every generation,
 * committed or staged, whoever signed it, goes at once; the cluster takes its
 * withoutSnapshot stance until its sync job pushes. For any well-formed id,
 * registered or not, so a snapshot outlives no registration the operator
 * wants gone. Each signed request resets once: the store remembers its id.
 */
registry.post("/registry/clusters/:cluster/reset-snapshot", operator("POST"), async (c) => {
  const id = c.req.param("cluster");
  const answer = (status: 200 | 400 | 403 | 409 | 413, body: Record<string, unknown>, generation?: number | null) => {
    const reason = typeof body.error === "string" ? body.error : undefined;
    log({ event: "snapshot-reset", cluster: id, status, ...(generation !== undefined ? { generation } : {}), ...(reason ? { reason } : {}) });
    return c.json(body, status);
  };
  const idError = clusterIdError(id);
  if (idError) return answer(400, { error: `${idError}; nothing changed` });
  const body = await readBody(c, MAX_RESET_BYTES, "reset request");
  if (!body.ok) return answer(body.status, { error: body.error });
  if ((await sha256Hex(body.bytes)) !== c.get("contentSha256"))
    return answer(403, { error: `the body is not the one signed: its SHA-256 differs from ${CONTENT_SHA256_HEADER}; nothing changed` });
  const decoded = decodeJson(new TextDecoder().decode(body.bytes), resetRequestSchema, "reset request", "does not fit", 2);
  if (!decoded.ok) return answer(400, { error: `${decoded.error}; nothing changed` });
  const result = await storeOf(c.env, id).reset(c.get("changeId"), Date.now(), replayableUntil(c.get("signedAt")));
  if (!result.ok) return answer(409, { error: `${REPLAYED}; nothing changed` });
  forgetCluster(id);
  await registryOf(c.env)?.governance().logReset(id, result.generation, c.get("signing").signer, Date.now());
  return answer(200, { cluster: id, dropped: result.generation }, result.generation);
});
