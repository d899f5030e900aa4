// `edgeadmit dashboard`'s pages as a Hono app: each page reads the function
// through a FleetSource (the operator's key signs every read on the server
// side; no key, token or signature is ever sent to the browser), shapes what
// it read and renders it (pages.tsx). The two changes it makes, a fleet
// promotion and a rollback, show the exact change first and are sent only
// from a form posted with this process's secret, from this origin.
//
// Guards, because the process holds the operator key: it answers only Host
// headers naming its own 127.0.0.1 address (DNS rebinding: a hostile page
// whose name resolves to 127.0.0.1 sends its own Host), a POST only with the
// Origin of that address and the form's secret (cross-site request forgery),
// and every page with a Content-Security-Policy that allows no script at all.
import { Hono, type Context } from "hono";
import { HOUR_MS, KEPT_HOURS, OUTCOMES } from "../../shared/counts/index.js";
import { actionsFor, durationMs, type FleetBinding } from "../../shared/fleet/index.js";
import { parseSelector, selectorMatches, selectorText } from "../../shared/k8s/labels/index.js";
import { timingSafeEqual } from "../../shared/digest/index.js";
import { FunctionError } from "../client/index.js";
import type { FleetCurrent } from "../client/fleet.js";
import { emptyTally, type Marker, type Tally } from "./chart.js";
import { ChangesPage, ConfirmPage, ErrorPage, FleetPage, PoliciesPage, ResultPage, VerdictsPage, type BindingView, type FleetRow } from "./pages.js";
import type { FleetSource } from "./source.js";
import { STYLE } from "./style.js";

/** Cluster rows per page of the Fleet page: a bounded page whatever the fleet's size (the summary counts every cluster). */
export const FLEET_PAGE_ROWS = 500;
/** Rows of the per-policy and per-cluster tables of the Verdicts page. */
const TOP_ROWS = 50;
/** Change log entries the Changes page shows at most. */
const MAX_CHANGES = 500;
const FINDINGS = ["deny", "warn", "audit", "error"] as const;

export interface DashboardOptions {
  source: FleetSource;
  /** What the header names: the function's URL. */
  endpoint: string;
  /** The Host values this server answers (`127.0.0.1:<port>`), known once it listens. */
  hosts: () => ReadonlySet<string>;
  /** This process's secret, in every form that changes something. */
  secret: string;
  now?: () => number;
}

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // Not no-referrer: under it Chromium sends its forms' POSTs with Origin: null, which the guard must refuse.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
};

const tallyOf = (rows: Iterable<{ outcome: string; count: number }>): Tally => {
  const tally = emptyTally();
  for (const row of rows) if ((OUTCOMES as readonly string[]).includes(row.outcome)) tally[row.outcome as keyof Tally] += row.count;
  return tally;
};
const findingsOf = (tally: Tally) => FINDINGS.reduce((sum, outcome) => sum + tally[outcome], 0);

/** A whole number from the query within [min, max], or the fallback. */
function bounded(text: string | undefined, min: number, max: number, fallback: number): number {
  if (text === undefined || text === "") return fallback;
  const value = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  return value >= min && value <= max ? value : fallback;
}

/** A query string value as the pages echo it: short, one line. */
const echoed = (text: string | undefined, max = 200) => (text ?? "").replace(/[\r\n]/g, " ").slice(0, max);

function bindingViews(current: FleetCurrent, clusters: ReadonlyArray<{ cluster: string; labels: Readonly<Record<string, string>> }>, findingsSince: (binding: FleetBinding, stagedAt: number) => number, now: number): BindingView[] {
  return (current.set?.bindings ?? []).map((binding) => {
    const name = binding.metadata.name;
    const stage = current.stages?.[name] ?? 0;
    const waves = binding.spec.waves ?? [{ validationActions: binding.spec.validationActions ?? [] }];
    const view: BindingView = {
      name,
      policy: binding.spec.policyName,
      selector: selectorText(binding.spec.clusterSelector),
      stage,
      enforcing: clusters.filter((entry) => actionsFor(binding, stage, entry.labels) !== undefined).length,
      waves: waves.map((wave, index) => ({
        index,
        actions: wave.validationActions.join(", "),
        selector: "clusterSelector" in wave && wave.clusterSelector ? selectorText(wave.clusterSelector) : "",
        ...("promoteAfter" in wave && wave.promoteAfter ? { promoteAfter: wave.promoteAfter } : {}),
        reaches: clusters.filter((entry) => actionsFor(binding, index, entry.labels) !== undefined).map((entry) => entry.cluster),
      })),
    };
    const wave = binding.spec.waves?.[stage];
    if (wave?.promoteAfter) {
      const stagedAt = current.stagedAt?.[name] ?? current.appliedAt ?? now;
      const dueAt = stagedAt + durationMs(wave.promoteAfter);
      const findings = findingsSince(binding, stagedAt);
      view.due = { at: new Date(dueAt).toISOString(), findings, heldBack: findings > 0, overdue: dueAt <= now };
    }
    return view;
  });
}

export function dashboardApp(options: DashboardOptions): Hono {
  const { source, endpoint, secret } = options;
  const now = options.now ?? Date.now;
  const app = new Hono();
  const encoder = new TextEncoder();

  app.use(async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (!options.hosts().has(host)) return c.text("this dashboard answers only its own address (http://127.0.0.1:<port>)\n", 421);
    if (c.req.method === "POST") {
      const origin = c.req.header("origin");
      if (origin !== `http://${host}`) return c.text("refused: a change is sent only from this dashboard's own pages\n", 403);
    } else if (c.req.method !== "GET" && c.req.method !== "HEAD") return c.text("method not allowed\n", 405);
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  });

  app.get("/style.css", (c) => c.body(STYLE, 200, { "content-type": "text/css; charset=utf-8" }));

  const failed = (c: Context, path: string, title: string, e: unknown) => {
    const message = e instanceof FunctionError ? e.message : `the function could not be read: ${e instanceof Error ? e.message : String(e)}`;
    return c.html(<ErrorPage endpoint={endpoint} path={path} title={title} message={message} />, 502);
  };

  app.get("/", async (c) => {
    const selectorInput = echoed(c.req.query("selector"));
    const parsed = parseSelector(selectorInput);
    const selectorError = typeof parsed === "string" ? parsed : undefined;
    const hours = 24;
    let data;
    try {
      data = await Promise.all([source.overview(), source.fleet(), source.counts(hours)]);
    } catch (e) {
      return failed(c, "/", "Fleet", e);
    }
    const [overview, current, counts] = data;
    const reviews = new Map<string, Tally>();
    for (const row of counts.rows) {
      if (row.origin !== "review") continue;
      const tally = reviews.get(row.cluster) ?? emptyTally();
      if ((OUTCOMES as readonly string[]).includes(row.outcome)) tally[row.outcome as keyof Tally] += row.count;
      reviews.set(row.cluster, tally);
    }
    const selected = typeof parsed === "string" ? overview.clusters : overview.clusters.filter((entry) => selectorMatches(parsed, entry.labels));
    const rows: FleetRow[] = selected.map((cluster) => {
      const tally = reviews.get(cluster.cluster);
      return {
        cluster,
        stale: cluster.snapshot !== null && cluster.snapshot.ageSeconds > cluster.maxAgeSeconds,
        findings: tally ? findingsOf(tally) : 0,
        bindings: (current.set?.bindings ?? []).flatMap((binding) => {
          const actions = actionsFor(binding, current.stages?.[binding.metadata.name] ?? 0, cluster.labels);
          return actions ? [`${binding.metadata.name}: ${actions.join(",")}`] : [];
        }),
      };
    });
    const attention = (row: FleetRow) => (row.cluster.snapshot === null || row.stale ? 4 : 0) + (row.cluster.gaps.length > 0 ? 2 : 0) + (row.findings > 0 ? 1 : 0);
    const ranked = rows.map((row) => [attention(row), row] as const).sort((a, b) => b[0] - a[0] || (a[1].cluster.cluster < b[1].cluster.cluster ? -1 : 1));
    const pages = Math.max(1, Math.ceil(ranked.length / FLEET_PAGE_ROWS));
    const page = bounded(c.req.query("page"), 1, pages, 1);
    const summary = {
      clusters: rows.length,
      stale: rows.filter((row) => row.stale).length,
      withoutSnapshot: rows.filter((row) => row.cluster.snapshot === null).length,
      gaps: rows.filter((row) => row.cluster.gaps.length > 0 || row.cluster.upcoming.length > 0).length,
      unknownCoverage: rows.filter((row) => row.cluster.coverage === "unknown").length,
      findings: rows.reduce((sum, row) => sum + row.findings, 0),
    };
    return c.html(
      <FleetPage
        endpoint={endpoint}
        selector={selectorInput}
        {...(selectorError ? { selectorError } : {})}
        fleetRevision={overview.fleetRevision}
        summary={summary}
        rows={ranked.slice((page - 1) * FLEET_PAGE_ROWS, page * FLEET_PAGE_ROWS).map(([, row]) => row)}
        page={page}
        pages={pages}
        hours={hours}
      />,
    );
  });

  app.get("/policies", async (c) => {
    let data;
    try {
      data = await Promise.all([source.fleet(), source.overview(), source.history()]);
    } catch (e) {
      return failed(c, "/policies", "Policies and waves", e);
    }
    const [current, overview, history] = data;
    const at = now();
    // Findings that hold an automatic promotion back: the binding's policy, origin fleet, from the hour its wave began, on the clusters it binds at that wave.
    const windows = new Map<number, Promise<Awaited<ReturnType<FleetSource["counts"]>>>>();
    const sums = new Map<string, number>();
    for (const binding of current.set?.bindings ?? []) {
      const stage = current.stages?.[binding.metadata.name] ?? 0;
      if (!binding.spec.waves?.[stage]?.promoteAfter) continue;
      const stagedAt = current.stagedAt?.[binding.metadata.name] ?? current.appliedAt ?? at;
      const hours = Math.min(KEPT_HOURS, Math.floor(at / HOUR_MS) - Math.floor(stagedAt / HOUR_MS) + 1);
      if (!windows.has(hours)) windows.set(hours, source.counts(hours));
      const bound = new Set(overview.clusters.filter((entry) => actionsFor(binding, stage, entry.labels) !== undefined).map((entry) => entry.cluster));
      const counts = await windows.get(hours)!;
      sums.set(
        binding.metadata.name,
        counts.rows.filter((row) => row.origin === "fleet" && row.policy === binding.spec.policyName && bound.has(row.cluster) && (FINDINGS as readonly string[]).includes(row.outcome)).reduce((sum, row) => sum + row.count, 0),
      );
    }
    const bindings = bindingViews(current, overview.clusters, (binding) => sums.get(binding.metadata.name) ?? 0, at);
    return c.html(<PoliciesPage endpoint={endpoint} revision={current.revision} bindings={bindings} history={history.revisions} />);
  });

  /** The confirmation of a promotion or rollback (GET), and sending it (POST). */
  const fields = (revision: number, extra: Record<string, string>) => ({ ...extra, ifRevision: String(revision), csrf: secret });

  app.get("/promote", async (c) => {
    const name = echoed(c.req.query("binding"), 253);
    let data;
    try {
      data = await Promise.all([source.fleet(), source.overview()]);
    } catch (e) {
      return failed(c, "/policies", "Promote", e);
    }
    const [current, overview] = data;
    const binding = current.set?.bindings.find((b) => b.metadata.name === name);
    if (!binding?.spec.waves) return c.html(<ResultPage endpoint={endpoint} title="Promote" ok={false} message={`no fleet binding ${name} with waves in revision ${current.revision}`} />, 404);
    const stage = current.stages?.[name] ?? 0;
    if (stage >= binding.spec.waves.length - 1) return c.html(<ResultPage endpoint={endpoint} title="Promote" ok={false} message={`${name} is at its last wave (${stage})`} />, 409);
    const count = (wave: number) => overview.clusters.filter((entry) => actionsFor(binding, wave, entry.labels) !== undefined).length;
    const changed = overview.clusters.filter((entry) => (actionsFor(binding, stage, entry.labels) ?? []).join() !== (actionsFor(binding, stage + 1, entry.labels) ?? []).join());
    const lines = [
      `Fleet binding ${name} (policy ${binding.spec.policyName}) moves from wave ${stage} (${binding.spec.waves[stage]!.validationActions.join(", ")}) to wave ${stage + 1} (${binding.spec.waves[stage + 1]!.validationActions.join(", ")}).`,
      `Clusters enforcing it: ${count(stage)} now, ${count(stage + 1)} after; ${changed.length} change what they enforce${changed.length > 0 ? `: ${changed.slice(0, 20).map((entry) => entry.cluster).join(", ")}${changed.length > 20 ? ` and ${changed.length - 20} more` : ""}` : ""}.`,
      `It is a new fleet revision (${current.revision + 1}), refused if the fleet moved on from revision ${current.revision} meanwhile; every isolate enforces it within seconds.`,
    ];
    return c.html(
      <ConfirmPage endpoint={endpoint} title={`Promote ${name} to wave ${stage + 1}?`} lines={lines} request={{ op: "promote", binding: name, ifRevision: current.revision }} action="/promote" fields={fields(current.revision, { binding: name })} />,
    );
  });

  app.get("/rollback", async (c) => {
    const revision = bounded(c.req.query("revision"), 1, Number.MAX_SAFE_INTEGER, 0);
    let data;
    try {
      data = await Promise.all([source.fleet(), source.history()]);
    } catch (e) {
      return failed(c, "/policies", "Roll back", e);
    }
    const [current, history] = data;
    const target = history.revisions.find((entry) => entry.revision === revision);
    if (!target || revision === current.revision) return c.html(<ResultPage endpoint={endpoint} title="Roll back" ok={false} message={`revision ${revision} is not one to roll back to (fleet history lists those kept)`} />, 404);
    const lines = [
      `A new fleet revision (${current.revision + 1}) holding revision ${revision}'s set and wave stages (${target.change}, applied ${target.appliedAt}: ${target.policies} policies, ${target.bindings} bindings).`,
      `Refused if the fleet moved on from revision ${current.revision} meanwhile; every isolate enforces it within seconds.`,
    ];
    return c.html(<ConfirmPage endpoint={endpoint} title={`Roll back to revision ${revision}?`} lines={lines} request={{ op: "rollback", toRevision: revision, ifRevision: current.revision }} action="/rollback" fields={fields(current.revision, { toRevision: String(revision) })} />);
  });

  /** The posted form, when its secret is this process's. */
  const form = async (c: Context): Promise<Record<string, string> | undefined> => {
    const declared = Number(c.req.header("content-length") ?? "0");
    if (!(declared <= 4096)) return undefined;
    const body = await c.req.parseBody();
    const csrf = typeof body.csrf === "string" ? body.csrf : "";
    if (!timingSafeEqual(encoder.encode(csrf), encoder.encode(secret))) return undefined;
    return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  };

  const send = async (c: Context, title: string, change: Parameters<FleetSource["changeFleet"]>[0]) => {
    try {
      const outcome = await source.changeFleet(change);
      if ("proposed" in outcome) return c.html(<ResultPage endpoint={endpoint} title={title} ok={true} message={outcome.proposed.message} />, 202);
      return c.html(<ResultPage endpoint={endpoint} title={title} ok={true} message={`fleet revision ${outcome.applied.revision}: ${outcome.applied.change}`} />);
    } catch (e) {
      const message = e instanceof FunctionError ? e.message : `not sent: ${e instanceof Error ? e.message : String(e)}`;
      return c.html(<ResultPage endpoint={endpoint} title={title} ok={false} message={message} />, 502);
    }
  };

  app.post("/promote", async (c) => {
    const body = await form(c);
    if (!body) return c.text("refused: the form is not this dashboard's (reload the page)\n", 403);
    const ifRevision = bounded(body.ifRevision, 0, Number.MAX_SAFE_INTEGER, -1);
    if (!body.binding || ifRevision < 0) return c.text("refused: the form lacks the binding or the revision\n", 400);
    return send(c, `Promote ${body.binding}`, { op: "promote", binding: body.binding.slice(0, 253), ifRevision });
  });

  app.post("/rollback", async (c) => {
    const body = await form(c);
    if (!body) return c.text("refused: the form is not this dashboard's (reload the page)\n", 403);
    const ifRevision = bounded(body.ifRevision, 0, Number.MAX_SAFE_INTEGER, -1);
    const toRevision = bounded(body.toRevision, 1, Number.MAX_SAFE_INTEGER, 0);
    if (toRevision === 0 || ifRevision < 0) return c.text("refused: the form lacks the revision\n", 400);
    return send(c, `Roll back to ${toRevision}`, { op: "rollback", toRevision, ifRevision });
  });

  app.get("/verdicts", async (c) => {
    const filters = { hours: bounded(c.req.query("hours"), 1, KEPT_HOURS, 24), cluster: echoed(c.req.query("cluster"), 63), policy: echoed(c.req.query("policy"), 253) };
    let data;
    try {
      data = await Promise.all([source.hours(filters.hours), source.history()]);
    } catch (e) {
      return failed(c, "/verdicts", "Verdicts over time", e);
    }
    const [hourly, history] = data;
    const at = now();
    const fromHour = Math.floor(at / HOUR_MS) - filters.hours + 1;
    const wanted = (row: { origin: string; policy: string }) => (filters.policy === "" ? row.origin === "review" : row.policy === filters.policy && row.origin !== "review");
    const tallies = new Map<number, Tally>();
    const byPolicy = new Map<string, Tally>();
    const byCluster = new Map<string, Tally>();
    const totals = emptyTally();
    for (const row of hourly.rows) {
      if (!(OUTCOMES as readonly string[]).includes(row.outcome)) continue;
      const outcome = row.outcome as keyof Tally;
      const inCluster = filters.cluster === "" || row.cluster === filters.cluster;
      if (inCluster && row.origin !== "review") {
        const tally = byPolicy.get(row.policy) ?? emptyTally();
        tally[outcome] += row.count;
        byPolicy.set(row.policy, tally);
      }
      if (!wanted(row)) continue;
      const perCluster = byCluster.get(row.cluster) ?? emptyTally();
      perCluster[outcome] += row.count;
      byCluster.set(row.cluster, perCluster);
      if (!inCluster) continue;
      const hour = Math.floor(Date.parse(row.hour) / HOUR_MS);
      const tally = tallies.get(hour) ?? emptyTally();
      tally[outcome] += row.count;
      tallies.set(hour, tally);
      totals[outcome] += row.count;
    }
    const ranked = (map: Map<string, Tally>) => [...map].sort((a, b) => findingsOf(b[1]) - findingsOf(a[1]) || (a[0] < b[0] ? -1 : 1)).slice(0, TOP_ROWS);
    const markers: Marker[] = history.revisions.map((entry) => ({ at: Date.parse(entry.appliedAt), label: `r${entry.revision} ${entry.change}`.slice(0, 60) }));
    return c.html(
      <VerdictsPage
        endpoint={endpoint}
        filters={filters}
        fromHour={fromHour}
        tallies={new Map([...tallies].sort((a, b) => a[0] - b[0]))}
        totals={totals}
        markers={markers}
        byPolicy={ranked(byPolicy)}
        byCluster={ranked(byCluster)}
      />,
    );
  });

  app.get("/changes", async (c) => {
    const days = bounded(c.req.query("days"), 1, 366, 30);
    let data;
    try {
      data = await Promise.all([source.changes(now() - days * 24 * HOUR_MS), source.proposals()]);
    } catch (e) {
      return failed(c, "/changes", "Changes", e);
    }
    const [entries, proposals] = data;
    const newest = entries.slice(-MAX_CHANGES).reverse();
    return c.html(<ChangesPage endpoint={endpoint} days={days} entries={newest} threshold={proposals.threshold} proposals={proposals.proposals.filter((p) => p.state === "open")} />);
  });

  app.notFound((c) => c.text("no such page\n", 404));
  return app;
}
