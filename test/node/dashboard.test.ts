// The dashboard and the metrics against `npm start`'s own code (scripts/demo.ts)
// with a fleet: three registered clusters (two production, one canary among
// them), the example fleet set (examples/fleet), reviews counted, a metrics
// token issued.
//
// - GET /v1/registry/metrics parses with the reference OpenMetrics parser
//   (the Prometheus project's Python client, prometheus_client.openmetrics,
//   Debian's python3-prometheus-client, which .ci/run installs when missing),
//   its counters equal GET /v1/registry/counts, and every other credential
//   gets 401.
// - A real headless Chromium (Debian's chromium, driven by playwright-core)
//   opens each page of `edgeadmit dashboard`: the figures it shows equal
//   `fleet status -o json` and GET /v1/registry/counts for the same range; a
//   promotion made from the page is the revision `fleet history` then shows;
//   and no request the browser sent carries a key, a signature or a token.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { verdictCounts } from "../../infra/client/fleet.js";
import { signed } from "../../infra/client/registry.js";
import { serveDashboard, type RunningDashboard } from "../../infra/dashboard/serve.js";
import { functionSource } from "../../infra/dashboard/source.js";
import { DASHBOARD_FLEET, launchChromium, seedFleet } from "../../scripts/dashboard-fleet.js";
import { startDemo, demoFiles, type Demo } from "../../scripts/demo.js";
import { WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { KEPT_HOURS, OUTCOMES } from "../../shared/counts/index.js";
import { generateToken } from "../../shared/tokens/index.js";
import { runCli } from "./support/test-io.js";

const run = promisify(execFile);
/** Debian's Python, where python3-prometheus-client installs (another python3 on PATH may lack it). */
const PYTHON = "/usr/bin/python3";
/** A page, a click or a parse on a loaded 2-core machine: generous, and nothing here asserts on time. */
const STEP_MS = 120_000;

const dir = mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "dashboard-"));
let demo: Demo;
let operatorPem: string;
let dashboard: RunningDashboard;
let browser: Browser;
let metricsToken: string;
let clusterTokens: string[];

/** Every request the browser sent: URL, headers and body, to look for secrets in. */
const sent: string[] = [];

const cli = async (...argv: string[]) => {
  const result = await runCli([...argv, "--endpoint", demo.worker.url, "--operator-key", demo.files.operatorKey]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

beforeAll(async () => {
  demo = await startDemo({ files: demoFiles(dir), port: 0, logLevel: "warn" });
  operatorPem = readFileSync(demo.files.operatorKey, "utf8");
  const url = demo.worker.url;
  ({ clusterTokens, metricsToken } = await seedFleet(url, operatorPem));
  dashboard = await serveDashboard(functionSource(url, operatorPem), url, 0);
  browser = await launchChromium(STEP_MS);
}, WORKER_START_TIMEOUT_MS + 2 * STEP_MS);

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await demo?.worker.stop();
  rmSync(dir, { recursive: true, force: true });
}, STEP_MS);

async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on("request", (request) => sent.push([request.url(), JSON.stringify(request.headers()), request.postData() ?? ""].join("\n")));
  const response = await page.goto(new URL(path, dashboard.url).href);
  expect(response?.status()).toBe(200);
  return page;
}

/** The samples of an OpenMetrics body as the reference parser reads them: [name, labels, value]. */
async function parsed(text: string): Promise<Array<[string, Record<string, string>, number]>> {
  const script = `import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
print(json.dumps([[s.name, s.labels, s.value] for f in text_string_to_metric_families(sys.stdin.read()) for s in f.samples]))`;
  const child = run(PYTHON, ["-c", script], { maxBuffer: 64 * 1024 * 1024 });
  child.child.stdin!.end(text);
  return JSON.parse((await child).stdout) as Array<[string, Record<string, string>, number]>;
}

describe("GET /v1/registry/metrics", () => {
  it(
    "parses as OpenMetrics, and its counters equal the counts route",
    async () => {
      expect(existsSync(PYTHON)).toBe(true);
      const response = await fetch(`${demo.worker.url}/v1/registry/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(response.status).toBe(200);
      const samples = await parsed(await response.text());
      const counts = await verdictCounts(demo.worker.url, operatorPem, KEPT_HOURS);
      const counters = samples.filter(([name]) => name === "edgeadmit_verdicts_total");
      expect(counters.map(([, labels, value]) => ({ ...labels, count: value })).sort(byKey)).toEqual(counts.rows.map((row) => ({ ...row })).sort(byKey));
      expect(counters.length).toBeGreaterThan(DASHBOARD_FLEET.length);
      const generations = new Map(samples.filter(([name]) => name === "edgeadmit_snapshot_generation").map(([, labels, value]) => [labels.cluster, value]));
      const status = JSON.parse(await cli("fleet", "status", "-o", "json")) as { clusters: Array<{ cluster: string; snapshot: { generation: number } | null; gaps: string[] }> };
      for (const entry of status.clusters) expect(generations.get(entry.cluster)).toBe(entry.snapshot?.generation);
      expect(samples).toContainEqual(["edgeadmit_coverage_known", { cluster: "dash-canary" }, 1]);
      expect(samples).toContainEqual(["edgeadmit_coverage_known", { cluster: "dash-prod" }, 0]);
    },
    STEP_MS,
  );

  it(
    "refuses every other credential with 401",
    async () => {
      const url = `${demo.worker.url}/v1/registry/metrics`;
      const statuses = [
        (await fetch(url)).status,
        (await fetch(url, { headers: { authorization: `Bearer ${clusterTokens[0]}` } })).status,
        (await fetch(url, { headers: { authorization: `Bearer ${readFileSync(demo.files.demoToken, "utf8").trim()}` } })).status,
        (await fetch(url, { headers: { authorization: `Bearer ${generateToken()}` } })).status,
        (await signed(demo.worker.url, operatorPem, "GET", "/v1/registry/metrics", new Uint8Array())).response.status,
      ];
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
    },
    STEP_MS,
  );
});

const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

describe("edgeadmit dashboard in a headless Chromium", () => {
  it(
    "Fleet: every cluster's snapshot, coverage and findings as fleet status -o json and the counts route say",
    async () => {
      const page = await open("/");
      const status = JSON.parse(await cli("fleet", "status", "-o", "json")) as {
        fleetRevision: number;
        clusters: Array<{ cluster: string; snapshot: { generation: number } | null; coverage: string; gaps: string[]; verdicts: Record<string, number> }>;
      };
      expect(await page.locator('[data-summary="clusters"]').textContent()).toBe(String(status.clusters.length));
      expect(await page.locator('[data-summary="fleet-revision"]').textContent()).toBe(String(status.fleetRevision));
      for (const entry of status.clusters) {
        const row = page.locator(`tr[data-cluster="${entry.cluster}"]`);
        expect(await row.locator("[data-generation]").getAttribute("data-generation")).toBe(entry.snapshot ? String(entry.snapshot.generation) : "none");
        expect(await row.locator("[data-coverage]").getAttribute("data-coverage")).toBe(entry.coverage);
        expect(await row.locator("[data-gaps]").getAttribute("data-gaps")).toBe(String(entry.gaps.length));
        const findings = entry.verdicts.deny! + entry.verdicts.warn! + entry.verdicts.audit! + entry.verdicts.error!;
        expect(await row.locator("[data-findings]").getAttribute("data-findings")).toBe(String(findings));
      }
      await page.fill("#selector", "env=prod");
      await page.click("form.filter button");
      await page.waitForURL(/selector=env%3Dprod/);
      expect(await page.locator("tbody tr[data-cluster]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-cluster")))).toEqual(["dash-canary", "dash-prod"]);
      await page.close();
    },
    STEP_MS,
  );

  it(
    "Verdicts over time: the totals equal the counts route for the same range, per cluster and per policy",
    async () => {
      for (const [query, hours, wanted] of [
        ["/verdicts?hours=24", 24, (row: { origin: string }) => row.origin === "review"],
        ["/verdicts?hours=6&cluster=dash-canary", 6, (row: { origin: string; cluster: string }) => row.origin === "review" && row.cluster === "dash-canary"],
        ["/verdicts?hours=24&policy=max-replicas", 24, (row: { origin: string; policy: string }) => row.policy === "max-replicas" && row.origin !== "review"],
      ] as const) {
        const page = await open(query);
        const counts = await verdictCounts(demo.worker.url, operatorPem, hours);
        for (const outcome of OUTCOMES) {
          const expected = counts.rows.filter((row) => row.outcome === outcome && (wanted as (row: (typeof counts.rows)[number]) => boolean)(row)).reduce((sum, row) => sum + row.count, 0);
          expect(await page.locator(`tr[data-totals] td[data-outcome="${outcome}"]`).textContent(), `${query} ${outcome}`).toBe(String(expected));
        }
        expect(await page.locator("svg.chart rect").count()).toBeGreaterThan(0);
        await page.close();
      }
    },
    STEP_MS * 2,
  );

  it(
    "Policies and waves: a promotion made from the page, after its confirmation, is the revision fleet history then shows",
    async () => {
      const page = await open("/policies");
      const section = page.locator('section[data-binding="baseline-team"]');
      expect(await section.locator("[data-stage]").textContent()).toBe("0");
      expect(await section.locator("[data-enforcing]").textContent()).toBe("1");
      await section.getByRole("link", { name: /Promote baseline-team to wave 1/ }).click();
      await page.waitForURL(/\/promote\?binding=baseline-team/);
      const request = JSON.parse((await page.locator("pre[data-request]").textContent())!) as Record<string, unknown>;
      expect(request).toMatchObject({ op: "promote", binding: "baseline-team" });
      await page.getByRole("button", { name: "Sign and send" }).click();
      await page.waitForSelector("[data-result]");
      expect(await page.locator("[data-result]").getAttribute("data-result")).toBe("ok");
      const message = (await page.locator("[data-result]").textContent())!;
      const history = JSON.parse(await cli("fleet", "history", "-o", "json")) as { revision: number; revisions: Array<{ revision: number; change: string }> };
      expect(message).toBe(`fleet revision ${history.revision}: promote baseline-team to wave 1`);
      expect(history.revisions[0]).toMatchObject({ revision: history.revision, change: "promote baseline-team to wave 1" });
      expect(history.revision).toBe((request.ifRevision as number) + 1);
      await page.close();
    },
    STEP_MS,
  );

  it(
    "Changes: the change log with its signers",
    async () => {
      const page = await open("/changes");
      expect(await page.locator('tr[data-kind="fleet"]').count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('[data-proposals="0"]').count()).toBe(1);
      await page.close();
    },
    STEP_MS,
  );

  it(
    "refuses a POST without this dashboard's form secret, and another Host",
    async () => {
      const promote = await fetch(new URL("/promote", dashboard.url), { method: "POST", body: new URLSearchParams({ binding: "baseline-team", ifRevision: "1", csrf: "guess" }), headers: { origin: dashboard.url.replace(/\/$/, "") } });
      expect(promote.status).toBe(403);
      const foreign = await fetch(new URL("/promote", dashboard.url), { method: "POST", body: new URLSearchParams({ binding: "baseline-team", ifRevision: "1" }), headers: { origin: "https://evil.example" } });
      expect(foreign.status).toBe(403);
      const rebound = await run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: evil.example", dashboard.url]);
      expect(rebound.stdout).toBe("421");
    },
    STEP_MS,
  );

  it("no request from the browser carried a key, a signature or a token", () => {
    expect(sent.length).toBeGreaterThan(5);
    const secrets = [operatorPem.split("\n")[1]!, metricsToken, ...clusterTokens, readFileSync(demo.files.demoToken, "utf8").trim()];
    for (const request of sent) {
      for (const secret of secrets) expect(request).not.toContain(secret);
      expect(request.toLowerCase()).not.toMatch(/authorization|x-edgeadmit-signature|bearer /);
      expect(request).not.toContain(demo.worker.url);
    }
  });
});
