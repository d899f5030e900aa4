// The dashboard's pages, rendered on the server with Hono's JSX: plain HTML
// and SVG, no script (every page works with JavaScript off, every control is
// a link, a form field or a button, so the keyboard reaches all of it), the
// stylesheet served from the dashboard itself (no CDN: it works offline),
// light or dark as the system is. Every figure a test compares carries a
// data- attribute naming what it is.
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { OUTCOMES } from "../../shared/counts/index.js";
import type { ChangeEntry } from "../client/governance.js";
import type { ProposalAnswer } from "../client/registry.js";
import type { OverviewCluster } from "../client/fleet.js";
import { Legend, StackedBars, type Marker, type Tally } from "./chart.js";

export const PAGES = [
  ["/", "Fleet"],
  ["/policies", "Policies and waves"],
  ["/verdicts", "Verdicts over time"],
  ["/changes", "Changes"],
] as const;

export function Layout(props: { title: string; path: string; endpoint: string; children?: Child }) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${props.title} · edgeadmit`}</title>
        <link rel="stylesheet" href="/style.css" />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <strong>edgeadmit</strong>
          <nav aria-label="Pages">
            <ul>
              {PAGES.map(([href, name]) => (
                <li>
                  <a href={href} aria-current={href === props.path ? "page" : undefined}>
                    {name}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <span class="endpoint" title="the function this dashboard reads, with the operator's key">
            {props.endpoint}
          </span>
        </header>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
      </html>
    </>
  );
}

export function ErrorPage(props: { endpoint: string; path: string; title: string; message: string }) {
  return (
    <Layout title={props.title} path={props.path} endpoint={props.endpoint}>
      <p class="error" role="alert">
        {props.message}
      </p>
    </Layout>
  );
}

const age = (seconds: number) => (seconds < 120 ? `${seconds}s` : seconds < 7_200 ? `${Math.floor(seconds / 60)}m` : seconds < 172_800 ? `${Math.floor(seconds / 3_600)}h` : `${Math.floor(seconds / 86_400)}d`);
const labelsText = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");

export interface FleetRow {
  cluster: OverviewCluster;
  stale: boolean;
  bindings: string[];
  findings: number;
}

export interface FleetSummary {
  clusters: number;
  stale: number;
  withoutSnapshot: number;
  gaps: number;
  unknownCoverage: number;
  findings: number;
}

export function FleetPage(props: {
  endpoint: string;
  selector: string;
  selectorError?: string;
  fleetRevision: number;
  summary: FleetSummary;
  rows: readonly FleetRow[];
  page: number;
  pages: number;
  hours: number;
}) {
  const { summary } = props;
  const link = (page: number) => `/?${new URLSearchParams({ ...(props.selector ? { selector: props.selector } : {}), page: String(page) })}`;
  return (
    <Layout title="Fleet" path="/" endpoint={props.endpoint}>
      <form method="get" action="/" class="filter">
        <label for="selector">Label selector</label>
        <input id="selector" name="selector" value={props.selector} placeholder="env=prod,ring!=canary" size={40} />
        <button type="submit">Filter</button>
      </form>
      {props.selectorError && (
        <p class="error" role="alert">
          {props.selectorError}
        </p>
      )}
      <ul class="cards" aria-label="Summary">
        <li>
          <b data-summary="clusters">{summary.clusters}</b> clusters
        </li>
        <li class={summary.stale > 0 ? "bad" : ""}>
          <b data-summary="stale">{summary.stale}</b> stale snapshots
        </li>
        <li class={summary.withoutSnapshot > 0 ? "bad" : ""}>
          <b data-summary="without-snapshot">{summary.withoutSnapshot}</b> without a snapshot
        </li>
        <li class={summary.gaps > 0 ? "warn" : ""}>
          <b data-summary="gaps">{summary.gaps}</b> with coverage gaps
        </li>
        <li>
          <b data-summary="unknown-coverage">{summary.unknownCoverage}</b> coverage unknown
        </li>
        <li class={summary.findings > 0 ? "warn" : ""}>
          <b data-summary="findings">{summary.findings}</b> findings, last {props.hours}h
        </li>
        <li>
          fleet revision <b data-summary="fleet-revision">{props.fleetRevision}</b>
        </li>
      </ul>
      <table class="grid">
        <caption>Clusters needing attention first (stale or missing snapshot, coverage gaps, findings), then by name</caption>
        <thead>
          <tr>
            <th scope="col">cluster</th>
            <th scope="col">labels</th>
            <th scope="col">snapshot</th>
            <th scope="col">without snapshot</th>
            <th scope="col">fleet bindings in effect</th>
            <th scope="col">coverage</th>
            <th scope="col">findings {props.hours}h</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map(({ cluster, stale, bindings, findings }) => (
            <tr data-cluster={cluster.cluster}>
              <th scope="row">
                <a href={`/verdicts?cluster=${encodeURIComponent(cluster.cluster)}`}>{cluster.cluster}</a>
              </th>
              <td class="labels">{labelsText(cluster.labels) || "—"}</td>
              <td data-generation={cluster.snapshot ? String(cluster.snapshot.generation) : "none"} class={!cluster.snapshot || stale ? "bad" : ""}>
                {cluster.snapshot ? `generation ${cluster.snapshot.generation}, ${age(cluster.snapshot.ageSeconds)} old` : "none"}
                {stale && <span class="badge">stale</span>}
              </td>
              <td>{cluster.withoutSnapshot}</td>
              <td>{bindings.length > 0 ? bindings.join("; ") : "—"}</td>
              <td data-coverage={cluster.coverage} data-gaps={String(cluster.gaps.length)} class={cluster.gaps.length > 0 ? "warn" : ""}>
                {cluster.coverage === "unknown" ? "unknown" : cluster.gaps.length + cluster.upcoming.length === 0 ? "covered" : [...cluster.gaps.map((gap) => `not sent: ${gap}`), ...cluster.upcoming.map((gap) => `not sent once promoted: ${gap}`)].join("; ")}
              </td>
              <td data-findings={String(findings)} class={findings > 0 ? "warn" : ""}>
                {findings}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.pages > 1 && (
        <nav aria-label="Pages of clusters" class="pager">
          {props.page > 1 && <a href={link(props.page - 1)}>previous</a>} page {props.page} of {props.pages} {props.page < props.pages && <a href={link(props.page + 1)}>next</a>}
        </nav>
      )}
    </Layout>
  );
}

export interface WaveView {
  index: number;
  actions: string;
  selector: string;
  promoteAfter?: string;
  /** Clusters that enforce the binding once this wave is active. */
  reaches: string[];
}

export interface BindingView {
  name: string;
  policy: string;
  selector: string;
  stage: number;
  waves: WaveView[];
  /** Clusters enforcing it now, with their actions. */
  enforcing: number;
  due?: { at: string; findings: number; heldBack: boolean; overdue: boolean };
}

export function PoliciesPage(props: { endpoint: string; revision: number; bindings: readonly BindingView[]; history: ReadonlyArray<{ revision: number; appliedAt: string; change: string }> }) {
  return (
    <Layout title="Policies and waves" path="/policies" endpoint={props.endpoint}>
      <p>
        Fleet revision <b data-fleet-revision={String(props.revision)}>{props.revision}</b>. Promote and roll back show the exact signed change and ask before
        anything is sent.
      </p>
      {props.bindings.length === 0 && <p>No fleet binding: apply a set with edgeadmit fleet apply.</p>}
      {props.bindings.map((binding) => (
        <section class="binding" data-binding={binding.name} aria-labelledby={`b-${binding.name}`}>
          <h2 id={`b-${binding.name}`}>
            {binding.name} <small>binds {binding.policy}</small>
          </h2>
          <p>
            Clusters: <code>{binding.selector || "every cluster"}</code>; in effect on <b data-enforcing={String(binding.enforcing)}>{binding.enforcing}</b>.{" "}
            {binding.waves.length > 1 && (
              <>
                At wave <b data-stage={String(binding.stage)}>{binding.stage}</b> of {binding.waves.length - 1}.
              </>
            )}
          </p>
          {binding.due && (
            <p class={binding.due.heldBack ? "warn" : ""} data-due={binding.due.at}>
              {binding.due.heldBack
                ? `Automatic promotion held back: ${binding.due.findings} findings of ${binding.policy} since this wave began; a person decides (promote, roll back or apply).`
                : binding.due.overdue
                  ? `Automatic promotion due since ${binding.due.at}: applied at the registry's next fleet read.`
                  : `Automatic promotion due ${binding.due.at}, if no finding comes first.`}
            </p>
          )}
          <table class="grid">
            <thead>
              <tr>
                <th scope="col">wave</th>
                <th scope="col">validationActions</th>
                <th scope="col">wave selector</th>
                <th scope="col">promoteAfter</th>
                <th scope="col">clusters it reaches</th>
              </tr>
            </thead>
            <tbody>
              {binding.waves.map((wave) => (
                <tr class={wave.index === binding.stage ? "current" : wave.index > binding.stage ? "pending" : ""} aria-current={wave.index === binding.stage ? "step" : undefined}>
                  <th scope="row">{wave.index === binding.stage ? `${wave.index} (active)` : String(wave.index)}</th>
                  <td>{wave.actions}</td>
                  <td>
                    <code>{wave.selector || "—"}</code>
                  </td>
                  <td>{wave.promoteAfter ?? "—"}</td>
                  <td data-reaches={String(wave.reaches.length)}>
                    {wave.reaches.length}
                    {wave.reaches.length > 0 && `: ${wave.reaches.slice(0, 20).join(", ")}${wave.reaches.length > 20 ? ` and ${wave.reaches.length - 20} more` : ""}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {binding.stage < binding.waves.length - 1 && (
            <p>
              <a class="button" href={`/promote?binding=${encodeURIComponent(binding.name)}`}>
                Promote {binding.name} to wave {binding.stage + 1}…
              </a>
            </p>
          )}
        </section>
      ))}
      <h2 id="history">Revisions</h2>
      <table class="grid">
        <thead>
          <tr>
            <th scope="col">revision</th>
            <th scope="col">applied</th>
            <th scope="col">change</th>
            <th scope="col">
              <span class="sr">action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.history.map((entry) => (
            <tr data-revision={String(entry.revision)}>
              <th scope="row">{entry.revision === props.revision ? `${entry.revision} (in effect)` : String(entry.revision)}</th>
              <td>
                <time datetime={entry.appliedAt}>{entry.appliedAt}</time>
              </td>
              <td>{entry.change}</td>
              <td>{entry.revision !== props.revision && <a href={`/rollback?revision=${entry.revision}`}>Roll back to {entry.revision}…</a>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}

/** The confirmation of a fleet change: what will be signed, exactly, and a form that sends it. */
export function ConfirmPage(props: { endpoint: string; title: string; lines: readonly string[]; request: Record<string, unknown>; action: string; fields: Record<string, string> }) {
  return (
    <Layout title={props.title} path="/policies" endpoint={props.endpoint}>
      <ul>
        {props.lines.map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <p>The change signed with the operator's key and sent to the function (a new request id is added when it is sent):</p>
      <pre data-request="">{JSON.stringify(props.request, null, 2)}</pre>
      <form method="post" action={props.action}>
        {Object.entries(props.fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <button type="submit">Sign and send</button> <a href="/policies">Cancel</a>
      </form>
    </Layout>
  );
}

export function ResultPage(props: { endpoint: string; title: string; message: string; ok: boolean }) {
  return (
    <Layout title={props.title} path="/policies" endpoint={props.endpoint}>
      <p class={props.ok ? "ok" : "error"} role="status" data-result={props.ok ? "ok" : "refused"}>
        {props.message}
      </p>
      <p>
        <a href="/policies">Back to policies and waves</a> · <a href="/changes">Changes</a>
      </p>
    </Layout>
  );
}

/** A cell per outcome, each naming its outcome for the tests. */
const outcomeCells = (tally: Tally) => OUTCOMES.map((outcome) => <td data-outcome={outcome}>{tally[outcome]}</td>);

export interface VerdictFilters {
  hours: number;
  cluster: string;
  policy: string;
}

export function VerdictsPage(props: {
  endpoint: string;
  filters: VerdictFilters;
  error?: string;
  fromHour: number;
  tallies: ReadonlyMap<number, Tally>;
  totals: Tally;
  markers: readonly Marker[];
  byPolicy: ReadonlyArray<[policy: string, tally: Tally]>;
  byCluster: ReadonlyArray<[cluster: string, tally: Tally]>;
}) {
  const { filters } = props;
  const what = filters.policy ? `policy ${filters.policy}` : "reviews";
  const where = filters.cluster ? `on ${filters.cluster}` : "on every cluster";
  const filterLink = (change: Partial<VerdictFilters>) => {
    const next = { ...filters, ...change };
    return `/verdicts?${new URLSearchParams({ hours: String(next.hours), ...(next.cluster ? { cluster: next.cluster } : {}), ...(next.policy ? { policy: next.policy } : {}) })}`;
  };
  return (
    <Layout title="Verdicts over time" path="/verdicts" endpoint={props.endpoint}>
      <form method="get" action="/verdicts" class="filter">
        <label for="hours">Last hours</label>
        <input id="hours" name="hours" type="number" min="1" max="192" value={String(filters.hours)} />
        <label for="cluster">Cluster</label>
        <input id="cluster" name="cluster" value={filters.cluster} placeholder="every cluster" />
        <label for="policy">Policy</label>
        <input id="policy" name="policy" value={filters.policy} placeholder="reviews as a whole" />
        <button type="submit">Show</button>
      </form>
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <p>
        Hourly counts of {what} {where}, by outcome; dashed lines are fleet revisions (applies, promotions, rollbacks).
      </p>
      <StackedBars id="verdicts" title={`${what} ${where}, last ${filters.hours} hours`} fromHour={props.fromHour} hours={filters.hours} tallies={props.tallies} markers={props.markers} />
      <Legend />
      <table class="grid" data-table="totals">
        <caption>
          Totals, last {filters.hours} hours ({what} {where})
        </caption>
        <thead>
          <tr>
            {OUTCOMES.map((outcome) => (
              <th scope="col">{outcome}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr data-totals="">{outcomeCells(props.totals)}</tr>
        </tbody>
      </table>
      <details>
        <summary>Every hour</summary>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">hour (UTC)</th>
              {OUTCOMES.map((outcome) => (
                <th scope="col">{outcome}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...props.tallies].map(([hour, tally]) => (
              <tr>
                <th scope="row">{new Date(hour * 3_600_000).toISOString().slice(0, 13)}h</th>
                {outcomeCells(tally)}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <TallyTable heading="By policy" name="policy" rows={props.byPolicy} link={(policy) => filterLink({ policy })} />
      <TallyTable heading="By cluster" name="cluster" rows={props.byCluster} link={(cluster) => filterLink({ cluster })} />
    </Layout>
  );
}

/** The tallies of the policies or clusters with the most findings, each a link that filters the page by it. */
function TallyTable(props: { heading: string; name: "policy" | "cluster"; rows: ReadonlyArray<[name: string, tally: Tally]>; link: (name: string) => string }) {
  return (
    <>
      <h2>{props.heading}</h2>
      <table class="grid" data-table={props.name === "policy" ? "policies" : "clusters"}>
        <thead>
          <tr>
            <th scope="col">{props.name}</th>
            {OUTCOMES.map((outcome) => (
              <th scope="col">{outcome}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map(([name, tally]) => (
            <tr {...{ [`data-${props.name}`]: name }}>
              <th scope="row">
                <a href={props.link(name)}>{name}</a>
              </th>
              {outcomeCells(tally)}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

const short = (key: string) => (key.length > 32 ? `${key.slice(0, 28)}…` : key);

export function ChangesPage(props: { endpoint: string; days: number; entries: readonly ChangeEntry[]; threshold: number; proposals: readonly ProposalAnswer[] }) {
  return (
    <Layout title="Changes" path="/changes" endpoint={props.endpoint}>
      <h2>Proposals awaiting approval</h2>
      {props.proposals.length === 0 ? (
        <p data-proposals="0">None{props.threshold > 1 ? "" : ": every change needs one operator key here (OPERATOR_THRESHOLD 1)"}.</p>
      ) : (
        <table class="grid" data-proposals={String(props.proposals.length)}>
          <thead>
            <tr>
              <th scope="col">proposal</th>
              <th scope="col">widens</th>
              <th scope="col">approvals</th>
              <th scope="col">lapses</th>
            </tr>
          </thead>
          <tbody>
            {props.proposals.map((proposal) => (
              <tr>
                <th scope="row">
                  <code>{proposal.id}</code>
                </th>
                <td>{proposal.widens.join("; ")}</td>
                <td>
                  {proposal.approvals.length} of {proposal.threshold}: {proposal.approvals.map(short).join(", ")}
                </td>
                <td>
                  <time datetime={proposal.expiresAt}>{proposal.expiresAt}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>Approve one with edgeadmit approve ID and another operator key.</p>
      <h2>Registry and fleet changes, last {props.days} days, newest first</h2>
      <table class="grid" data-table="changes">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">when</th>
            <th scope="col">kind</th>
            <th scope="col">change</th>
            <th scope="col">signed by</th>
          </tr>
        </thead>
        <tbody>
          {props.entries.map((entry) => (
            <tr data-seq={String(entry.seq)} data-kind={entry.kind} data-fleet-revision={entry.fleetRevision === undefined ? undefined : String(entry.fleetRevision)}>
              <th scope="row">{entry.seq}</th>
              <td>
                <time datetime={entry.at}>{entry.at}</time>
              </td>
              <td>{entry.kind}</td>
              <td>{entry.summary}</td>
              <td>{entry.signers.length > 0 ? entry.signers.map(short).join(", ") : "no signer recorded (automatic, or before 0.2.0)"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}
