// What an isolate knows of the cluster registry. Two pieces, both bounded by
// what the operator registered, never by what callers send:
// - the directory: every registered id and the revision of its registration,
//   refreshed with one `changesSince` call at most every REFRESH_MS (whatever
//   the number of clusters), so an unknown id is refused from memory and a
//   flood of random ids never reaches the registry;
// - the registrations themselves (keys imported, token digests decoded),
//   fetched on first use and kept in an LRU of `capacity` entries, each good
//   while its revision is the directory's.
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

interface Entry {
  revision: number;
  /** Undefined when the stored registration cannot be used by this version of the function (logged). */
  cluster: Cluster | undefined;
}

export interface RegistryStatus {
  /** The last refresh succeeded. */
  answering: boolean;
  clusters: number;
}

export class RegistryCache {
  private directory = new Map<string, number>();
  /** The registry revision the directory reflects. */
  private revision = 0;
  /** When the directory was last confirmed; undefined until it first was. */
  private checkedAt: number | undefined;
  private failedAt = -Infinity;
  private failing = false;
  private refreshing: Promise<void> | undefined;
  /** Least recently used first. */
  private readonly entries = new Map<string, Entry>();
  /** Keyed by registered ids only: a fetch starts after the directory said the id exists. */
  private readonly fetching = new Map<string, Promise<Entry | undefined>>();
  /** What the tests and the benchmarks observe. */
  readonly stats = { refreshes: 0, fetches: 0 };

  constructor(readonly capacity = DEFAULT_CACHE_ENTRIES) {}

  /** The registered cluster `id`, or undefined when the registry does not hold it (or cannot use it). */
  async lookup(registry: () => RegistryReader, id: string, now: number, defer?: Defer): Promise<Cluster | undefined> {
    const waiting = this.current(registry, now, defer);
    if (waiting) await waiting;
    const revision = this.directory.get(id);
    if (revision === undefined) return undefined;
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.revision >= revision) {
      this.entries.delete(id);
      this.entries.set(id, entry);
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
      if (change.op === "remove") {
        this.directory.delete(change.cluster);
        this.entries.delete(change.cluster);
      } else if ((this.directory.get(change.cluster) ?? 0) < change.revision) this.directory.set(change.cluster, change.revision);
    }
  }

  /** Ids in the directory and registrations held: what the benchmarks weigh. */
  size(): { ids: number; registrations: number } {
    return { ids: this.directory.size, registrations: this.entries.size };
  }

  /** Undefined when the directory may be used as it is; otherwise the refresh to wait for. */
  private current(registry: () => RegistryReader, now: number, defer?: Defer): Promise<void> | undefined {
    const checkedAt = this.checkedAt;
    if (checkedAt === undefined) return this.refresh(registry, now);
    if (now - checkedAt < REFRESH_MS || now - this.failedAt < RETRY_MS) return undefined;
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

  private take(delta: DirectoryDelta): void {
    if (delta.full) {
      const directory = new Map<string, number>();
      delta.ids.forEach((id, i) => directory.set(id, delta.revisions[i]!));
      for (const id of this.entries.keys()) if (!directory.has(id)) this.entries.delete(id);
      this.directory = directory;
    } else {
      delta.ids.forEach((id, i) => this.directory.set(id, delta.revisions[i]!));
      for (const id of delta.removed) {
        this.directory.delete(id);
        this.entries.delete(id);
      }
    }
    this.revision = delta.revision;
  }

  private fetch(registry: () => RegistryReader, id: string): Promise<Entry | undefined> {
    let pending = this.fetching.get(id);
    if (pending === undefined) {
      pending = this.load(registry, id).finally(() => this.fetching.delete(id));
      this.fetching.set(id, pending);
    }
    return pending;
  }

  private async load(registry: () => RegistryReader, id: string): Promise<Entry | undefined> {
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
      this.directory.delete(id);
      this.entries.delete(id);
      return undefined;
    }
    const loaded = await loadRegistration(id, stored.registration);
    if (typeof loaded === "string") log({ event: "config", cluster: id, reason: `registration disabled: ${loaded}` });
    // A refresh while this was loading may have removed the id: never bring it back from here.
    const listed = this.directory.get(id);
    if (listed === undefined) return undefined;
    if (listed < stored.revision) this.directory.set(id, stored.revision);
    const entry: Entry = { revision: stored.revision, cluster: typeof loaded === "string" ? undefined : loaded };
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}
