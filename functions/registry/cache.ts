// What an isolate knows of the cluster registry. Two pieces, both bounded by
// what the operator registered, never by what callers send:
// - the directory: every registered id and the revision of its registration,
//   refreshed with one `changesSince` call at most every REFRESH_MS (whatever
//   the number of clusters), so an unknown id is refused from memory and a
//   flood of random ids never reaches the registry;
// - the registrations themselves (key and token digest bytes), fetched on
//   first use and kept, `capacity` at most, each good while its revision is
//   the directory's.
// A change reaches every isolate within REFRESH_MS plus one round trip: past
// REFRESH_MS the next request refreshes in the background (it is still served
// from the directory it has); past MAX_STALE_MS (an idle isolate) it waits.
import { loadRegistration, type Cluster } from "../../shared/clusters/index.js";
import { log } from "../log/index.js";
import type { AppliedChange, DirectoryDelta, StoredRegistration } from "./index.js";

/** The registry as an isolate reads it: the Durable Object's stub, or the benchmarks' in-memory twin. */
export interface RegistryReader {
  changesSince(since: number): Promise<DirectoryDelta>;
  get(cluster: string): Promise<StoredRegistration | null>;
}

/** How long the directory is trusted before the next request asks the registry what changed. */
export const REFRESH_MS = 5_000;
/** How stale the directory may be before a request waits for the refresh instead of starting it in the background. */
export const MAX_STALE_MS = 30_000;
/** After a failed refresh, the stale directory is served this long before the registry is asked again. */
export const RETRY_MS = 1_000;
/** Registrations kept per isolate unless REGISTRY_CACHE_ENTRIES says otherwise: 10,000 clusters in turn stay cached. */
export const DEFAULT_CACHE_ENTRIES = 20_000;

/** The registry could not be read and this isolate has nothing to go on: the caller answers 503. */
export class RegistryUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the cluster registry does not answer: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "RegistryUnavailable";
  }
}

/** Keeps background work alive after the response (ExecutionContext.waitUntil). */
export type Defer = (work: Promise<unknown>) => void;

/** A registration this isolate holds, in the directory in place of its bare revision. */
interface Held {
  id: string;
  /** The revision the directory lists: the registration is stale once `heldRevision` is below it. */
  revision: number;
  /** Undefined when the stored registration cannot be used by this version of the function (logged). */
  cluster: Cluster | undefined;
  heldRevision: number;
  /** Read since the clock hand last passed it: kept when a registration must make room. */
  used: boolean;
  /** Its place in the ring. */
  slot: number;
}

export interface RegistryStatus {
  /** The last refresh succeeded. */
  answering: boolean;
  clusters: number;
}

/**
 * Registrations are evicted by CLOCK (second chance), an approximation of
 * least-recently-used: a hit only sets a flag, so the hot path is one Map
 * lookup and writes no shared structure, whatever the number of clusters.
 */
export class RegistryCache {
  /** Every registered id: its revision, or its registration while this isolate holds it. */
  private directory = new Map<string, number | Held>();
  /** The registry revision the directory reflects. */
  private revision = 0;
  /** When the directory was last confirmed; undefined until it first was. */
  private checkedAt: number | undefined;
  private failedAt = -Infinity;
  private failing = false;
  private refreshing: Promise<void> | undefined;
  /** The held registrations, at most `capacity`; undefined in a free slot. */
  private readonly ring: Array<Held | undefined> = [];
  /** Slots of registrations removed from the registry, taken before the clock evicts anything. */
  private readonly free: number[] = [];
  private hand = 0;
  /** Keyed by registered ids only: a fetch starts after the directory said the id exists. */
  private readonly fetching = new Map<string, Promise<Held | undefined>>();
  /** What the tests and the benchmarks observe. */
  readonly stats = { refreshes: 0, fetches: 0 };

  constructor(readonly capacity = DEFAULT_CACHE_ENTRIES) {}

  /** The registered cluster `id`, or undefined when the registry does not hold it (or cannot use it). */
  async lookup(registry: () => RegistryReader, id: string, now: number, defer?: Defer): Promise<Cluster | undefined> {
    const waiting = this.current(registry, now, defer);
    if (waiting) await waiting;
    const entry = this.directory.get(id);
    if (entry === undefined) return undefined;
    if (typeof entry !== "number" && entry.heldRevision >= entry.revision) {
      entry.used = true;
      return entry.cluster;
    }
    return (await this.fetch(registry, id))?.cluster;
  }

  /** Whether the registry answers, and how many clusters it holds: /readyz. */
  async status(registry: () => RegistryReader, now: number): Promise<RegistryStatus> {
    try {
      await this.current(registry, now);
    } catch {
      // reported below: never loaded
    }
    return { answering: this.checkedAt !== undefined && !this.failing, clusters: this.directory.size };
  }

  /** A change this isolate just applied: visible here at once, not after the next refresh. */
  noteApplied(applied: readonly AppliedChange[]): void {
    for (const change of applied) {
      if (change.op === "remove") this.forget(change.cluster);
      else this.list(change.cluster, change.revision);
    }
  }

  /** Ids in the directory and registrations held: what the tests and the benchmarks weigh. */
  size(): { ids: number; registrations: number } {
    return { ids: this.directory.size, registrations: this.ring.length - this.free.length };
  }

  /** Undefined when the directory may be used as it is; otherwise the refresh to wait for. */
  private current(registry: () => RegistryReader, now: number, defer?: Defer): Promise<void> | undefined {
    const checkedAt = this.checkedAt;
    const failedJustNow = now - this.failedAt < RETRY_MS;
    if (checkedAt === undefined) return failedJustNow ? Promise.reject(new RegistryUnavailable("the last attempt, less than a second ago, failed")) : this.refresh(registry, now);
    if (now - checkedAt < REFRESH_MS || failedJustNow) return undefined;
    const refresh = this.refresh(registry, now);
    if (defer === undefined || now - checkedAt >= MAX_STALE_MS) return refresh;
    defer(refresh);
    return undefined;
  }

  private refresh(registry: () => RegistryReader, now: number): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        this.take(await registry().changesSince(this.revision));
        this.checkedAt = now;
        this.failing = false;
        this.stats.refreshes++;
      } catch (e) {
        this.failedAt = now;
        this.failing = true;
        log({ event: "registry-unavailable", reason: e instanceof Error ? e.message : String(e) });
        // With a directory, keep serving it: the registry changes nothing while it does not answer.
        if (this.checkedAt === undefined) throw new RegistryUnavailable(e);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** `id` is registered at `revision` (or later). */
  private list(id: string, revision: number): void {
    const entry = this.directory.get(id);
    if (entry === undefined || (typeof entry === "number" && entry < revision)) this.directory.set(id, revision);
    else if (typeof entry !== "number" && entry.revision < revision) entry.revision = revision;
  }

  /** `id` is no longer registered: its registration's slot becomes free. */
  private forget(id: string): void {
    const entry = this.directory.get(id);
    if (entry === undefined) return;
    if (typeof entry !== "number") {
      this.ring[entry.slot] = undefined;
      this.free.push(entry.slot);
    }
    this.directory.delete(id);
  }

  private take(delta: DirectoryDelta): void {
    if (delta.full) {
      const listed = new Set(delta.ids);
      for (const id of [...this.directory.keys()]) if (!listed.has(id)) this.forget(id);
    }
    for (const id of delta.removed) this.forget(id);
    delta.ids.forEach((id, i) => this.list(id, delta.revisions[i]!));
    this.revision = delta.revision;
  }

  private fetch(registry: () => RegistryReader, id: string): Promise<Held | undefined> {
    let pending = this.fetching.get(id);
    if (pending === undefined) {
      pending = this.load(registry, id).finally(() => this.fetching.delete(id));
      this.fetching.set(id, pending);
    }
    return pending;
  }

  private async load(registry: () => RegistryReader, id: string): Promise<Held | undefined> {
    this.stats.fetches++;
    let stored: StoredRegistration | null;
    try {
      stored = await registry().get(id);
    } catch (e) {
      log({ event: "registry-unavailable", reason: e instanceof Error ? e.message : String(e) });
      throw new RegistryUnavailable(e);
    }
    if (stored === null) {
      // Removed since the directory was read; the next refresh says so too.
      this.forget(id);
      return undefined;
    }
    const loaded = await loadRegistration(id, stored.registration, true);
    if (typeof loaded === "string") log({ event: "config", cluster: id, reason: `registration disabled: ${loaded}` });
    const cluster = typeof loaded === "string" ? undefined : loaded;
    // A refresh while this was loading may have removed the id: never bring it back from here.
    const entry = this.directory.get(id);
    if (entry === undefined) return undefined;
    const revision = Math.max(typeof entry === "number" ? entry : entry.revision, stored.revision);
    // A second chance is earned by a read after this one.
    if (typeof entry !== "number") return Object.assign(entry, { revision, cluster, heldRevision: stored.revision, used: false });
    const held: Held = { id, revision, cluster, heldRevision: stored.revision, used: false, slot: this.makeRoom() };
    this.ring[held.slot] = held;
    this.directory.set(id, held);
    return held;
  }

  /** A slot: a free one, or the one of the first registration the clock hand finds not read since it last passed, which goes back to its bare revision. */
  private makeRoom(): number {
    const free = this.free.pop();
    if (free !== undefined) return free;
    if (this.ring.length < this.capacity) return this.ring.length;
    for (;;) {
      const victim = this.ring[this.hand]!;
      const slot = this.hand;
      this.hand = (this.hand + 1) % this.capacity;
      if (victim.used) victim.used = false;
      else {
        this.directory.set(victim.id, victim.revision);
        return slot;
      }
    }
  }
}
