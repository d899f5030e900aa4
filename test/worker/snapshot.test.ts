// Signed snapshot pushes: every rejection leaves what is stored untouched.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { runInDurableObject } from "cloudflare:test";
import { cacheStats, forget, loadSnapshot, REVALIDATE_MS, storeOf } from "../../functions/store/cache.js";
import { sha256Hex } from "../../shared/digest/index.js";
import { contentHash, type Snapshot } from "../../shared/snapshot/index.js";
import { CONTENT_SHA256_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../shared/signing/index.js";
import { call, dispatch, freshGeneration, objectsFromYaml, push, sign, snapshotOf, validate } from "../support/worker.js";
import { pod, reviewOf } from "../support/reviews.js";

const demoObjects = objectsFromYaml(demoYaml);
let stored: Snapshot;

async function meta(cluster: "pushes" | "fresh" | "rotating" = "pushes") {
  const response = await call(`/v1/${cluster}/snapshot`, { headers: await sign(cluster, new Uint8Array(), { method: "GET" }) });
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

  it("answers 404 to the cluster's sync job when it holds none yet", async () => {
    expect(await meta("fresh")).toEqual({ status: 404, body: { error: 'no snapshot has been pushed for cluster "fresh" yet' } });
  });
});

describe("a rejected push changes nothing", () => {
  // A snapshot under which the main-db pod would be allowed: if any rejected push stored it, the verdict flips.
  const permissive = () => snapshotOf(demoObjects.filter((o) => o.kind !== "HelmRelease"));

  const generic = /^not authenticated: this route needs the cluster's credential/;
  const cases: Array<[name: string, status: number, error: RegExp, send: () => Promise<Response>]> = [
    ["unsigned", 401, generic, () => call("/v1/pushes/snapshot", { method: "PUT", body: JSON.stringify(permissive()) })],
    ["signed by another cluster's key", 401, generic, () => push("pushes", permissive(), { signer: "other" })],
    ["a body changed after signing", 403, /^the body is not the one signed: its SHA-256 differs from x-edgeadmit-content-sha256; nothing was stored$/, async () => {
      const signedBytes = new TextEncoder().encode(JSON.stringify(stored));
      const headers = await sign("pushes", signedBytes);
      return call("/v1/pushes/snapshot", { method: "PUT", body: JSON.stringify(permissive()), headers });
    }],
    ["a signed hash swapped for the body's", 401, generic, async () => {
      const bytes = new TextEncoder().encode(JSON.stringify(permissive()));
      const headers = { ...(await sign("pushes", new TextEncoder().encode("{}"))), [CONTENT_SHA256_HEADER]: await sha256Hex(bytes) };
      return call("/v1/pushes/snapshot", { method: "PUT", body: bytes, headers });
    }],
    ["a push signed for another cluster with the same key (replay across clusters)", 401, generic, async () => {
      const bytes = new TextEncoder().encode(JSON.stringify(permissive()));
      return call("/v1/pushes/snapshot", { method: "PUT", body: bytes, headers: await sign("demo", bytes, { signer: "demo" }) });
    }],
    ["a garbled signature", 401, generic, () => push("pushes", permissive(), { headers: { [SIGNATURE_HEADER]: "not-base64!" } })],
    ["a signing time an hour ago", 403, /^signing time .* is more than 300s from the function's clock/, () =>
      push("pushes", permissive(), { timestamp: Math.floor(Date.now() / 1000) - 3600 })],
    ["a signing time that is not a number", 401, generic, () => push("pushes", permissive(), { headers: { [TIMESTAMP_HEADER]: "soon" } })],
    ["a body that is not JSON", 400, /^snapshot is not JSON: /, () => push("pushes", "{nope")],
    ["a body that fails the schema", 400, /^snapshot does not match the schema: generation: /, () =>
      push("pushes", JSON.stringify({ ...permissive(), generation: "latest" }))],
    ["a body nested 10,000 levels deep in a loosely checked field", 400, /^snapshot nests deeper than 100 levels of objects and arrays$/, () => {
      const deep = permissive();
      const text = JSON.stringify(deep).replace('"affinityClasses":{', `"affinityClasses":{"deep":{"nodeAffinity":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}},`);
      return push("pushes", text);
    }],
    ["a replay of the stored generation", 409, /^generation \d+ is not newer than the stored generation \d+: a stale or replayed push; nothing was stored$/, () =>
      push("pushes", { ...permissive(), generation: stored.generation })],
    ["an older generation", 409, /is not newer than the stored generation/, () => push("pushes", { ...permissive(), generation: stored.generation - 1 })],
    ["an unknown cluster", 401, generic, () => push("nope", permissive(), { signer: "demo" })],
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

  it("refuses a body over the limit with 413, by Content-Length before reading it and by streamed size", async () => {
    const before = await observable();
    const big = new Uint8Array(24 * 1024 * 1024 + 1);
    // Straight into the handler: through the loopback socket, the client would see its upload cut off by the early answer.
    const declared = await dispatch("/v1/pushes/snapshot", { method: "PUT", body: big, headers: await sign("pushes", big) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: "snapshot is larger than the limit of 25165824 bytes" });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += 1 << 20) controller.enqueue(big.slice(i, i + (1 << 20)));
        controller.close();
      },
    });
    const streamed = await dispatch("/v1/pushes/snapshot", { method: "PUT", body: stream, headers: { ...(await sign("pushes", big)), "transfer-encoding": "chunked" } });
    expect(streamed.status).toBe(413);
    forget();
    expect(await observable()).toEqual(before);
  });

  it("does not read the body of an unauthenticated push", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1 << 20));
        if (pulled === 24) controller.close();
      },
    });
    const response = await dispatch("/v1/pushes/snapshot", { method: "PUT", body: stream, headers: { "transfer-encoding": "chunked" } });
    expect(response.status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(2);
  });
});

describe("a cluster registered with two keys while one is rotated", () => {
  it("accepts pushes signed by either, and no other", async () => {
    expect((await push("rotating", snapshotOf(demoObjects), { signer: "demo" })).status).toBe(200);
    expect((await push("rotating", snapshotOf(demoObjects), { signer: "other" })).status).toBe(200);
    expect((await push("rotating", snapshotOf(demoObjects), { signer: "strict" })).status).toBe(401);
  });
});

describe("storage", () => {
  it("stores a multi-chunk snapshot whole and reads it back byte for byte", async () => {
    const big = snapshotOf(demoObjects);
    for (let i = 0; i < 20_000; i++) big.applications[`tenant-acme/app-${i}`] = { group: "apps.cozystack.io", kind: "Postgres", name: `app-${i}`, affinityClass: "dc2" };
    const text = JSON.stringify(big);
    expect(text.length).toBeGreaterThan(2 * 1024 * 1024);
    expect((await push("pushes", text)).status).toBe(200);
    const read = await storeOf(env, "pushes").read();
    expect(read?.ok && JSON.parse(new TextDecoder().decode(read.bytes))).toEqual(big);
    stored = big;
  });

  it("keeps multi-byte text whole across every chunk boundary, up to the 24 MiB limit", async () => {
    const snapshot = snapshotOf(demoObjects);
    const labelled = (value: string) => JSON.stringify({ ...snapshot, nodes: { "node-1": { "example.org/tier": value } } });
    const overhead = new TextEncoder().encode(labelled("gpu")).length;
    // One label value of 4-byte characters (UTF-16 surrogate pairs) that fills the limit: every 1 MiB cut falls inside one of them.
    const value = `gpu${"😀".repeat(Math.floor((24 * 1024 * 1024 - overhead) / 4))}`;
    const text = labelled(value);
    const bytes = new TextEncoder().encode(text);
    expect(bytes.length).toBeLessThanOrEqual(24 * 1024 * 1024);
    expect(bytes.length).toBeGreaterThan(24 * 1024 * 1024 - 8);
    const response = await push("pushes", text);
    expect(response.status).toBe(200);
    forget(); // as after a restart: from storage, not from memory
    const read = await storeOf(env, "pushes").read();
    expect(read?.ok).toBe(true);
    const back = read?.ok ? JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(read.bytes)) : undefined;
    expect(back.nodes["node-1"]["example.org/tier"] === value).toBe(true);
    expect((await meta()).body).toMatchObject({ generation: snapshot.generation, bytes: bytes.length });
    stored = snapshot;
    expect((await push("pushes", { ...snapshot, generation: freshGeneration() })).status).toBe(200);
  });

  it("refuses stored bytes that no longer match their hash, and says so in reviews and metadata", async () => {
    const snapshot = snapshotOf(demoObjects);
    expect((await push("pushes", snapshot)).status).toBe(200);
    await runInDurableObject(storeOf(env, "pushes"), (_, state) => {
      state.storage.sql.exec("UPDATE snapshot_chunk SET data = ? WHERE seq = 0", new TextEncoder().encode('{"tampered":true}').buffer);
    });
    forget();
    const { response } = await validate("pushes", reviewOf(pod({ name: "main-db-1" })));
    expect(response).toEqual({
      uid: expect.any(String),
      allowed: true,
      warnings: [`edgeadmit: cluster "pushes": the stored snapshot (generation ${snapshot.generation}) failed its integrity check; policies not enforced`],
    });
    expect((await meta()).body.corrupt).toMatch(/^stored bytes hash to [0-9a-f]{12}, not the [0-9a-f]{12} recorded when generation \d+ was stored$/);
    // The next push replaces it.
    stored = { ...snapshot, generation: freshGeneration() };
    expect((await push("pushes", stored)).status).toBe(200);
    forget();
    expect((await meta()).body.corrupt).toBeUndefined();
    expect((await observable()).allowed).toBe(false);
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
    const bytes = new TextEncoder().encode(JSON.stringify(newer));
    const result = await storeOf(env, "pushes").write(bytes, {
      generation: newer.generation,
      contentHash: await contentHash(newer),
      builtAt: newer.builtAt,
      pushedAt: start,
      bytes: bytes.length,
      storedSha256: await sha256Hex(bytes),
    });
    expect(result.stored).toBe(true);
    const decodes = cacheStats.decodes;
    expect(await loadSnapshot(env, "pushes", start + REVALIDATE_MS - 1)).toBe(old);
    const fresh = await loadSnapshot(env, "pushes", start + REVALIDATE_MS);
    expect(fresh.loaded?.meta.generation).toBe(newer.generation);
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
