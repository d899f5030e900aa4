// Section 15: the dashboard and the metrics at fleet size (docs/dashboard.md).
// The Fleet page of `edgeadmit dashboard` for 10,000 registered clusters,
// rendered by its own Hono app from an in-memory source holding what the
// function answers (the overview, the fleet set, 24 hours of counts), so the
// figure is the dashboard's own work, not the network's. And the body of GET
// /v1/registry/metrics, written by the route's own functions, for 1,000 and
// 10,000 clusters × 60 policies: bytes and time per series must stay flat
// (linear in the series), whatever the fleet's size.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { counterText, gaugeText, type ClusterGauges } from "../functions/routes/metrics.js";
import type { CountSum } from "../functions/registry/counts.js";
import { dashboardApp } from "../infra/dashboard/app.js";
import type { FleetSource } from "../infra/dashboard/source.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { objectsFromText } from "../infra/objects/yaml.js";
import { HOUR_MS } from "../shared/counts/index.js";
import { fleetSetOf, fleetSetSchema } from "../shared/fleet/index.js";
import { figure, goalsHold, type Section } from "./figures.js";
import { nowMs, spread } from "./stats.js";

const CLUSTERS = 10_000;
const POLICIES = 60;
const RUNS = 7;
const HOST = "127.0.0.1:8790";

const idOf = (i: number) => `cluster-${String(i).padStart(5, "0")}`;

/** What the function would answer for a fleet of `clusters`: every tenth cluster stale, one in fifty without a snapshot, canaries with a gap. */
function source(clusters: number): FleetSource {
  const now = Date.now();
  const objects = readdirSync(join(PROJECT_ROOT, "examples/fleet")).flatMap((file) => objectsFromText(readFileSync(join(PROJECT_ROOT, "examples/fleet", file), "utf8"), file));
  const set = fleetSetSchema.parse(fleetSetOf(objects));
  const overview = {
    revision: clusters,
    fleetRevision: 3,
    clusters: Array.from({ length: clusters }, (_, i) => ({
      cluster: idOf(i),
      labels: { env: i % 3 === 0 ? "dev" : "prod", region: `r${i % 10}`, ...(i % 100 === 0 ? { ring: "canary" } : {}) },
      withoutSnapshot: i % 2 === 0 ? "FailOpen" : "FailClosed",
      maxAgeSeconds: 86_400,
      snapshot: i % 50 === 0 ? null : { generation: now - i, pushedAt: new Date(now - i * 1000).toISOString(), ageSeconds: i % 10 === 0 ? 90_000 : 600 },
      coverage: i % 7 === 0 ? ("unknown" as const) : ("known" as const),
      gaps: i % 100 === 0 ? ["ValidatingAdmissionPolicy 'require-team' matches CREATE deployments.apps/v1"] : [],
      upcoming: [],
    })),
  };
  const rows = overview.clusters.flatMap((entry, i) => [
    { cluster: entry.cluster, origin: "review", policy: "*", outcome: "allow", count: 100 + i },
    { cluster: entry.cluster, origin: "review", policy: "*", outcome: "deny", count: i % 5 },
    { cluster: entry.cluster, origin: "fleet", policy: "max-replicas", outcome: "deny", count: i % 5 },
  ]);
  const unused = () => Promise.reject(new Error("not read by the Fleet page"));
  return {
    overview: async () => overview,
    fleet: async () => ({ revision: 3, set, stages: { "baseline-team": 1 }, appliedAt: now - HOUR_MS }),
    counts: async (hours) => ({ hours, rows }),
    history: unused,
    hours: unused,
    changes: unused,
    proposals: unused,
    changeFleet: unused,
  };
}

async function fleetPageMs(clusters: number): Promise<{ ms: number[]; bytes: number }> {
  const app = dashboardApp({ source: source(clusters), endpoint: "https://edgeadmit.example.com", hosts: () => new Set([HOST]), secret: "bench" });
  const ms: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS + 1; run++) {
    const started = nowMs();
    const response = await app.fetch(new Request(`http://${HOST}/`, { headers: { host: HOST } }));
    const text = await response.text();
    if (response.status !== 200 || !text.includes(`data-summary="clusters">${clusters}<`)) throw new Error(`the Fleet page of ${clusters} clusters answered ${response.status}`);
    if (run > 0) ms.push(nowMs() - started);
    bytes = text.length;
  }
  return { ms, bytes };
}

/** The metrics body of `clusters` clusters × POLICIES policies (one outcome each, and the review's row): its bytes and time per series. */
function metricsBody(clusters: number): { usPerSeries: number[]; bytesPerSeries: number; series: number } {
  const now = Date.now();
  const gauges: ClusterGauges[] = Array.from({ length: clusters }, (_, i) => ({
    cluster: idOf(i),
    maxAgeSeconds: 86_400,
    snapshot: { generation: now - i, pushedAt: now - i * 1000, webhookRules: null },
    coverage: { coverage: "known" as const, gaps: [], upcoming: [] },
  }));
  const rows: CountSum[] = [];
  for (let i = 0; i < clusters; i++) {
    rows.push([idOf(i), "review", "*", "allow", 1000 + i]);
    for (let p = 0; p < POLICIES; p++) rows.push([idOf(i), "fleet", `policy-${String(p).padStart(2, "0")}`, p % 4 === 0 ? "deny" : "warn", p + i]);
  }
  // 5 gauges per cluster (generation, age, limit, coverage known, two gap series less one), one fleet revision.
  const series = rows.length + clusters * 6 + 1;
  const usPerSeries: number[] = [];
  let bytes = 0;
  for (let run = 0; run < 4; run++) {
    const started = nowMs();
    let size = gaugeText(3, gauges, now).length;
    // Pages of 5,000, as the route streams them.
    for (let start = 0; start < rows.length; start += 5_000) size += counterText(rows.slice(start, start + 5_000)).length;
    if (run > 0) usPerSeries.push(((nowMs() - started) * 1000) / series);
    bytes = size;
  }
  return { usPerSeries, bytesPerSeries: bytes / series, series };
}

export async function dashboardScale(): Promise<Section> {
  const section: Section = {
    id: "dashboard",
    title: `15. Dashboard and metrics at fleet size: ${CLUSTERS.toLocaleString("en")} clusters, ${POLICIES} policies (Node)`,
    figures: [],
    commands: ["npm run bench -- --only dashboard   # bench/dashboard.ts"],
    notes: [],
  };
  const page = await fleetPageMs(CLUSTERS);
  section.figures.push(figure(`Fleet page of ${CLUSTERS.toLocaleString("en")} clusters: render`, "ms", spread(page.ms), { op: "<=", value: 1000 }));
  const small = metricsBody(CLUSTERS / 10);
  const large = metricsBody(CLUSTERS);
  section.figures.push(
    figure(`metrics body, ${(CLUSTERS / 10).toLocaleString("en")} clusters × ${POLICIES} policies: time per series`, "µs", spread(small.usPerSeries)),
    figure(`metrics body, ${CLUSTERS.toLocaleString("en")} clusters × ${POLICIES} policies: time per series`, "µs", spread(large.usPerSeries)),
    figure("time per series, 10× the clusters / 1×", "×", spread(large.usPerSeries.map((us, i) => us / small.usPerSeries[i]!)), { op: "<=", value: 1.5 }),
    figure(`metrics body, ${CLUSTERS.toLocaleString("en")} clusters: bytes per series`, "B", spread([large.bytesPerSeries])),
    figure("bytes per series, 10× the clusters / 1×", "×", spread([large.bytesPerSeries / small.bytesPerSeries]), { op: "<=", value: 1.1 }),
  );
  section.notes.push(
    `The Fleet page: dashboardApp (infra/dashboard/app.tsx) answering GET / with an in-memory FleetSource of ${CLUSTERS.toLocaleString("en")} clusters (labels, snapshots, coverage, 24 h of counts: three rows each) and the examples/fleet set; its summary counts every cluster, its table the first ${500} in attention order. ${page.bytes.toLocaleString("en")} bytes of HTML. Median of ${RUNS} runs after one warm-up. Reading the function (GET /v1/registry/overview, ten pages of 1,000) is not timed here.`,
    `The metrics body: gaugeText and counterText of functions/routes/metrics.ts, as the route writes it (the counters in pages of 5,000), for ${large.series.toLocaleString("en")} series (${CLUSTERS.toLocaleString("en")} clusters × (${POLICIES} policy rows + the review's + 6 gauges)) and a tenth of that; reading the rows from the registry's Durable Object is not timed here.`,
  );
  if (!goalsHold(section)) section.biggestCost = `Dashboard: ${section.figures.filter((f) => f.pass === false).map((f) => `${f.name} ${f.value.median.toFixed(2)} ${f.unit}`).join("; ")}.`;
  return section;
}
