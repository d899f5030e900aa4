// What an isolate keeps of the cluster registry: a change made elsewhere is
// seen within REFRESH_MS, memory is bounded by what was registered (never by
// what callers send), and a registry that does not answer costs a 503 only
// where nothing else can say.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../functions/index.js";
import { registryOf } from "../../functions/config/index.js";
import { MAX_STALE_MS, REFRESH_MS, RETRY_MS, RegistryCache, RegistryUnavailable, type RegistryReader } from "../../functions/registry/cache.js";
import type { DirectoryDelta, StoredRegistration } from "../../functions/registry/index.js";
import { fromHex } from "../../shared/digest/index.js";
import { tokenDigestsOf } from "../../shared/clusters/index.js";
import { applied, credentials, reviewStatus } from "../support/registry.js";
import { BASE, bearer } from "../support/worker.js";

/** The real registry behind a counter of the calls an isolate makes to it. */
function counted() {
  const calls = { changesSince: 0, get: 0 };
  const stub = registryOf(env)!.stub;
  const reader: RegistryReader = {
    changesSince: (since) => (calls.changesSince++, stub().changesSince(since) as Promise<DirectoryDelta>),
    get: (cluster) => (calls.get++, stub().get(cluster) as Promise<StoredRegistration | null>),
  };
  return { calls, reader: () => reader };
}

const add = async (cluster: string) => {
  const c = await credentials();
  await applied([{ op: "add", cluster, registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash] } }]);
  return c;
};

describe("a change made through another isolate", () => {
  it("is seen once the directory is older than REFRESH_MS: waited for when no background work is possible", async () => {
    const { reader } = counted();
    const cache = new RegistryCache();
    const t0 = Date.now();
    expect(await cache.lookup(reader, "cache-late", t0)).toBeUndefined();
    await add("cache-late");
    expect(await cache.lookup(reader, "cache-late", t0 + REFRESH_MS - 1)).toBeUndefined();
    expect((await cache.lookup(reader, "cache-late", t0 + REFRESH_MS))?.id).toBe("cache-late");
  });

  it("is served from the stale directory for one request while the refresh runs in the background, then seen", async () => {
    const { reader } = counted();
    const cache = new RegistryCache();
    const t0 = Date.now();
    await cache.lookup(reader, "cache-background", t0);
    await add("cache-background");
    const deferred: Array<Promise<unknown>> = [];
    expect(await cache.lookup(reader, "cache-background", t0 + REFRESH_MS, (work) => deferred.push(work))).toBeUndefined();
    expect(deferred).toHaveLength(1);
    await Promise.all(deferred);
    expect((await cache.lookup(reader, "cache-background", t0 + REFRESH_MS + 1))?.id).toBe("cache-background");
    // An isolate idle past MAX_STALE_MS waits instead: what it holds may be too old to serve even once.
    await applied([{ op: "remove", cluster: "cache-background" }]);
    expect(await cache.lookup(reader, "cache-background", t0 + REFRESH_MS + MAX_STALE_MS + 1, () => expect.unreachable("no background refresh"))).toBeUndefined();
  });

  it("a removal drops the registration; a rotation replaces it", async () => {
    const { reader, calls } = counted();
    const cache = new RegistryCache();
    const t0 = Date.now();
    const c = await add("cache-rotated");
    await add("cache-removed");
    const before = (await cache.lookup(reader, "cache-rotated", t0))!;
    expect(await cache.lookup(reader, "cache-removed", t0)).toBeDefined();
    const gets = calls.get;
    expect(await cache.lookup(reader, "cache-rotated", t0 + 1)).toBe(before);
    expect(calls.get).toBe(gets);
    const next = await credentials();
    await applied([{ op: "rotate", cluster: "cache-rotated", addTokenHashes: [next.tokenHash], removeTokenHashes: [c.tokenHash] }]);
    await applied([{ op: "remove", cluster: "cache-removed" }]);
    const after = await cache.lookup(reader, "cache-rotated", t0 + REFRESH_MS);
    expect(after).not.toBe(before);
    expect(tokenDigestsOf(after!)).toEqual([fromHex(next.tokenHash.slice("sha256:".length))]);
    expect(await cache.lookup(reader, "cache-removed", t0 + REFRESH_MS)).toBeUndefined();
    expect(cache.size().registrations).toBe(1);
  });
});

describe("what an isolate holds", () => {
  it("grows with nothing a caller sends: a flood of unknown ids asks the registry nothing and stores nothing", async () => {
    const { reader, calls } = counted();
    const cache = new RegistryCache();
    const t0 = Date.now();
    await cache.lookup(reader, "cache-warm", t0);
    const size = cache.size();
    const before = { ...calls };
    for (let i = 0; i < 2_000; i++) expect(await cache.lookup(reader, `flood-${crypto.randomUUID()}`, t0 + (i % REFRESH_MS))).toBeUndefined();
    expect(calls).toEqual(before);
    expect(cache.size()).toEqual(size);
  });

  it("keeps at most `capacity` registrations; one read again since it was loaded stays (CLOCK, second chance)", async () => {
    const { reader, calls } = counted();
    const cache = new RegistryCache(2);
    const now = Date.now();
    for (const id of ["cache-lru-1", "cache-lru-2", "cache-lru-3"]) await add(id);
    for (const id of ["cache-lru-1", "cache-lru-2", "cache-lru-1", "cache-lru-3"]) expect((await cache.lookup(reader, id, now))?.id).toBe(id);
    expect(cache.size().registrations).toBe(2);
    const gets = calls.get;
    await cache.lookup(reader, "cache-lru-1", now);
    expect(calls.get).toBe(gets);
    await cache.lookup(reader, "cache-lru-2", now);
    expect(calls.get).toBe(gets + 1);
  });

  it("gives a removed cluster's place to the next registration before it evicts one in use, and goes round", async () => {
    const { reader, calls } = counted();
    const cache = new RegistryCache(3);
    const t0 = Date.now();
    const ids = ["cache-ring-1", "cache-ring-2", "cache-ring-3", "cache-ring-4", "cache-ring-5", "cache-ring-6"];
    for (const id of ids) await add(id);
    for (const id of ids.slice(0, 3)) await cache.lookup(reader, id, t0);
    await applied([{ op: "remove", cluster: "cache-ring-2" }]);
    expect(await cache.lookup(reader, "cache-ring-2", t0 + REFRESH_MS)).toBeUndefined();
    expect(cache.size().registrations).toBe(2);
    await cache.lookup(reader, "cache-ring-4", t0 + REFRESH_MS);
    const gets = calls.get;
    for (const id of ["cache-ring-1", "cache-ring-3", "cache-ring-4"]) expect((await cache.lookup(reader, id, t0 + REFRESH_MS))?.id).toBe(id);
    expect(calls.get).toBe(gets);
    // Full and every one read again: the hand goes round once, clearing, and evicts where it started.
    for (const id of ["cache-ring-5", "cache-ring-6", "cache-ring-1", "cache-ring-3", "cache-ring-4", "cache-ring-5", "cache-ring-6"]) expect((await cache.lookup(reader, id, t0 + REFRESH_MS))?.id).toBe(id);
    expect(cache.size()).toEqual({ ids: expect.any(Number), registrations: 3 });
  });

  it("asks the registry for one registration once, however many requests want it at the same moment", async () => {
    const { reader, calls } = counted();
    const cache = new RegistryCache();
    await add("cache-concurrent");
    const now = Date.now();
    await cache.lookup(reader, "cache-warm", now);
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.lookup(reader, "cache-concurrent", now)));
    expect(new Set(found).size).toBe(1);
    expect(calls.get).toBe(1);
  });
});

/** A registry binding whose registry never answers. */
const silent = {
  idFromName: (name: string) => name,
  get: () => ({ changesSince: () => Promise.reject(new Error("registry down")), get: () => Promise.reject(new Error("registry down")) }),
};

describe("a registry that does not answer", () => {
  it("before anything was read: RegistryUnavailable; after: the last directory is served, the registry asked again after RETRY_MS", async () => {
    let down = false;
    const real = counted();
    const reader: RegistryReader = {
      changesSince: (since) => (down ? Promise.reject(new Error("registry down")) : real.reader().changesSince(since)),
      get: (cluster) => (down ? Promise.reject(new Error("registry down")) : real.reader().get(cluster)),
    };
    const cold = new RegistryCache();
    down = true;
    let asked = 0;
    const counting = () => (asked++, reader);
    const start = Date.now();
    await expect(cold.lookup(counting, "cache-down", start)).rejects.toBeInstanceOf(RegistryUnavailable);
    // Asked again only after RETRY_MS, however many requests come meanwhile.
    for (let i = 0; i < 10; i++) await expect(cold.lookup(counting, `cache-down-${i}`, start + RETRY_MS - 1)).rejects.toBeInstanceOf(RegistryUnavailable);
    expect(asked).toBe(1);
    down = false;
    expect(await cold.lookup(counting, "cache-down", start + RETRY_MS)).toBeUndefined();
    expect(asked).toBe(2);
    await add("cache-down");
    const cache = new RegistryCache();
    const t0 = Date.now();
    const known = await cache.lookup(() => reader, "cache-down", t0);
    down = true;
    expect(await cache.lookup(() => reader, "cache-down", t0 + REFRESH_MS)).toBe(known);
    expect(await cache.status(() => reader, t0 + REFRESH_MS + 1)).toEqual({ answering: false, clusters: expect.any(Number) });
    down = false;
    expect((await cache.status(() => reader, t0 + REFRESH_MS + RETRY_MS)).answering).toBe(true);
  });

  it("over HTTP: 503 for an id only the registry could know, CLUSTERS' clusters still served, /readyz 503", async () => {
    const down = { ...env, CLUSTERS: JSON.stringify({ demo: JSON.parse(env.CLUSTERS!).demo }), REGISTRY: silent as unknown as typeof env.REGISTRY };
    const fetch = async (path: string, init?: RequestInit) => {
      const ctx = createExecutionContext();
      const response = await worker.fetch(new Request(`${BASE}${path}`, init), down, ctx);
      await waitOnExecutionContext(ctx);
      return { status: response.status, body: await response.json() };
    };
    expect(await fetch("/v1/fleet-somewhere/validate", { method: "POST", body: "{}", headers: bearer("demo") })).toEqual({ status: 503, body: { error: "the cluster registry does not answer: try again shortly" } });
    expect((await fetch("/v1/demo/snapshot", { headers: bearer("demo") })).status).not.toBe(503);
    expect(await fetch("/readyz")).toEqual({ status: 503, body: { ok: false, error: "the cluster registry does not answer: see the function's log (wrangler tail)" } });
  });
});

describe("/readyz", () => {
  const ready = async (overrides: Record<string, unknown>) => {
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request(`${BASE}/readyz`), { ...env, ...overrides }, ctx);
    await waitOnExecutionContext(ctx);
    return { status: response.status, body: await response.json() };
  };
  const empty = {
    idFromName: (name: string) => name,
    get: () => ({ changesSince: async (): Promise<DirectoryDelta> => ({ revision: 0, full: true, ids: [], revisions: [], removed: [] }), get: async () => null }),
  };

  it("is ready when the registry answers and holds a cluster, with no CLUSTERS at all", async () => {
    await add("ready-one");
    expect(await ready({ CLUSTERS: "{}" })).toEqual({ status: 200, body: { ok: true } });
    expect(await reviewStatus("ready-one", "edgeadmit_wrong-token-0000000000000")).toBe(401);
  });

  it("is not ready when nothing is registered anywhere, or an OPERATOR_KEYS entry is not a key", async () => {
    expect(await ready({ CLUSTERS: "{}", REGISTRY: empty })).toEqual({ status: 503, body: { ok: false, error: "no cluster is registered: add one with edgeadmit clusters add, or set CLUSTERS (docs/operations.md)" } });
    expect(await ready({ CLUSTERS: "{}", OPERATOR_KEYS: `${env.OPERATOR_KEYS} ed25519:AAAA` })).toEqual({
      status: 503,
      body: { ok: false, error: "OPERATOR_KEYS holds an entry that is not an ed25519: public key, ignored until fixed: see the function's log (wrangler tail)" },
    });
  });
});
