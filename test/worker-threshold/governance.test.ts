// One operator key alone cannot change what clusters admit or reveal: the
// function deployed with OPERATOR_THRESHOLD=2 (vitest.config.ts,
// worker-threshold) applies a change that widens access or changes
// enforcement only once two distinct trusted keys signed it (TUF's threshold
// of a role's keys), while a narrowing change an incident needs (a revoked
// token, a tighter stance, a reset, a revoked key) takes one. Over HTTP in
// workerd, every refusal checked to change nothing.
import { describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { importPrivateKey, publicKeyOf, signRequest } from "../../shared/signing/index.js";
import { applied, change, credentials, list, operatorHeaders, operatorKeys, operatorPublicKey, REGISTRY_PATH, reviewStatus, type Credentials } from "../support/registry.js";
import { dispatch, fullPushBodies, objectsFromYaml, snapshotOf } from "../support/worker.js";

const demoObjects = objectsFromYaml(demoYaml);
type Answer = { status: number; body: Record<string, unknown> };

async function answerOf(response: Response): Promise<Answer> {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A signed operator request to `path`, by operator key `key` (0-2). */
async function operatorCall(method: "GET" | "POST", path: string, body: unknown, key = 0, headers: Record<string, string> = {}): Promise<Answer> {
  const bytes = method === "POST" ? new TextEncoder().encode(JSON.stringify(body)) : new Uint8Array();
  const signed = await operatorHeaders(method, path, bytes, { key: operatorKeys()[key] });
  return answerOf(await dispatch(path, { method, ...(method === "POST" ? { body: bytes } : {}), headers: { ...signed, "content-type": "application/json", ...headers } }));
}

const approve = (id: string, key: number) => operatorCall("POST", `/v1/registry/proposals/${id}/approve`, { requestId: crypto.randomUUID() }, key);
const registryChange = async (changes: unknown, key = 0) => answerOf(await change(changes, { key: operatorKeys()[key] }));

/** What a proposal of `widens`, proposed by key 0 and waiting for one more, answers. */
const proposed = async (widens: string[]) => ({
  status: 202,
  body: {
    proposal: expect.objectContaining({ widens, proposer: await operatorPublicKey(0), approvals: [await operatorPublicKey(0)], threshold: 2, needs: 1, state: "open" }),
    message: expect.stringMatching(new RegExp(`^proposed as [0-9a-f-]{36}: it ${widens.join("; ").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, which needs 2 operator keys; 1 more must approve \\(edgeadmit approve [0-9a-f-]{36}\\) before \\d{4}-`)),
  },
});

/** A cluster registered by two keys, with the demo's snapshot pushed: what the tests change. */
async function registered(id: string): Promise<Credentials> {
  const c = await credentials();
  const first = await registryChange([{ op: "add", cluster: id, registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash], withoutSnapshot: "FailClosed" } }]);
  expect(first.status).toBe(202);
  const done = await approve((first.body.proposal as { id: string }).id, 1);
  expect(done.status).toBe(200);
  const key = await importPrivateKey(c.privateKeyPem);
  for (const text of await fullPushBodies(snapshotOf(demoObjects))) {
    const bytes = new TextEncoder().encode(text);
    const response = await dispatch(`/v1/${id}/snapshot`, { method: "PUT", body: bytes, headers: await signRequest(key, "PUT", id, bytes, Math.floor(Date.now() / 1000)) });
    expect(response.status).toBe(200);
  }
  return c;
}

describe("with a threshold of two operator keys", () => {
  it("registering a cluster is proposed by one key and applies when a second approves: signed by both, on record", async () => {
    const c = await credentials();
    const first = await registryChange([{ op: "add", cluster: "th-add", registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash] } }]);
    expect(first).toEqual(await proposed(["registers cluster th-add"]));
    const id = (first.body.proposal as { id: string }).id;
    // Nothing changed yet: the cluster is unknown to its apiserver's token.
    expect(await reviewStatus("th-add", c.token)).toBe(401);
    expect((await list()).clusters.some((entry) => entry.cluster === "th-add")).toBe(false);
    // The proposer approving again is still one key.
    expect(await approve(id, 0)).toEqual(await proposed(["registers cluster th-add"]));
    const second = await approve(id, 1);
    expect(second).toEqual({ status: 200, body: { applied: id, change: expect.any(Number), signers: [await operatorPublicKey(0), await operatorPublicKey(1)], revision: expect.any(Number) } });
    expect(await reviewStatus("th-add", c.token)).toBe(200);
    const log = await operatorCall("GET", `/v1/registry/changes?cluster=th-add`, undefined);
    expect(log.body.entries).toEqual([
      expect.objectContaining({ seq: second.body.change, kind: "registry", summary: "add th-add", clusters: ["th-add"], signers: [await operatorPublicKey(0), await operatorPublicKey(1)] }),
    ]);
    expect(await approve(id, 2)).toEqual({ status: 409, body: { error: `proposal ${id} is applied: change ${second.body.change}; nothing changed` } });
  });

  it("one leaked key cannot add its own token to a cluster or replace the fleet set: both wait for a second key, and nothing is served meanwhile", async () => {
    const victim = await registered("th-victim");
    const attacker = await credentials();
    const token = await registryChange([{ op: "rotate", cluster: "th-victim", addTokenHashes: [attacker.tokenHash] }]);
    expect(token).toEqual(await proposed(["adds a token hash on cluster th-victim"]));
    expect(await reviewStatus("th-victim", attacker.token)).toBe(401);
    expect(await reviewStatus("th-victim", victim.token)).toBe(200);
    const set = { policies: [], bindings: [], params: [], modes: [], exceptions: [] };
    const fleet = await operatorCall("POST", "/v1/registry/fleet", { requestId: crypto.randomUUID(), op: "apply", set, allowEmpty: true });
    expect(fleet).toEqual(await proposed(["replaces the fleet policy set"]));
    expect((await operatorCall("GET", "/v1/registry/fleet", undefined)).body).toEqual({ revision: 0 });
  });

  it("a narrowing change takes one key, at once: a token revoked, the stance tightened", async () => {
    const c = await registered("th-narrow");
    const spare = await credentials();
    const widened = await registryChange([{ op: "rotate", cluster: "th-narrow", addTokenHashes: [spare.tokenHash] }]);
    expect((await approve((widened.body.proposal as { id: string }).id, 1)).status).toBe(200);
    const narrowed = await registryChange([{ op: "rotate", cluster: "th-narrow", removeTokenHashes: [spare.tokenHash], withoutSnapshot: "FailClosed", maxAgeSeconds: 600 }]);
    expect(narrowed).toMatchObject({ status: 200, body: { signers: [await operatorPublicKey(0)] } });
    expect(await reviewStatus("th-narrow", spare.token)).toBe(401);
    expect(await reviewStatus("th-narrow", c.token)).toBe(200);
  });

  it("a CLI of 0.1.0, which knows no proposals, is told what the change needs instead; nothing changed", async () => {
    const c = await credentials();
    const body = new TextEncoder().encode(JSON.stringify({ requestId: crypto.randomUUID(), changes: [{ op: "add", cluster: "th-old-cli", registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash] } }] }));
    const headers = await signRequest(await importPrivateKey(operatorKeys()[0]), "POST", REGISTRY_PATH, body, Math.floor(Date.now() / 1000), "operator");
    const answer = await answerOf(await dispatch(REGISTRY_PATH, { method: "POST", body, headers: { ...headers, "content-type": "application/json" } }));
    expect(answer).toEqual({
      status: 409,
      body: { error: "this change registers cluster th-old-cli, which needs 2 operator keys: propose it with edgeadmit 0.2.0 or later, and approve it with others (edgeadmit approve); nothing changed" },
    });
    expect(await reviewStatus("th-old-cli", c.token)).toBe(401);
  });

  it("a proposal that could not apply now is refused at once, not kept", async () => {
    const refused = await registryChange([{ op: "rotate", cluster: "th-nobody", addTokenHashes: [(await credentials()).tokenHash] }]);
    expect(refused).toEqual({ status: 404, body: { error: "cluster th-nobody is not in the registry; nothing changed" } });
  });

  it("revoking a key takes one key and stops it at once, root keys included: its proposals lapse, its approvals stop counting, its signatures are refused", async () => {
    const c = await credentials();
    const byRevoked = await registryChange([{ op: "add", cluster: "th-revoked", registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash] } }], 2);
    const id = (byRevoked.body.proposal as { id: string }).id;
    const revoked = await publicKeyOf(operatorKeys()[2]);
    const revoke = await operatorCall("POST", "/v1/registry/operators", { requestId: crypto.randomUUID(), op: "revoke", key: revoked });
    expect(revoke).toEqual({
      status: 200,
      body: { revoked, change: expect.any(Number), signed: [] },
    });
    // Refused at once, reads too: the generic 401 of any key the function does not trust.
    expect((await operatorCall("GET", REGISTRY_PATH, undefined, 2)).status).toBe(401);
    expect(await approve(id, 0)).toEqual({ status: 409, body: { error: `proposal ${id} is cancelled: its proposer's key was revoked; nothing changed` } });
    const keys = await operatorCall("GET", "/v1/registry/operators", undefined);
    expect(keys.body).toMatchObject({ threshold: 2, revoked: [revoked] });
    expect(keys.body.root).toContainEqual({ key: revoked, revoked: true });
  });
});
