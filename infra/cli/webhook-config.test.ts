// `edgeadmit webhook-config --operator-key` against the real function in
// workerd (startLocalWorker): a fleet policy that matches Secrets is never
// rendered into rules that send them (issue 33: the fleet's Audit policy that
// read a password back through verdict counts), one that matches only them is
// refused by `fleet apply`, and the rules rendered for a wildcard cover it in
// `fleet status` once the cluster's sync job pushes them.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIAL_GROUP_RESOURCES } from "../../shared/admission/credentials.js";
import { generateKeyPair } from "../../shared/signing/index.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { runCli } from "../../test/node/support/test-io.js";
import { corePolicy, ONLY_SECRETS, PEEK } from "../../test/support/credentials.js";
import { credentialMatchConditions, webhookRules, type WebhookRule } from "../webhook/index.js";

const dir = mkdtempSync(join(tmpdir(), "edgeadmit-webhook-config-"));
const operatorKey = join(dir, "operator.key");
let worker: LocalWorker;
const target = () => ["--endpoint", worker.url, "--operator-key", operatorKey];

/** A fleet policy on `resources` of the core group, bound in Audit on env=prod. */
const policy = (name: string, resources: string) => `${corePolicy(name, resources, PEEK)}
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}, clusterSelector: {matchLabels: {env: prod}}, validationActions: [Audit]}
`;

beforeAll(async () => {
  const made = await runCli(["operator", "keygen", "--out", dir]);
  worker = await startLocalWorker({ clusters: {}, vars: { OPERATOR_KEYS: made.stdout.trim() } });
  const keys = await generateKeyPair();
  writeFileSync(join(dir, "prod.pub"), keys.publicKey);
  writeFileSync(join(dir, "prod.key"), keys.privateKeyPem);
  expect((await runCli(["clusters", "add", "prod", ...target(), "--public-key", join(dir, "prod.pub"), "--anonymous", "--label", "env=prod"])).code).toBe(0);
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
});

describe("webhook-config --operator-key with fleet policies that match Secrets", () => {
  it("refuses, at fleet apply, a policy that can match only Secrets, before sending it", async () => {
    const set = join(dir, "secrets-only");
    mkdirSync(set);
    writeFileSync(join(set, "peek.yaml"), policy("peek", "[secrets]"));
    expect(await runCli(["fleet", "apply", "-f", set, ...target()])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit fleet apply: the fleet set cannot be applied: ValidatingAdmissionPolicy 'peek': ${ONLY_SECRETS}\n`,
    });
  });

  it("renders their other resources only, with matchConditions that skip every credential kind, names what it left out, and the rules cover the policies", async () => {
    const set = join(dir, "also-secrets");
    mkdirSync(set);
    writeFileSync(join(set, "named.yaml"), policy("named", "[configmaps, secrets]"));
    writeFileSync(join(set, "every-core.yaml"), policy("every-core", '["*"]'));
    // It binds the policies on the registered cluster: a change of what it enforces, asked for (no terminal here).
    expect((await runCli(["fleet", "apply", "-f", set, ...target(), "--yes"])).code).toBe(0);

    const rendered = await runCli(["webhook-config", "--url", "https://edgeadmit.example.com", "--cluster", "prod", ...target()]);
    expect({ code: rendered.code, stderr: rendered.stderr }).toEqual({
      code: 0,
      stderr: ["every-core", "named"]
        .map((name) => `warning: ValidatingAdmissionPolicy '${name}' matches secrets, which carry credentials: not sent to the edge, nor judged there (docs/validating-admission-policies.md, "Credentials are never judged")\n`)
        .join(""),
    });
    const webhook = (parse(rendered.stdout) as { webhooks: Array<{ rules: WebhookRule[]; matchConditions: unknown }> }).webhooks[0]!;
    const core = CREDENTIAL_GROUP_RESOURCES[""]!.filter((name) => !name.includes("/") && name !== "secrets");
    expect(webhook.rules).toEqual([...webhookRules([]), { apiGroups: [""], apiVersions: ["v1"], resources: core, operations: ["CREATE", "UPDATE"], scope: "*" }]);
    expect(webhook.matchConditions).toEqual(credentialMatchConditions());
    expect(rendered.stdout).not.toMatch(/- secrets\n|serviceaccounts\/token|tokenreviews/);

    // The cluster's sync job pushes the rules it reads from the configuration applied: they send the fleet policies everything they can be sent.
    const built = JSON.parse((await runCli(["snapshot", "build", "-f", join(__dirname, "..", "..", "examples", "demo", "cluster.yaml")])).stdout) as Record<string, unknown>;
    expect((await runCli(["snapshot", "push", "--endpoint", worker.url, "--cluster", "prod", "--key", join(dir, "prod.key")], JSON.stringify({ ...built, webhookRules: webhook.rules }))).code).toBe(0);
    const status = JSON.parse((await runCli(["fleet", "status", ...target(), "-o", "json"])).stdout) as { clusters: Array<{ cluster: string; coverage: string; gaps: string[]; upcoming: string[] }> };
    expect(status.clusters.map(({ cluster, coverage, gaps, upcoming }) => ({ cluster, coverage, gaps, upcoming }))).toEqual([{ cluster: "prod", coverage: "known", gaps: [], upcoming: [] }]);
  });
});
