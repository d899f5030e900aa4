// Signed snapshot pushes: every rejection leaves what is stored untouched;
// units are stored whole and checked on read; the isolate keeps only what
// reviews read.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { runInDurableObject } from "cloudflare:test";
import { cacheStats, forget, loadShards, loadSnapshot, REVALIDATE_MS, storeOf } from "../../functions/store/cache.js";
import { sha256Hex } from "../../shared/digest/index.js";
import { CLUSTER_UNIT, contentHash, encodeSnapshot, NamespaceFacts, type Snapshot } from "../../shared/snapshot/index.js";
import { CONTENT_SHA256_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../../shared/signing/index.js";
import { bearer, call, dispatch, freshGeneration, objectsFromYaml, push, pushSigner, sign, snapshotOf, validate } from "../support/worker.js";
import { pod, reviewOf } from "../support/reviews.js";
import { pushBody, putBody, unitsOf } from "../support/push.js";

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

const storedBytes = async (snapshot: Snapshot) => (await encodeSnapshot(snapshot)).units.reduce((sum, unit) => sum + unit.bytes.length, 0);

beforeAll(async () => {
  stored = snapshotOf(demoObjects);
  const response = await push("pushes", stored);
  expect(response.status).toBe(200);
});

describe("an accepted push", () => {
  it("answers what was stored and serves metadata only", async () => {
    const { status, body } = await meta();
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["ageSeconds", "boundPolicies", "builtAt", "bytes", "cluster", "contentHash", "generation", "maxAgeSeconds", "policyProblems", "pushedAt", "signedBy", "units"]);
    // The key that signed it (the demo key, the only one "pushes" registers) and the registration's age limit.
    expect(body).toMatchObject({ signedBy: (await pushSigner("pushes")).key, maxAgeSeconds: 86_400 });
    expect(body).toMatchObject({ cluster: "pushes", generation: stored.generation, contentHash: await contentHash(stored), builtAt: stored.builtAt });
    // The cluster part, the shards of tenant-root and tenant-acme, the references of dc1 and dc2.
    expect(body.units).toBe(5);
    expect(body.bytes).toBe(await storedBytes(stored));
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
    ["unsigned", 401, generic, async () => call("/v1/pushes/snapshot", { method: "PUT", body: await pushBody(permissive()) })],
    ["signed by another cluster's key", 401, generic, () => push("pushes", permissive(), { signer: "other" })],
    ["a body changed after signing", 403, /^the body is not the one signed: its SHA-256 differs from x-edgeadmit-content-sha256; nothing was stored$/, async () => {
      const headers = await sign("pushes", new TextEncoder().encode(await pushBody(stored)));
      return call("/v1/pushes/snapshot", { method: "PUT", body: await pushBody(permissive()), headers });
    }],
    ["a signed hash swapped for the body's", 401, generic, async () => {
      const bytes = new TextEncoder().encode(await pushBody(permissive()));
      const headers = { ...(await sign("pushes", new TextEncoder().encode("{}"))), [CONTENT_SHA256_HEADER]: await sha256Hex(bytes) };
      return call("/v1/pushes/snapshot", { method: "PUT", body: bytes, headers });
    }],
    ["a push signed for another cluster with the same key (replay across clusters)", 401, generic, async () => {
      const bytes = new TextEncoder().encode(await pushBody(permissive()));
      return call("/v1/pushes/snapshot", { method: "PUT", body: bytes, headers: await sign("demo", bytes, { signer: "demo" }) });
    }],
    ["a garbled signature", 401, generic, () => push("pushes", permissive(), { headers: { [SIGNATURE_HEADER]: "not-base64!" } })],
    ["a signing time an hour ago", 403, /^signing time .* is more than 300s from the function's clock/, () =>
      push("pushes", permissive(), { timestamp: Math.floor(Date.now() / 1000) - 3600 })],
    ["a signing time that is not a number", 401, generic, () => push("pushes", permissive(), { headers: { [TIMESTAMP_HEADER]: "soon" } })],
    ["a body that is not JSON", 400, /^push body is not JSON: /, () => push("pushes", "{nope")],
    ["a body that fails the schema", 400, /^push body does not match the schema: generation: /, async () =>
      push("pushes", JSON.stringify({ ...JSON.parse(await pushBody(permissive())), generation: "latest" }))],
    ["a whole Snapshot, as earlier versions pushed", 400, /^push body is a whole Snapshot: this function takes SnapshotPush bodies/, () => push("pushes", JSON.stringify(permissive()))],
    ["a body nested 10,000 levels deep in a loosely checked field", 400, /^push body nests deeper than 100 levels of objects and arrays; nothing was stored$/, async () => {
      const text = (await pushBody(permissive())).replace('"affinityClasses":{', `"affinityClasses":{"deep":{"nodeAffinity":{"x":${"[".repeat(10_000)}${"]".repeat(10_000)}}},`);
      return push("pushes", text);
    }],
    ["a unit that fails its schema", 400, /^unit "tenant-acme": applications\.tenant-acme\/x\.kind: /, () =>
      push("pushes", putBody(freshGeneration(), { "tenant-acme": { ...emptyShard(), applications: { "tenant-acme/x": { kind: 7 } } } }))],
    ["a shard holding another namespace's entry", 400, /^unit "tenant-acme": applications holds an entry of namespace "tenant-other"; nothing was stored$/, () =>
      push("pushes", putBody(freshGeneration(), { "tenant-acme": { ...emptyShard(), applications: { "tenant-other/main-db": { affinityClass: "gpu" } } } }))],
    ["the cluster part in a body that does not commit", 400, /^the cluster part travels in the body that commits; nothing was stored$/, async () =>
      push("pushes", putBody(freshGeneration(), { [CLUSTER_UNIT]: (await unitsOf(permissive()))[CLUSTER_UNIT] }))],
    ["a full push without the cluster part", 400, /^a push that sends every unit \(base null\) must send the cluster part; nothing was stored$/, async () => {
      const { [CLUSTER_UNIT]: _cluster, ...shards } = await unitsOf(permissive());
      return push("pushes", putBody(freshGeneration(), shards, { base: null, digest: (await encodeSnapshot(permissive())).digest }));
    }],
    ["units that do not add up to the digest the commit names", 400, /^the units stored for generation \d+ have digest [0-9a-f]{12}, not the [0-9a-f]{12} the push computed: a batch is missing/, async () =>
      push("pushes", putBody(freshGeneration(), await unitsOf(permissive()), { base: null, digest: "0".repeat(64) }))],
    ["an incremental push against a generation that is not the stored one", 409, /^base generation 1 is not the stored generation \d+: push every unit \(sync does so by itself\); nothing was stored$/, async () =>
      push("pushes", putBody(freshGeneration(), {}, { base: 1, digest: (await encodeSnapshot(permissive())).digest }))],
    ["a replay of the stored generation", 409, /^generation \d+ is not newer than the stored generation \d+: a stale or replayed push; nothing was stored$/, () =>
      push("pushes", { ...permissive(), generation: stored.generation })],
    ["an older generation", 409, /is not newer than the stored generation/, () => push("pushes", { ...permissive(), generation: stored.generation - 1 })],
    ["an unknown cluster", 401, generic, () => push("nope", permissive(), { signer: "demo" })],
    // Push bodies are strict, like the registry's: a field this version does not know is refused, and quoted capped.
    ["a body with a field the protocol does not have", 400, /^push body does not match the schema: Unrecognized key: "padding"; nothing was stored$/, async () =>
      push("pushes", JSON.stringify({ ...JSON.parse(await pushBody(permissive())), padding: "x".repeat(1000) }))],
    ["a commit with a field the protocol does not have", 400, /^push body does not match the schema: commit: Unrecognized key: "force"; nothing was stored$/, async () =>
      push("pushes", putBody(freshGeneration(), {}, { base: null, digest: "0".repeat(64), force: true } as never))],
    ["a unit with a field its schema does not have", 400, /^unit "tenant-acme": Unrecognized key: "padding"; nothing was stored$/, () =>
      push("pushes", putBody(freshGeneration(), { "tenant-acme": { ...emptyShard(), padding: "x".repeat(1000) } }))],
    ["a cluster part with a field its schema does not have", 400, /^unit \(cluster part\): Unrecognized key: "padding"; nothing was stored$/, async () => {
      const units = await unitsOf(permissive());
      return push("pushes", putBody(freshGeneration(), { ...units, [CLUSTER_UNIT]: { ...(units[CLUSTER_UNIT] as object), padding: 1 } }, { base: null, digest: (await encodeSnapshot(permissive())).digest }));
    }],
    ["a body whose unknown field's name is 100,000 characters, quoted capped", 400, /^push body does not match the schema: Unrecognized key: "x{900,}\.\.\.; nothing was stored$/, async () => {
      const response = await push("pushes", JSON.stringify({ ...JSON.parse(await pushBody(permissive())), ["x".repeat(100_000)]: 1 }));
      const { error } = (await response.clone().json()) as { error: string };
      expect(new TextEncoder().encode(error).length).toBeLessThanOrEqual(1000);
      return response;
    }],
    // Every list in a push is bounded by count, not only by the body's bytes: each entry is storage work the cluster's reviews wait for.
    ["a commit that removes more than 10,000 names", 400, /^push body does not match the schema: commit\.removed: at most 10000 names per push: push every unit instead \(base null\); nothing was stored$/, async () =>
      push("pushes", putBody(freshGeneration(), {}, { base: stored.generation, removed: Array.from({ length: 10_001 }, (_, i) => `gone-${i}`), digest: "0".repeat(64) }))],
    ["a body that stages more than 2,000 units", 400, /^push body does not match the schema: units: at most 2000 units per body: send the rest in further bodies; nothing was stored$/, () =>
      push("pushes", putBody(freshGeneration(), Object.fromEntries(Array.from({ length: 2_001 }, (_, i) => [`ns-${i}`, emptyShard()]))))],
    // Unit and removed names are Kubernetes names: a namespace's shard is named by a DNS label (ValidateNamespaceName,
    // kubernetes/apimachinery pkg/api/validation/generic.go NameIsDNSLabel), a class's references by a DNS subdomain.
    ...(["\u0000", "..", "a b", "Tenant-Acme", "x".repeat(64)] as const).map((name): [string, number, RegExp, () => Promise<Response>] => [
      `a unit named ${JSON.stringify(name.length > 10 ? `${name.slice(0, 4)}… (${name.length})` : name)}`,
      400,
      // A name past 63 bytes is quoted as its first 60 and "...".
      new RegExp(`^unit "${(name.length > 63 ? `${name.slice(0, 60)}...` : name).replace(/[.\\]/g, "\\$&")}": a namespace's shard is named by the namespace: a lowercase RFC 1123 label of at most 63 characters \\(lowercase letters, digits and '-', starting and ending with a letter or digit\\); nothing was stored$`),
      () => push("pushes", putBody(freshGeneration(), { [name]: emptyShard() })),
    ]),
    ["the references of a class that is no Kubernetes name", 400, /^unit "affinityclass\/DC 1": unit name must be "affinityclass\/" and an AffinityClass's name: a lowercase RFC 1123 subdomain of at most 253 characters; nothing was stored$/, () =>
      push("pushes", putBody(freshGeneration(), { "affinityclass/DC 1": { shown: [], total: 1 } }))],
    ["a commit that removes a name no unit can have", 400, /^commit\.removed\[1\] "a b": a namespace's shard is named by the namespace: .*; nothing was stored$/, () =>
      push("pushes", putBody(freshGeneration(), {}, { base: stored.generation, removed: ["gone", "a b"], digest: "0".repeat(64) }))],
    // Generations are the pusher's clock in ms: one further ahead than a signature may be would lock out the owner.
    ["the highest generation there is", 400, /^generation 9007199254740991 is more than 300s ahead of the function's clock \(.*\): a generation is the pusher's clock in milliseconds; nothing was stored$/, () =>
      push("pushes", { ...permissive(), generation: Number.MAX_SAFE_INTEGER })],
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
    const big = new Uint8Array(8 * 1024 * 1024 + 1);
    // Straight into the handler: through the loopback socket, the client would see its upload cut off by the early answer.
    const declared = await dispatch("/v1/pushes/snapshot", { method: "PUT", body: big, headers: await sign("pushes", big) });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: "push body is larger than the limit of 8388608 bytes" });
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

function emptyShard() {
  return { applications: {}, volumeClaims: {}, tenants: {}, namespaces: {}, policyParams: {} };
}

describe("a commit that removes many names", () => {
  it("is taken up to 10,000 names: the generation moves, the content stays", async () => {
    const { body } = await meta();
    const before = await observable();
    const removed = Array.from({ length: 10_000 }, (_, i) => `gone-${i}`);
    const response = await push("pushes", putBody(freshGeneration(), {}, { base: body.generation as number, removed, digest: body.contentHash as string }));
    expect(response.status).toBe(200);
    forget();
    expect(await observable()).toEqual({ ...before, generation: expect.any(Number) });
    stored = { ...stored, generation: (await meta()).body.generation as number };
  });
});

describe("the bucket listings", () => {
  // They name every namespace and AffinityClass the cluster has: only the sync job compares them.
  it("answer only the sync job's signature, not the apiserver's token (which may show in a webhook URL)", async () => {
    for (const path of ["/v1/pushes/snapshot/buckets", "/v1/pushes/snapshot/buckets/0"]) {
      const refused = await dispatch(path, { headers: bearer("pushes") });
      expect({ status: refused.status, body: await refused.json() }).toEqual({
        status: 401,
        body: { error: "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)" },
      });
      const signed = await dispatch(path, { headers: await sign("pushes", new Uint8Array(), { method: "GET" }) });
      expect(signed.status).toBe(200);
    }
    // The metadata stays readable with the token, so ops can look with curl.
    expect((await dispatch("/v1/pushes/snapshot", { headers: bearer("pushes") })).status).toBe(200);
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
  const readUnit = async (name: string) => {
    const head = await storeOf(env, "pushes").head();
    return storeOf(env, "pushes").readUnit(name, head!.generation);
  };

  it("stores a shard larger than a row in chunks and reads it back byte for byte", async () => {
    const big = snapshotOf(demoObjects);
    for (let i = 0; i < 20_000; i++) big.applications[`tenant-acme/app-${i}`] = { group: "apps.cozystack.io", kind: "Postgres", name: `app-${i}`, affinityClass: "dc2" };
    expect((await push("pushes", big)).status).toBe(200);
    const read = await readUnit("tenant-acme");
    expect(read.status).toBe("ok");
    const bytes = read.status === "ok" ? read.bytes : new Uint8Array();
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    const shard = JSON.parse(new TextDecoder().decode(bytes)) as { applications: Record<string, unknown> };
    expect(Object.keys(shard.applications)).toHaveLength(20_001);
    expect(shard.applications).toEqual(Object.fromEntries(Object.entries(big.applications).filter(([key]) => key.startsWith("tenant-acme/"))));
    stored = big;
  });

  it("keeps multi-byte text whole across every chunk boundary, up to the body limit", async () => {
    const snapshot = snapshotOf(demoObjects);
    const overhead = (await encodeSnapshot({ ...snapshot, nodes: { "node-1": { "example.org/tier": "gpu" } } })).units[0]!.bytes.length;
    // One label value of 4-byte characters (UTF-16 surrogate pairs) in the cluster part: every 1 MiB cut falls inside one of them.
    const value = `gpu${"😀".repeat(Math.floor((7 * 1024 * 1024 - overhead) / 4))}`;
    const labelled = { ...snapshot, nodes: { "node-1": { "example.org/tier": value } } };
    expect((await push("pushes", labelled)).status).toBe(200);
    forget(); // as after a restart: from storage, not from memory
    const read = await readUnit(CLUSTER_UNIT);
    expect(read.status).toBe("ok");
    const back = read.status === "ok" ? JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(read.bytes)) : undefined;
    expect(back.nodes["node-1"]["example.org/tier"] === value).toBe(true);
    stored = { ...snapshot, generation: freshGeneration() };
    expect((await push("pushes", stored)).status).toBe(200);
  });

  for (const [unit, corruptedBy] of [
    ["tenant-acme", "a review in its namespace"],
    [CLUSTER_UNIT, "the next review"],
  ] as const) {
    it(`refuses a ${unit === CLUSTER_UNIT ? "cluster part" : "shard"} whose bytes no longer match its hash, found by ${corruptedBy}, and says so in reviews and metadata until a full push`, async () => {
      const snapshot = { ...snapshotOf(demoObjects), generation: freshGeneration() };
      expect((await push("pushes", snapshot)).status).toBe(200);
      await runInDurableObject(storeOf(env, "pushes"), (_, state) => {
        state.storage.sql.exec("UPDATE unit_chunk SET data = ? WHERE unit = (SELECT id FROM unit WHERE name = ? AND until IS NULL)", new TextEncoder().encode('{"tampered":true}').buffer, unit);
      });
      forget();
      const { response } = await validate("pushes", reviewOf(pod({ name: "main-db-1" })));
      expect(response).toEqual({
        uid: expect.any(String),
        allowed: true,
        warnings: [`edgeadmit: cluster "pushes": the stored snapshot (generation ${snapshot.generation}) failed its integrity check; policies not enforced`],
      });
      const name = unit === CLUSTER_UNIT ? "\\(cluster part\\)" : `"${unit}"`;
      expect((await meta()).body.corrupt).toMatch(new RegExp(`^unit ${name} of generation ${snapshot.generation} hashes to [0-9a-f]{12}, not the [0-9a-f]{12} recorded when it was stored$`));
      // An incremental push cannot build on it; a full one replaces it.
      const refused = await push("pushes", putBody(freshGeneration(), {}, { base: snapshot.generation, digest: await contentHash(snapshot) }));
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^base generation \d+ is not the stored generation \d+ \(which failed its integrity check\): push every unit/);
      stored = { ...snapshot, generation: freshGeneration() };
      expect((await push("pushes", stored)).status).toBe(200);
      forget();
      expect((await meta()).body.corrupt).toBeUndefined();
      expect((await observable()).allowed).toBe(false);
    });
  }
});

describe("the isolate cache", () => {
  it("reads the cluster part and a namespace's shard once, then serves reviews from memory", async () => {
    forget();
    const before = { ...cacheStats };
    for (let i = 0; i < 5; i++) expect((await validate("pushes", reviewOf(pod({ name: "main-db-1" })))).response.allowed).toBe(false);
    expect(cacheStats.clusterReads - before.clusterReads).toBe(1);
    expect(cacheStats.shardReads - before.shardReads).toBe(1);
  });

  it("loads no shard for a request no policy looks at", async () => {
    forget();
    const before = { ...cacheStats };
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "tenant-acme" }, data: {} };
    expect((await validate("pushes", reviewOf(configMap, { group: "", version: "v1" }))).response.allowed).toBe(true);
    expect(cacheStats.shardReads - before.shardReads).toBe(0);
    expect(cacheStats.absentReads - before.absentReads).toBe(0);
  });

  it("keeps no entry for a namespace the snapshot does not hold, and asks the store about its neighbourhood once", async () => {
    forget();
    await validate("pushes", reviewOf(pod({ name: "main-db-1" })));
    const entries = cacheStats.entries;
    const before = { ...cacheStats };
    for (const namespace of ["made-up-1", "made-up-2", "made-up-1"]) expect((await validate("pushes", reviewOf(pod({ name: "p", namespace })))).response.allowed).toBe(true);
    expect(cacheStats.entries).toBe(entries);
    // "made-up-*" sort between two stored names: the first answer covers the others.
    expect(cacheStats.absentReads - before.absentReads).toBe(1);
  });

  it("sees a newer generation only after revalidating, and checks an unchanged shard by its hash without reading it", async () => {
    forget();
    const start = Date.now();
    const old = await loadSnapshot(env, "pushes", start);
    await validate("pushes", reviewOf(pod({ name: "main-db-1" })));
    // Another isolate stores a newer generation that changes only the cluster part: straight into the store, this isolate unaware.
    const newer = { ...stored, generation: freshGeneration(), settings: { ...stored.settings, maxAgeSeconds: 7200 } };
    const { units, digest } = await encodeSnapshot(newer);
    const result = await storeOf(env, "pushes").push(
      newer.generation,
      units,
      await pushSigner("pushes"),
      { base: null, builtAt: newer.builtAt, pushedAt: start, removed: [], digest },
    );
    expect(result.ok).toBe(true);
    const before = { ...cacheStats };
    expect(await loadSnapshot(env, "pushes", start + REVALIDATE_MS - 1)).toBe(old);
    const fresh = await loadSnapshot(env, "pushes", start + REVALIDATE_MS);
    expect(fresh.loaded?.meta.generation).toBe(newer.generation);
    expect(await loadSnapshot(env, "pushes", start + REVALIDATE_MS + 10)).toBe(fresh);
    const shards = await loadShards(env, "pushes", fresh.loaded!, ["tenant-acme"]);
    expect(shards.ok && (shards.shards.get("tenant-acme") as NamespaceFacts).shard.applications["tenant-acme/main-db"]).toMatchObject({ affinityClass: "dc1" });
    expect(cacheStats.clusterReads - before.clusterReads).toBe(1);
    expect(cacheStats.shardReads - before.shardReads).toBe(0);
    expect(cacheStats.shardChecks - before.shardChecks).toBe(1);
    stored = newer;
  });

  it("revalidates an unchanged generation without reading it again", async () => {
    forget();
    const start = Date.now();
    const first = await loadSnapshot(env, "pushes", start);
    const reads = cacheStats.clusterReads;
    expect(await loadSnapshot(env, "pushes", start + 3 * REVALIDATE_MS)).toBe(first);
    expect(cacheStats.clusterReads).toBe(reads);
  });
});
