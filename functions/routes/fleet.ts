// POST /v1/registry/fleet — a fleet policy set applied, a binding's waves promoted, or a revision
//   rolled back; signed with the operator's key, each a new fleet revision (docs/fleet.md).
// GET /v1/registry/fleet — the revision in effect, whole (what `edgeadmit fleet diff` compares with).
// GET /v1/registry/fleet/history — the revisions kept, newest first.
// GET /v1/registry/counts[?cluster=<id>&hours=<n>] — verdict counts summed over the last n hours (default 24).
// GET /v1/registry/coverage?cluster=<id> — the fleet policies bound on a cluster that its webhook rules do not reach (now, and once
//   a later wave is promoted), and its snapshot's generation and age.
// GET /v1/:cluster/fleet — what the fleet binds on that cluster (shared/fleet selectionFor), signed with
//   the cluster's own key as the sync job signs GET …/snapshot/buckets: the audit CronJob judges with it,
//   so the operator's key never sits in a cluster, and a cluster sees no other cluster's bindings.
import { Hono } from "hono/tiny";
import { sha256Hex } from "../../shared/digest/index.js";
import { fleetChangeSchema, fleetSetProblems, MAX_FLEET_BYTES, selectionFor, upcomingFleetRulesFor } from "../../shared/fleet/index.js";
import { CONTENT_SHA256_HEADER } from "../../shared/signing/index.js";
import { decodeJson } from "../../shared/zod/index.js";
import { operator, replayableUntil, signer, unauthenticated, type AuthEnv, type OperatorEnv } from "../auth/index.js";
import { proposedBody } from "./governance.js";
import { readBody } from "../body/index.js";
import { registryOf } from "../config/index.js";
import { fleetCacheOf } from "../fleet/cache.js";
import { countsOf } from "../fleet/counts.js";
import { KEPT_HOURS } from "../../shared/counts/index.js";
import { CLUSTER_ID } from "../../shared/clusters/index.js";
import { uncoveredPolicyRules } from "../../shared/vap/coverage.js";
import { clusterOf } from "../config/index.js";
import { loadSnapshot } from "../store/cache.js";
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
    if (set.policies.length + set.bindings.length + set.modes.length + set.exceptions.length === 0 && change.allowEmpty !== true)
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

fleet.get("/registry/counts", operator("GET"), async (c) => {
  const cluster = c.req.query("cluster");
  if (cluster !== undefined && (cluster.length > 63 || !CLUSTER_ID.test(cluster))) return c.json({ error: "cluster must be a cluster id" }, 400);
  const hoursText = c.req.query("hours") ?? "24";
  const hours = /^\d{1,3}$/.test(hoursText) ? Number(hoursText) : 0;
  if (hours < 1 || hours > KEPT_HOURS) return c.json({ error: `hours must be a whole number from 1 to ${KEPT_HOURS} (counts are kept ${KEPT_HOURS} hours)` }, 400);
  const counts = countsOf(c.env);
  if (!counts) return c.json({ error: NO_REGISTRY }, 503);
  const now = Date.now();
  // This isolate's pending counts first, so a read sees what it counted; other isolates flush within 10 s.
  await counts.flusher.flush(counts.writer, now);
  const rows = await counts.writer().countSums({ cluster, hours }, now);
  return c.json({ hours, rows: rows.map(([clusterId, origin, policy, outcome, count]) => ({ cluster: clusterId, origin, policy, outcome, count })) });
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
  const bound = policies?.forCluster(cluster.labels);
  const state = await loadSnapshot(c.env, id, now);
  const webhookRules = state.loaded?.facts.part.webhookRules;
  return c.json({
    cluster: id,
    fleetRevision: policies?.stored.revision ?? 0,
    snapshot: state.loaded ? { generation: state.loaded.meta.generation, ageSeconds: Math.max(0, Math.floor((now - state.loaded.meta.pushedAt) / 1000)) } : null,
    // Unknown until the cluster's sync job pushes the rules it read (an older one does not).
    coverage: webhookRules === undefined ? "unknown" : "known",
    gaps: webhookRules === undefined || !bound ? [] : uncoveredPolicyRules(webhookRules, bound.set.rules),
    // What a promotion (by hand or promoteAfter) would start enforcing where the rules do not send it.
    upcoming: webhookRules === undefined || !policies ? [] : uncoveredPolicyRules(webhookRules, upcomingFleetRulesFor(policies.stored.set, policies.stored.stages, cluster.labels)),
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
