// A key's power ends with the key. A leaked sync key lets its holder push
// any snapshot while the key is registered; the operator's rotation ends
// that at once (the cluster takes its withoutSnapshot stance until a current
// key pushes), no generation can be pushed past the owner's, and the age
// limit is the registration's, not the pushed snapshot's.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { storeOf } from "../../functions/store/cache.js";
import { importPrivateKey, signRequest } from "../../shared/signing/index.js";
import { encodeSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import { applied, credentials, operatorHeaders, REGISTRY_PATH, type Credentials } from "../support/registry.js";
import { pod, reviewOf } from "../support/reviews.js";
import { dispatch, fullPushBodies, objectsFromYaml, snapshotOf, type ReviewResponse } from "../support/worker.js";

const demoObjects = objectsFromYaml(demoYaml);

/** The demo's honest snapshot as `generation`: a main-db pod without the zone is denied. */
const honest = (generation = Date.now()) => snapshotOf(demoObjects, { generation });
/** What a leaked key's holder pushes: the affinity-class policy Off, and a snapshot that says it never goes stale. */
const poisoned = (generation: number): Snapshot => snapshotOf(demoObjects, { generation, settings: { policies: { "affinity-class": "Off" }, maxAgeSeconds: 1e15, onStale: "Warn" } });

async function pushAs(cluster: string, privateKeyPem: string, snapshot: Snapshot): Promise<{ status: number; body: Record<string, unknown> }> {
  const key = await importPrivateKey(privateKeyPem);
  let response: Response | undefined;
  for (const text of await fullPushBodies(snapshot)) {
    const bytes = new TextEncoder().encode(text);
    const headers = await signRequest(key, "PUT", cluster, bytes, Math.floor(Date.now() / 1000));
    response = await dispatch(`/v1/${cluster}/snapshot`, { method: "PUT", body: bytes, headers });
    if (response.status !== 200) break;
  }
  return { status: response!.status, body: (await response!.json()) as Record<string, unknown> };
}

/** The stored generation, as the cluster's sync job (key `c`) reads it: 404 when none. */
async function meta(cluster: string, c: Credentials): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = await signRequest(await importPrivateKey(c.privateKeyPem), "GET", cluster, new Uint8Array(), Math.floor(Date.now() / 1000));
  const response = await dispatch(`/v1/${cluster}/snapshot`, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The demo's main-db pod without its zone, reviewed by `cluster`'s apiserver. */
async function verdict(cluster: string, token: string): Promise<ReviewResponse["response"]> {
  const response = await dispatch(`/v1/${cluster}/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(reviewOf(pod({ name: "main-db-1" }))),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as ReviewResponse).response;
}

const DENIED_BY_POLICY = { allowed: false, status: { code: 403, message: expect.stringContaining('AffinityClass "dc1"') } };

const disowned = (cluster: string, generation: number) => ({
  uid: expect.any(String),
  allowed: false,
  status: {
    code: 403,
    reason: "Forbidden",
    message: `edgeadmit: cluster "${cluster}": the stored snapshot (generation ${generation}) was pushed with a key the cluster's registration does not list now; it counts again once the sync job pushes with a current key; the cluster is configured fail-closed, run the sync job`,
  },
});

async function resetSnapshot(cluster: string, body = JSON.stringify({ requestId: crypto.randomUUID() })) {
  const path = `${REGISTRY_PATH}/${cluster}/reset-snapshot`;
  const bytes = new TextEncoder().encode(body);
  // Signed once: `again` is the very request sent again (signed anew in a later second, it would be a new request).
  const headers = await operatorHeaders("POST", path, bytes);
  const send = async () => {
    const response = await dispatch(path, { method: "POST", body: bytes, headers });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return { first: await send(), again: send };
}

describe("a leaked sync key", () => {
  it("cannot push a generation past the owner's: one further ahead of the function's clock than a signature may be is refused, and nothing changes", async () => {
    const owner = await credentials();
    await applied([{ op: "add", cluster: "leak-ahead", registration: { publicKey: owner.publicKey, tokenHashes: [owner.tokenHash], withoutSnapshot: "FailClosed" } }]);
    expect((await pushAs("leak-ahead", owner.privateKeyPem, honest())).status).toBe(200);
    const before = await meta("leak-ahead", owner);
    const answer = await pushAs("leak-ahead", owner.privateKeyPem, poisoned(Number.MAX_SAFE_INTEGER));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(
      /^generation 9007199254740991 is more than 300s ahead of the function's clock \(\d{4}-\d\d-\d\dT[\d:.]+Z\): a generation is the pusher's clock in milliseconds; nothing was stored$/,
    );
    expect(await meta("leak-ahead", owner)).toEqual({ ...before, body: { ...before.body, ageSeconds: expect.any(Number) } });
    expect(await verdict("leak-ahead", owner.token)).toMatchObject(DENIED_BY_POLICY);
    // The most a leaked key can lead by: the owner's next sync pushes above it (sync takes the stored generation + 1 when its clock is behind).
    const ahead = Date.now() + 290_000;
    expect((await pushAs("leak-ahead", owner.privateKeyPem, poisoned(ahead))).status).toBe(200);
    expect((await pushAs("leak-ahead", owner.privateKeyPem, honest(ahead + 1))).status).toBe(200);
    expect(await verdict("leak-ahead", owner.token)).toMatchObject(DENIED_BY_POLICY);
  });

  it("loses everything it pushed when the operator rotates it out: the cluster takes its stance at once, and the owner's next push above it counts", async () => {
    const leaked = await credentials();
    await applied([{ op: "add", cluster: "leak-rotate", registration: { publicKey: leaked.publicKey, tokenHashes: [leaked.tokenHash], withoutSnapshot: "FailClosed" } }]);
    expect((await pushAs("leak-rotate", leaked.privateKeyPem, honest())).status).toBe(200);
    expect(await verdict("leak-rotate", leaked.token)).toMatchObject(DENIED_BY_POLICY);

    // The attacker's push, the highest generation the function takes: the denied pod is allowed while the key is registered.
    const attack = poisoned(Date.now() + 290_000);
    expect((await pushAs("leak-rotate", leaked.privateKeyPem, attack)).status).toBe(200);
    expect(await verdict("leak-rotate", leaked.token)).toEqual({ uid: expect.any(String), allowed: true });

    // The operator replaces the key; what it pushed stops counting with the change.
    const fresh = await credentials();
    await applied([{ op: "rotate", cluster: "leak-rotate", addPublicKeys: [fresh.publicKey], removePublicKeys: [leaked.publicKey] }]);
    expect(await verdict("leak-rotate", leaked.token)).toEqual(disowned("leak-rotate", attack.generation));
    expect(await meta("leak-rotate", fresh)).toMatchObject({ status: 200, body: { generation: attack.generation, signedBy: leaked.publicKey } });
    expect((await pushAs("leak-rotate", leaked.privateKeyPem, poisoned(Date.now()))).status).toBe(401);

    // A push at the owner's own clock, below the attacker's generation, is refused and changes nothing stored
    // (what a leaked key pushed is at most MAX_GENERATION_LEAD_MS ahead: the owner waits that long at most)...
    const behind = honest(Date.now());
    expect(behind.generation).toBeLessThan(attack.generation);
    expect(await pushAs("leak-rotate", fresh.privateKeyPem, behind)).toEqual({
      status: 409,
      body: { error: `generation ${behind.generation} is not newer than the stored generation ${attack.generation}: a stale or replayed push; nothing was stored` },
    });
    expect(await meta("leak-rotate", fresh)).toMatchObject({ status: 200, body: { generation: attack.generation, signedBy: leaked.publicKey } });
    // ...and the sync job's, above what is stored (infra/cli/sync.ts), replaces it and counts.
    const owner = honest(attack.generation + 1);
    const pushed = await pushAs("leak-rotate", fresh.privateKeyPem, owner);
    expect(pushed).toMatchObject({ status: 200, body: { generation: owner.generation, signedBy: fresh.publicKey } });
    expect(await verdict("leak-rotate", leaked.token)).toMatchObject(DENIED_BY_POLICY);
  });

  it("cannot outlive a removal: the id registered again with new keys does not count the old snapshot, and the operator resets it", async () => {
    const old = await credentials();
    await applied([{ op: "add", cluster: "leak-readd", registration: { publicKey: old.publicKey, tokenHashes: [old.tokenHash], withoutSnapshot: "FailClosed" } }]);
    const attack = poisoned(Date.now());
    expect((await pushAs("leak-readd", old.privateKeyPem, attack)).status).toBe(200);
    await applied([{ op: "remove", cluster: "leak-readd" }]);
    const renewed = await credentials();
    await applied([{ op: "add", cluster: "leak-readd", registration: { publicKey: renewed.publicKey, tokenHashes: [renewed.tokenHash], withoutSnapshot: "FailClosed" } }]);
    expect(await verdict("leak-readd", renewed.token)).toEqual(disowned("leak-readd", attack.generation));

    const reset = await resetSnapshot("leak-readd");
    expect(reset.first).toEqual({ status: 200, body: { cluster: "leak-readd", dropped: attack.generation } });
    expect(await meta("leak-readd", renewed)).toEqual({ status: 404, body: { error: 'no snapshot has been pushed for cluster "leak-readd" yet' } });
    expect(await verdict("leak-readd", renewed.token)).toEqual({
      uid: expect.any(String),
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: 'edgeadmit: no snapshot has been pushed for cluster "leak-readd" yet; the cluster is configured fail-closed, run the sync job' },
    });

    // The same signed reset sent again changes nothing, even after a push.
    expect((await pushAs("leak-readd", renewed.privateKeyPem, honest())).status).toBe(200);
    const before = await meta("leak-readd", renewed);
    expect(await reset.again()).toEqual({ status: 409, body: { error: "this signed request was already received (the same request, sent again): sign a new one; nothing changed" } });
    expect(await meta("leak-readd", renewed)).toEqual({ ...before, body: { ...before.body, ageSeconds: expect.any(Number) } });
    expect(await verdict("leak-readd", renewed.token)).toMatchObject(DENIED_BY_POLICY);
  });
});

describe("the operator's reset", () => {
  it("is refused without the operator's signature, with a malformed id or body, and changes nothing", async () => {
    const owner = await credentials();
    await applied([{ op: "add", cluster: "reset-refused", registration: { publicKey: owner.publicKey, tokenHashes: [owner.tokenHash] } }]);
    expect((await pushAs("reset-refused", owner.privateKeyPem, honest())).status).toBe(200);
    const before = await meta("reset-refused", owner);
    const path = `${REGISTRY_PATH}/reset-refused/reset-snapshot`;
    const body = new TextEncoder().encode(JSON.stringify({ requestId: crypto.randomUUID() }));
    // The cluster's own key is not the operator's.
    const asCluster = await signRequest(await importPrivateKey(owner.privateKeyPem), "POST", path, body, Math.floor(Date.now() / 1000));
    expect((await dispatch(path, { method: "POST", body, headers: asCluster })).status).toBe(401);
    expect((await resetSnapshot("reset-refused", JSON.stringify({ requestId: crypto.randomUUID(), everything: true }))).first).toEqual({
      status: 400,
      body: { error: 'reset request does not fit: Unrecognized key: "everything"; nothing changed' },
    });
    expect((await resetSnapshot("Reset_Refused")).first).toEqual({
      status: 400,
      body: { error: `cluster id "Reset_Refused" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit; nothing changed` },
    });
    expect(await meta("reset-refused", owner)).toEqual({ ...before, body: { ...before.body, ageSeconds: expect.any(Number) } });
  });
});

describe("the age limit", () => {
  it("is the registration's: a snapshot that says it never goes stale stops counting past the operator's limit", async () => {
    const owner = await credentials();
    await applied([{ op: "add", cluster: "age-limit", registration: { publicKey: owner.publicKey, tokenHashes: [owner.tokenHash], withoutSnapshot: "FailClosed", maxAgeSeconds: 600 } }]);
    const snapshot = poisoned(Date.now());
    const { units, digest } = await encodeSnapshot(snapshot);
    // Stored as a push 601 s ago would have stored it (the function's clock cannot be moved from here).
    const pushedAt = Date.now() - 601_000;
    const stored = await storeOf(env, "age-limit").push(snapshot.generation, units, { key: owner.publicKey, current: [owner.publicKey] }, { base: null, builtAt: snapshot.builtAt, pushedAt, removed: [], digest });
    expect(stored.ok).toBe(true);
    expect(await verdict("age-limit", owner.token)).toEqual({
      uid: expect.any(String),
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message: `edgeadmit: cluster "age-limit": the stored snapshot (generation ${snapshot.generation}) is older than the 600s the cluster's registration allows (since ${new Date(pushedAt + 600_000).toISOString()}); check the sync job; the cluster is configured fail-closed, run the sync job`,
      },
    });
    // A fresh push by the same key counts again.
    expect((await pushAs("age-limit", owner.privateKeyPem, snapshot)).status).toBe(409);
    expect((await pushAs("age-limit", owner.privateKeyPem, honest(snapshot.generation + 1))).status).toBe(200);
    expect(await verdict("age-limit", owner.token)).toMatchObject(DENIED_BY_POLICY);
  });
});
