// The decoded snapshot of each cluster, kept in the isolate. A review reads it
// from memory; at most every REVALIDATE_MS one request asks the store whether
// a newer generation exists, and only then is the body read and decoded.
// Keyed by registered cluster ids only (callers are authenticated first).
import { decodeStoredSnapshot, SnapshotView } from "../../shared/snapshot/index.js";
import type { Env } from "../config/index.js";
import { log } from "../log/index.js";
import type { SnapshotMeta } from "./index.js";

export const REVALIDATE_MS = 5_000;

export interface LoadedSnapshot {
  meta: SnapshotMeta;
  view: SnapshotView;
}

/** What a cluster's reviews are judged against: its snapshot, or why there is none to use. */
export type SnapshotState = { loaded: LoadedSnapshot; unusable?: undefined } | { loaded?: undefined; unusable: string | undefined };

interface Entry {
  state: SnapshotState;
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
  entries.set(cluster, { state: { loaded }, checkedAt: now });
}

/** Drop every decoded snapshot, as a new isolate starts: the cache tests begin from here. */
export function forget(): void {
  entries.clear();
}

async function read(env: Env, cluster: string): Promise<SnapshotState> {
  const stored = await storeOf(env, cluster).read();
  if (!stored) return { unusable: undefined };
  if (!stored.ok) {
    log({ event: "integrity", cluster, generation: stored.meta.generation, reason: stored.corrupt });
    return { unusable: `the stored snapshot (generation ${stored.meta.generation}) failed its integrity check` };
  }
  const decoded = decodeStoredSnapshot(new TextDecoder().decode(stored.bytes));
  cacheStats.decodes++;
  // Stored snapshots were validated on push; one that no longer decodes (a
  // schema change across deploys) is unusable until the next sync pushes.
  if (!decoded.ok) return { unusable: `the stored snapshot (generation ${stored.meta.generation}) cannot be read by this version of the function` };
  return { loaded: { meta: stored.meta, view: new SnapshotView(decoded.snapshot) } };
}

/** The cluster's snapshot state; `unusable` is undefined when nothing was ever pushed. */
export async function loadSnapshot(env: Env, cluster: string, now = Date.now()): Promise<SnapshotState> {
  const entry = entries.get(cluster);
  if (entry && now - entry.checkedAt < REVALIDATE_MS) return entry.state;
  const head = await storeOf(env, cluster).head();
  const state =
    head && entry?.state.loaded?.meta.generation === head.generation && !head.corrupt ? entry.state
    : head ? await read(env, cluster)
    : { unusable: undefined };
  entries.set(cluster, { state, checkedAt: now });
  return state;
}
