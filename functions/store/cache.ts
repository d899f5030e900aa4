// The decoded snapshot of each cluster, kept in the isolate. A review reads it
// from memory; at most every REVALIDATE_MS one request asks the store whether
// a newer generation exists, and only then is the body read and decoded.
import { decodeStoredSnapshot, SnapshotView } from "../../shared/snapshot/index.js";
import type { Env } from "../config/index.js";
import type { SnapshotMeta } from "./index.js";

export const REVALIDATE_MS = 5_000;

export interface LoadedSnapshot {
  meta: SnapshotMeta;
  view: SnapshotView;
}

interface Entry {
  loaded: LoadedSnapshot | undefined;
  checkedAt: number;
}

const entries = new Map<string, Entry>();

/** How many times this isolate decoded a snapshot: what the cache tests observe. */
export const cacheStats = { decodes: 0 };

export function storeOf(env: Env, cluster: string) {
  return env.SNAPSHOTS.get(env.SNAPSHOTS.idFromName(cluster));
}

/** Remember a snapshot this isolate has just stored, so its next review needs no read. */
export function remember(cluster: string, loaded: LoadedSnapshot, now = Date.now()): void {
  entries.set(cluster, { loaded, checkedAt: now });
}

/** Drop every decoded snapshot, as a new isolate starts: the cache tests begin from here. */
export function forget(): void {
  entries.clear();
}

export async function loadSnapshot(env: Env, cluster: string, now = Date.now()): Promise<LoadedSnapshot | undefined> {
  const entry = entries.get(cluster);
  if (entry && now - entry.checkedAt < REVALIDATE_MS) return entry.loaded;

  const store = storeOf(env, cluster);
  const head = await store.head();
  if (head && entry?.loaded?.meta.generation === head.generation) {
    entries.set(cluster, { loaded: entry.loaded, checkedAt: now });
    return entry.loaded;
  }
  const stored = head ? await store.read() : null;
  let loaded: LoadedSnapshot | undefined;
  if (stored) {
    const decoded = decodeStoredSnapshot(stored.text);
    cacheStats.decodes++;
    // Stored snapshots were validated on push; one that no longer decodes (a
    // schema change across deploys, with a new apiVersion) counts as none, so
    // the cluster's stance applies until the next sync.
    if (decoded.ok) loaded = { meta: stored.meta, view: new SnapshotView(decoded.snapshot) };
  }
  entries.set(cluster, { loaded, checkedAt: now });
  return loaded;
}
