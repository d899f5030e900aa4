// Pushes in units, over HTTP in workerd: an incremental push carries only the
// units that changed, pushes that race keep the highest generation, and a
// review never reads two generations at once, even while a push that changes
// several shards is half sent.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { forget, loadShards, loadSnapshot, storeOf } from "../../functions/store/cache.js";
import { review } from "../../shared/review/index.js";
import { bucketOf, CLUSTER_UNIT, contentHash, encodeSnapshot, NamespaceFacts, reviewUnits, SnapshotView, splitSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import { POLICIES } from "../../policies/index.js";
import { dispatch, freshGeneration, push, sign, snapshotOf, validate } from "../support/worker.js";
import { reviewOf } from "../support/reviews.js";
import { putBody, unitsOf } from "../support/push.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";

// "rotating" is signed with the demo key; no other test in this file's storage uses it.
const CLUSTER = "rotating";

async function put(text: string): Promise<Response> {
  const bytes = new TextEncoder().encode(text);
  return dispatch(`/v1/${CLUSTER}/snapshot`, { method: "PUT", body: bytes, headers: await sign(CLUSTER, bytes) });
}

async function ok(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The bodies of a push written by hand: one body per shard (staging), then the cluster part with the commit. */
async function bodiesOf(snapshot: Snapshot, names: readonly string[], commit: { base: number | null; removed?: string[] }): Promise<string[]> {
  const units = await unitsOf(snapshot);
  const digest = await contentHash(snapshot);
  const shards = names.filter((name) => name !== CLUSTER_UNIT).map((name) => putBody(snapshot.generation, { [name]: units[name] }));
  const last = names.includes(CLUSTER_UNIT) ? { [CLUSTER_UNIT]: units[CLUSTER_UNIT] } : {};
  return [...shards, putBody(snapshot.generation, last, { ...commit, digest })];
}

const affinityClass = (name: string, pool: string): KubeObject => ({ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name }, spec: { nodeSelector: { pool } } });
const helmRelease = (namespace: string, name: string, className: string): KubeObject => ({
  apiVersion: "helm.toolkit.fluxcd.io/v2",
  kind: "HelmRelease",
  metadata: { name, namespace, labels: { "apps.cozystack.io/affinity-class": className } },
});

/**
 * Generation 1: class "pool" places on pool=a, and HelmRelease apps/web names it.
 * Generation 2: "pool" moves to pool=b, a new class "pool-a" places on pool=a, and apps/web names "pool-a".
 * A pod of web (in tenant-x, its HelmRelease named by Flux's labels) asks for pool=a: allowed under
 * either generation, denied under any mix (new classes with the old HelmRelease: pool=b is missing;
 * old classes with the new HelmRelease: "pool-a" does not exist). Filler namespaces make the push many bodies.
 */
function generation(which: 1 | 2, fillers = 6): Snapshot {
  const objects: KubeObject[] =
    which === 1
      ? [affinityClass("pool", "a"), helmRelease("apps", "web", "pool"), helmRelease("tenant-x", "other", "pool")]
      : [affinityClass("pool", "b"), affinityClass("pool-a", "a"), helmRelease("apps", "web", "pool-a"), helmRelease("tenant-x", "other", "pool-a")];
  for (let i = 0; i < fillers; i++) objects.push(helmRelease(`filler-${i}`, `app-${which}`, "pool"));
  return snapshotOf(objects);
}

const webPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-1", namespace: "tenant-x", labels: { "helm.toolkit.fluxcd.io/name": "web", "helm.toolkit.fluxcd.io/namespace": "apps" } },
  spec: { containers: [{ name: "web", image: "registry.example/web:1" }], nodeSelector: { pool: "a" } },
};

async function verdict() {
  const { response } = await validate(CLUSTER, reviewOf(webPod));
  return { allowed: response.allowed, warnings: response.warnings ?? [], message: response.status?.message };
}
const clean = { allowed: true, warnings: [], message: undefined };

describe("the mixing fixture", () => {
  it("allows the pod under each generation and denies it under either mix, as judged offline", async () => {
    const [one, two] = [generation(1), generation(2)];
    const request = reviewOf(webPod).request as Parameters<typeof review>[0];
    const judge = (view: SnapshotView) => review(request, { cluster: "c", policies: POLICIES, snapshot: { view, pushedAt: Date.now() }, withoutSnapshot: "FailOpen", now: Date.now() }).decision.allowed;
    // The cluster part of one generation with the shards of the other, as a mixed read would give them.
    const mixed = (classesOf: Snapshot, shardsOf: Snapshot) => {
      const { facts } = new SnapshotView(classesOf);
      return judge(new SnapshotView(facts, new Map(reviewUnits(request, facts).map((namespace) => [namespace, loadedShard(shardsOf, namespace)]))));
    };
    expect(judge(new SnapshotView(one))).toBe(true);
    expect(judge(new SnapshotView(two))).toBe(true);
    expect(mixed(two, one)).toBe(false);
    expect(mixed(one, two)).toBe(false);
    expect(reviewUnits(request, new SnapshotView(one).facts).sort()).toEqual(["apps", "tenant-x"]);
  });
});

/** One namespace's shard of `snapshot`, as the function would load it (null: it has none). */
function loadedShard(snapshot: Snapshot, namespace: string): NamespaceFacts | null {
  const shard = splitSnapshot(snapshot).shards.get(namespace);
  return shard ? new NamespaceFacts(shard) : null;
}

describe("a push that changes several shards", () => {
  it("is seen whole or not at all by reviews interleaved with its bodies, fresh from the store or from memory", async () => {
    const first = generation(1);
    await ok(await push(CLUSTER, first));
    forget();
    expect(await verdict()).toEqual(clean);

    const second = { ...generation(2), generation: freshGeneration() };
    const changed = (await encodeSnapshot(second)).units.map((unit) => unit.name);
    const bodies = await bodiesOf(second, changed, { base: first.generation });
    expect(bodies.length).toBeGreaterThan(5);
    for (const body of bodies) {
      // One review from this isolate's memory, one as a fresh isolate would read the store.
      expect(await verdict()).toEqual(clean);
      forget();
      expect(await verdict()).toEqual(clean);
      await ok(await put(body));
    }
    forget();
    expect(await verdict()).toEqual(clean);
    expect((await storeOf(env, CLUSTER).head())?.generation).toBe(second.generation);
  });

  it("lets a review that read the cluster part before the commit read every shard of that generation after it", async () => {
    const older = { ...generation(1), generation: freshGeneration() };
    await ok(await push(CLUSTER, older));
    forget();
    const state = await loadSnapshot(env, CLUSTER, Date.now(), { force: true });
    expect(state.loaded?.meta.generation).toBe(older.generation);
    // The next generation commits between the cluster part and the shards.
    const newer = { ...generation(2), generation: freshGeneration() };
    await ok(await push(CLUSTER, newer));
    const request = reviewOf(webPod).request as Parameters<typeof review>[0];
    const shards = await loadShards(env, CLUSTER, state.loaded!, reviewUnits(request, state.loaded!.facts));
    expect(shards.ok).toBe(true);
    if (!shards.ok) return;
    expect((shards.shards.get("apps") as NamespaceFacts).shard.applications["apps/web"]?.affinityClass).toBe("pool");
    const outcome = review(request, { cluster: CLUSTER, policies: POLICIES, snapshot: { view: new SnapshotView(state.loaded!.facts, shards.shards), pushedAt: Date.now() }, withoutSnapshot: "FailOpen", now: Date.now() });
    expect(outcome.decision.allowed).toBe(true);

    // One more generation and the oldest is gone: the review must read the cluster part again, never mix.
    await ok(await push(CLUSTER, { ...generation(1), generation: freshGeneration() }));
    forget(); // nothing in memory: the shard must come from the store, which no longer has that generation
    const gone = await loadShards(env, CLUSTER, state.loaded!, ["apps"]);
    expect(gone).toEqual({ ok: false, gone: true });
    // Over HTTP the function does that by itself.
    expect(await verdict()).toEqual(clean);
  });
});

describe("pushes that race", () => {
  it("keep the highest generation, whichever commits first, with nothing of the lower one left behind", async () => {
    for (const order of ["higher first", "lower first", "together"] as const) {
      const lower = { ...generation(1, 3), generation: freshGeneration() };
      const higher = { ...generation(2, 3), generation: freshGeneration() };
      const all = async (snapshot: Snapshot) => bodiesOf(snapshot, (await encodeSnapshot(snapshot)).units.map((unit) => unit.name), { base: null });
      const [low, high] = [await all(lower), await all(higher)];
      // Their staging bodies interleave.
      for (let i = 0; i < Math.max(low.length, high.length) - 1; i++) {
        if (i < low.length - 1) await ok(await put(low[i]!));
        if (i < high.length - 1) await ok(await put(high[i]!));
      }
      const [lowCommit, highCommit] = [low.at(-1)!, high.at(-1)!];
      if (order === "higher first") {
        await ok(await put(highCommit));
        const refused = await put(lowCommit);
        expect(refused.status).toBe(409);
        expect(((await refused.json()) as { error: string }).error).toBe(
          `generation ${lower.generation} is not newer than the stored generation ${higher.generation}: a stale or replayed push; nothing was stored`,
        );
      } else if (order === "lower first") {
        await ok(await put(lowCommit));
        await ok(await put(highCommit));
      } else {
        const [a, b] = await Promise.all([put(lowCommit), put(highCommit)]);
        expect([a.status, b.status]).toContain(200);
      }
      expect((await storeOf(env, CLUSTER).head())?.generation, order).toBe(higher.generation);
      expect((await storeOf(env, CLUSTER).head())?.contentHash, order).toBe(await contentHash(higher));
      forget();
      expect(await verdict(), order).toEqual(clean);
    }
  });
});

describe("an incremental push", () => {
  it("carries only the changed units, keeps the others' rows, drops removed namespaces, and answers the same digests a full push would", async () => {
    const base = { ...generation(1, 20), generation: freshGeneration() };
    await ok(await push(CLUSTER, base));
    const fullBytes = (await encodeSnapshot(base)).units.reduce((sum, unit) => sum + unit.bytes.length, 0);

    // The next build: one namespace changes and one goes away.
    const next = structuredClone(base) as Snapshot;
    next.generation = freshGeneration();
    next.applications["filler-3/app-1"] = { affinityClass: "pool-b" };
    delete next.applications["filler-7/app-1"];
    const [before, after] = [await unitsOf(base), await unitsOf(next)];
    const changed = Object.keys(after).filter((name) => JSON.stringify(after[name]) !== JSON.stringify(before[name]));
    const removed = Object.keys(before).filter((name) => !(name in after));
    // The namespace, and the references of the classes it named and now names; the cluster-wide part stays.
    changed.sort();
    expect({ changed, removed }).toEqual({ changed: ["affinityclass/pool", "affinityclass/pool-b", "filler-3"], removed: ["filler-7"] });
    const bodies = await bodiesOf(next, changed, { base: base.generation, removed });
    const sent = bodies.flatMap((body) => Object.keys((JSON.parse(body) as { units: Record<string, unknown> }).units));
    expect(sent.sort()).toEqual(changed);
    const sentBytes = bodies.reduce((sum, body) => sum + new TextEncoder().encode(body).length, 0);
    expect(sentBytes).toBeLessThan(fullBytes / 2);
    let answer: Record<string, unknown> = {};
    for (const body of bodies) answer = await ok(await put(body));
    expect(answer).toMatchObject({ generation: next.generation, contentHash: await contentHash(next), units: Object.keys(after).length });

    // Unchanged shards were not written again: their rows still date from the base generation.
    const since = await runInDurableObject(storeOf(env, CLUSTER), (_, state) =>
      Object.fromEntries(state.storage.sql.exec<{ name: string; since: number }>("SELECT name, since FROM unit WHERE until IS NULL AND name IN ('filler-2', 'filler-3', 'filler-7')").toArray().map((row) => [row.name, row.since])),
    );
    expect(since).toEqual({ "filler-2": base.generation, "filler-3": next.generation });

    // What the sync job compares, after the incremental push and after a full one of the same content.
    const listing = async () => {
      const headers = await sign(CLUSTER, new Uint8Array(), { method: "GET" });
      return ((await (await dispatch(`/v1/${CLUSTER}/snapshot/buckets`, { headers })).json()) as { buckets: Record<string, string> }).buckets;
    };
    const incremental = await listing();
    await ok(await push(CLUSTER, { ...next, generation: freshGeneration() }));
    expect(await listing()).toEqual(incremental);
    expect(Object.keys(incremental).length).toBeGreaterThan(10);
  });

  it("lists the units of one bucket with their hashes, and refuses a bucket that does not exist", async () => {
    const snapshot = { ...generation(1), generation: freshGeneration() };
    await ok(await push(CLUSTER, snapshot));
    const { units } = await encodeSnapshot(snapshot);
    const unit = units.find((u) => u.name === "apps")!;
    const headers = await sign(CLUSTER, new Uint8Array(), { method: "GET" });
    const listed = (await (await dispatch(`/v1/${CLUSTER}/snapshot/buckets/${bucketOf("apps")}`, { headers })).json()) as { units: Record<string, string>; generation: number };
    expect(listed.generation).toBe(snapshot.generation);
    expect(listed.units["apps"]).toBe(unit.sha256);
    const refused = await dispatch(`/v1/${CLUSTER}/snapshot/buckets/1024`, { headers });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "a bucket is a whole number from 0 to 1023" });
  });
});
