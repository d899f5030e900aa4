// Signed snapshot pushes: every rejection leaves what is stored untouched.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { cacheStats, forget, loadSnapshot, REVALIDATE_MS, storeOf } from "../../functions/store/cache.js";
import { contentHash, type Snapshot } from "../../shared/snapshot/index.js";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../shared/signing/index.js";
import { call, freshGeneration, objectsFromYaml, push, sign, snapshotOf, validate } from "../support/worker.js";
import { pod, reviewOf } from "../support/reviews.js";

const demoObjects = objectsFromYaml(demoYaml);
let stored: Snapshot;

async function meta(cluster = "pushes") {
  const response = await call(`/v1/${cluster}/snapshot`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** What the cluster holds now: its metadata and its verdict on a main-db pod without the zone. */
async function observable() {
  const { body } = await meta();
  const { response } = await validate("pushes", reviewOf(pod({ name: "main-db-1" })));
  return { generation: body.generation, contentHash: body.contentHash, allowed: response.allowed };
}

beforeAll(async () => {
  stored = snapshotOf(demoObjects);
  const response = await push("pushes", stored);
  expect(response.status).toBe(200);
});

describe("an accepted push", () => {
  it("answers what was stored and serves metadata only", async () => {
    const { status, body } = await meta();
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["ageSeconds", "builtAt", "bytes", "cluster", "contentHash", "generation", "pushedAt"]);
    expect(body).toMatchObject({ cluster: "pushes", generation: stored.generation, contentHash: await contentHash(stored), builtAt: stored.builtAt });
    expect(body.bytes).toBe(new TextEncoder().encode(JSON.stringify(stored)).length);
  });

  it("is enforced by the next review", async () => {
    expect((await observable()).allowed).toBe(false);
  });

  it("answers 404 for metadata of a cluster that has none, or is unknown", async () => {
    expect(await meta("fresh")).toEqual({ status: 404, body: { error: 'no snapshot has been pushed for cluster "fresh" yet' } });
    expect((await meta("nope")).status).toBe(404);
  });
});

describe("a rejected push changes nothing", () => {
  // A snapshot under which the main-db pod would be allowed: if any rejected push stored it, the verdict flips.
  const permissive = () => snapshotOf(demoObjects.filter((o) => o.kind !== "HelmRelease"));

  const cases: Array<[name: string, status: number, error: RegExp, send: () => Promise<Response>]> = [
    ["unsigned", 401, /^a snapshot push must be signed: headers x-edgeadmit-signature and x-edgeadmit-timestamp are required$/, () =>
      call("/v1/pushes/snapshot", { method: "PUT", body: JSON.stringify(permissive()) })],
    ["signed by another cluster's key", 403, /^signature does not verify with cluster "pushes"'s public key$/, () =>
      push("pushes", permissive(), { signer: "other" })],
    ["a body changed after signing", 403, /^signature does not verify with cluster "pushes"'s public key$/, async () => {
      const signedBytes = new TextEncoder().encode(JSON.stringify(permissive()));
      const headers = await sign("pushes", signedBytes);
      return call("/v1/pushes/snapshot", { method: "PUT", body: JSON.stringify(permissive()), headers });
    }],
    ["a push signed for another cluster with the same key (replay across clusters)", 403, /^signature does not verify/, async () => {
      const bytes = new TextEncoder().encode(JSON.stringify(permissive()));
      return call("/v1/pushes/snapshot", { method: "PUT", body: bytes, headers: await sign("demo", bytes, { signer: "demo" }) });
    }],
    ["a garbled signature", 401, /^x-edgeadmit-signature must be the base64 of a 64-byte Ed25519 signature$/, () =>
      push("pushes", permissive(), { headers: { [SIGNATURE_HEADER]: "not-base64!" } })],
    ["a signing time an hour ago", 403, /^signing time .* is more than 300s from the function's clock/, () =>
      push("pushes", permissive(), { timestamp: Math.floor(Date.now() / 1000) - 3600 })],
    ["a signing time that is not a number", 401, /^x-edgeadmit-timestamp must be whole seconds since the epoch$/, () =>
      push("pushes", permissive(), { headers: { [TIMESTAMP_HEADER]: "soon" } })],
    ["a body that is not JSON", 400, /^snapshot is not JSON: /, () => push("pushes", "{nope")],
    ["a body that fails the schema", 400, /^snapshot does not match the schema: generation: /, () =>
      push("pushes", JSON.stringify({ ...permissive(), generation: "latest" }))],
    ["a replay of the stored generation", 409, /^generation \d+ is not newer than the stored generation \d+: a stale or replayed push; nothing was stored$/, () =>
      push("pushes", { ...permissive(), generation: stored.generation })],
    ["an older generation", 409, /is not newer than the stored generation/, () => push("pushes", { ...permissive(), generation: stored.generation - 1 })],
    ["an unknown cluster", 404, /^unknown cluster "nope"/, () => push("nope", permissive(), { signer: "demo" })],
  ];

  for (const [name, status, error, send] of cases) {
    it(`refuses ${name} with ${status}`, async () => {
      const before = await observable();
      const response = await send();
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: string }).error).toMatch(error);
      forget(); // read the store again, not this isolate's memory
      expect(await observable()).toEqual(before);
    });
  }

  it("refuses a body over the limit with 413", async () => {
    const before = await observable();
    const response = await call("/v1/pushes/snapshot", { method: "PUT", body: new Uint8Array(24 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "snapshot is larger than the limit of 25165824 bytes" });
    forget();
    expect(await observable()).toEqual(before);
  });
});

describe("a cluster registered with two keys while one is rotated", () => {
  it("accepts pushes signed by either, and no other", async () => {
    expect((await push("rotating", snapshotOf(demoObjects), { signer: "demo" })).status).toBe(200);
    expect((await push("rotating", snapshotOf(demoObjects), { signer: "other" })).status).toBe(200);
    expect((await push("rotating", snapshotOf(demoObjects), { signer: "strict" })).status).toBe(403);
  });
});

describe("storage", () => {
  it("stores a multi-chunk snapshot whole and reads it back as it was pushed", async () => {
    const big = snapshotOf(demoObjects);
    for (let i = 0; i < 20_000; i++) big.applications[`tenant-acme/app-${i}`] = { group: "apps.cozystack.io", kind: "Postgres", name: `app-${i}`, affinityClass: "dc2" };
    const text = JSON.stringify(big);
    expect(text.length).toBeGreaterThan(2 * 512 * 1024);
    expect((await push("pushes", text)).status).toBe(200);
    const read = await storeOf(env, "pushes").read();
    expect(JSON.parse(read!.text)).toEqual(big);
    stored = big;
  });
});

describe("the isolate cache", () => {
  it("decodes a snapshot once, then serves reviews from memory", async () => {
    forget();
    const start = Date.now();
    const first = await loadSnapshot(env, "pushes", start);
    const decodes = cacheStats.decodes;
    for (let i = 0; i < 5; i++) expect(await loadSnapshot(env, "pushes", start + i * 100)).toBe(first);
    expect(cacheStats.decodes).toBe(decodes);
  });

  it("sees a newer generation only after revalidating, and decodes it once", async () => {
    forget();
    const start = Date.now();
    const old = await loadSnapshot(env, "pushes", start);
    // Another isolate stores a newer snapshot directly in the store.
    const newer = { ...snapshotOf(demoObjects), generation: freshGeneration() };
    const text = JSON.stringify(newer);
    const result = await storeOf(env, "pushes").write(text, {
      generation: newer.generation,
      contentHash: await contentHash(newer),
      builtAt: newer.builtAt,
      pushedAt: start,
      bytes: text.length,
    });
    expect(result.stored).toBe(true);
    const decodes = cacheStats.decodes;
    expect(await loadSnapshot(env, "pushes", start + REVALIDATE_MS - 1)).toBe(old);
    const fresh = await loadSnapshot(env, "pushes", start + REVALIDATE_MS);
    expect(fresh?.meta.generation).toBe(newer.generation);
    expect(await loadSnapshot(env, "pushes", start + REVALIDATE_MS + 10)).toBe(fresh);
    expect(cacheStats.decodes).toBe(decodes + 1);
  });

  it("revalidates an unchanged generation without decoding again", async () => {
    forget();
    const start = Date.now();
    const first = await loadSnapshot(env, "pushes", start);
    const decodes = cacheStats.decodes;
    expect(await loadSnapshot(env, "pushes", start + 3 * REVALIDATE_MS)).toBe(first);
    expect(cacheStats.decodes).toBe(decodes);
  });
});
