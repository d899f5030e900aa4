// Verdict counts at the edge: each isolate counts in memory (shared/fleet
// VerdictCounter, no storage write per review) and flushes what it counted
// at most every FLUSH_MS, MAX_BATCH rows a time, in the background of a
// review (waitUntil), to the registry's Durable Object, which adds them to
// hourly rows kept KEPT_HOURS (functions/registry/counts.ts). Chosen over Workers Analytics
// Engine because it runs the same in workerd (npm start, the tests), where
// Analytics Engine has no local query side, and because the counts are
// small: per cluster, policy and outcome, an hour a row.
import { VerdictCounter, type CountRow } from "../../shared/counts/index.js";
import { REGISTRY_NAME, type Env } from "../config/index.js";
import { log } from "../log/index.js";
import type { Defer } from "../registry/cache.js";
import type { CountQuery, CountSum } from "../registry/counts.js";
import type { PeerSighting } from "../registry/peers.js";
import type { Peer } from "../../shared/version/index.js";

/** At most one storage write per isolate this often. */
export const FLUSH_MS = 10_000;
/** Entries (cluster, policy and hour; a row per outcome counted, six at most) one flush sends at most: a bounded write whatever the isolate counted (the rest waits for the next flush). */
export const MAX_BATCH = 2_000;

export interface CountWriter {
  /** `peers` is new in 0.2.0: a registry of 0.1.0 (a rollback) takes the counts and ignores it. */
  addCounts(rows: CountRow[], now: number, peers?: PeerSighting[]): Promise<void>;
}

/**
 * The release each cluster's sync job ran when it last called this isolate
 * (its signed GETs and pushes), flushed with the counts: the registry keeps
 * the newest per cluster for `clusters list`, as kubectl get nodes shows each
 * kubelet's version. One entry per registered cluster at most: only a
 * request that proved the cluster's key is seen.
 */
export class PeerSightings {
  #pending = new Map<string, PeerSighting>();

  see(cluster: string, peer: Peer, now: number): void {
    this.#pending.set(cluster, { cluster, release: peer.named ? peer.release.text : null, verb: peer.verb ?? null, commit: peer.commit ?? null, at: now });
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Up to `max` sightings, removed from what is pending. */
  take(max: number): PeerSighting[] {
    const taken: PeerSighting[] = [];
    for (const [cluster, sighting] of this.#pending) {
      if (taken.length >= max) break;
      taken.push(sighting);
      this.#pending.delete(cluster);
    }
    return taken;
  }

  /** Sightings a failed flush could not store, pending again unless a newer one came meanwhile. */
  giveBack(sightings: readonly PeerSighting[]): void {
    for (const sighting of sightings) if (!this.#pending.has(sighting.cluster)) this.#pending.set(sighting.cluster, sighting);
  }
}

/** This isolate's counts and peer sightings, and when they were last flushed. */
export class CountFlusher {
  readonly counter = new VerdictCounter();
  readonly peers = new PeerSightings();
  #lastFlush = -Infinity;
  #flushing: Promise<void> | undefined;
  readonly stats = { flushes: 0 };

  /** Flushes if FLUSH_MS passed since the last flush (in the background when `defer` is given). */
  maybeFlush(writer: () => CountWriter, now: number, defer?: Defer): void {
    if (now - this.#lastFlush < FLUSH_MS || (this.counter.size === 0 && this.peers.size === 0) || this.#flushing) return;
    const flush = this.flush(writer, now);
    if (defer) defer(flush);
  }

  /** Sends one batch now; the operator's reads call it so they see this isolate's counts too. */
  flush(writer: () => CountWriter, now: number): Promise<void> {
    this.#lastFlush = now;
    const rows = this.counter.take(MAX_BATCH);
    const peers = this.peers.take(MAX_BATCH);
    if (rows.length === 0 && peers.length === 0) return Promise.resolve();
    this.#flushing = (async () => {
      try {
        await writer().addCounts(rows, now, peers);
        this.stats.flushes++;
        if (this.counter.dropped > 0) {
          log({ event: "config", reason: `verdict counts: ${this.counter.dropped} counts dropped, more distinct rows than an isolate holds between flushes` });
          this.counter.dropped = 0;
        }
      } catch (e) {
        this.counter.giveBack(rows);
        this.peers.giveBack(peers);
        log({ event: "registry-unavailable", reason: `verdict counts not flushed: ${e instanceof Error ? e.message : String(e)}` });
      } finally {
        this.#flushing = undefined;
      }
    })();
    return this.#flushing;
  }
}

const flushers = new WeakMap<object, CountFlusher>();

/** This isolate's counts for the registry `env` binds, and the way to store them; undefined without the binding (nothing is counted then). */
export function countsOf(env: Env): { flusher: CountFlusher; writer: () => CountWriter & CountReader } | undefined {
  const binding = env.REGISTRY;
  if (binding === undefined) return undefined;
  let flusher = flushers.get(binding);
  if (flusher === undefined) flushers.set(binding, (flusher = new CountFlusher()));
  // The stub's methods answer what the Durable Object's return, through RPC.
  return { flusher, writer: () => binding.get(binding.idFromName(REGISTRY_NAME)) as unknown as CountWriter & CountReader };
}

export interface CountReader {
  countSums(query: CountQuery, now: number): Promise<CountSum[]>;
}
