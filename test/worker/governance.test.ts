// What one operator key did, on record and undone: every registry change and
// fleet revision names the keys that signed it, operator keys are added and
// revoked in the registry without a deploy, and revoking a key that did harm
// is one step, its undo another (shared/governance). With the default
// threshold of 1 (test/worker-threshold holds a threshold of 2), the issue's
// scenario of a leaked key: it can add its own token, but not read a
// cluster's params through a fleet policy, and what it did is undone.
import { describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import maxReplicasYaml from "../../examples/fleet/max-replicas.yaml?raw";
import { fleetSetOf } from "../../shared/fleet/index.js";
import { generateKeyPair, importPrivateKey, signRequest } from "../../shared/signing/index.js";
import { applied, credentials, operatorHeaders, operatorPublicKey, reviewStatus, type Credentials } from "../support/registry.js";
import { dispatch, fullPushBodies, objectsFromYaml, snapshotOf } from "../support/worker.js";

type Answer = { status: number; body: Record<string, unknown> };

/** A signed operator request, by `pem` (OPERATOR_KEYS' first key unless said). */
async function operatorCall(method: "GET" | "POST", path: string, body?: unknown, pem?: string): Promise<Answer> {
  const bytes = method === "POST" ? new TextEncoder().encode(JSON.stringify({ requestId: crypto.randomUUID(), ...(body as object) })) : new Uint8Array();
  const headers = await operatorHeaders(method, path, bytes, pem ? { key: pem } : {});
  const response = await dispatch(path, { method, ...(method === "POST" ? { body: bytes } : {}), headers: { ...headers, "content-type": "application/json" } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function registered(id: string): Promise<Credentials> {
  const c = await credentials();
  await applied([{ op: "add", cluster: id, registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash], withoutSnapshot: "FailClosed" } }]);
  const key = await importPrivateKey(c.privateKeyPem);
  for (const text of await fullPushBodies(snapshotOf(objectsFromYaml(demoYaml)))) {
    const bytes = new TextEncoder().encode(text);
    expect((await dispatch(`/v1/${id}/snapshot`, { method: "PUT", body: bytes, headers: await signRequest(key, "PUT", id, bytes, Math.floor(Date.now() / 1000)) })).status).toBe(200);
  }
  return c;
}

/** A fleet policy reading a cluster's ConfigMaps as params, printing them in its message: the exfiltration. */
const READ_PARAMS = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: read-params}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "false"
    messageExpression: "'PARAMS ' + params.data.map(k, k + '=' + params.data[k]).join(',')"
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: read-params}
spec:
  policyName: read-params
  paramRef: {name: app-config, namespace: tenant-acme, parameterNotFoundAction: Deny}
  clusterSelector: {}
  validationActions: [Deny]`;

describe("operator keys in the registry, and what one of them did", () => {
  it("records every change with its signer, and the log filters by key and cluster", async () => {
    const c = await credentials();
    const added = await applied([{ op: "add", cluster: "gov-logged", registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash] } }]);
    await applied([{ op: "label", cluster: "gov-logged", set: { ring: "canary" } }]);
    const log = await operatorCall("GET", "/v1/registry/changes?cluster=gov-logged");
    expect(log).toEqual({
      status: 200,
      body: {
        entries: [
          expect.objectContaining({ seq: added.change, kind: "registry", summary: "add gov-logged", clusters: ["gov-logged"], signers: [await operatorPublicKey()], registryRevision: added.revision }),
          expect.objectContaining({ kind: "registry", summary: "label gov-logged", clusters: ["gov-logged"], signers: [await operatorPublicKey()] }),
        ],
      },
    });
    const byOther = await operatorCall("GET", `/v1/registry/changes?cluster=gov-logged&key=${encodeURIComponent(await operatorPublicKey(1))}`);
    expect(byOther).toEqual({ status: 200, body: { entries: [] } });
    expect(await operatorCall("GET", "/v1/registry/changes?since=soon")).toEqual({ status: 400, body: { error: "key, cluster, since, until (ms), after and limit (1-1000) select the change log" } });
  });

  it("a leaked key added in the registry: it adds its own token to a cluster, cannot read the cluster's params through the fleet, and revoking and undoing it takes back what it did", async () => {
    const victim = await registered("gov-victim");
    const leaked = await generateKeyPair();
    expect((await operatorCall("POST", "/v1/registry/operators", { op: "add", key: leaked.publicKey })).status).toBe(200);
    const before = await operatorCall("GET", "/v1/registry/fleet");
    const since = Date.now();

    // The leaked key's steps: its own token on the victim (a threshold of 1 lets it)...
    const attacker = await credentials();
    const rotate = await operatorCall("POST", "/v1/registry/clusters", { changes: [{ op: "rotate", cluster: "gov-victim", addTokenHashes: [attacker.tokenHash] }] }, leaked.privateKeyPem);
    expect(rotate.status).toBe(200);
    expect(await reviewStatus("gov-victim", attacker.token)).toBe(200);
    // ...but a fleet policy reading the cluster's own params is refused at apply, naming it; nothing changed.
    const exfiltrate = await operatorCall("POST", "/v1/registry/fleet", { op: "apply", set: fleetSetOf(objectsFromYaml(READ_PARAMS)) }, leaked.privateKeyPem);
    expect(exfiltrate).toEqual({
      status: 400,
      body: {
        error:
          "the fleet set cannot be applied: ValidatingAdmissionPolicy 'read-params': its paramKind v1 ConfigMap has no object in the set: a fleet policy reads its params from the fleet set only, never a cluster's; nothing changed",
      },
    });
    expect((await operatorCall("GET", "/v1/registry/fleet")).body.revision).toBe(before.body.revision);
    // A set it may apply: the fleet's max-replicas, as a revision only it signed.
    const fleet = await operatorCall("POST", "/v1/registry/fleet", { op: "apply", set: fleetSetOf(objectsFromYaml(maxReplicasYaml)) }, leaked.privateKeyPem);
    expect(fleet).toMatchObject({ status: 200, body: { signers: [leaked.publicKey] } });

    // Revoked by another key: at once, with what it signed since.
    const revoke = await operatorCall("POST", "/v1/registry/operators", { op: "revoke", key: leaked.publicKey, since });
    expect(revoke).toEqual({
      status: 200,
      body: {
        revoked: leaked.publicKey,
        change: expect.any(Number),
        signed: [
          expect.objectContaining({ kind: "registry", summary: "rotate gov-victim", signers: [leaked.publicKey] }),
          expect.objectContaining({ kind: "fleet", summary: "apply", signers: [leaked.publicKey], fleetRevision: fleet.body.revision }),
        ],
      },
    });
    expect((await operatorCall("GET", "/v1/registry/fleet", undefined, leaked.privateKeyPem)).status).toBe(401);

    // The undo, shown first, then applied in one step by one trusted key.
    const plan = await operatorCall("POST", "/v1/registry/operators/undo", { keys: [leaked.publicKey], since, dryRun: true });
    expect(plan).toEqual({
      status: 200,
      body: {
        applied: false,
        steps: [
          expect.stringMatching(/^undo change \d+ \(.*, registry\): rotate gov-victim$/),
          expect.stringMatching(/^undo change \d+ \(.*, fleet\): apply$/),
          "restore cluster gov-victim's registration as it was before",
          (before.body.revision as number) === 0 ? "remove the fleet set (no revision before it was signed by a key still trusted)" : `roll the fleet back to revision ${before.body.revision}`,
        ],
      },
    });
    expect(await reviewStatus("gov-victim", attacker.token)).toBe(200);
    const undo = await operatorCall("POST", "/v1/registry/operators/undo", { keys: [leaked.publicKey], since });
    expect(undo).toEqual({ status: 200, body: { applied: true, steps: plan.body.steps, change: expect.any(Number) } });
    expect(await reviewStatus("gov-victim", attacker.token)).toBe(401);
    expect(await reviewStatus("gov-victim", victim.token)).toBe(200);
    const empty = { policies: [], bindings: [], params: [], modes: [], exceptions: [] };
    const after = (await operatorCall("GET", "/v1/registry/fleet")).body as { revision: number; set?: unknown };
    expect(after.set ?? empty).toEqual(before.body.set ?? empty);
    const history = await operatorCall("GET", "/v1/registry/fleet/history");
    expect((history.body.revisions as Array<{ revision: number; signers: string[] }>)[0]).toMatchObject({ revision: after.revision, signers: [await operatorPublicKey()] });
  });

  it("an empty fleet set, which would remove every fleet policy everywhere, is applied only when asked for by name", async () => {
    const empty = { policies: [], bindings: [], params: [], modes: [], exceptions: [] };
    const before = await operatorCall("GET", "/v1/registry/fleet");
    expect(await operatorCall("POST", "/v1/registry/fleet", { op: "apply", set: empty })).toEqual({
      status: 400,
      body: { error: "the fleet set is empty: applied, it would remove every fleet policy from every cluster; send allowEmpty (edgeadmit fleet apply --allow-empty) if that is meant; nothing changed" },
    });
    expect((await operatorCall("GET", "/v1/registry/fleet")).body.revision).toBe(before.body.revision);
  });

  it("a key that was revoked is not trusted again, and an unknown key gets the generic 401", async () => {
    const once = await generateKeyPair();
    expect((await operatorCall("POST", "/v1/registry/operators", { op: "add", key: once.publicKey })).status).toBe(200);
    expect((await operatorCall("POST", "/v1/registry/operators", { op: "revoke", key: once.publicKey })).status).toBe(200);
    expect(await operatorCall("POST", "/v1/registry/operators", { op: "add", key: once.publicKey })).toEqual({
      status: 409,
      body: { error: "that key was revoked: a revoked key is not trusted again; make a new one (edgeadmit operator keygen); nothing changed" },
    });
    const stranger = await generateKeyPair();
    expect((await operatorCall("GET", "/v1/registry/changes", undefined, stranger.privateKeyPem)).status).toBe(401);
  });
});
