import { describe, expect, it } from "vitest";
import { HOUR_MS, MAX_PENDING_ROWS, VerdictCounter, type CountRow } from "../../shared/counts/index.js";
import type { ReviewOutcome } from "../../shared/review/index.js";
import { CountFlusher, FLUSH_MS, MAX_BATCH } from "./counts.js";

const allowed: ReviewOutcome = { decision: { allowed: true, warnings: [], auditAnnotations: {} }, results: [], skipped: [] };
const denied: ReviewOutcome = {
  decision: { allowed: false, denial: { code: 403, reason: "Forbidden", message: "m" }, warnings: [], auditAnnotations: {} },
  results: [{ policy: "rwo-rollout", mode: "Deny", message: "m" }],
  skipped: [],
};

describe("CountFlusher", () => {
  it("writes at most once per FLUSH_MS, whatever the number of reviews, and loses nothing between writes", async () => {
    const writes: CountRow[][] = [];
    const writer = () => ({ addCounts: async (rows: CountRow[]) => void writes.push(rows) });
    const flusher = new CountFlusher();
    const deferred: Array<Promise<unknown>> = [];
    const t0 = 5 * HOUR_MS;
    for (let i = 0; i < 1000; i++) {
      flusher.counter.countReview("c1", i % 2 === 0 ? allowed : denied, t0 + i);
      flusher.maybeFlush(writer, t0 + i, (work) => void deferred.push(work));
    }
    await Promise.all(deferred);
    // The first review flushes (nothing flushed yet); the 999 after it wait for FLUSH_MS.
    expect(writes).toEqual([[[5, "c1", "review", "*", "allow", 1]]]);
    flusher.maybeFlush(writer, t0 + FLUSH_MS, (work) => void deferred.push(work));
    await Promise.all(deferred);
    expect(writes[1]).toEqual([
      [5, "c1", "review", "*", "allow", 499],
      [5, "c1", "review", "*", "deny", 500],
      [5, "c1", "builtin", "rwo-rollout", "deny", 500],
    ]);
  });

  it("sends at most MAX_BATCH rows a write, keeps what a failed write could not store, and bounds what it holds", async () => {
    const flusher = new CountFlusher();
    for (let i = 0; i < MAX_BATCH + 5; i++) flusher.counter.countReview(`c${i}`, allowed, 0);
    await flusher.flush(() => ({ addCounts: () => Promise.reject(new Error("down")) }), 0);
    expect(flusher.counter.size).toBe(MAX_BATCH + 5);
    const sent: number[] = [];
    await flusher.flush(() => ({ addCounts: async (rows: CountRow[]) => void sent.push(rows.length) }), FLUSH_MS);
    expect([sent, flusher.counter.size]).toEqual([[MAX_BATCH], 5]);
    const counter = new VerdictCounter();
    for (let i = 0; i < MAX_PENDING_ROWS + 3; i++) counter.countError(`c${i}`, 0);
    expect([counter.size, counter.dropped]).toEqual([MAX_PENDING_ROWS, 3]);
  });
});

describe("snapshot sightings", () => {
  const rules = [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "*" as const }];

  it("keep the rules a pending commit carried when a newer commit sends no cluster part, and flush with the counts", async () => {
    const flusher = new CountFlusher();
    flusher.snapshots.see({ cluster: "c1", generation: 1, pushedAt: 10, webhookRules: rules });
    flusher.snapshots.see({ cluster: "c1", generation: 2, pushedAt: 20 });
    flusher.snapshots.see({ cluster: "c2", generation: 5, pushedAt: 30, webhookRules: null });
    const sent: unknown[][] = [];
    await flusher.flush(() => ({ addCounts: async (_rows: CountRow[], _now: number, _peers?: unknown[], snapshots?: unknown[]) => void sent.push(snapshots ?? []) }), 0);
    expect(sent).toEqual([
      [
        { cluster: "c1", generation: 2, pushedAt: 20, webhookRules: rules },
        { cluster: "c2", generation: 5, pushedAt: 30, webhookRules: null },
      ],
    ]);
  });

  it("given back after a failed flush, sit under a newer one that came meanwhile, its rules kept or the older's taken", async () => {
    const flusher = new CountFlusher();
    flusher.snapshots.see({ cluster: "c1", generation: 1, pushedAt: 10, webhookRules: rules });
    let fail = true;
    const sent: unknown[][] = [];
    const writer = () => ({
      addCounts: async (_rows: CountRow[], _now: number, _peers?: unknown[], snapshots?: unknown[]) => {
        if (fail) {
          // A newer commit, without a cluster part, while the write is under way.
          flusher.snapshots.see({ cluster: "c1", generation: 2, pushedAt: 20 });
          throw new Error("down");
        }
        sent.push(snapshots ?? []);
      },
    });
    await flusher.flush(writer, 0);
    fail = false;
    await flusher.flush(writer, FLUSH_MS);
    expect(sent).toEqual([[{ cluster: "c1", generation: 2, pushedAt: 20, webhookRules: rules }]]);
  });
});

describe("a read while a flush is under way", () => {
  it("waits for it: what it took is stored before the read goes on", async () => {
    const flusher = new CountFlusher();
    const stored: CountRow[] = [];
    let release: () => void = () => undefined;
    const slow = () => ({ addCounts: (rows: CountRow[]) => new Promise<void>((resolve) => (release = () => (stored.push(...rows), resolve()))) });
    flusher.counter.countReview("c1", denied, 0);
    const background = flusher.flush(slow, 0);
    // A second read now: nothing is pending, but the first flush holds the row.
    let read = false;
    const second = flusher.flush(slow, 1).then(() => void (read = true));
    await Promise.resolve();
    expect(read).toBe(false);
    release();
    await Promise.all([background, second]);
    expect(read).toBe(true);
    expect(stored).toEqual([
      [0, "c1", "review", "*", "deny", 1],
      [0, "c1", "builtin", "rwo-rollout", "deny", 1],
    ]);
  });
});
