// In-process timing of competing functions: warmed up, then run in batches that
// take turns (rotating which goes first) so drift in CPU speed or load from the
// other tenants of this machine hits every candidate alike.
import { constants, PerformanceObserver } from "node:perf_hooks";
import { nowNs } from "./stats.js";

interface Contender {
  name: string;
  /** One call; returns something derived from its result so the work cannot be optimised away. Async calls are awaited, sync ones are not. */
  run: () => number | Promise<number>;
}

export interface InterleaveOptions {
  rounds: number;
  warmupMs: number;
  /** Wall time one batch should take; at least `minBatch` calls each. */
  batchMs: number;
  minBatch: number;
}

/** Per contender, per round: the duration of each call in nanoseconds. */
type RoundSamples = Record<string, number[][]>;

let sink = 0;

async function runFor(contender: Contender, ms: number): Promise<number> {
  const end = nowNs() + ms * 1e6;
  let calls = 0;
  while (nowNs() < end) {
    const result = contender.run();
    sink ^= typeof result === "number" ? result : await result;
    calls++;
  }
  return calls;
}

export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<RoundSamples> {
  // Warm-up in turns, which also tells how many calls fill a batch.
  const perCallMs = new Map<string, number>();
  const slice = options.warmupMs / contenders.length / 4;
  for (let turn = 0; turn < 4; turn++) {
    for (const contender of contenders) {
      const calls = await runFor(contender, slice);
      perCallMs.set(contender.name, slice / Math.max(1, calls));
    }
  }
  const batch = new Map(contenders.map((c) => [c.name, Math.max(options.minBatch, Math.ceil(options.batchMs / perCallMs.get(c.name)!))]));

  const samples: RoundSamples = Object.fromEntries(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const contender = contenders[(round + k) % contenders.length]!;
      const durations = new Array<number>(batch.get(contender.name)!);
      for (let i = 0; i < durations.length; i++) {
        const start = nowNs();
        const result = contender.run();
        sink ^= typeof result === "number" ? result : await result;
        durations[i] = nowNs() - start;
      }
      samples[contender.name]!.push(durations);
    }
  }
  if (sink === 0.5) console.log(sink); // never true; keeps `sink` observable
  return samples;
}

export interface GcLoad {
  /** Young-generation collections (scavenges) per 1,000 calls. */
  minorPer1000: number;
  /** Mean pause of one scavenge, ms. */
  minorPauseMs: number;
}

/** How much garbage a contender makes, seen as the scavenges it causes: a call that meets one pays its pause. */
export async function gcLoad(contender: Contender, calls: number): Promise<GcLoad> {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.push(entry.duration);
  });
  observer.observe({ entryTypes: ["gc"] });
  for (let i = 0; i < calls; i++) {
    // Sync calls are not awaited: an await per call would add garbage of its own.
    const result = contender.run();
    sink ^= typeof result === "number" ? result : await result;
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // gc entries arrive asynchronously
  observer.disconnect();
  return { minorPer1000: (pauses.length * 1000) / calls, minorPauseMs: pauses.length ? pauses.reduce((a, b) => a + b, 0) / pauses.length : 0 };
}
