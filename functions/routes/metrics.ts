// GET /v1/registry/metrics — the fleet in the OpenMetrics text format, for
//   Prometheus: verdict counters per cluster, policy, origin and outcome
//   (since the registry first counted them, never going down), each
//   cluster's snapshot generation, age and age limit, coverage, and the
//   fleet revision. Only for a metrics token (functions/auth metricsReader).
// GET /v1/registry/metrics/tokens — the metrics tokens issued (names and when), for the operator.
// POST /v1/registry/metrics/tokens — issue one (its SHA-256 only: a widening change, the threshold's
//   keys) or revoke one (one key, at once); signed by the operator.
import { Hono } from "hono/tiny";
import * as z from "zod/mini";
import { TOKEN_HASH_PATTERN } from "../../shared/tokens/index.js";
import { describePeer } from "../../shared/version/index.js";
import { metricsReader, operator, replayableUntil, unauthenticated, type OperatorEnv } from "../auth/index.js";
import { clustersOf, overviewOf, registryOf, type Env } from "../config/index.js";
import { coverageOf } from "../fleet/coverage.js";
import { countsOf } from "../fleet/counts.js";
import { fleetCacheOf } from "../fleet/cache.js";
import { log } from "../log/index.js";
import { EOF, FAMILIES, header, OPENMETRICS_CONTENT_TYPE, sample, type Family } from "../metrics/index.js";
import type { CountSum, TotalsCursor } from "../registry/counts.js";
import { METRICS_TOKEN_NAME } from "../registry/metrics-tokens.js";
import type { SnapshotRecord } from "../registry/snapshots.js";
import { ageSeconds } from "../store/cache.js";
import { bodyOf, proposedBody, requestId } from "./governance.js";

export const metrics = new Hono<OperatorEnv>();

const NO_REGISTRY = "this deployment has no cluster registry: wrangler.toml lacks the REGISTRY Durable Object binding (README, Deploy)";
/** Registry rows one call reads: a page of clusters or counters, bounded whatever the fleet's size. */
const PAGE = 1_000;
const COUNTER_PAGE = 5_000;


/** What the metrics say of one cluster. */
export interface ClusterGauges {
  cluster: string;
  maxAgeSeconds: number;
  snapshot: SnapshotRecord | undefined;
  coverage: ReturnType<typeof coverageOf>;
}

/** Every cluster, the registry's page by page, then CLUSTERS' (which the registry does not list). */
async function clusterGauges(env: Env, now: number): Promise<{ fleetRevision: number; clusters: ClusterGauges[] }> {
  const registry = overviewOf(env)!;
  const source = fleetCacheOf(env)!;
  const policies = await source.cache.current(source.reader, now);
  const clusters: ClusterGauges[] = [];
  let after = "";
  for (;;) {
    const page = await registry.overview(after, PAGE);
    for (const { cluster, registration, snapshot } of page.clusters)
      clusters.push({ cluster, maxAgeSeconds: registration.maxAgeSeconds, snapshot, coverage: coverageOf(policies, registration.labels ?? {}, snapshot?.webhookRules) });
    if (page.next === undefined) break;
    after = page.next;
  }
  const statics = await clustersOf(env);
  const records = new Map(await registry.snapshotRecordsOf([...statics.clusters.keys()]));
  for (const [id, cluster] of statics.clusters) {
    const snapshot = records.get(id);
    clusters.push({ cluster: id, maxAgeSeconds: cluster.maxAgeSeconds, snapshot, coverage: coverageOf(policies, cluster.labels, snapshot?.webhookRules) });
  }
  clusters.sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
  return { fleetRevision: policies?.stored.revision ?? 0, clusters };
}

/** The gauges' families, each whole: OpenMetrics keeps a family's samples together. */
export function gaugeText(fleetRevision: number, clusters: readonly ClusterGauges[], now: number): string {
  const parts: string[] = [header(FAMILIES.fleetRevision), sample(FAMILIES.fleetRevision, [], fleetRevision)];
  const perCluster = (family: Family, value: (entry: ClusterGauges) => number | undefined) => {
    parts.push(header(family));
    for (const entry of clusters) {
      const measured = value(entry);
      if (measured !== undefined) parts.push(sample(family, [["cluster", entry.cluster]], measured));
    }
  };
  perCluster(FAMILIES.generation, (entry) => entry.snapshot?.generation);
  perCluster(FAMILIES.age, (entry) => entry.snapshot && ageSeconds(entry.snapshot.pushedAt, now));
  perCluster(FAMILIES.maxAge, (entry) => entry.maxAgeSeconds);
  perCluster(FAMILIES.coverageKnown, (entry) => (entry.coverage.coverage === "known" ? 1 : 0));
  parts.push(header(FAMILIES.coverageGaps));
  for (const { cluster, coverage } of clusters) {
    if (coverage.coverage === "unknown") continue;
    parts.push(sample(FAMILIES.coverageGaps, [["cluster", cluster], ["when", "now"]], coverage.gaps.length));
    parts.push(sample(FAMILIES.coverageGaps, [["cluster", cluster], ["when", "promoted"]], coverage.upcoming.length));
  }
  return parts.join("");
}

/** A page of the verdict counters' samples. */
export function counterText(rows: readonly CountSum[]): string {
  return rows.map(([cluster, origin, policy, outcome, count]) => sample(FAMILIES.verdicts, [["cluster", cluster], ["origin", origin], ["policy", policy], ["outcome", outcome]], count)).join("");
}

metrics.get("/registry/metrics", metricsReader, async (c) => {
  const counts = countsOf(c.env);
  if (!registryOf(c.env) || !counts || !fleetCacheOf(c.env)) return c.json({ error: NO_REGISTRY }, 503);
  const now = Date.now();
  // This isolate's counts first; others flush within 10 s, so a scrape every 15 s or more sees each flush once.
  await counts.flusher.flush(counts.writer, now);
  const { fleetRevision, clusters } = await clusterGauges(c.env, now);
  const registry = overviewOf(c.env)!;
  const encoder = new TextEncoder();
  // The counters streamed a page at a time: the body grows with the fleet, what the isolate holds does not.
  let cursor: TotalsCursor | null = null;
  let started = false;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${gaugeText(fleetRevision, clusters, now)}${header(FAMILIES.verdicts)}`));
        return;
      }
      if (done) return controller.close();
      const rows = await registry.verdictTotals(cursor, COUNTER_PAGE);
      const text = counterText(rows);
      if (rows.length < COUNTER_PAGE) {
        done = true;
        controller.enqueue(encoder.encode(`${text}${EOF}`));
      } else {
        const [cluster, origin, policy, outcome] = rows.at(-1)!;
        cursor = [cluster, origin, policy, outcome];
        controller.enqueue(encoder.encode(text));
      }
    },
  });
  return new Response(body, { headers: { "content-type": OPENMETRICS_CONTENT_TYPE, "cache-control": "no-store" } });
});

const tokenChangeSchema = z.discriminatedUnion("op", [
  z.strictObject({ requestId, op: z.literal("issue"), name: z.string().check(z.regex(METRICS_TOKEN_NAME, "must be a lowercase name of letters, digits and '-', at most 63")), tokenHash: z.string().check(z.regex(TOKEN_HASH_PATTERN, "must be sha256:<64 hex digits>, the token's SHA-256 (edgeadmit metrics issue computes it)")) }),
  z.strictObject({ requestId, op: z.literal("revoke"), name: z.string().check(z.maxLength(63)) }),
]);

metrics.get("/registry/metrics/tokens", operator("GET"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const tokens = await registry.governance().metricsTokens();
  return c.json({ tokens: tokens.map(({ name, issuedAt, issuedSeq }) => ({ name, issuedAt: new Date(issuedAt).toISOString(), change: issuedSeq })) });
});

metrics.post("/registry/metrics/tokens", operator("POST"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const body = await bodyOf(c, tokenChangeSchema, "metrics token change");
  if (!body.ok) return body.response;
  const { requestId: _id, ...change } = body.value;
  const now = Date.now();
  const result = await registry.governance().submit({ kind: "metrics-token", ...change }, c.get("changeId"), now, replayableUntil(c.get("signedAt")), c.get("signing"));
  const status = result.ok ? (result.state === "applied" ? 200 : 202) : result.status;
  log({ event: "registry-change", status, peer: describePeer(c.get("peer")), changes: [`${change.op} metrics token ${change.name}`], ...(result.ok ? {} : { reason: result.error }), durationMs: Date.now() - now });
  if (!result.ok) return result.status === 401 ? unauthenticated(c) : c.json({ error: `${result.error}; nothing changed` }, result.status);
  if (result.state === "proposed") return c.json(proposedBody(result.proposal), 202);
  return c.json({ ...(result.metrics ?? {}), change: result.seq, signers: result.signers });
});
