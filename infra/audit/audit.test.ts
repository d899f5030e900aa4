// `edgeadmit audit` end to end through main(argv, io), against the fake API
// server: the reports it writes, exactly; cleanup after objects and a
// namespace's last object go; paging, split reports, a 409, a dry run; and
// every report valid under the CRD the component installs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { describeResult } from "../../shared/review/index.js";
import { judgeObjects } from "../../shared/judge/index.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { POLICIES } from "../../policies/index.js";
import { runCli } from "../../test/node/support/test-io.js";
import { startFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from "../../test/node/support/fake-apiserver.js";
import { objectsFromText } from "../objects/yaml.js";
import { auditClusterObjects, AUDIT_SERVED } from "../../test/node/support/audit/fixture.js";
import { schemaNodeSchema, schemaViolations } from "../../test/node/support/audit/openapi.js";
import type { PolicyReport } from "./reports.js";

let server: FakeApiServer | undefined;
// Put back for the files that run after this one in the same process (vitest.config.ts: isolate false).
const KUBECONFIG = process.env.KUBECONFIG;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  if (KUBECONFIG === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = KUBECONFIG;
});

async function cluster(options: FakeApiServerOptions = {}, objects: KubeObject[] = auditClusterObjects()): Promise<FakeApiServer> {
  server = await startFakeApiServer(objects, { resources: AUDIT_SERVED, ...options });
  process.env.KUBECONFIG = server.kubeconfig;
  return server;
}

const reportsOf = (api: FakeApiServer) => api.objects.filter((o) => o.kind === "PolicyReport" || o.kind === "ClusterPolicyReport") as unknown as PolicyReport[];
const namesOf = (api: FakeApiServer) => reportsOf(api).map((r) => `${r.kind} ${r.metadata.namespace ?? ""}/${r.metadata.name}`);
/** One line per result: the object, the policy and rule, the outcome and the mode. */
const rowsOf = (report: PolicyReport) => report.results.map((r) => `${r.resources[0].kind} ${r.resources[0].name} ${r.policy} ${r.rule} ${r.result} ${r.properties["mode"]}`);
const reportNamed = (api: FakeApiServer, name: string) => reportsOf(api).find((r) => r.metadata.name === name)!;
const remove = (api: FakeApiServer, kind: string, name: string) => api.objects.splice(api.objects.findIndex((o) => o.kind === kind && (o.metadata as { name: string }).name === name), 1);

const NOT_A_DEPLOYMENT = "request.object is not a valid Deployment: spec.template.spec.containers: Invalid input: expected array, received string";
const BUILT_IN = ["affinity-class", "anti-affinity-drift", "ha-spread", "pod-affinity-deadlock", "rwo-rollout", "rwo-shared"];
const MODES: Record<string, string> = { "affinity-class": "Deny", "anti-affinity-drift": "Warn", "ha-spread": "Audit", "pod-affinity-deadlock": "Warn", "rwo-rollout": "Warn", "rwo-shared": "Warn" };
/** A Deployment's rows with every policy passing but those given. */
const deploymentRows = (name: string, outcomes: Record<string, string>) =>
  [...BUILT_IN, "replica-limit"].sort().map((policy) =>
    policy === "replica-limit" ? `Deployment ${name} replica-limit replica-limit-warn ${outcomes[policy] ?? "pass"} Warn` : `Deployment ${name} ${policy} ${policy} ${outcomes[policy] ?? "pass"} ${MODES[policy]}`,
  );

describe("edgeadmit audit", () => {
  it("writes one report per namespace and one for cluster-scoped objects, each result in the webhook's words", async () => {
    const api = await cluster();
    const before = Math.floor(Date.now() / 1000);
    const { code, stdout, stderr } = await runCli(["audit", "--page-size", "2"]);
    expect(stderr).toBe("warning: no ConfigMap edgeadmit-system/edgeadmit-settings: the snapshot carries the default settings\n");
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        "created ClusterPolicyReport edgeadmit-cluster (1 pass, 1 fail, 0 warn, 0 error, 0 skip)",
        "created PolicyReport team-b/edgeadmit-team-b (6 pass, 1 fail, 1 warn, 6 error, 0 skip)",
        "created PolicyReport tenant-acme/edgeadmit-tenant-acme (12 pass, 2 fail, 0 warn, 0 error, 0 skip)",
        "created PolicyReport tenant-root/edgeadmit-tenant-root (1 pass, 0 fail, 0 warn, 0 error, 0 skip)",
        "audited 7 objects (pods, replicationcontrollers, deployments.apps, statefulsets.apps, daemonsets.apps, replicasets.apps, jobs.batch, cronjobs.batch, affinityclasses.cozystack.io, tenants.apps.cozystack.io): 20 pass, 4 fail, 1 warn, 6 error, 0 skip in 4 reports",
        "",
      ].join("\n"),
    );
    // Paged as asked: four Deployments in pages of two.
    expect(api.requests).toContain("GET /apis/apps/v1/deployments?continue=2&limit=2");

    const clusterReport = reportNamed(api, "edgeadmit-cluster");
    expect(clusterReport).toMatchObject({ apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "ClusterPolicyReport", metadata: { labels: { "app.kubernetes.io/managed-by": "edgeadmit" } } });
    expect(clusterReport.metadata.namespace).toBeUndefined();
    expect(rowsOf(clusterReport)).toEqual([
      "AffinityClass dc1 affinity-class-definitions affinity-class-definitions pass Deny",
      "AffinityClass nowhere affinity-class-definitions affinity-class-definitions fail Deny",
    ]);
    expect(clusterReport.results[1]).toEqual({
      policy: "affinity-class-definitions",
      rule: "affinity-class-definitions",
      result: "fail",
      message: 'affinity-class-definitions: AffinityClass "nowhere": spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: an empty term matches no node',
      source: "edgeadmit",
      scored: true,
      timestamp: clusterReport.results[0]!.timestamp,
      resources: [{ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", name: "nowhere", uid: "uid-nowhere" }],
      properties: { mode: "Deny" },
    });
    const { seconds, nanos } = clusterReport.results[0]!.timestamp;
    expect(seconds).toBeGreaterThanOrEqual(before);
    expect(seconds).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(nanos % 1_000_000).toBe(0);

    const teamB = reportNamed(api, "edgeadmit-team-b");
    expect(teamB.summary).toEqual({ pass: 6, fail: 1, warn: 1, error: 6, skip: 0 });
    expect(rowsOf(teamB)).toEqual([
      ...deploymentRows("api", { "ha-spread": "fail", "replica-limit": "warn" }),
      ...deploymentRows("broken", Object.fromEntries(BUILT_IN.map((policy) => [policy, "error"]))),
    ]);
    const vapResult = teamB.results.find((r) => r.rule === "replica-limit-warn" && r.result === "warn")!;
    expect(vapResult.message).toBe("Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-warn': at most 5 replicas");
    expect(vapResult.properties).toEqual({ mode: "Warn", binding: "replica-limit-warn" });
    expect(vapResult.resources).toEqual([{ apiVersion: "apps/v1", kind: "Deployment", namespace: "team-b", name: "api", uid: "uid-api" }]);
    expect(teamB.results.filter((r) => r.result === "error").map((r) => r.message)).toEqual(BUILT_IN.map((policy) => `${policy}: cannot judge this object: ${NOT_A_DEPLOYMENT}`));

    const acme = reportNamed(api, "edgeadmit-tenant-acme");
    expect(rowsOf(acme)).toEqual([...deploymentRows("pinned", { "affinity-class": "fail" }), ...deploymentRows("web", { "ha-spread": "fail" })]);
    expect(rowsOf(reportNamed(api, "edgeadmit-tenant-root"))).toEqual(["Tenant acme affinity-class-references affinity-class-references pass Deny"]);
    expect(reportNamed(api, "edgeadmit-tenant-root").results[0]!.message).toBe("affinity-class-references: passed");

    // Every fail and warn says what the webhook says about creating the object: describeResult of judgeObjects' results.
    const objects = auditClusterObjects();
    const { snapshot } = buildSnapshot(objects, { generation: 1, builtAt: new Date().toISOString() });
    const said = judgeObjects(objects, snapshot, { policies: POLICIES }).flatMap((judged) => judged.results.map(describeResult));
    const written = reportsOf(api).flatMap((r) => r.results.filter((x) => x.result === "fail" || x.result === "warn").map((x) => x.message));
    expect(written.sort()).toEqual(said.sort());
  });

  it("reports what an EdgeAdmissionException exempts as skip, naming the exception, as the function and check set it aside", async () => {
    const exception: KubeObject = {
      apiVersion: "edgeadmit.io/v1alpha1",
      kind: "EdgeAdmissionException",
      metadata: { name: "api-burst" },
      spec: { policies: ["ha-spread", "replica-limit"], match: [{ kinds: ["Deployment"], namespaces: ["team-b"], names: ["api"] }] },
    };
    const api = await cluster({}, [...auditClusterObjects(), exception]);
    const { code, stdout } = await runCli(["audit"]);
    expect(code).toBe(0);
    expect(stdout).toContain("created PolicyReport team-b/edgeadmit-team-b (6 pass, 0 fail, 0 warn, 6 error, 2 skip)");
    const teamB = reportNamed(api, "edgeadmit-team-b");
    expect(rowsOf(teamB).filter((row) => row.startsWith("Deployment api ") && row.includes(" skip "))).toEqual([
      "Deployment api ha-spread ha-spread skip Audit",
      "Deployment api replica-limit replica-limit-warn skip Warn",
    ]);
    expect(teamB.results.find((r) => r.policy === "ha-spread" && r.result === "skip")).toMatchObject({
      message: "ha-spread: skipped by EdgeAdmissionException api-burst",
      properties: { mode: "Audit", exception: "api-burst" },
    });
  });

  it("judges what the cluster holds against its inventory: two Ingresses on one host both fail, none fails against itself", async () => {
    const examples = join(__dirname, "..", "..", "examples", "inventory", "unique-ingress-host");
    const text = (file: string) => readFileSync(join(examples, file), "utf8");
    const copy: KubeObject = { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "web-copy", namespace: "blog" }, spec: { rules: [{ host: "shop.example.com" }] } };
    const api = await cluster({}, [...auditClusterObjects(), ...objectsFromText(text("policy.yaml"), "policy.yaml"), ...objectsFromText(text("cluster.yaml"), "cluster.yaml"), copy]);
    const { code, stdout, stderr } = await runCli(["audit"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "warning: no ConfigMap edgeadmit-system/edgeadmit-settings: the snapshot carries the default settings\n" });
    expect(stdout).toContain("ingresses.networking.k8s.io");
    const ingressRows = [...rowsOf(reportNamed(api, "edgeadmit-shop")), ...rowsOf(reportNamed(api, "edgeadmit-blog"))].filter((row) => row.startsWith("Ingress "));
    expect(ingressRows.sort()).toEqual([
      "Ingress blog unique-ingress-host unique-ingress-host pass Deny",
      "Ingress web unique-ingress-host unique-ingress-host fail Deny",
      "Ingress web-copy unique-ingress-host unique-ingress-host fail Deny",
    ]);
    expect(reportNamed(api, "edgeadmit-blog").results.find((r) => r.resources[0].name === "web-copy")?.message).toBe(
      "ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: host shop.example.com is already served by Ingress shop/web: one host, one Ingress",
    );
  });

  it("each run replaces its reports: results of deleted objects go, and so does the report of a namespace left without any", async () => {
    const api = await cluster({ conflictOnce: ["tenant-acme/edgeadmit-tenant-acme"] });
    expect((await runCli(["audit"])).code).toBe(0);
    remove(api, "Deployment", "pinned");
    remove(api, "Deployment", "api");
    remove(api, "Deployment", "broken");
    const { code, stdout } = await runCli(["audit"]);
    expect(code).toBe(0);
    expect(stdout.split("\n").slice(0, 4)).toEqual([
      "replaced ClusterPolicyReport edgeadmit-cluster (1 pass, 1 fail, 0 warn, 0 error, 0 skip)",
      "replaced PolicyReport tenant-acme/edgeadmit-tenant-acme (6 pass, 1 fail, 0 warn, 0 error, 0 skip)",
      "replaced PolicyReport tenant-root/edgeadmit-tenant-root (1 pass, 0 fail, 0 warn, 0 error, 0 skip)",
      "deleted PolicyReport team-b/edgeadmit-team-b",
    ]);
    expect(namesOf(api).sort()).toEqual(["ClusterPolicyReport /edgeadmit-cluster", "PolicyReport tenant-acme/edgeadmit-tenant-acme", "PolicyReport tenant-root/edgeadmit-tenant-root"]);
    expect(rowsOf(reportNamed(api, "edgeadmit-tenant-acme"))).toEqual(deploymentRows("web", { "ha-spread": "fail" }));
    // Another writer bumped the report between the list and the write: read again, replaced once more.
    expect(api.requests.filter((r) => r.startsWith("PUT /apis/wgpolicyk8s.io/v1alpha2/namespaces/tenant-acme/policyreports/edgeadmit-tenant-acme"))).toHaveLength(2);
    expect(api.requests).toContain("GET /apis/wgpolicyk8s.io/v1alpha2/namespaces/tenant-acme/policyreports/edgeadmit-tenant-acme");
  });

  it("reports other tools wrote are left alone", async () => {
    const foreign = { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "PolicyReport", metadata: { name: "kyverno-x", namespace: "team-b", resourceVersion: "7", labels: { "app.kubernetes.io/managed-by": "kyverno" } }, results: [] };
    const api = await cluster({}, [...auditClusterObjects(), foreign]);
    expect((await runCli(["audit"])).code).toBe(0);
    expect(api.objects).toContainEqual(foreign);
  });

  it("splits a report past --max-results-per-report, and removes the parts a later run no longer needs", async () => {
    const api = await cluster();
    expect((await runCli(["audit", "--max-results-per-report", "5"])).code).toBe(0);
    const parts = ["edgeadmit-tenant-acme", "edgeadmit-tenant-acme-2", "edgeadmit-tenant-acme-3"].map((name) => reportNamed(api, name));
    expect(parts.map((r) => r.results.length)).toEqual([5, 5, 4]);
    expect(parts.flatMap(rowsOf)).toEqual([...deploymentRows("pinned", { "affinity-class": "fail" }), ...deploymentRows("web", { "ha-spread": "fail" })]);
    expect(parts.map((r) => r.summary)).toEqual([
      { pass: 4, fail: 1, warn: 0, error: 0, skip: 0 },
      { pass: 4, fail: 1, warn: 0, error: 0, skip: 0 },
      { pass: 4, fail: 0, warn: 0, error: 0, skip: 0 },
    ]);
    const { stdout } = await runCli(["audit"]);
    expect(stdout).toContain("deleted PolicyReport tenant-acme/edgeadmit-tenant-acme-2\ndeleted PolicyReport tenant-acme/edgeadmit-tenant-acme-3\n");
    expect(namesOf(api).filter((name) => name.includes("tenant-acme"))).toEqual(["PolicyReport tenant-acme/edgeadmit-tenant-acme"]);
  });

  it("--dry-run writes nothing and says what it would write", async () => {
    const api = await cluster();
    const { code, stdout } = await runCli(["audit", "--dry-run"]);
    expect(code).toBe(0);
    expect(stdout.split("\n").slice(0, 4)).toEqual([
      "would create ClusterPolicyReport edgeadmit-cluster (1 pass, 1 fail, 0 warn, 0 error, 0 skip)",
      "would create PolicyReport team-b/edgeadmit-team-b (6 pass, 1 fail, 1 warn, 6 error, 0 skip)",
      "would create PolicyReport tenant-acme/edgeadmit-tenant-acme (12 pass, 2 fail, 0 warn, 0 error, 0 skip)",
      "would create PolicyReport tenant-root/edgeadmit-tenant-root (1 pass, 0 fail, 0 warn, 0 error, 0 skip)",
    ]);
    expect(stdout).toMatch(/ in 4 reports \(dry run: nothing written\)\n$/);
    expect(reportsOf(api)).toEqual([]);
    expect(api.requests.filter((r) => !r.startsWith("GET "))).toEqual([]);
  });

  it("refuses a page size that is not a whole number, and fails in one line without the report CRDs", async () => {
    expect(await runCli(["audit", "--page-size", "0"])).toEqual({ code: 2, stdout: "", stderr: 'edgeadmit audit: --page-size must be a whole number ≥ 1, not "0"\n' });
    await cluster({ missingGroups: ["wgpolicyk8s.io"] });
    const { code, stderr } = await runCli(["audit"]);
    expect(code).toBe(1);
    expect(stderr.split("\n").at(-2)).toBe("edgeadmit audit: the API server does not serve policyreports.wgpolicyk8s.io/v1alpha2: is its CRD installed? (infra/k8s/components/audit installs it)");
  });

  it("writes reports the PolicyReport and ClusterPolicyReport CRDs accept", async () => {
    const api = await cluster();
    expect((await runCli(["audit"])).code).toBe(0);
    const schemaOf = (file: string) =>
      schemaNodeSchema.parse((parse(readFileSync(join(__dirname, "..", "k8s", "components", "audit", file), "utf8")) as { spec: { versions: Array<{ schema: { openAPIV3Schema: unknown } }> } }).spec.versions[0]!.schema.openAPIV3Schema);
    const schemas = { PolicyReport: schemaOf("policyreport-crd.yaml"), ClusterPolicyReport: schemaOf("clusterpolicyreport-crd.yaml") };
    const reports = reportsOf(api);
    expect(reports).toHaveLength(4);
    for (const report of reports) expect(schemaViolations(report, schemas[report.kind]), report.metadata.name).toEqual([]);
    // The check can fail: a result the CRD does not know is caught.
    const bad = { ...reports[0]!, results: [{ ...reports[0]!.results[0]!, result: "audit", extra: 1 }] };
    expect(schemaViolations(bad, schemas[bad.kind])).toEqual(['.results[0].result: "audit" is not one of "pass", "fail", "warn", "error", "skip"', ".results[0].extra: not in the schema (pruned)"]);
  });
});
