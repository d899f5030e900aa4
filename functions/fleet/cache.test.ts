import { describe, expect, it } from "vitest";
import type { FleetRevision } from "../../shared/fleet/index.js";
import { REFRESH_MS } from "../registry/cache.js";
import type { FleetSince } from "../registry/fleet.js";
import { FleetCache, type FleetReader } from "./cache.js";

// The registry's side of the poll: the revision in effect, and the whole set only when it differs from the caller's.
class Registry implements FleetReader {
  calls = 0;
  constructor(public stored: FleetRevision) {}
  async fleetSince(since: number): Promise<FleetSince> {
    this.calls++;
    return since === this.stored.revision ? { revision: since } : { revision: this.stored.revision, stored: this.stored };
  }
}

const revision = (n: number): FleetRevision => ({ revision: n, set: { policies: [], bindings: [], params: [], modes: [], exceptions: [] }, stages: {}, appliedAt: 0, change: "apply" });

describe("an isolate's fleet set", () => {
  it("is confirmed at most every REFRESH_MS, and a revision applied elsewhere is in effect from the first review after the refresh it starts", async () => {
    const registry = new Registry(revision(1));
    const cache = new FleetCache();
    const reader = () => registry;
    const deferred: Array<Promise<unknown>> = [];
    const defer = (promise: Promise<unknown>) => void deferred.push(promise);
    const t0 = 1_800_000_000_000;

    expect((await cache.current(reader, t0, defer))?.stored.revision).toBe(1);
    // Another isolate applies revision 2: this one keeps serving 1, without a call, until REFRESH_MS have passed.
    registry.stored = revision(2);
    expect((await cache.current(reader, t0 + REFRESH_MS - 1, defer))?.stored.revision).toBe(1);
    expect(registry.calls).toBe(1);
    // The first review past REFRESH_MS is still served from the set it has and refreshes in the background (waitUntil)…
    expect((await cache.current(reader, t0 + REFRESH_MS, defer))?.stored.revision).toBe(1);
    expect(deferred).toHaveLength(1);
    await Promise.all(deferred);
    // …so every review after that refresh's one round trip judges with revision 2: within REFRESH_MS (5 s) plus a round trip of the change.
    expect((await cache.current(reader, t0 + REFRESH_MS + 1, defer))?.stored.revision).toBe(2);
    expect(registry.calls).toBe(2);
    // Issue 25's bound: a fleet apply in effect on every cluster's next review within 10 s, round trip included.
    expect(REFRESH_MS).toBeLessThanOrEqual(5_000);
  });

  it("is read again at once in the isolate that applied the change", async () => {
    const registry = new Registry(revision(1));
    const cache = new FleetCache();
    const t0 = 1_800_000_000_000;
    await cache.current(() => registry, t0);
    registry.stored = revision(2);
    cache.noteChanged();
    expect((await cache.current(() => registry, t0 + 1))?.stored.revision).toBe(2);
  });
});
