// A small fleet on a running function, for the dashboard's browser test
// (test/node/dashboard.test.ts) and its screenshots in docs/dashboard.md
// (scripts/dashboard-screenshots.ts): three registered clusters (two in
// production, one of them a canary whose webhook sends pods only), the
// example fleet set (examples/fleet), a few reviews of a Deployment without
// a team label on each, and a metrics token.
import { readdirSync, readFileSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { join } from "node:path";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { changeFleet } from "../infra/client/fleet.js";
import { pushSnapshot } from "../infra/client/index.js";
import { issueMetricsToken } from "../infra/client/metrics.js";
import { changeRegistry } from "../infra/client/registry.js";
import { objectsFromText } from "../infra/objects/yaml.js";
import { DEFAULT_MAX_SNAPSHOT_AGE_SECONDS } from "../shared/clusters/index.js";
import { fleetSetOf, fleetSetSchema } from "../shared/fleet/index.js";
import { generateKeyPair } from "../shared/signing/index.js";
import { buildSnapshot } from "../shared/snapshot/builder/index.js";
import { generateToken, tokenHash } from "../shared/tokens/index.js";

const podsOnly = [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "*" as const }];

export const DASHBOARD_FLEET: ReadonlyArray<{ id: string; labels: Record<string, string>; webhookRules: typeof podsOnly | undefined; reviews: number }> = [
  { id: "dash-canary", labels: { env: "prod", ring: "canary" }, webhookRules: podsOnly, reviews: 3 },
  { id: "dash-prod", labels: { env: "prod" }, webhookRules: undefined, reviews: 2 },
  { id: "dash-dev", labels: { env: "dev" }, webhookRules: undefined, reviews: 1 },
];

export interface SeededFleet {
  /** The apiserver tokens of the clusters, in DASHBOARD_FLEET's order. */
  clusterTokens: string[];
  metricsToken: string;
}

/** Seeds the fleet on the function at `url`, signing with the operator's key. */
export async function seedFleet(url: string, operatorPem: string): Promise<SeededFleet> {
  const objects = readdirSync(join(PROJECT_ROOT, "examples/fleet")).flatMap((file) => objectsFromText(readFileSync(join(PROJECT_ROOT, "examples/fleet", file), "utf8"), file));
  const applied = await changeFleet(url, operatorPem, { op: "apply", set: fleetSetSchema.parse(fleetSetOf(objects)) });
  if (!("applied" in applied)) throw new Error("the fleet set was proposed, not applied: seed a function whose OPERATOR_THRESHOLD is 1");
  const review = readFileSync(join(PROJECT_ROOT, "examples/reviews/deployment-without-team.json"), "utf8");
  const demoYaml = readFileSync(join(PROJECT_ROOT, "examples/demo/cluster.yaml"), "utf8");
  const clusterTokens: string[] = [];
  for (const cluster of DASHBOARD_FLEET) {
    const pair = await generateKeyPair();
    const token = generateToken();
    clusterTokens.push(token);
    await changeRegistry(url, operatorPem, [{ op: "add", cluster: cluster.id, registration: { publicKey: pair.publicKey, tokenHashes: [await tokenHash(token)], labels: cluster.labels, withoutSnapshot: "FailOpen", maxAgeSeconds: DEFAULT_MAX_SNAPSHOT_AGE_SECONDS } }]);
    const { snapshot } = buildSnapshot(objectsFromText(demoYaml, "cluster.yaml"), { generation: Date.now(), builtAt: new Date().toISOString() });
    await pushSnapshot(url, cluster.id, pair.privateKeyPem, cluster.webhookRules ? { ...snapshot, webhookRules: cluster.webhookRules } : snapshot);
    for (let i = 0; i < cluster.reviews; i++) {
      const response = await fetch(`${url}/v1/${cluster.id}/validate`, { method: "POST", body: review, headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
      if (response.status !== 200) throw new Error(`a review of ${cluster.id} answered ${response.status}`);
    }
  }
  const metricsToken = generateToken();
  if (!("applied" in (await issueMetricsToken(url, operatorPem, "dashboard-prometheus", await tokenHash(metricsToken))))) throw new Error("the metrics token was proposed, not issued");
  return { clusterTokens, metricsToken };
}

/** Debian's Chromium (.ci/run installs the package when missing). */
export const CHROMIUM = "/usr/bin/chromium";

/** A headless Chromium as it runs here and on CI: no sandbox (root), no GPU, nothing it would fetch by itself; a fresh profile (playwright makes one per launch). */
export function launchChromium(timeoutMs: number): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: timeoutMs,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
