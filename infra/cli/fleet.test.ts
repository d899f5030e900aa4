// `edgeadmit fleet apply|diff|history|promote|rollback` end to end: the CLI
// against the real function in workerd (startLocalWorker), a labelled
// cluster registered with `clusters add`, its reviews judged by the fleet set.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { runCli } from "../../test/node/support/test-io.js";
import { startFakeApiServer } from "../../test/node/support/fake-apiserver.js";
import { auditClusterObjects, AUDIT_SERVED } from "../../test/node/support/audit/fixture.js";
import type { PolicyReport } from "../audit/reports.js";

const dir = mkdtempSync(join(tmpdir(), "edgeadmit-fleet-"));
const operatorKey = join(dir, "operator.key");
const fleetDir = join(dir, "fleet");
let worker: LocalWorker;
const target = () => ["--endpoint", worker.url, "--operator-key", operatorKey];
const EFFECT = "every isolate of the function enforces it within seconds (docs/fleet.md)\n";
/** What a change does to the clusters in the registry when none is registered yet. */
const NO_CLUSTER = "on the 0 clusters in the registry: no fleet policy is bound, removed or changed\n";

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "every Deployment needs a team label"}
`;
const binding = (spec: string) => `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: baseline-team}
spec: {policyName: require-team, clusterSelector: {matchLabels: {env: prod}}, ${spec}}
`;

beforeAll(async () => {
  const made = await runCli(["operator", "keygen", "--out", dir]);
  worker = await startLocalWorker({ clusters: {}, vars: { OPERATOR_KEYS: made.stdout.trim() } });
  mkdirSync(fleetDir);
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
});

describe("fleet verbs", () => {
  it("diff, apply, promote, history and rollback, each change a revision", async () => {
    writeFileSync(join(fleetDir, "policy.yaml"), POLICY);
    writeFileSync(join(fleetDir, "binding.yaml"), binding("waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: canary}}}, {validationActions: [Deny]}]"));
    expect(await runCli(["fleet", "diff", "-f", fleetDir, ...target()])).toEqual({
      code: 0,
      stdout: "+ EdgeAdmissionPolicyBinding baseline-team\n+ ValidatingAdmissionPolicy require-team\n",
      stderr: "2 objects against fleet revision 0\n",
    });
    expect(await runCli(["fleet", "apply", "-f", fleetDir, ...target()])).toEqual({
      code: 0,
      stdout: `+ EdgeAdmissionPolicyBinding baseline-team\n+ ValidatingAdmissionPolicy require-team\n${NO_CLUSTER}applied fleet revision 1: 1 policy, 1 binding\n`,
      stderr: EFFECT,
    });
    expect(await runCli(["fleet", "apply", "-f", fleetDir, ...target()])).toEqual({ code: 0, stdout: "", stderr: "no change against fleet revision 1: nothing applied\n" });
    expect(await runCli(["fleet", "promote", "baseline-team", ...target()])).toEqual({ code: 0, stdout: `${NO_CLUSTER}fleet revision 2: promote baseline-team to wave 1\n`, stderr: EFFECT });
    writeFileSync(join(fleetDir, "binding.yaml"), binding("validationActions: [Warn]"));
    expect((await runCli(["fleet", "diff", "-f", fleetDir, ...target()])).stdout).toBe("~ EdgeAdmissionPolicyBinding baseline-team (its waves change: it starts again at wave 0)\n");
    expect((await runCli(["fleet", "apply", "-f", fleetDir, ...target()])).code).toBe(0);
    expect(await runCli(["fleet", "rollback", "2", ...target()])).toEqual({ code: 0, stdout: `${NO_CLUSTER}fleet revision 4: rollback to 2\n`, stderr: EFFECT });
    const history = await runCli(["fleet", "history", ...target()]);
    expect(history.stdout.replace(/ \d{4}-\d\d-\d\dT[\d:.]+Z /g, " <time> ")).toBe(
      [
        "4 (in effect) <time> rollback to 2: 1 policy, 1 binding",
        "3 <time> apply: 1 policy, 1 binding",
        "2 <time> promote baseline-team to wave 1: 1 policy, 1 binding",
        "1 <time> apply: 1 policy, 1 binding",
        "",
      ].join("\n"),
    );
    // The function's own rule (shared/fleet promotedWave), said before anything is sent.
    expect(await runCli(["fleet", "promote", "baseline-team", ...target()])).toEqual({
      code: 1,
      stdout: "",
      stderr: "edgeadmit fleet promote: binding baseline-team has 2 waves (0-1) and is at wave 1: nothing to promote to; nothing sent\n",
    });
  });

  it("enforces the set on a labelled cluster registered with clusters add", async () => {
    const keys = await generateKeyPair();
    const token = generateToken();
    writeFileSync(join(dir, "prod.pub"), keys.publicKey);
    expect((await runCli(["clusters", "add", "prod", ...target(), "--public-key", join(dir, "prod.pub"), "--token-hash", await tokenHash(token), "--label", "env=prod"])).code).toBe(0);
    writeFileSync(join(dir, "prod.key"), keys.privateKeyPem);
    const built = await runCli(["snapshot", "build", "-f", join(__dirname, "..", "..", "examples", "demo", "cluster.yaml")]);
    expect((await runCli(["snapshot", "push", "--endpoint", worker.url, "--cluster", "prod", "--key", join(dir, "prod.key")], built.stdout)).code).toBe(0);
    const review = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u1", kind: { group: "apps", version: "v1", kind: "Deployment" }, resource: { group: "apps", version: "v1", resource: "deployments" }, operation: "CREATE", namespace: "default", name: "web", userInfo: { username: "u" }, object: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default" }, spec: { template: { spec: { containers: [{ name: "c", image: "i" }] } } } } } };
    const response = await fetch(`${worker.url}/v1/prod/validate`, { method: "POST", body: JSON.stringify(review), headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
    const { response: verdict } = (await response.json()) as { response: { allowed: boolean; status?: { message: string } } };
    expect([verdict.allowed, verdict.status?.message]).toEqual([false, "ValidatingAdmissionPolicy 'require-team' with binding 'fleet/baseline-team' denied request: every Deployment needs a team label"]);

    expect(await runCli(["fleet", "status", ...target(), "-l", "env=prod"])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^prod \[env=prod\] fleet revision 4: baseline-team: Deny; snapshot generation \d+, \d+s old; coverage unknown; last 24h: allow 0, deny 1, warn 0, audit 0, error 0, exempted 0\n$/),
      stderr: "1 cluster; fleet revision 4\n",
    });
    const perPolicy = JSON.parse((await runCli(["fleet", "status", "require-team", ...target(), "-o", "json", "--hours", "2"])).stdout) as unknown;
    expect(perPolicy).toEqual({
      hours: 2,
      policy: "require-team",
      fleetRevision: 4,
      clusters: [
        {
          cluster: "prod",
          labels: { env: "prod" },
          fleetRevision: 4,
          fleetBindings: ["baseline-team: Deny"],
          snapshot: { generation: expect.any(Number), ageSeconds: expect.any(Number) },
          coverage: "unknown",
          gaps: [],
          upcoming: [],
          verdicts: { allow: 0, deny: 1, warn: 0, audit: 0, error: 0, exempted: 0 },
        },
      ],
    });

    // webhook-config --operator-key: the rules also cover what the fleet binds on the cluster (ConfigMaps, which no built-in policy reads).
    writeFileSync(join(fleetDir, "configmaps.yaml"), POLICY.replace("require-team", "configmap-team").replace("{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}", '{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}') + "---\n" + binding("validationActions: [Warn]").replace("baseline-team", "configmap-team").replace("policyName: require-team", "policyName: configmap-team"));
    expect((await runCli(["fleet", "apply", "-f", fleetDir, ...target(), "--yes"])).code).toBe(0);
    const rendered = await runCli(["webhook-config", "--url", "https://edgeadmit.example.com", "--cluster", "prod", "--operator-key", operatorKey, "--endpoint", worker.url]);
    const plain = await runCli(["webhook-config", "--url", "https://edgeadmit.example.com", "--cluster", "prod"]);
    expect([rendered.code, plain.stdout.includes("configmaps")]).toEqual([0, false]);
    expect(rendered.stdout).toContain("- apiGroups:\n          - \"\"\n        apiVersions:\n          - v1\n        resources:\n          - configmaps\n        operations:\n          - CREATE\n");
  });

  it("audit --endpoint --cluster --key judges the cluster's objects against the fleet policies bound on it, with the cluster's own key", async () => {
    const api = await startFakeApiServer(auditClusterObjects(), { resources: AUDIT_SERVED });
    const kubeconfig = process.env.KUBECONFIG;
    process.env.KUBECONFIG = api.kubeconfig;
    try {
      const audited = await runCli(["audit", "--endpoint", worker.url, "--cluster", "prod", "--key", join(dir, "prod.key")]);
      expect([audited.code, audited.stderr]).toEqual([0, "warning: no ConfigMap edgeadmit-system/edgeadmit-settings: the snapshot carries the default settings\nfleet revision 5: 2 fleet bindings judged too\nwarning: a bound ValidatingAdmissionPolicy selects configmaps, which the audit does not list: judged at admission only\n"]);
      const fleetRows = (api.objects as unknown as PolicyReport[])
        .filter((o) => o.kind === "PolicyReport" || o.kind === "ClusterPolicyReport")
        .flatMap((report) => report.results.filter((r) => r.rule.startsWith("fleet/")).map((r) => `${r.resources[0].kind} ${r.resources[0].name} ${r.policy} ${r.rule} ${r.result} ${r.properties["mode"]}: ${r.message}`));
      // baseline-team is Warn at revision 5 (binding.yaml says so since the first test); none of the fixture's Deployments has a team label.
      const warned = (name: string) => `Deployment ${name} require-team fleet/baseline-team warn Warn: Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'fleet/baseline-team': every Deployment needs a team label`;
      expect(fleetRows).toEqual(["api", "broken", "pinned", "web"].map(warned));
    } finally {
      await api.stop();
      // Put back for the files after this one in the same process (vitest.config.ts: isolate false).
      if (kubeconfig === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = kubeconfig;
    }
  });

  it("renders a later wave's policy into webhook-config, and flags a cluster whose pushed rules miss it before and after fleet promote", async () => {
    const keys = await generateKeyPair();
    writeFileSync(join(dir, "later.pub"), keys.publicKey);
    writeFileSync(join(dir, "later.key"), keys.privateKeyPem);
    expect((await runCli(["clusters", "add", "later", ...target(), "--public-key", join(dir, "later.pub"), "--anonymous", "--label", "env=prod"])).code).toBe(0);
    // Its sync job pushed the rules of a webhook rendered before the fleet bound ConfigMaps: pods only.
    const built = JSON.parse((await runCli(["snapshot", "build", "-f", join(__dirname, "..", "..", "examples", "demo", "cluster.yaml")])).stdout) as Record<string, unknown>;
    const pushed = { ...built, webhookRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "Namespaced" }] };
    expect((await runCli(["snapshot", "push", "--endpoint", worker.url, "--cluster", "later", "--key", join(dir, "later.key")], JSON.stringify(pushed))).code).toBe(0);
    const waves = join(dir, "waves");
    mkdirSync(waves);
    const configmaps = POLICY.replace("require-team", "configmap-team").replace("{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}", '{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}');
    writeFileSync(join(waves, "set.yaml"), `${configmaps}---\n${binding("waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: canary}}}, {validationActions: [Deny]}]").replace("policyName: require-team", "policyName: configmap-team")}`);
    expect((await runCli(["fleet", "apply", "-f", waves, ...target(), "--yes"])).code).toBe(0);

    // Wave 0 binds nothing on `later` (not ring=canary); the rendered rules cover wave 1 already.
    const rendered = await runCli(["webhook-config", "--url", "https://edgeadmit.example.com", "--cluster", "later", "--operator-key", operatorKey, "--endpoint", worker.url]);
    expect(rendered.stdout).toContain("        resources:\n          - configmaps\n");
    const gap = "ValidatingAdmissionPolicy 'configmap-team' matches CREATE configmaps/v1";
    const before = await runCli(["fleet", "status", ...target(), "-l", "env=prod", "-o", "json"]);
    expect((JSON.parse(before.stdout) as { clusters: Array<{ cluster: string; gaps: string[]; upcoming: string[] }> }).clusters.find((c) => c.cluster === "later")).toMatchObject({ gaps: [], upcoming: [gap] });
    const text = await runCli(["fleet", "status", ...target(), "-l", "env=prod"]);
    expect(text.stdout).toContain(`; not sent once promoted: ${gap}; `);
    expect(text.stderr).toBe("2 clusters; fleet revision 6\nwarning: the webhook rules of 1 cluster miss fleet policies bound on them (not sent): for each, render edgeadmit webhook-config --operator-key again and apply it (docs/fleet.md, Coverage)\n");

    expect(await runCli(["fleet", "promote", "baseline-team", ...target(), "--yes"])).toEqual({
      code: 0,
      stdout: "on the 2 clusters in the registry: changes what 2 clusters enforce\n  binds configmap-team on 2 more clusters (Deny)\nfleet revision 7: promote baseline-team to wave 1\n",
      stderr:
        EFFECT +
        "warning: later: its webhook rules do not send the function CREATE configmaps/v1, which configmap-team now enforces there: render edgeadmit webhook-config --operator-key again and apply it (docs/fleet.md, Coverage)\n" +
        "warning: coverage unknown on 1 cluster configmap-team now enforces on (no sync job pushed their webhook rules yet): prod\n",
    });
    const after = await runCli(["fleet", "status", ...target(), "-l", "env=prod", "-o", "json"]);
    expect((JSON.parse(after.stdout) as { clusters: Array<{ cluster: string; gaps: string[]; upcoming: string[] }> }).clusters.find((c) => c.cluster === "later")).toMatchObject({ gaps: [gap], upcoming: [] });
  });

  it("guard rails: an empty set refused without --allow-empty, the effect on clusters shown, a change of what they enforce confirmed, --dry-run sending nothing", async () => {
    const revision = async () => (JSON.parse((await runCli(["fleet", "history", ...target(), "-o", "json"])).stdout) as { revision: number }).revision;
    const before = await revision();
    const empty = join(dir, "empty");
    mkdirSync(empty);
    expect(await runCli(["fleet", "apply", "-f", empty, ...target()])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit fleet apply: the fleet set in ${empty} is empty (no policy, binding, modes or exception): applied, it would remove every fleet policy from every cluster; pass --allow-empty if that is meant; nothing was sent\n`,
    });
    expect(await runCli(["fleet", "apply", "-f", empty, ...target(), "--allow-empty", "--dry-run=client"])).toEqual({
      code: 0,
      stdout: "- EdgeAdmissionPolicyBinding baseline-team\n- ValidatingAdmissionPolicy configmap-team\non the 2 clusters in the registry: changes what 2 clusters enforce\n  removes configmap-team from 2 clusters (Deny)\n",
      stderr: `dry run: nothing sent; fleet revision ${before} stays in effect\n`,
    });
    expect(await runCli(["fleet", "apply", "-f", empty, ...target(), "--allow-empty", "--dry-run=server"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "edgeadmit fleet apply: --dry-run=server is not offered: --dry-run is client-side only (=client): it shows what would be sent or written and changes nothing (see edgeadmit fleet apply --help)\n",
    });

    // Every prod cluster from Deny to Warn: asked for, and not sent without a yes.
    const warn = join(dir, "warn");
    mkdirSync(warn);
    const configmaps = POLICY.replace("require-team", "configmap-team").replace("{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}", '{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}');
    writeFileSync(join(warn, "set.yaml"), `${configmaps}---\n${binding("validationActions: [Warn]").replace("policyName: require-team", "policyName: configmap-team")}`);
    const plan = "~ EdgeAdmissionPolicyBinding baseline-team (its waves change: it starts again at wave 0)\non the 2 clusters in the registry: changes what 2 clusters enforce\n  changes configmap-team's actions on 2 clusters (Deny → Warn)\n";
    expect(await runCli(["fleet", "apply", "-f", warn, ...target()])).toEqual({
      code: 2,
      stdout: plan,
      stderr: `edgeadmit fleet apply: change what 2 clusters enforce, at ${worker.url}: pass --yes to go ahead (no terminal to ask on); nothing was sent (see edgeadmit fleet apply --help)\n`,
    });
    const asked: string[] = [];
    const declined = await runCli(["fleet", "apply", "-f", warn, ...target()], "", { confirm: async (question) => (asked.push(question), false) });
    expect([declined, asked]).toEqual([{ code: 1, stdout: plan, stderr: "nothing sent\n" }, [`change what 2 clusters enforce, at ${worker.url}`]]);
    expect(await revision()).toBe(before);
    expect(await runCli(["fleet", "apply", "-f", warn, ...target()], "", { confirm: async () => true })).toEqual({ code: 0, stdout: `${plan}applied fleet revision ${before + 1}: 1 policy, 1 binding\n`, stderr: EFFECT });

    // A new message only: what each cluster enforces stays, so nothing is asked.
    writeFileSync(join(warn, "set.yaml"), `${configmaps.replace("every Deployment needs a team label", "every ConfigMap needs a team label")}---\n${binding("validationActions: [Warn]").replace("policyName: require-team", "policyName: configmap-team")}`);
    expect(await runCli(["fleet", "apply", "-f", warn, ...target()])).toEqual({
      code: 0,
      stdout: `~ ValidatingAdmissionPolicy configmap-team\non the 2 clusters in the registry: no fleet policy is bound, removed or changed\napplied fleet revision ${before + 2}: 1 policy, 1 binding\n`,
      stderr: EFFECT,
    });

    // A rollback is shown as an apply is: revision `before` had Deny on both.
    expect(await runCli(["fleet", "rollback", String(before), ...target(), "--dry-run"])).toEqual({
      code: 0,
      stdout: "on the 2 clusters in the registry: changes what 2 clusters enforce\n  changes configmap-team's actions on 2 clusters (Warn → Deny)\n",
      stderr: `dry run: nothing sent; fleet revision ${before + 2} stays in effect\n`,
    });
    expect(await runCli(["fleet", "rollback", String(before + 2), ...target()])).toEqual({ code: 1, stdout: "", stderr: `edgeadmit fleet rollback: revision ${before + 2} is the one in effect: nothing to roll back to; nothing sent\n` });
    expect((await runCli(["fleet", "rollback", "99", ...target(), "--dry-run"])).stderr).toBe(
      `edgeadmit fleet rollback: GET ${worker.url}/v1/registry/fleet/revisions/99 answered 404: the fleet keeps no revision 99 (it keeps the last 100; edgeadmit fleet history lists them)\n`,
    );
    expect(await revision()).toBe(before + 2);
  });

  it("refuses objects no policy takes as params (a cluster's own objects, as examples/demo holds), before sending anything", async () => {
    const result = await runCli(["fleet", "apply", "-f", join(__dirname, "..", "..", "examples", "demo"), ...target()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^edgeadmit fleet apply: the fleet set cannot be applied: cozystack\.io\/v1alpha1 AffinityClass 'dc1': no policy of the set takes it as params \(its paramKind\): a fleet set holds ValidatingAdmissionPolicies, their EdgeAdmissionPolicyBindings and params, EdgeAdmissionPolicyModes and EdgeAdmissionExceptions; /,
    );
    expect(result.stderr).toContain("helm.toolkit.fluxcd.io/v2 HelmRelease 'tenant-acme/main-db': no policy of the set takes it as params");
  });

  it("refuses a set the function would refuse before sending anything", async () => {
    const bad = join(dir, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "binding.yaml"), binding("validationActions: [Deny]"));
    expect(await runCli(["fleet", "apply", "-f", bad, ...target()])).toEqual({
      code: 1,
      stdout: "",
      stderr: "edgeadmit fleet apply: the fleet set cannot be applied: EdgeAdmissionPolicyBinding 'baseline-team': policy 'require-team' is not in the set (a fleet binding binds the fleet's own policies)\n",
    });
  });
});
