// What an isolate keeps of the clusters' snapshots: one LRU, bounded in
// bytes across every cluster it serves, holding cluster parts (with their
// compiled policies and derived indexes) and the namespace shards reviews
// asked for, never whole snapshots. Workers give an isolate 128 MB for
// everything; the bound (SNAPSHOT_CACHE_MB, default 32) is on the estimated
// heap of what is kept (stored bytes × HEAP_PER_STORED_BYTE).
//
// A cluster's part is revalidated against the store's head at most every
// REVALIDATE_MS; a shard is kept with the generation it was read for and
// checked again (by its hash, without its bytes) once the cluster part moves
// on. A review reads every shard at the generation of the cluster part it
// started with, so it never mixes generations. Entries are keyed only by
// registered cluster ids (callers are authenticated first) and by namespaces
// the store holds: a namespace it does not hold leaves only a gap between two
// stored names behind, with the cluster part, never an entry of its own.
import { ClusterFacts, clusterPartSchema, loadedUnit, unitNameProblem, type ClusterPart, type LoadedShards, type LoadedUnit } from "../../shared/snapshot/index.js";
import { log } from "../log/index.js";
import type { SnapshotMeta, SnapshotStore, UnitRead } from "./index.js";


/** The bindings the store and its cache read; the function's Env (functions/config) has them. */
export interface StoreEnv {
  SNAPSHOTS: DurableObjectNamespace<SnapshotStore>;
  /** Whole MiB of estimated heap an isolate keeps of snapshots, all clusters together (default 32). */
  SNAPSHOT_CACHE_MB?: string;
}

export const REVALIDATE_MS = 5_000;
const DEFAULT_CACHE_MB = 32;
/** Heap a decoded unit takes per byte of its stored JSON, its lineage index built (npm run bench, section "Fleet": 2.9). */
export const HEAP_PER_STORED_BYTE = 3;
/** What one entry costs beyond its content: keys, the entry, the facts objects. */
const ENTRY_OVERHEAD = 1024;
/** Namespaces known to have no shard, per cluster generation: ranges between stored names. */
const MAX_GAPS = 64;

interface LoadedSnapshot {
  meta: SnapshotMeta;
  facts: ClusterFacts;
  /** Stored bytes of the cluster part: what its cache entry is estimated from. */
  clusterBytes: number;
  /** Open ranges (low, high) of names with no unit in this generation, as the store answered; null is unbounded. */
  gaps: Array<[string | null, string | null]>;
}

/** What a cluster's reviews are judged against: its cluster part, or why there is none to use. */
type SnapshotState = { loaded: LoadedSnapshot; unusable?: undefined } | { loaded?: undefined; unusable: string | undefined };

interface ClusterEntry {
  kind: "cluster";
  state: SnapshotState;
  checkedAt: number;
}

interface ShardEntry {
  kind: "shard";
  generation: number;
  sha256: string;
  facts: LoadedUnit;
}

/** A Map in use order, evicting the least recently used entries past `limit` bytes. */
class ByteLru<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(public limit: number) {}

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` unless it alone is over the limit (then it serves its review and goes). */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.limit) return;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.limit) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

const cache = new ByteLru<ClusterEntry | ShardEntry>(DEFAULT_CACHE_MB * 2 ** 20);

/** What the cache tests and the bench observe. */
export const cacheStats = { clusterReads: 0, shardReads: 0, shardChecks: 0, absentReads: 0, get bytes() { return cache.bytes; }, get entries() { return cache.size; } };

const clusterKey = (cluster: string) => `c\u0000${cluster}`;
const shardKey = (cluster: string, namespace: string) => `s\u0000${cluster}\u0000${namespace}`;
const estimate = (storedBytes: number) => storedBytes * HEAP_PER_STORED_BYTE + ENTRY_OVERHEAD;

export function storeOf(env: StoreEnv, cluster: string) {
  return env.SNAPSHOTS.get(env.SNAPSHOTS.idFromName(cluster));
}

/** The limit from SNAPSHOT_CACHE_MB (whole MiB, at least 1), else the default; applied on each call, so a new value takes effect at once. */
function applyLimit(env: StoreEnv): void {
  const configured = env.SNAPSHOT_CACHE_MB !== undefined && /^\d{1,5}$/.test(env.SNAPSHOT_CACHE_MB) ? Number(env.SNAPSHOT_CACHE_MB) : DEFAULT_CACHE_MB;
  cache.limit = Math.max(1, configured) * 2 ** 20;
}

/** Drop everything, as a new isolate starts: the cache tests begin from here. */
export function forget(): void {
  cache.clear();
}

/** Drop what this isolate knows of `cluster`'s head, so its next review reads the store (after a push through this isolate). */
export function forgetCluster(cluster: string): void {
  cache.delete(clusterKey(cluster));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A stored unit's bytes as JSON. The push route validated it with the schema
 * and stored its output, so reading it back is JSON.parse; a
 * cluster part missing a field this version expects (stored by an older one)
 * goes through the schema, which fills defaults or says it cannot be used.
 */
function decodeClusterPart(bytes: Uint8Array): ClusterPart | undefined {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const shape: Record<string, { _zod: { optout?: string } }> = clusterPartSchema.shape;
  if (isRecord(json) && Object.keys(shape).every((key) => json[key] !== undefined || shape[key]!._zod.optout === "optional")) return json as ClusterPart;
  const parsed = clusterPartSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

async function readCluster(env: StoreEnv, cluster: string): Promise<SnapshotState> {
  cacheStats.clusterReads++;
  const stored = await storeOf(env, cluster).readCluster();
  if (!stored) return { unusable: undefined };
  const { meta, unit } = stored;
  if (unit.status === "corrupt") {
    log({ event: "integrity", cluster, generation: meta.generation, reason: unit.reason });
    return { unusable: `the stored snapshot (generation ${meta.generation}) failed its integrity check` };
  }
  const part = unit.status === "ok" ? decodeClusterPart(unit.bytes) : undefined;
  // Stored parts were validated on push; one that no longer decodes (a schema change across deploys) is unusable until the next sync pushes.
  if (!part) return { unusable: `the stored snapshot (generation ${meta.generation}) cannot be read by this version of the function` };
  return { loaded: { meta, facts: new ClusterFacts(part), clusterBytes: unit.status === "ok" ? unit.bytes.length : 0, gaps: [] } };
}

const inflight = new Map<string, Promise<SnapshotState>>();

/** The cluster's snapshot state; `unusable` is undefined when nothing was ever pushed. `force` reads the store whatever the age. */
export async function loadSnapshot(env: StoreEnv, cluster: string, now = Date.now(), { force = false } = {}): Promise<SnapshotState> {
  applyLimit(env);
  const key = clusterKey(cluster);
  const entry = cache.get(key) as ClusterEntry | undefined;
  if (entry && !force && now - entry.checkedAt < REVALIDATE_MS) return entry.state;
  // Concurrent reviews of one cluster share one read.
  const pending = inflight.get(key);
  if (pending) return pending;
  const read = (async () => {
    const head = await storeOf(env, cluster).head();
    const state =
      head && entry?.state.loaded?.meta.generation === head.generation && !head.corrupt ? entry.state
      : head ? await readCluster(env, cluster)
      : { unusable: undefined };
    cache.set(key, { kind: "cluster", state, checkedAt: now }, estimate(state.loaded?.clusterBytes ?? 0));
    return state;
  })();
  inflight.set(key, read);
  try {
    return await read;
  } finally {
    inflight.delete(key);
  }
}

/** Whether a name no unit has at this generation, as gaps between stored names say. Names are compared as SQLite does only when no character is a surrogate. */
const comparable = (text: string) => !/[\ud800-\udfff]/.test(text);

function inGap(gaps: LoadedSnapshot["gaps"], name: string): boolean {
  if (!comparable(name)) return false;
  return gaps.some(([low, high]) => (low === null || low < name) && (high === null || name < high));
}

function addGap(loaded: LoadedSnapshot, gap: [string | null, string | null]): void {
  if (!gap.every((bound) => bound === null || comparable(bound))) return;
  if (loaded.gaps.length >= MAX_GAPS) loaded.gaps.shift();
  loaded.gaps.push(gap);
}

type ShardsResult = { ok: true; shards: LoadedShards } | { ok: false; gone: true } | { ok: false; gone?: undefined; corrupt: string };

/**
 * The units of `names` (namespaces' shards, classes' references, the
 * inventory's buckets and directories: shared/snapshot reviewUnits, and what
 * a review's evaluation asked for) at the generation of `loaded`, from the
 * cache or the store: a name with no unit maps to null. `gone` when the store
 * no longer holds that generation (the cluster part must be read again).
 */
export async function loadShards(env: StoreEnv, cluster: string, loaded: LoadedSnapshot, names: readonly string[]): Promise<ShardsResult> {
  const generation = loaded.meta.generation;
  const shards = new Map<string, LoadedUnit | null>();
  const reads = names.map(async (name): Promise<ShardsResult | undefined> => {
    if (unitNameProblem(name) !== undefined || inGap(loaded.gaps, name)) {
      shards.set(name, null);
      return undefined;
    }
    const key = shardKey(cluster, name);
    const entry = cache.get(key) as ShardEntry | undefined;
    if (entry?.generation === generation) {
      shards.set(name, entry.facts);
      return undefined;
    }
    const read = (await storeOf(env, cluster).readUnit(name, generation, entry?.sha256)) as UnitRead;
    switch (read.status) {
      case "same":
        cacheStats.shardChecks++;
        if (entry!.generation < generation) entry!.generation = generation;
        shards.set(name, entry!.facts);
        return undefined;
      case "ok": {
        cacheStats.shardReads++;
        const facts = loadedUnit(name, JSON.parse(new TextDecoder().decode(read.bytes)) as unknown);
        // A review still on an older generation does not replace what a newer one cached.
        if (!entry || entry.generation <= generation) cache.set(key, { kind: "shard", generation, sha256: read.sha256, facts }, estimate(read.bytes.length));
        shards.set(name, facts);
        return undefined;
      }
      case "absent":
        cacheStats.absentReads++;
        if (entry) cache.delete(key);
        addGap(loaded, read.gap);
        shards.set(name, null);
        return undefined;
      case "gone":
        return { ok: false, gone: true };
      case "corrupt":
        log({ event: "integrity", cluster, generation, reason: read.reason });
        forgetCluster(cluster);
        return { ok: false, corrupt: `the stored snapshot (generation ${generation}) failed its integrity check` };
    }
  });
  const failed = (await Promise.all(reads)).find((result) => result !== undefined);
  return failed ?? { ok: true, shards };
}
