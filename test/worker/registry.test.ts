// The cluster registry over HTTP: the operator registers, rotates and removes
// clusters with signed changes, and the function serves them at once, no
// deploy. Forged, replayed and stale changes are refused and change nothing.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { generateToken } from "../../shared/tokens/index.js";
import { bearer, dispatch, sign } from "../support/worker.js";
import {
  applied,
  change,
  credentials,
  list,
  listed,
  operatorHeaders,
  operatorKeys,
  REGISTRY_PATH,
  reviewStatus,
  send,
  signedChange,
  signedReadStatus,
  type Credentials,
  operatorPublicKey,
} from "../support/registry.js";

const GENERIC = { error: "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)" };

async function answer(response: Response) {
  return { status: response.status, body: (await response.json()) as unknown, challenge: response.headers.get("www-authenticate") };
}
const refused = { status: 401, body: GENERIC, challenge: 'Bearer realm="edgeadmit"' };

const registration = (c: Credentials, extra: Record<string, unknown> = {}) => ({ publicKey: c.publicKey, tokenHashes: [c.tokenHash], ...extra });
const add = (cluster: string, c: Credentials, extra: Record<string, unknown> = {}) => ({ op: "add", cluster, registration: registration(c, extra) });

/** What the outside sees of `cluster`: its apiserver's review and its sync job's signed read with `c`'s credentials. */
async function served(cluster: string, c: Credentials) {
  return { review: await reviewStatus(cluster, c.token), read: await signedReadStatus(cluster, c.privateKeyPem) };
}
const SERVED = { review: 200, read: 404 };
const REFUSED = { review: 401, read: 401 };

describe("registering a cluster", () => {
  it("serves it at once: its apiserver's token and its sync job's key are accepted, and list shows it", async () => {
    const c = await credentials();
    expect(await served("fleet-add", c)).toEqual(REFUSED);
    const result = await applied([add("fleet-add", c, { withoutSnapshot: "FailClosed" })]);
    // Recorded with its signer: the change log's entry, and the operator key that signed it.
    expect(result).toEqual({ revision: expect.any(Number), applied: [{ op: "add", cluster: "fleet-add", revision: result.revision }], change: expect.any(Number), signers: [await operatorPublicKey()] });
    expect(await served("fleet-add", c)).toEqual(SERVED);
    expect(await listed("fleet-add")).toEqual({
      cluster: "fleet-add",
      revision: result.revision,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      publicKey: [c.publicKey],
      tokenHashes: [c.tokenHash],
      withoutSnapshot: "FailClosed",
      maxAgeSeconds: 86_400,
      // The signed read above, as a sync job that names no release (0.1.0 or older) makes it.
      lastSync: { release: null, verb: null, commit: null, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
  });

  it("refuses to register an id twice, and a registration the function could not use", async () => {
    const c = await credentials();
    await applied([add("fleet-twice", c)]);
    const again = await change([add("fleet-twice", await credentials())]);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/^cluster fleet-twice is already registered \(revision \d+\): rotate or remove it; nothing changed$/);
    expect(await served("fleet-twice", c)).toEqual(SERVED);
    const cases: Array<[unknown, string]> = [
      [[{ op: "add", cluster: "fleet-bad", registration: { publicKey: c.publicKey } }], "no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach; nothing changed"],
      [[{ op: "add", cluster: "fleet-bad", registration: { publicKey: "ed25519:AAAA", tokenHashes: [c.tokenHash] } }], 'publicKey: public key must be "ed25519:" followed by the base64 of 32 bytes; nothing changed'],
      [[{ op: "add", cluster: "Fleet_Bad", registration: registration(c) }], "registry change does not fit: changes.0.cluster: must be lowercase letters, digits and '-', starting and ending with a letter or digit; nothing changed"],
      [[{ op: "rotate", cluster: "fleet-bad" }], "a rotate must add or remove a key or token hash, or set withoutSnapshot, anonymous or maxAgeSeconds; nothing changed"],
      [[], "registry change does not fit: changes: Too small: expected array to have >=1 items; nothing changed"],
      // The operator's limit on a snapshot's age has a documented maximum.
      [[add("fleet-bad", c, { maxAgeSeconds: 1e15 })], "registry change does not fit: changes.0.registration.maxAgeSeconds: must be at most 604800 seconds (7 days); nothing changed"],
    ];
    for (const [changes, error] of cases) expect(await answer(await change(changes))).toEqual({ status: 400, body: { error }, challenge: null });
    expect(await listed("fleet-bad")).toBeUndefined();
  });

  it("applies the changes of one request all or none", async () => {
    const [a, b] = [await credentials(), await credentials()];
    const response = await change([add("fleet-batch-a", a), { op: "remove", cluster: "fleet-batch-missing" }, add("fleet-batch-b", b)]);
    expect(await answer(response)).toEqual({ status: 404, body: { error: "change 2 (remove fleet-batch-missing): cluster fleet-batch-missing is not in the registry; nothing changed" }, challenge: null });
    expect(await served("fleet-batch-a", a)).toEqual(REFUSED);
    const ok = await applied([add("fleet-batch-a", a), add("fleet-batch-b", b)]);
    expect(ok.applied).toHaveLength(2);
    expect(await served("fleet-batch-b", b)).toEqual(SERVED);
  });
});

describe("rotating a cluster's credentials", () => {
  it("accepts the old and the new token and key while both are registered, then only the new", async () => {
    const [old, next] = [await credentials(), await credentials()];
    await applied([add("fleet-rotate", old)]);
    const both = await applied([{ op: "rotate", cluster: "fleet-rotate", addPublicKeys: [next.publicKey], addTokenHashes: [next.tokenHash] }]);
    expect(await served("fleet-rotate", old)).toEqual(SERVED);
    expect(await served("fleet-rotate", next)).toEqual(SERVED);
    expect(await listed("fleet-rotate")).toMatchObject({ revision: both.revision, publicKey: [old.publicKey, next.publicKey], tokenHashes: [old.tokenHash, next.tokenHash] });
    await applied([{ op: "rotate", cluster: "fleet-rotate", removePublicKeys: [old.publicKey], removeTokenHashes: [old.tokenHash], ifRevision: both.revision }]);
    expect(await served("fleet-rotate", old)).toEqual(REFUSED);
    expect(await served("fleet-rotate", next)).toEqual(SERVED);
  });

  it("refuses a rotate against a registration that changed since (ifRevision), or that would leave no key or credential", async () => {
    const c = await credentials();
    const first = await applied([add("fleet-cas", c)]);
    await applied([{ op: "rotate", cluster: "fleet-cas", withoutSnapshot: "FailClosed" }]);
    const before = await listed("fleet-cas");
    const stale = await change([{ op: "rotate", cluster: "fleet-cas", addTokenHashes: [(await credentials()).tokenHash], ifRevision: first.revision }]);
    expect(await answer(stale)).toEqual({
      status: 409,
      body: { error: `cluster fleet-cas is at revision ${before!.revision}, not ${first.revision}: it changed since; list it again; nothing changed` },
      challenge: null,
    });
    for (const [rotation, error] of [
      [{ removePublicKeys: [c.publicKey] }, "cluster fleet-cas would have no signing key left: add the new one in the same rotate"],
      [{ removeTokenHashes: [c.tokenHash] }, "cluster fleet-cas would be left with no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach"],
      [{ addTokenHashes: [c.tokenHash] }, `cluster fleet-cas already has token hash ${c.tokenHash}`],
      [{ removePublicKeys: [(await generateKeyPair()).publicKey] }, /^cluster fleet-cas has no signing key ed25519:/],
    ] as const) {
      const response = await change([{ op: "rotate", cluster: "fleet-cas", ...rotation }]);
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: string }).error).toMatch(typeof error === "string" ? `${error}; nothing changed` : error);
    }
    expect(await listed("fleet-cas")).toEqual(before);
    expect(await served("fleet-cas", c)).toEqual(SERVED);
  });
});

describe("labelling a cluster", () => {
  it("stores labels with the registration, sets and removes them as kubectl label does, and keeps them through a rotate", async () => {
    const c = await credentials();
    await applied([add("fleet-labels", c, { labels: { env: "prod", ring: "canary" } })]);
    expect(await listed("fleet-labels")).toMatchObject({ labels: { env: "prod", ring: "canary" } });
    const relabeled = await applied([{ op: "label", cluster: "fleet-labels", set: { ring: "main", tier: "tenant" }, remove: ["env"] }]);
    expect(await listed("fleet-labels")).toMatchObject({ revision: relabeled.revision, labels: { ring: "main", tier: "tenant" } });
    await applied([{ op: "rotate", cluster: "fleet-labels", withoutSnapshot: "FailClosed" }]);
    expect(await listed("fleet-labels")).toMatchObject({ withoutSnapshot: "FailClosed", labels: { ring: "main", tier: "tenant" } });
    // Removing a label the cluster lacks is no error and the rest applies, as in kubectl label (RunLabel, k8s.io/kubectl pkg/cmd/label/label.go); the answer names it.
    const partly = await applied([{ op: "label", cluster: "fleet-labels", set: { zone: "a" }, remove: ["legacy"] }]);
    expect(partly.applied).toEqual([{ op: "label", cluster: "fleet-labels", revision: partly.revision, absentLabels: ["legacy"] }]);
    expect(await listed("fleet-labels")).toMatchObject({ revision: partly.revision, labels: { ring: "main", tier: "tenant", zone: "a" } });
    await applied([{ op: "label", cluster: "fleet-labels", remove: ["ring", "tier", "zone"] }]);
    expect(await listed("fleet-labels")).not.toHaveProperty("labels");
    expect(await served("fleet-labels", c)).toEqual(SERVED);
  });

  it("refuses labels Kubernetes would refuse and a change that says nothing to do: nothing changes", async () => {
    const c = await credentials();
    await applied([add("fleet-badlabel", c, { labels: { env: "prod" } })]);
    const before = await listed("fleet-badlabel");
    for (const [changes, status, error] of [
      [[{ op: "label", cluster: "fleet-badlabel", set: { "-env": "x" } }], 400, 'registry change does not fit: changes.0.set: label key "-env": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric; nothing changed'],
      [[{ op: "label", cluster: "fleet-badlabel", set: { env: "a b" } }], 400, 'registry change does not fit: changes.0.set: label value "a b": must be at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric; nothing changed'],
      [[{ op: "label", cluster: "fleet-badlabel" }], 400, "a label change must set or remove a label; nothing changed"],
      [[{ op: "label", cluster: "fleet-badlabel", set: { env: "dev" }, remove: ["env"] }], 400, "label env is both set and removed; nothing changed"],
      [[{ op: "label", cluster: "fleet-nolabel", set: { env: "dev" } }], 404, "cluster fleet-nolabel is not in the registry; nothing changed"],
    ] as const) expect(await answer(await change(changes))).toEqual({ status, body: { error }, challenge: null });
    expect(await listed("fleet-badlabel")).toEqual(before);
  });
});

describe("removing a cluster", () => {
  it("refuses its credentials at once, with the answer an unknown cluster gets", async () => {
    const c = await credentials();
    await applied([add("fleet-remove", c)]);
    expect(await served("fleet-remove", c)).toEqual(SERVED);
    await applied([{ op: "remove", cluster: "fleet-remove" }]);
    expect(await served("fleet-remove", c)).toEqual(REFUSED);
    expect(await listed("fleet-remove")).toBeUndefined();
    const review = (cluster: string) => dispatch(`/v1/${cluster}/validate`, { method: "POST", body: "{}", headers: { authorization: `Bearer ${c.token}` } });
    expect(await answer(await review("fleet-remove"))).toEqual(refused);
    expect(await answer(await review("fleet-never-registered"))).toEqual(refused);
    expect(await answer(await change([{ op: "remove", cluster: "fleet-remove" }]))).toEqual({ status: 404, body: { error: "cluster fleet-remove is not in the registry; nothing changed" }, challenge: null });
  });

  it("can register the id again, with new credentials", async () => {
    const [first, second] = [await credentials(), await credentials()];
    await applied([add("fleet-again", first)]);
    await applied([{ op: "remove", cluster: "fleet-again" }]);
    await applied([add("fleet-again", second)]);
    expect(await served("fleet-again", first)).toEqual(REFUSED);
    expect(await served("fleet-again", second)).toEqual(SERVED);
  });
});

describe("a change the operator did not make changes nothing", () => {
  it.each([
    ["unsigned", async (changes: unknown) => dispatch(REGISTRY_PATH, { method: "POST", body: JSON.stringify({ requestId: crypto.randomUUID(), changes }) })],
    ["signed by a key OPERATOR_KEYS does not list", async (changes: unknown) => change(changes, { key: (await generateKeyPair()).privateKeyPem })],
    ["signed by a registered cluster's key, as a cluster signs", async (changes: unknown) => change(changes, { key: JSON.parse(env.TEST_KEYS).demo, domain: "cluster" })],
    ["signed by an operator key as a cluster signs (another domain)", async (changes: unknown) => change(changes, { domain: "cluster" })],
    ["signed for another path", async (changes: unknown) => change(changes, { subject: "/v1/registry/other" })],
    [
      "a signature with its timestamp changed",
      async (changes: unknown) => {
        const request = await signedChange(changes);
        return send({ ...request, headers: { ...request.headers, "x-edgeadmit-timestamp": String(Number(request.headers["x-edgeadmit-timestamp"]) + 1) } });
      },
    ],
  ])("%s: the generic 401", async (_, sendAs) => {
    const c = await credentials();
    const before = await list();
    expect(await answer(await sendAs([add("fleet-forged", c)]))).toEqual(refused);
    expect(await list()).toEqual(before);
    expect(await served("fleet-forged", c)).toEqual(REFUSED);
  });

  it("a body other than the one signed: 403", async () => {
    const c = await credentials();
    const request = await signedChange([add("fleet-swapped", await credentials())]);
    const swapped = new TextEncoder().encode(JSON.stringify({ requestId: crypto.randomUUID(), changes: [add("fleet-swapped", c)] }));
    expect(await answer(await send({ ...request, body: swapped }))).toEqual({
      status: 403,
      body: { error: "the body is not the one signed: its SHA-256 differs from x-edgeadmit-content-sha256; nothing changed" },
      challenge: null,
    });
    expect(await listed("fleet-swapped")).toBeUndefined();
  });

  it("signed too long ago: 403, said only to the holder of an operator key", async () => {
    const c = await credentials();
    const late = Math.floor(Date.now() / 1000) - 301;
    const response = await change([add("fleet-stale", c)], { timestamp: late });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: string }).error).toMatch(/^signing time .* is more than 300s from the function's clock .*: check the clock of the node that signed$/);
    expect(await answer(await change([add("fleet-stale", c)], { timestamp: late, key: (await generateKeyPair()).privateKeyPem }))).toEqual(refused);
    expect(await listed("fleet-stale")).toBeUndefined();
    expect(await served("fleet-stale", c)).toEqual(REFUSED);
  });

  it("the same signed change sent again: 409, even when it would apply", async () => {
    const c = await credentials();
    await applied([add("fleet-replay", c)]);
    const removal = await signedChange([{ op: "remove", cluster: "fleet-replay" }]);
    expect((await send(removal)).status).toBe(200);
    await applied([add("fleet-replay", c)]);
    const before = await list();
    expect(await answer(await send(removal))).toEqual({
      status: 409,
      body: { error: "this signed request was already received (the same request, sent again): sign a new one; nothing changed" },
      challenge: null,
    });
    expect(await list()).toEqual(before);
    expect(await served("fleet-replay", c)).toEqual(SERVED);
  });

  it("a refused change sent again after the registry moved on: 409, never applied (the operator meant it against what it saw)", async () => {
    const c = await credentials();
    // add X → 409 (X is registered); remove X; the kept add sent again must not register X with it.
    await applied([add("fleet-retry", c)]);
    const kept = await signedChange([add("fleet-retry", c, { withoutSnapshot: "FailClosed" })]);
    expect((await answer(await send(kept))).status).toBe(409);
    await applied([{ op: "remove", cluster: "fleet-retry" }]);
    const before = await list();
    expect(await answer(await send(kept))).toEqual({
      status: 409,
      body: { error: "this signed request was already received (the same request, sent again): sign a new one; nothing changed" },
      challenge: null,
    });
    expect(await list()).toEqual(before);
    expect(await listed("fleet-retry")).toBeUndefined();
    expect(await served("fleet-retry", c)).toEqual(REFUSED);
    // Signed anew, the same change applies.
    await applied([add("fleet-retry", c, { withoutSnapshot: "FailClosed" })]);
    expect(await listed("fleet-retry")).toMatchObject({ withoutSnapshot: "FailClosed" });
  });
});

describe("the operator's keys", () => {
  it("accepts a change signed with either key OPERATOR_KEYS lists, so the operator key rotates without a window", async () => {
    const [a, b] = [await credentials(), await credentials()];
    const [current, next] = operatorKeys();
    expect((await change([add("fleet-op-a", a)], { key: current })).status).toBe(200);
    expect((await change([add("fleet-op-b", b)], { key: next })).status).toBe(200);
    expect(await served("fleet-op-b", b)).toEqual(SERVED);
  });

  it("a cluster's request signed with an operator key is refused: neither passes as the other", async () => {
    // The cluster's own signature passes; the same request signed with an operator key for the cluster does not.
    expect((await dispatch("/v1/demo/snapshot", { headers: await sign("demo", new Uint8Array(), { method: "GET" }) })).status).not.toBe(401);
    const response = await dispatch("/v1/demo/snapshot", { headers: await operatorHeaders("GET", "demo", new Uint8Array()) });
    expect(await answer(response)).toEqual(refused);
  });

  it("listing needs the operator's signature too, and pages through the registry in id order", async () => {
    expect(await answer(await dispatch(REGISTRY_PATH))).toEqual(refused);
    expect(await answer(await dispatch(REGISTRY_PATH, { headers: bearer("demo") }))).toEqual(refused);
    for (const id of ["fleet-page-1", "fleet-page-2", "fleet-page-3"]) await applied([add(id, await credentials())]);
    const first = await list("?after=fleet-page&limit=2");
    expect(first.clusters.map((entry) => entry.cluster)).toEqual(["fleet-page-1", "fleet-page-2"]);
    expect(first.next).toBe("fleet-page-2");
    expect(first.clustersVariable).toBeUndefined();
    expect((await list("?after=fleet-page-2&limit=1")).clusters.map((entry) => entry.cluster)).toEqual(["fleet-page-3"]);
    expect((await list()).clustersVariable).toEqual(["My_Cluster", "bare", "broken", "demo", "fresh", "open", "other", "pushes", "rotating", "sealed", "strict"]);
  });
});

describe("CLUSTERS beside the registry", () => {
  it("takes precedence for every id it names: the registry may hold the id, but is not used for it", async () => {
    const c = await credentials();
    const result = await applied([add("demo", c), add("broken", c)]);
    expect(result.notes).toEqual([
      "cluster demo is also in CLUSTERS, which takes precedence: the registry's entry serves it once it is dropped from CLUSTERS and deployed",
      "cluster broken is also in CLUSTERS, which takes precedence: the registry's entry serves it once it is dropped from CLUSTERS and deployed",
    ]);
    expect(await reviewStatus("demo", c.token)).toBe(401);
    expect((await dispatch("/v1/demo/snapshot", { headers: bearer("demo") })).status).not.toBe(401);
    expect(await served("broken", c)).toEqual(REFUSED);
    expect(await listed("demo")).toMatchObject({ shadowedByClusters: true });
  });
});

describe("an unknown cluster and a wrong credential", () => {
  it("get the same answer from a registered cluster as from an id never registered", async () => {
    const c = await credentials();
    await applied([add("fleet-known", c)]);
    const wrong = { authorization: `Bearer ${generateToken()}` };
    const post = (cluster: string) => dispatch(`/v1/${cluster}/validate`, { method: "POST", body: "{}", headers: wrong });
    expect(await answer(await post("fleet-known"))).toEqual(refused);
    expect(await answer(await post("fleet-unknown"))).toEqual(refused);
    const stranger = (await generateKeyPair()).privateKeyPem;
    expect(await signedReadStatus("fleet-known", stranger)).toBe(401);
    expect(await signedReadStatus("fleet-unknown", stranger)).toBe(401);
  });
});
