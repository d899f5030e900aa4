// Fleet policy sets over HTTP: the operator applies one signed set, the
// function enforces it on the clusters its bindings select by label (and on
// no other), with messages that name the fleet binding; a cluster's settings
// may make it stricter, never weaker; waves move Audit → Deny on `promote`;
// rollback restores a revision; forged, replayed and stale changes store nothing.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import { fleetSetOf } from "../../shared/fleet/index.js";
import { importPrivateKey, signRequest } from "../../shared/signing/index.js";
import { dispatch, objectsFromYaml } from "../support/worker.js";
import { claim, workload } from "../support/judge.js";
import { stringify } from "yaml";
import { operatorHeaders, operatorPublicKey, type Credentials } from "../support/registry.js";
import { currentFleet as current, fleetChange, FLEET_PATH, registered, sendFleet, signedFleet } from "../support/fleet.js";
import { generateKeyPair } from "../../shared/signing/index.js";

/** A Deployment policy: `object` must carry label `key`. */
const requireLabel = (name: string, key: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "has(object.metadata.labels) && '${key}' in object.metadata.labels", message: "every Deployment needs a ${key} label"}`;

const binding = (name: string, policy: string, spec: string) => `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${policy}, ${spec}}`;

const setOf = (...documents: string[]) => fleetSetOf(objectsFromYaml(documents.join("\n---\n")));

const deployment = (labels: Record<string, string> = {}, name = "web") =>
  wrapReview({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace: "shop", labels }, spec: { replicas: 1, template: { spec: { containers: [{ name: "web", image: "nginx" }] } } } });

interface Verdict {
  allowed: boolean;
  status?: { code: number; message: string };
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

async function review(cluster: string, c: Credentials, labels: Record<string, string> = {}, name = "web"): Promise<Verdict> {
  const response = await dispatch(`/v1/${cluster}/validate`, { method: "POST", body: JSON.stringify(deployment(labels, name)), headers: { "content-type": "application/json", authorization: `Bearer ${c.token}` } });
  expect(response.status).toBe(200);
  const { response: verdict } = (await response.json()) as { response: Verdict & { status?: { code: number; message: string; reason?: string } } };
  return {
    allowed: verdict.allowed,
    ...(verdict.status ? { status: { code: verdict.status.code, message: verdict.status.message } } : {}),
    ...(verdict.warnings ? { warnings: verdict.warnings } : {}),
    ...(verdict.auditAnnotations ? { auditAnnotations: verdict.auditAnnotations } : {}),
  };
}

const SETTINGS = (data: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: edgeadmit-settings, namespace: edgeadmit-system}
data: {${data}}`;

const DENIED_TEAM = "ValidatingAdmissionPolicy 'require-team' with binding 'fleet/baseline-team' denied request: every Deployment needs a team label";

let canary: Credentials;
let prod: Credentials;
let weakened: Credentials;
let dev: Credentials;

beforeAll(async () => {
  canary = await registered("fl-canary", { env: "prod", ring: "canary" });
  prod = await registered("fl-prod", { env: "prod" });
  // Tries to switch the fleet's policies off and to weaken them, and makes one stricter.
  weakened = await registered("fl-weak", { env: "prod" }, `apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n${SETTINGS('policy.require-team: "Off", policy.require-owner: Deny, policy.require-cost: Audit')}`);
  dev = await registered("fl-dev", { env: "dev" });
}, 120_000);

describe("a fleet set applied once", () => {
  it("is enforced on the clusters its binding selects, and only there, naming the fleet binding", async () => {
    const result = await fleetChange({ op: "apply", set: setOf(requireLabel("require-team", "team"), binding("baseline-team", "require-team", "clusterSelector: {matchLabels: {env: prod}}, validationActions: [Deny]")) });
    expect(result).toEqual({ status: 200, body: { revision: expect.any(Number), change: "apply", signers: [await operatorPublicKey()] } });
    const denied = { allowed: false, status: { code: 422, message: DENIED_TEAM } };
    expect(await review("fl-canary", canary)).toEqual(denied);
    expect(await review("fl-prod", prod)).toEqual(denied);
    expect(await review("fl-prod", prod, { team: "shop" })).toEqual({ allowed: true });
    expect(await review("fl-dev", dev)).toEqual({ allowed: true });
  });

  it("cannot be weakened by a cluster's settings, which may make it stricter: Warn becomes Deny, never the reverse, and the response says so", async () => {
    await fleetChange({
      op: "apply",
      set: setOf(
        requireLabel("require-team", "team"),
        requireLabel("require-owner", "owner"),
        requireLabel("require-cost", "cost"),
        binding("baseline-team", "require-team", "clusterSelector: {matchLabels: {env: prod}}, validationActions: [Deny]"),
        binding("baseline-owner", "require-owner", "clusterSelector: {matchLabels: {env: prod}}, validationActions: [Warn]"),
        binding("baseline-cost", "require-cost", "clusterSelector: {matchLabels: {env: prod}}, validationActions: [Warn]"),
      ),
    });
    expect(await review("fl-weak", weakened, { cost: "x" })).toEqual({
      allowed: false,
      status: { code: 422, message: "ValidatingAdmissionPolicy 'require-owner' with binding 'fleet/baseline-owner' denied request: every Deployment needs a owner label" },
      auditAnnotations: { "fleet.ignored-settings": "require-team: Off (a cluster cannot weaken a fleet policy)" },
    });
    expect(await review("fl-weak", weakened, { owner: "x" })).toEqual({
      allowed: false,
      status: { code: 422, message: DENIED_TEAM },
      warnings: ["Validation failed for ValidatingAdmissionPolicy 'require-cost' with binding 'fleet/baseline-cost': every Deployment needs a cost label"],
      auditAnnotations: { "fleet.ignored-settings": "require-cost: Audit (a cluster cannot weaken a fleet policy); require-team: Off (a cluster cannot weaken a fleet policy)" },
    });
    expect(await review("fl-prod", prod, { team: "t", cost: "c" })).toEqual({
      allowed: true,
      warnings: ["Validation failed for ValidatingAdmissionPolicy 'require-owner' with binding 'fleet/baseline-owner': every Deployment needs a owner label"],
    });
  });
});

describe("built-in policies' modes from the fleet", () => {
  it("are a floor: the cluster's Off and its own exception do not switch a fleet-enforced built-in policy off", async () => {
    const ownException = `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionException
metadata: {name: mine}
spec:
  policies: [rwo-rollout]
  match:
  - {kinds: [Deployment], names: [web]}`;
    const c = await registered("fl-floor", { env: "prod" }, [stringify(claim("data")), SETTINGS('policy.rwo-rollout: "Off"'), ownException, "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}"].join("\n---\n"));
    const modes = `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyModes
metadata: {name: prod-floors}
spec:
  clusterSelector: {matchLabels: {env: prod}}
  policies: {rwo-rollout: Deny}`;
    expect((await fleetChange({ op: "apply", set: setOf(modes) })).status).toBe(200);
    const body = JSON.stringify(wrapReview(workload({ claims: ["data"] }), { namespace: "shop", operation: "CREATE" }));
    const response = await dispatch("/v1/fl-floor/validate", { method: "POST", body, headers: { "content-type": "application/json", authorization: `Bearer ${c.token}` } });
    const { response: verdict } = (await response.json()) as { response: Verdict };
    expect({ ...verdict, uid: undefined, status: { code: verdict.status?.code, message: verdict.status?.message } }).toEqual({
      uid: undefined,
      allowed: false,
      status: { code: 403, message: "rwo-rollout: deploy/web: surge pod + RWO PVC data: Multi-Attach; use Recreate or maxSurge 0" },
      auditAnnotations: { "fleet.ignored-settings": "rwo-rollout: Off (a cluster cannot weaken a fleet policy); rwo-rollout: its exception (a cluster cannot weaken a fleet policy)" },
    });
  });
});

describe("waves", () => {
  it("roll a binding out Audit on the canary ring first, then Deny everywhere on promote; rollback restores the previous revision", async () => {
    const waves = "clusterSelector: {matchLabels: {env: prod}}, waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: canary}}}, {validationActions: [Deny]}]";
    const first = await fleetChange({ op: "apply", set: setOf(requireLabel("require-owner", "owner"), binding("rollout-owner", "require-owner", waves)) });
    expect(first.status).toBe(200);
    expect(await review("fl-canary", canary)).toEqual({
      allowed: true,
      auditAnnotations: { validation_failure: expect.stringContaining('"binding":"fleet/rollout-owner"') },
    });
    expect(await review("fl-prod", prod)).toEqual({ allowed: true });
    const promoted = await fleetChange({ op: "promote", binding: "rollout-owner" });
    expect(promoted).toEqual({ status: 200, body: { revision: (first.body.revision as number) + 1, change: "promote rollout-owner to wave 1", signers: [await operatorPublicKey()] } });
    const denied = { allowed: false, status: { code: 422, message: "ValidatingAdmissionPolicy 'require-owner' with binding 'fleet/rollout-owner' denied request: every Deployment needs a owner label" } };
    expect(await review("fl-canary", canary)).toEqual(denied);
    expect(await review("fl-prod", prod)).toEqual(denied);
    expect(await fleetChange({ op: "promote", binding: "rollout-owner" })).toEqual({
      status: 409,
      body: { error: "binding rollout-owner has 2 waves (0-1) and is at wave 1: nothing to promote to; nothing changed" },
    });

    const rolledBack = await fleetChange({ op: "rollback", toRevision: first.body.revision });
    expect(rolledBack).toEqual({ status: 200, body: { revision: (first.body.revision as number) + 2, change: `rollback to ${first.body.revision}`, signers: [await operatorPublicKey()] } });
    expect(await current()).toMatchObject({ revision: (first.body.revision as number) + 2, stages: { "rollout-owner": 0 }, change: `rollback to ${first.body.revision}` });
    expect(await review("fl-prod", prod)).toEqual({ allowed: true });
    const history = await dispatch(`${FLEET_PATH}/history`, { headers: await operatorHeaders("GET", `${FLEET_PATH}/history`, new Uint8Array()) });
    const { revisions } = (await history.json()) as { revisions: Array<{ revision: number; change: string; policies: number; bindings: number }> };
    expect(revisions.slice(0, 3).map(({ revision, change, policies, bindings }) => ({ revision, change, policies, bindings }))).toEqual([
      { revision: (first.body.revision as number) + 2, change: `rollback to ${first.body.revision}`, policies: 1, bindings: 1 },
      { revision: (first.body.revision as number) + 1, change: "promote rollout-owner to wave 1", policies: 1, bindings: 1 },
      { revision: first.body.revision, change: "apply", policies: 1, bindings: 1 },
    ]);

    // One kept revision whole, as a rollback to it would restore it (fleet rollback --dry-run compares it with the one in effect).
    const read = async (path: string) => {
      const response = await dispatch(path, { headers: await operatorHeaders("GET", path, new Uint8Array()) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const promotedRevision = (first.body.revision as number) + 1;
    expect(await read(`${FLEET_PATH}/revisions/${promotedRevision}`)).toMatchObject({
      status: 200,
      body: { revision: promotedRevision, stages: { "rollout-owner": 1 }, change: "promote rollout-owner to wave 1", set: { bindings: [{ metadata: { name: "rollout-owner" } }] } },
    });
    expect(await read(`${FLEET_PATH}/revisions/999999`)).toEqual({ status: 404, body: { error: "the fleet keeps no revision 999999 (it keeps the last 100; edgeadmit fleet history lists them)" } });
    expect(await read(`${FLEET_PATH}/revisions/0`)).toEqual({ status: 400, body: { error: "the revision must be a whole number from 1 (edgeadmit fleet history lists those kept)" } });
    const unsigned = await dispatch(`${FLEET_PATH}/revisions/${promotedRevision}`);
    expect(unsigned.status).toBe(401);
  });
});

describe("a fleet change the operator did not make, or that is stale, stores nothing", () => {
  const set = () => setOf(requireLabel("require-team", "team"), binding("baseline-team", "require-team", "clusterSelector: {}, validationActions: [Deny]"));

  it("forged: signed with another key, or altered after signing: 401, 403", async () => {
    const before = await current();
    const stranger = await generateKeyPair();
    const forged = await sendFleet(await signedFleet({ op: "apply", set: set() }, { key: stranger.privateKeyPem }));
    expect(forged.status).toBe(401);
    const signed = await signedFleet({ op: "apply", set: set() });
    const altered = await sendFleet({ ...signed, body: new TextEncoder().encode(new TextDecoder().decode(signed.body).replace("Deny", "Warn")) });
    expect([altered.status, await altered.json()]).toEqual([403, { error: "the body is not the one signed: its SHA-256 differs from x-edgeadmit-content-sha256; nothing changed" }]);
    expect(await current()).toEqual(before);
  });

  it("replayed: the same signed change sent again is refused, 409", async () => {
    const signed = await signedFleet({ op: "apply", set: set() });
    expect((await sendFleet(signed)).status).toBe(200);
    const before = await current();
    const again = await sendFleet(signed);
    expect([again.status, await again.json()]).toEqual([409, { error: "this signed request was already received (the same request, sent again): sign a new one; nothing changed" }]);
    expect(await current()).toEqual(before);
  });

  it("stale: signed too long ago (403), or made against a revision the fleet has moved past (409)", async () => {
    const before = await current();
    const old = await sendFleet(await signedFleet({ op: "apply", set: set() }, { timestamp: Math.floor(Date.now() / 1000) - 600 }));
    expect(old.status).toBe(403);
    expect(await fleetChange({ op: "apply", ifRevision: before.revision - 1, set: set() })).toEqual({
      status: 409,
      body: { error: `the fleet is at revision ${before.revision}, not ${before.revision - 1}: it changed since; run edgeadmit fleet diff again; nothing changed` },
    });
    expect(await current()).toEqual(before);
  });

  it("a set that cannot be applied: 400 naming each problem", async () => {
    const before = await current();
    expect(await fleetChange({ op: "apply", set: setOf(binding("orphan", "missing", "clusterSelector: {}, validationActions: [Deny]"), binding("both", "missing", "clusterSelector: {}")) })).toEqual({
      status: 400,
      body: {
        error:
          "the fleet set cannot be applied: EdgeAdmissionPolicyBinding 'orphan': policy 'missing' is not in the set (a fleet binding binds the fleet's own policies); EdgeAdmissionPolicyBinding 'both': policy 'missing' is not in the set (a fleet binding binds the fleet's own policies); EdgeAdmissionPolicyBinding 'both': give validationActions or waves, one of them; nothing changed",
      },
    });
    expect(await current()).toEqual(before);
  });
});

describe("verdict counts", () => {
  it("count each review once by its verdict, and each policy's result, per cluster: what was sent, no more", async () => {
    const c = await registered("fl-count", { env: "count" });
    const exception = `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionException
metadata: {name: legacy}
spec:
  policies: [require-team]
  match:
  - {kinds: [Deployment], names: [legacy]}`;
    await fleetChange({
      op: "apply",
      set: setOf(
        requireLabel("require-team", "team"),
        requireLabel("require-owner", "owner"),
        binding("count-team", "require-team", "clusterSelector: {matchLabels: {env: count}}, validationActions: [Deny]"),
        binding("count-owner", "require-owner", "clusterSelector: {matchLabels: {env: count}}, validationActions: [Warn]"),
        exception,
      ),
    });
    expect((await review("fl-count", c)).allowed).toBe(false);
    expect((await review("fl-count", c, { owner: "o" })).allowed).toBe(false);
    expect(await review("fl-count", c, { owner: "o", team: "t" })).toEqual({ allowed: true });
    expect((await review("fl-count", c, { team: "t" })).warnings).toHaveLength(1);
    expect((await review("fl-count", c, { owner: "o" }, "legacy")).allowed).toBe(true);
    const garbage = await dispatch("/v1/fl-count/validate", { method: "POST", body: "{}", headers: { "content-type": "application/json", authorization: `Bearer ${c.token}` } });
    expect(garbage.status).toBe(400);

    const path = "/v1/registry/counts?cluster=fl-count&hours=2";
    const response = await dispatch(path, { headers: await operatorHeaders("GET", path, new Uint8Array()) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      hours: 2,
      rows: [
        { cluster: "fl-count", origin: "fleet", policy: "require-owner", outcome: "warn", count: 2 },
        { cluster: "fl-count", origin: "fleet", policy: "require-team", outcome: "deny", count: 2 },
        { cluster: "fl-count", origin: "fleet", policy: "require-team", outcome: "exempted", count: 1 },
        { cluster: "fl-count", origin: "review", policy: "*", outcome: "allow", count: 1 },
        { cluster: "fl-count", origin: "review", policy: "*", outcome: "deny", count: 2 },
        { cluster: "fl-count", origin: "review", policy: "*", outcome: "error", count: 1 },
        // The review whose one finding a fleet exception set aside: allowed, its annotation naming the exception, and no finding (not `audit`).
        { cluster: "fl-count", origin: "review", policy: "*", outcome: "exempted", count: 1 },
        { cluster: "fl-count", origin: "review", policy: "*", outcome: "warn", count: 1 },
      ],
    });
    // Read again: nothing counted twice.
    const again = await dispatch(path, { headers: await operatorHeaders("GET", path, new Uint8Array()) });
    expect(((await again.json()) as { rows: unknown[] }).rows).toHaveLength(8);
  });
});

describe("coverage", () => {
  it("names the fleet policies a cluster's webhook rules do not send the function; unknown until its sync job pushes the rules", async () => {
    const podsOnly = [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "Namespaced" as const }];
    await registered("fl-cover", { env: "cover" }, undefined, { webhookRules: podsOnly });
    await registered("fl-unknown", { env: "cover" });
    await fleetChange({ op: "apply", set: setOf(requireLabel("require-team", "team"), binding("cover-team", "require-team", "clusterSelector: {matchLabels: {env: cover}}, validationActions: [Deny]")) });
    const coverage = async (cluster: string) => {
      const path = `/v1/registry/coverage?cluster=${cluster}`;
      const response = await dispatch(path, { headers: await operatorHeaders("GET", path, new Uint8Array()) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const { revision } = await current();
    expect(await coverage("fl-cover")).toEqual({
      status: 200,
      body: {
        cluster: "fl-cover",
        fleetRevision: revision,
        snapshot: { generation: expect.any(Number), ageSeconds: expect.any(Number) },
        coverage: "known",
        gaps: ["ValidatingAdmissionPolicy 'require-team' matches CREATE deployments.apps/v1"],
        upcoming: [],
      },
    });
    expect((await coverage("fl-unknown")).body).toMatchObject({ coverage: "unknown", gaps: [], upcoming: [] });
    expect(await coverage("fl-nobody")).toEqual({ status: 404, body: { error: "cluster fl-nobody is not registered" } });

    // A policy a later wave binds there: not sent once promoted, then not sent.
    const waves = "clusterSelector: {matchLabels: {env: cover}}, waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: canary}}}, {validationActions: [Deny]}]";
    await fleetChange({ op: "apply", set: setOf(requireLabel("require-owner", "owner"), binding("cover-owner", "require-owner", waves)) });
    const owner = "ValidatingAdmissionPolicy 'require-owner' matches CREATE deployments.apps/v1";
    expect((await coverage("fl-cover")).body).toMatchObject({ gaps: [], upcoming: [owner] });
    await fleetChange({ op: "promote", binding: "cover-owner" });
    expect((await coverage("fl-cover")).body).toMatchObject({ gaps: [owner], upcoming: [] });
  });
});

describe("GET /v1/:cluster/fleet, what the audit judges with", () => {
  it("answers a cluster, signed with its own key, only what the fleet binds there, with its wave's actions; the apiserver's token and another cluster's key are refused", async () => {
    const exception = (name: string, policy: string) => `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionException
metadata: {name: ${name}}
spec:
  policies: [${policy}]
  match:
  - {kinds: [Deployment], names: [legacy]}`;
    const waves = "clusterSelector: {matchLabels: {env: prod}}, waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: canary}}}, {validationActions: [Deny]}]";
    const documents = [
      requireLabel("require-owner", "owner"),
      requireLabel("require-dev", "dev"),
      binding("rollout-owner", "require-owner", waves),
      binding("dev-only", "require-dev", "clusterSelector: {matchLabels: {env: dev}}, validationActions: [Deny]"),
      exception("legacy-owner", "require-owner"),
      exception("legacy-dev", "require-dev"),
      "apiVersion: edgeadmit.io/v1alpha1\nkind: EdgeAdmissionPolicyModes\nmetadata: {name: prod-floors}\nspec: {clusterSelector: {matchLabels: {env: prod}}, policies: {rwo-rollout: Warn}}",
      "apiVersion: edgeadmit.io/v1alpha1\nkind: EdgeAdmissionPolicyModes\nmetadata: {name: dev-floors}\nspec: {clusterSelector: {matchLabels: {env: dev}}, policies: {rwo-rollout: Deny}}",
    ];
    const applied = await fleetChange({ op: "apply", set: setOf(...documents) });
    expect(applied.status).toBe(200);
    const [owner, , , , ownerException, , prodFloors] = documents.map((text) => objectsFromYaml(text)[0]);
    const read = async (cluster: string, headers: Record<string, string>) => {
      const response = await dispatch(`/v1/${cluster}/fleet`, { headers });
      return { status: response.status, body: (await response.json()) as unknown };
    };
    const signed = async (cluster: string, c: Credentials) => signRequest(await importPrivateKey(c.privateKeyPem), "GET", cluster, new Uint8Array(), Math.floor(Date.now() / 1000));
    const ownerBinding = (actions: string[]) => ({ apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name: "rollout-owner" }, spec: { policyName: "require-owner", clusterSelector: {}, validationActions: actions } });
    const prodSet = (actions: string[]) => ({
      policies: [owner],
      bindings: [ownerBinding(actions)],
      params: [],
      modes: [{ ...(prodFloors as Record<string, unknown>), spec: { clusterSelector: {}, policies: { "rwo-rollout": "Warn" } } }],
      exceptions: [ownerException],
    });
    expect(await read("fl-canary", await signed("fl-canary", canary))).toEqual({ status: 200, body: { cluster: "fl-canary", revision: applied.body.revision, set: prodSet(["Audit"]) } });
    // fl-prod is in no wave yet (the binding selects it, wave 0 does not): only its modes floor, and no exception to a policy it does not get.
    expect(await read("fl-prod", await signed("fl-prod", prod))).toEqual({
      status: 200,
      body: { cluster: "fl-prod", revision: applied.body.revision, set: { ...prodSet([]), policies: [], bindings: [], exceptions: [] } },
    });
    const promoted = await fleetChange({ op: "promote", binding: "rollout-owner" });
    expect(await read("fl-prod", await signed("fl-prod", prod))).toEqual({ status: 200, body: { cluster: "fl-prod", revision: promoted.body.revision, set: prodSet(["Deny"]) } });

    const refused = { status: 401, body: { error: "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)" } };
    expect(await read("fl-canary", { authorization: `Bearer ${canary.token}` })).toEqual(refused);
    // Signed by fl-prod's key for fl-canary: the signature names the cluster, fl-prod's key is not fl-canary's.
    expect(await read("fl-canary", await signRequest(await importPrivateKey(prod.privateKeyPem), "GET", "fl-canary", new Uint8Array(), Math.floor(Date.now() / 1000)))).toEqual(refused);
    expect(await read("fl-prod", await signed("fl-canary", canary))).toEqual(refused);
  });
});

describe("automatic wave promotion (promoteAfter)", () => {
  it("moves a binding to its next wave once its wave was in effect that long, unless the policy counted a finding on the wave's clusters", async () => {
    const erring = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: erring}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "object.spec.noSuchField == 1", message: "never"}`;
    // The erring policy counts a finding on the canary first: its evaluation error, under failurePolicy Fail, is a violation (Audit here); the read flushes the counts.
    expect((await fleetChange({ op: "apply", set: setOf(erring, binding("erring-now", "erring", "clusterSelector: {matchLabels: {ring: canary}}, validationActions: [Audit]")) })).status).toBe(200);
    await review("fl-canary", canary, { owner: "x" });
    // This hour and the one before: the review and the read may fall on either side of an hour.
    const countsPath = "/v1/registry/counts?cluster=fl-canary&hours=2";
    const erringCounts = async () => {
      const counts = (await (await dispatch(countsPath, { headers: await operatorHeaders("GET", countsPath, new Uint8Array()) })).json()) as { rows: Array<{ origin: string; policy: string; outcome: string; count: number }> };
      return counts.rows.filter((row) => row.origin === "fleet" && row.policy === "erring");
    };
    expect(await erringCounts()).toEqual([{ cluster: "fl-canary", origin: "fleet", policy: "erring", outcome: "audit", count: 1 }]);

    const waves = (after: string) => `clusterSelector: {matchLabels: {env: prod}}, waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: canary}}, promoteAfter: ${after}}, {validationActions: [Deny]}]`;
    const applied = await fleetChange({ op: "apply", set: setOf(requireLabel("require-tier", "tier"), erring, binding("auto-tier", "require-tier", waves("1s")), binding("auto-erring", "erring", waves("1s"))) });
    expect(applied.status).toBe(200);
    // A finding in wave 0 after the wave began, which promoteDue counts whatever the hour (the one above may fall in the hour before the wave's); with a tier, so require-tier finds nothing.
    await review("fl-canary", canary, { owner: "x", tier: "t" });
    expect(await erringCounts()).toEqual([{ cluster: "fl-canary", origin: "fleet", policy: "erring", outcome: "audit", count: 2 }]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The next read of the fleet promotes auto-tier (nothing found on fl-canary) and holds auto-erring (a finding on fl-canary, in wave 0, since the hour it began).
    expect(await current()).toMatchObject({
      revision: (applied.body.revision as number) + 1,
      stages: { "auto-tier": 1, "auto-erring": 0 },
      change: "promote auto-tier to wave 1 (automatic: 1s in wave 0 without a finding)",
    });
    // Read again: nothing more to promote, no new revision.
    expect((await current()).revision).toBe((applied.body.revision as number) + 1);
  });

  it("logs each cluster it makes enforce a policy whose pushed webhook rules do not send it", async () => {
    const podsOnly = [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "Namespaced" as const }];
    await registered("fl-auto-gap", { env: "auto" }, undefined, { webhookRules: podsOnly });
    await registered("fl-auto-sent", { env: "auto" }, undefined, { webhookRules: [{ ...podsOnly[0]!, apiGroups: ["apps"], resources: ["deployments"] }] });
    await registered("fl-auto-unknown", { env: "auto" });
    const waves = "clusterSelector: {matchLabels: {env: auto}}, waves: [{validationActions: [Audit], clusterSelector: {matchLabels: {ring: none}}, promoteAfter: 1s}, {validationActions: [Deny]}]";
    const applied = await fleetChange({ op: "apply", set: setOf(requireLabel("require-auto", "auto"), binding("auto-gap", "require-auto", waves)) });
    expect(applied.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const lines = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(await current()).toMatchObject({ revision: (applied.body.revision as number) + 1, stages: { "auto-gap": 1 } });
      const change = "promote auto-gap to wave 1 (automatic: 1s in wave 0 without a finding)";
      expect(lines.mock.calls.map(([line]) => JSON.parse(String(line)) as unknown).filter((line) => (line as { event: string }).event === "fleet-coverage")).toEqual([
        {
          level: "warn",
          event: "fleet-coverage",
          change,
          cluster: "fl-auto-gap",
          missing: ["ValidatingAdmissionPolicy 'require-auto' matches CREATE deployments.apps/v1"],
          reason: "its webhook rules miss what the policy now enforced there matches: render edgeadmit webhook-config --operator-key again and apply it",
        },
        { level: "warn", event: "fleet-coverage", change, clusters: ["fl-auto-unknown"], reason: "coverage unknown: their sync jobs pushed no webhook rules (edgeadmit fleet status)" },
      ]);
    } finally {
      lines.mockRestore();
    }
  });

  it("is refused on a binding's last wave, which has nowhere to go, and for a duration it cannot read", async () => {
    const last = await fleetChange({ op: "apply", set: setOf(requireLabel("require-owner", "owner"), binding("auto-owner", "require-owner", "clusterSelector: {}, waves: [{validationActions: [Audit]}, {validationActions: [Deny], promoteAfter: 1h}]")) });
    expect(last).toEqual({ status: 400, body: { error: "the fleet set cannot be applied: EdgeAdmissionPolicyBinding 'auto-owner': its last wave has promoteAfter, but there is no wave to promote to; nothing changed" } });
    const unreadable = await fleetChange({ op: "apply", set: setOf(requireLabel("require-owner", "owner"), binding("auto-owner", "require-owner", "clusterSelector: {}, waves: [{validationActions: [Audit], promoteAfter: 1 week}, {validationActions: [Deny]}]")) });
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.error).toContain("promoteAfter: must be a duration: a whole number and s, m, h or d (90s, 30m, 24h, 7d)");
  });
});
