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
import type { CountHour, CountQuery, CountSum } from "../registry/counts.js";
import type { PeerSighting } from "../registry/peers.js";
import type { SnapshotSighting } from "../registry/snapshots.js";
import type { Peer } from "../../shared/version/index.js";

/** At most one storage write per isolate this often. */
export const FLUSH_MS = 10_000;
/** Entries (cluster, policy and hour; a row per outcome counted, six at most) one flush sends at most: a bounded write whatever the isolate counted (the rest waits for the next flush). */
export const MAX_BATCH = 2_000;

export interface CountWriter {
  /** `peers` and `snapshots` are new in 0.2.0: a registry of 0.1.0 (a rollback) takes the counts and ignores them. */
  addCounts(rows: CountRow[], now: number, peers?: PeerSighting[], snapshots?: SnapshotSighting[]): Promise<void>;
}

/**
 * The newest of something per cluster this isolate saw, flushed with the
 * counts. One entry per registered cluster at most: only a request that
 * proved the cluster's key is seen. Peers: the release each cluster's sync
 * job ran when it last called (its signed GETs and pushes), which the
 * registry keeps for `clusters list`, as kubectl get nodes shows each
 * kubelet's version. Snapshots: each cluster's last commit, which the
 * registry keeps for the fleet's overview and metrics.
 */
export class Sightings<T extends { cluster: string }> {
  #pending = new Map<string, T>();

  /** `merge` makes one sighting of a newer and the pending older one (by default the newer alone). */
  constructor(private readonly merge: (newer: T, older: T) => T = (newer) => newer) {}

  see(sighting: T): void {
    const older = this.#pending.get(sighting.cluster);
    this.#pending.set(sighting.cluster, older ? this.merge(sighting, older) : sighting);
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Up to `max` sightings, removed from what is pending. */
  take(max: number): T[] {
    const taken: T[] = [];
    for (const [cluster, sighting] of this.#pending) {
      if (taken.length >= max) break;
      taken.push(sighting);
      this.#pending.delete(cluster);
    }
    return taken;
  }

  /** Sightings a failed flush could not store, pending again under any newer one that came meanwhile. */
  giveBack(sightings: readonly T[]): void {
    for (const sighting of sightings) {
      const newer = this.#pending.get(sighting.cluster);
      this.#pending.set(sighting.cluster, newer ? this.merge(newer, sighting) : sighting);
    }
  }
}

/** A sync job's signed call as the registry lists it. */
export const peerSighting = (cluster: string, peer: Peer, now: number): PeerSighting => ({ cluster, release: peer.named ? peer.release.text : null, verb: peer.verb ?? null, commit: peer.commit ?? null, at: now });

/** A commit without a cluster part keeps the rules a pending older one carried (the registry would keep what it holds, which may be older). */
const keepRules = (newer: SnapshotSighting, older: SnapshotSighting): SnapshotSighting =>
  newer.webhookRules === undefined && older.webhookRules !== undefined ? { ...newer, webhookRules: older.webhookRules } : newer;

/** This isolate's counts, peer and snapshot sightings, and when they were last flushed. */
export class CountFlusher {
  readonly counter = new VerdictCounter();
  readonly peers = new Sightings<PeerSighting>();
  readonly snapshots = new Sightings<SnapshotSighting>(keepRules);
  #lastFlush = -Infinity;
  #flushing: Promise<void> | undefined;
  readonly stats = { flushes: 0 };

  /** Flushes if FLUSH_MS passed since the last flush (in the background when `defer` is given). */
  maybeFlush(writer: () => CountWriter, now: number, defer?: Defer): void {
    if (now - this.#lastFlush < FLUSH_MS || (this.counter.size === 0 && this.peers.size === 0 && this.snapshots.size === 0) || this.#flushing) return;
    const flush = this.flush(writer, now);
    if (defer) defer(flush);
  }

  /**
   * Sends one batch now; the operator's reads call it so they see this
   * isolate's counts too. A flush already under way holds counts taken
   * before this call: it is waited for first, so two reads at once (fleet
   * status asks for the clusters and the counts together) both see them.
   */
  flush(writer: () => CountWriter, now: number): Promise<void> {
    const underway = this.#flushing;
    if (underway) return underway.then(() => this.flush(writer, now));
    this.#lastFlush = now;
    const rows = this.counter.take(MAX_BATCH);
    const peers = this.peers.take(MAX_BATCH);
    const snapshots = this.snapshots.take(MAX_BATCH);
    if (rows.length === 0 && peers.length === 0 && snapshots.length === 0) return Promise.resolve();
    this.#flushing = (async () => {
      try {
        await writer().addCounts(rows, now, peers, snapshots);
        this.stats.flushes++;
        if (this.counter.dropped > 0) {
          log({ event: "config", reason: `verdict counts: ${this.counter.dropped} counts dropped, more distinct rows than an isolate holds between flushes` });
          this.counter.dropped = 0;
        }
      } catch (e) {
        this.counter.giveBack(rows);
        this.peers.giveBack(peers);
        this.snapshots.giveBack(snapshots);
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
  countHours(query: CountQuery, now: number): Promise<CountHour[]>;
}
