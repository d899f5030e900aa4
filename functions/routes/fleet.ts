// POST /v1/registry/fleet — a fleet policy set applied, a binding's waves promoted, or a revision
//   rolled back; signed with the operator's key, each a new fleet revision (docs/fleet.md).
// GET /v1/registry/fleet — the revision in effect, whole (what `edgeadmit fleet diff` compares with).
// GET /v1/registry/fleet/history — the revisions kept, newest first.
// GET /v1/registry/fleet/revisions/:revision — one kept revision, whole (what a rollback to it restores).
// GET /v1/registry/counts[?cluster=<id>&hours=<n>&by=hour] — verdict counts summed over the last n hours (default 24), or hour by hour.
// GET /v1/registry/overview[?after=<id>&limit=<n>] — the registered clusters with their snapshots and coverage gaps, a page at a time.
// GET /v1/registry/coverage?cluster=<id> — the fleet policies bound on a cluster that its webhook rules do not reach (now, and once
//   a later wave is promoted), and its snapshot's generation and age.
// GET /v1/:cluster/fleet — what the fleet binds on that cluster (shared/fleet selectionFor), signed with
//   the cluster's own key as the sync job signs GET …/snapshot/buckets: the audit CronJob judges with it,
//   so the operator's key never sits in a cluster, and a cluster sees no other cluster's bindings.
import { Hono } from "hono/tiny";
import { sha256Hex } from "../../shared/digest/index.js";
import { emptyFleetSet, fleetChangeSchema, fleetSetProblems, MAX_FLEET_BYTES, revisionNotKept, selectionFor } from "../../shared/fleet/index.js";
import { CONTENT_SHA256_HEADER } from "../../shared/signing/index.js";
import { decodeJson } from "../../shared/zod/index.js";
import { operator, replayableUntil, signer, unauthenticated, type AuthEnv, type OperatorEnv } from "../auth/index.js";
import { proposedBody } from "./governance.js";
import { readBody } from "../body/index.js";
import { overviewOf, registryOf } from "../config/index.js";
import { fleetCacheOf } from "../fleet/cache.js";
import { countsOf } from "../fleet/counts.js";
import { HOUR_MS, KEPT_HOURS } from "../../shared/counts/index.js";
import { CLUSTER_ID } from "../../shared/clusters/index.js";
import { coverageOf } from "../fleet/coverage.js";
import { clusterOf } from "../config/index.js";
import { ageSeconds, loadSnapshot } from "../store/cache.js";
import { RegistryUnavailable } from "../registry/cache.js";
import type { FleetStoreStub } from "../registry/fleet.js";
import { log } from "../log/index.js";
import { describePeer } from "../../shared/version/index.js";

export const FLEET_PATH = "/registry/fleet";

export const fleet = new Hono<OperatorEnv>();

const NO_REGISTRY = "this deployment has no cluster registry, where the fleet set is kept: wrangler.toml lacks the REGISTRY Durable Object binding (README, Deploy)";
/** Problems named in one refusal: the rest are counted. */
const MAX_PROBLEMS = 20;
/** The registry's one instance, where the fleet set is kept; undefined without the binding. */
const storeOf = (env: OperatorEnv["Bindings"]): FleetStoreStub | undefined => {
  const registry = registryOf(env);
  return registry && (registry.stub() as unknown as FleetStoreStub);
};

/** How deep a set's objects may nest: policies' matchResources and params are a few levels, never hundreds. */
const MAX_DEPTH = 64;

fleet.post(FLEET_PATH, operator("POST"), async (c) => {
  const started = Date.now();
  let described = "";
  const answer = (status: 200 | 202 | 400 | 403 | 404 | 409 | 413 | 503, body: Record<string, unknown>, revision?: number) => {
    const reason = typeof body.error === "string" ? body.error.slice(0, 500) : undefined;
    log({ event: "fleet-change", status, peer: describePeer(c.get("peer")), change: described, ...(revision !== undefined ? { revision } : {}), ...(reason ? { reason } : {}), durationMs: Date.now() - started });
    return c.json(body, status);
  };
  const body = await readBody(c, MAX_FLEET_BYTES, "fleet change");
  if (!body.ok) return answer(body.status, { error: `${body.error}; nothing changed` });
  if ((await sha256Hex(body.bytes)) !== c.get("contentSha256"))
    return answer(403, { error: `the body is not the one signed: its SHA-256 differs from ${CONTENT_SHA256_HEADER}; nothing changed` });
  const decoded = decodeJson(new TextDecoder().decode(body.bytes), fleetChangeSchema, "fleet change", "does not fit", MAX_DEPTH);
  if (!decoded.ok) return answer(400, { error: `${decoded.error}; nothing changed` });
  const change = decoded.value;
  described = change.op === "apply" ? "apply" : change.op === "promote" ? `promote ${change.binding}` : `rollback to ${change.toRevision}`;
  if (change.op === "apply") {
    const { set } = change;
    if (emptyFleetSet(set) && change.allowEmpty !== true)
      return answer(400, { error: "the fleet set is empty: applied, it would remove every fleet policy from every cluster; send allowEmpty (edgeadmit fleet apply --allow-empty) if that is meant; nothing changed" });
    const problems = fleetSetProblems(change.set);
    if (problems.length > 0) {
      const named = problems.slice(0, MAX_PROBLEMS).join("; ");
      return answer(400, { error: `the fleet set cannot be applied: ${named}${problems.length > MAX_PROBLEMS ? `; and ${problems.length - MAX_PROBLEMS} more` : ""}; nothing changed` });
    }
  }
  const registry = registryOf(c.env);
  if (!registry) return answer(503, { error: NO_REGISTRY });
  const result = await registry.governance().submit({ kind: "fleet", change }, c.get("changeId"), Date.now(), replayableUntil(c.get("signedAt")), c.get("signing"));
  if (!result.ok) return result.status === 401 ? unauthenticated(c) : answer(result.status, { error: `${result.error}; nothing changed` });
  if (result.state === "proposed") return answer(202, proposedBody(result.proposal));
  fleetCacheOf(c.env)?.cache.noteChanged();
  return answer(200, { revision: result.fleet!.revision, change: result.fleet!.change, signers: result.signers }, result.fleet!.revision);
});

fleet.get(FLEET_PATH, operator("GET"), async (c) => {
  const store = storeOf(c.env);
  if (!store) return c.json({ error: NO_REGISTRY }, 503);
  const current = await store.fleetSince(-1);
  return c.json(current.stored ?? { revision: 0 });
});

fleet.get(`${FLEET_PATH}/history`, operator("GET"), async (c) => {
  const store = storeOf(c.env);
  if (!store) return c.json({ error: NO_REGISTRY }, 503);
  const history = await store.fleetHistory();
  return c.json({ revision: history.revision, revisions: history.revisions.map((entry) => ({ ...entry, appliedAt: new Date(entry.appliedAt).toISOString() })) });
});

fleet.get(`${FLEET_PATH}/revisions/:revision`, operator("GET"), async (c) => {
  const text = c.req.param("revision");
  if (!/^[1-9]\d{0,14}$/.test(text)) return c.json({ error: "the revision must be a whole number from 1 (edgeadmit fleet history lists those kept)" }, 400);
  const store = storeOf(c.env);
  if (!store) return c.json({ error: NO_REGISTRY }, 503);
  const stored = await store.fleetRevision(Number(text));
  if (!stored) return c.json({ error: revisionNotKept(Number(text)) }, 404);
  return c.json(stored);
});

fleet.get("/registry/counts", operator("GET"), async (c) => {
  const cluster = c.req.query("cluster");
  if (cluster !== undefined && (cluster.length > 63 || !CLUSTER_ID.test(cluster))) return c.json({ error: "cluster must be a cluster id" }, 400);
  const hoursText = c.req.query("hours") ?? "24";
  const hours = /^\d{1,3}$/.test(hoursText) ? Number(hoursText) : 0;
  if (hours < 1 || hours > KEPT_HOURS) return c.json({ error: `hours must be a whole number from 1 to ${KEPT_HOURS} (counts are kept ${KEPT_HOURS} hours)` }, 400);
  const by = c.req.query("by");
  if (by !== undefined && by !== "hour") return c.json({ error: "by must be hour (a row per hour), or left out (sums over the window)" }, 400);
  const counts = countsOf(c.env);
  if (!counts) return c.json({ error: NO_REGISTRY }, 503);
  const now = Date.now();
  // This isolate's pending counts first, so a read sees what it counted; other isolates flush within 10 s.
  await counts.flusher.flush(counts.writer, now);
  if (by === "hour") {
    const rows = await counts.writer().countHours({ cluster, hours }, now);
    return c.json({ hours, by, rows: rows.map(([hour, clusterId, origin, policy, outcome, count]) => ({ hour: new Date(hour * HOUR_MS).toISOString(), cluster: clusterId, origin, policy, outcome, count })) });
  }
  const rows = await counts.writer().countSums({ cluster, hours }, now);
  return c.json({ hours, rows: rows.map(([clusterId, origin, policy, outcome, count]) => ({ cluster: clusterId, origin, policy, outcome, count })) });
});

/** Clusters per page of GET …/overview, at most and by default. */
const MAX_OVERVIEW_PAGE = 1_000;

/**
 * The fleet at a glance, a page of registered clusters at a time: each
 * registration, its sync job's last call, its committed snapshot as the
 * registry last heard of it (within one flush of a push: 10 s) and its
 * coverage gaps, computed as GET …/coverage computes them, from the webhook
 * rules that snapshot carried. One read of the registry per page, never one
 * per cluster's store: what the dashboard's Fleet page shows of 10,000 clusters.
 */
fleet.get("/registry/overview", operator("GET"), async (c) => {
  const after = c.req.query("after") ?? "";
  if (after !== "" && (after.length > 63 || !CLUSTER_ID.test(after))) return c.json({ error: "after must be a cluster id (the next of the previous page)" }, 400);
  const limitText = c.req.query("limit");
  const limit = limitText === undefined ? MAX_OVERVIEW_PAGE : /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (limit < 1 || limit > MAX_OVERVIEW_PAGE) return c.json({ error: `limit must be a whole number from 1 to ${MAX_OVERVIEW_PAGE}` }, 400);
  const registry = overviewOf(c.env);
  const source = fleetCacheOf(c.env);
  const counts = countsOf(c.env);
  if (!registry || !source || !counts) return c.json({ error: NO_REGISTRY }, 503);
  const now = Date.now();
  // What this isolate saw first (pushes it committed, sync jobs' calls); other isolates flush within 10 s.
  await counts.flusher.flush(counts.writer, now);
  let policies;
  try {
    policies = await source.cache.current(source.reader, now);
  } catch (e) {
    if (!(e instanceof RegistryUnavailable)) throw e;
    return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
  }
  const page = await registry.overview(after, limit);
  return c.json({
    revision: page.revision,
    fleetRevision: policies?.stored.revision ?? 0,
    clusters: page.clusters.map(({ cluster, registration, lastSync, snapshot }) => ({
      cluster,
      labels: registration.labels ?? {},
      withoutSnapshot: registration.withoutSnapshot,
      maxAgeSeconds: registration.maxAgeSeconds,
      ...(lastSync ? { lastSync: { release: lastSync.release, at: new Date(lastSync.at).toISOString() } } : {}),
      snapshot: snapshot ? { generation: snapshot.generation, pushedAt: new Date(snapshot.pushedAt).toISOString(), ageSeconds: ageSeconds(snapshot.pushedAt, now) } : null,
      ...coverageOf(policies, registration.labels ?? {}, snapshot?.webhookRules),
    })),
    ...(page.next !== undefined ? { next: page.next } : {}),
  });
});

fleet.get("/registry/coverage", operator("GET"), async (c) => {
  const id = c.req.query("cluster") ?? "";
  if (id.length > 63 || !CLUSTER_ID.test(id)) return c.json({ error: "cluster must be a cluster id" }, 400);
  const now = Date.now();
  const source = fleetCacheOf(c.env);
  if (!source) return c.json({ error: NO_REGISTRY }, 503);
  let cluster;
  let policies;
  try {
    cluster = await clusterOf(c.env, id);
    policies = await source.cache.current(source.reader, now);
  } catch (e) {
    if (!(e instanceof RegistryUnavailable)) throw e;
    return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
  }
  if (!cluster) return c.json({ error: `cluster ${id} is not registered` }, 404);
  const state = await loadSnapshot(c.env, id, now);
  return c.json({
    cluster: id,
    fleetRevision: policies?.stored.revision ?? 0,
    snapshot: state.loaded ? { generation: state.loaded.meta.generation, ageSeconds: ageSeconds(state.loaded.meta.pushedAt, now) } : null,
    ...coverageOf(policies, cluster.labels, state.loaded?.facts.part.webhookRules),
  });
});

export const clusterFleet = new Hono<AuthEnv>();

clusterFleet.get("/:cluster/fleet", signer("GET"), async (c) => {
  const cluster = c.get("cluster");
  const source = fleetCacheOf(c.env);
  let policies;
  try {
    policies = source && (await source.cache.current(source.reader, Date.now()));
  } catch (e) {
    if (!(e instanceof RegistryUnavailable)) throw e;
    return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
  }
  // No registry, or no set applied: the fleet binds nothing here.
  if (!policies) return c.json({ cluster: cluster.id, revision: 0, set: { policies: [], bindings: [], params: [], modes: [], exceptions: [] } });
  const { revision, set, stages } = policies.stored;
  return c.json({ cluster: cluster.id, revision, set: selectionFor(set, stages, cluster.labels) });
});
