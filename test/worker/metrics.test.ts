// GET /v1/registry/metrics over HTTP in workerd: only a metrics token the
// operator issued reads it (every other credential gets the generic 401,
// and a revoked token at once); its counters equal GET /v1/registry/counts
// over the whole kept window and never go down; each cluster's snapshot
// generation, age and coverage come from the registry's own record of the
// commit, as GET /v1/registry/overview shows them. Issuing a token is a
// governed change on record with its signer. The OpenMetrics grammar itself
// is held by the reference parser in test/node/metrics.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import { generateKeyPair, importPrivateKey, signRequest } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { KEPT_HOURS } from "../../shared/counts/index.js";
import { applied, credentials, operatorHeaders, operatorPublicKey, type Credentials } from "../support/registry.js";
import { dispatch, fullPushBodies, objectsFromYaml, snapshotOf } from "../support/worker.js";

const METRICS = "/v1/registry/metrics";
const TOKENS = "/v1/registry/metrics/tokens";

async function operatorCall(method: "GET" | "POST", path: string, body?: unknown, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const bytes = body === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(body));
  const headers = { ...(await operatorHeaders(method, path, bytes, key === undefined ? {} : { key })), "content-type": "application/json" };
  const response = await dispatch(path, { method, ...(method === "POST" ? { body: bytes } : {}), headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const issue = (name: string, hash: string, key?: string) => operatorCall("POST", TOKENS, { requestId: crypto.randomUUID(), op: "issue", name, tokenHash: hash }, key);
const revoke = (name: string) => operatorCall("POST", TOKENS, { requestId: crypto.randomUUID(), op: "revoke", name });

/** The samples of a body, by series (`name{labels}`): enough to compare values here; the grammar is the parser's to check. */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

const scrape = (token: string) => dispatch(METRICS, { headers: { authorization: `Bearer ${token}` } });
/** The body as UTF-8 (workerd warns on .text() of a type it does not know as text). */
const textOf = async (response: Response) => new TextDecoder().decode(await response.arrayBuffer());

const podsOnly = [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "*" as const }];
const requireTeam = {
  policies: [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "mt-require-team" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] },
        validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "every Deployment needs a team label" }],
      },
    },
  ],
  bindings: [{ apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name: "mt-team" }, spec: { policyName: "mt-require-team", clusterSelector: { matchLabels: { metrics: "yes" } }, validationActions: ["Deny"] } }],
  params: [],
  modes: [],
  exceptions: [],
};

async function registered(cluster: string, webhookRules?: typeof podsOnly): Promise<Credentials & { generation: number }> {
  const c = await credentials();
  await applied([{ op: "add", cluster, registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash], labels: { metrics: "yes" } } }]);
  const key = await importPrivateKey(c.privateKeyPem);
  const snapshot = snapshotOf(objectsFromYaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}"), webhookRules ? { webhookRules } : {});
  for (const text of await fullPushBodies(snapshot)) {
    const bytes = new TextEncoder().encode(text);
    const response = await dispatch(`/v1/${cluster}/snapshot`, { method: "PUT", body: bytes, headers: await signRequest(key, "PUT", cluster, bytes, Math.floor(Date.now() / 1000)) });
    expect(response.status).toBe(200);
  }
  return { ...c, generation: snapshot.generation };
}

async function review(cluster: string, c: Credentials, labels: Record<string, string>): Promise<boolean> {
  const body = wrapReview({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop", labels }, spec: { replicas: 1, template: { spec: { containers: [{ name: "web", image: "nginx" }] } } } });
  const response = await dispatch(`/v1/${cluster}/validate`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", authorization: `Bearer ${c.token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { response: { allowed: boolean } }).response.allowed;
}

describe("GET /v1/registry/metrics", () => {
  const token = generateToken();
  let gapped: Credentials & { generation: number };
  let unknown: Credentials & { generation: number };

  beforeAll(async () => {
    expect((await issue("mt-prometheus", await tokenHash(token))).status).toBe(200);
    const fleet = await operatorCall("POST", "/v1/registry/fleet", { requestId: crypto.randomUUID(), op: "apply", set: requireTeam });
    expect(fleet.status).toBe(200);
    gapped = await registered("mt-gapped", podsOnly);
    unknown = await registered("mt-unknown");
    expect(await review("mt-gapped", gapped, {})).toBe(false);
    expect(await review("mt-gapped", gapped, { team: "a" })).toBe(true);
    expect(await review("mt-unknown", unknown, {})).toBe(false);
  });

  it("answers OpenMetrics to a metrics token: counters equal the counts route, snapshots and coverage as the overview says", async () => {
    const response = await scrape(token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/openmetrics-text; version=1.0.0; charset=utf-8");
    const text = await textOf(response);
    expect(text.endsWith("# EOF\n")).toBe(true);
    const found = samples(text);
    const counts = await operatorCall("GET", `/v1/registry/counts?hours=${KEPT_HOURS}`);
    const rows = (counts.body.rows as Array<{ cluster: string; origin: string; policy: string; outcome: string; count: number }>).filter((row) => row.cluster.startsWith("mt-"));
    expect(rows).toContainEqual({ cluster: "mt-gapped", origin: "fleet", policy: "mt-require-team", outcome: "deny", count: 1 });
    for (const row of rows) expect(found.get(`edgeadmit_verdicts_total{cluster="${row.cluster}",origin="${row.origin}",policy="${row.policy}",outcome="${row.outcome}"}`)).toBe(row.count);
    const exported = [...found.keys()].filter((series) => series.startsWith('edgeadmit_verdicts_total{cluster="mt-'));
    expect(exported.length).toBe(rows.length);

    expect(found.get('edgeadmit_snapshot_generation{cluster="mt-gapped"}')).toBe(gapped.generation);
    expect(found.get('edgeadmit_snapshot_generation{cluster="mt-unknown"}')).toBe(unknown.generation);
    expect(found.get('edgeadmit_snapshot_max_age_seconds{cluster="mt-gapped"}')).toBe(86_400);
    expect(found.get('edgeadmit_coverage_known{cluster="mt-gapped"}')).toBe(1);
    expect(found.get('edgeadmit_coverage_known{cluster="mt-unknown"}')).toBe(0);
    expect(found.get('edgeadmit_coverage_gaps{cluster="mt-gapped",when="now"}')).toBe(1);
    expect(found.has('edgeadmit_coverage_gaps{cluster="mt-unknown",when="now"}')).toBe(false);
    const fleet = await operatorCall("GET", "/v1/registry/fleet");
    expect(found.get("edgeadmit_fleet_revision")).toBe(fleet.body.revision);

    const overview = await operatorCall("GET", "/v1/registry/overview");
    const entry = (overview.body.clusters as Array<Record<string, unknown>>).find((one) => one.cluster === "mt-gapped")!;
    expect(entry).toMatchObject({ labels: { metrics: "yes" }, withoutSnapshot: "FailOpen", coverage: "known", gaps: ["ValidatingAdmissionPolicy 'mt-require-team' matches CREATE deployments.apps/v1"], upcoming: [] });
    expect((entry.snapshot as { generation: number }).generation).toBe(gapped.generation);
    const coverage = await operatorCall("GET", "/v1/registry/coverage?cluster=mt-gapped");
    expect({ gaps: coverage.body.gaps, upcoming: coverage.body.upcoming, coverage: coverage.body.coverage }).toEqual({ gaps: entry.gaps, upcoming: entry.upcoming, coverage: entry.coverage });
  });

  it("keeps counting up: a counter is never less than at the scrape before", async () => {
    const before = samples(await textOf(await scrape(token)));
    expect(await review("mt-gapped", gapped, {})).toBe(false);
    const after = samples(await textOf(await scrape(token)));
    const series = 'edgeadmit_verdicts_total{cluster="mt-gapped",origin="review",policy="*",outcome="deny"}';
    expect(after.get(series)).toBe(before.get(series)! + 1);
    for (const [name, value] of before) if (name.startsWith("edgeadmit_verdicts_total")) expect(after.get(name)).toBeGreaterThanOrEqual(value);
  });

  it("refuses every other credential with the generic 401", async () => {
    const refusals = [
      await dispatch(METRICS),
      await dispatch(METRICS, { headers: { authorization: `Bearer ${generateToken()}` } }),
      await dispatch(METRICS, { headers: { authorization: `Bearer ${gapped.token}` } }),
      await dispatch(METRICS, { headers: await operatorHeaders("GET", METRICS, new Uint8Array()) }),
      await dispatch(METRICS, { headers: { authorization: "Bearer not a token" } }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)" });
    }
  });

  it("issues a token as a change on record with its signer; a revoked one is refused at once", async () => {
    const second = generateToken();
    const issued = await issue("mt-rotating", await tokenHash(second));
    expect(issued).toEqual({ status: 200, body: { issued: "mt-rotating", change: expect.any(Number), signers: [await operatorPublicKey(0)] } });
    expect((await scrape(second)).status).toBe(200);
    const listed = await operatorCall("GET", TOKENS);
    expect(listed.body.tokens).toContainEqual({ name: "mt-rotating", issuedAt: expect.any(String), change: issued.body.change });
    expect(JSON.stringify(listed.body)).not.toContain("sha256:");
    expect(await issue("mt-rotating", await tokenHash(generateToken()))).toEqual({ status: 409, body: { error: "metrics token mt-rotating exists: revoke it first, or issue one of another name and revoke this one once scrapers use the new one; nothing changed" } });
    expect(await revoke("mt-rotating")).toEqual({ status: 200, body: { revoked: "mt-rotating", change: expect.any(Number), signers: [await operatorPublicKey(0)] } });
    expect((await scrape(second)).status).toBe(401);
    expect((await scrape(token)).status).toBe(200);
    expect(await revoke("mt-rotating")).toEqual({ status: 404, body: { error: "no metrics token mt-rotating (edgeadmit metrics tokens lists them); nothing changed" } });
    const log = await operatorCall("GET", `/v1/registry/changes?since=${Date.now() - 60_000}`);
    const summaries = (log.body.entries as Array<{ kind: string; summary: string; signers: string[] }>).filter((entry) => entry.kind === "metrics").map((entry) => entry.summary);
    expect(summaries).toEqual(expect.arrayContaining(["issue metrics token mt-rotating", "revoke metrics token mt-rotating"]));
  });

  it("refuses a token change that is not one, changing nothing", async () => {
    expect((await operatorCall("POST", TOKENS, { requestId: crypto.randomUUID(), op: "issue", name: "Bad Name", tokenHash: await tokenHash(generateToken()) })).status).toBe(400);
    expect(await operatorCall("POST", TOKENS, { requestId: crypto.randomUUID(), op: "issue", name: "mt-raw", tokenHash: generateToken() })).toEqual({
      status: 400,
      body: { error: expect.stringContaining("must be sha256:<64 hex digits>, the token's SHA-256 (edgeadmit metrics issue computes it); nothing changed") },
    });
    const listed = await operatorCall("GET", TOKENS);
    expect((listed.body.tokens as Array<{ name: string }>).map((entry) => entry.name)).not.toContain("mt-raw");
  });

  it("forgets a cluster's snapshot when the operator resets it: no generation is exported until its sync job pushes", async () => {
    const reset = await operatorCall("POST", "/v1/registry/clusters/mt-unknown/reset-snapshot", { requestId: crypto.randomUUID() });
    expect(reset).toEqual({ status: 200, body: { cluster: "mt-unknown", dropped: unknown.generation } });
    const found = samples(await textOf(await scrape(token)));
    expect(found.has('edgeadmit_snapshot_generation{cluster="mt-unknown"}')).toBe(false);
    expect(found.get('edgeadmit_snapshot_generation{cluster="mt-gapped"}')).toBe(gapped.generation);
    const overview = await operatorCall("GET", "/v1/registry/overview?after=mt-gapped");
    expect((overview.body.clusters as Array<{ cluster: string }>).find((entry) => entry.cluster === "mt-unknown")).toMatchObject({ snapshot: null, coverage: "unknown" });
  });

  it("a token a leaked operator key issued alone is revoked by the undo of what that key did", async () => {
    const leaked = await generateKeyPair();
    expect((await operatorCall("POST", "/v1/registry/operators", { requestId: crypto.randomUUID(), op: "add", key: leaked.publicKey })).status).toBe(200);
    const since = Date.now();
    const stolen = generateToken();
    expect((await issue("mt-leaked", await tokenHash(stolen), leaked.privateKeyPem)).status).toBe(200);
    expect((await scrape(stolen)).status).toBe(200);
    expect((await operatorCall("POST", "/v1/registry/operators", { requestId: crypto.randomUUID(), op: "revoke", key: leaked.publicKey, since })).status).toBe(200);
    const undo = await operatorCall("POST", "/v1/registry/operators/undo", { requestId: crypto.randomUUID(), keys: [leaked.publicKey], since });
    expect(undo).toEqual({
      status: 200,
      body: { applied: true, steps: [expect.stringMatching(/^undo change \d+ \(.*, metrics\): issue metrics token mt-leaked$/), "revoke metrics token mt-leaked (issued by the revoked key)"], change: expect.any(Number) },
    });
    expect((await scrape(stolen)).status).toBe(401);
    expect((await scrape(token)).status).toBe(200);
  });
});
