// In-process timing of competing functions: warmed up, then run in batches that
// take turns (rotating which goes first) so drift in CPU speed or load from the
// other tenants of this machine hits every candidate alike.
import { constants, PerformanceObserver } from "node:perf_hooks";
import { cpuNs, nowNs, quantile } from "./stats.js";

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
  /**
   * What a duration is. "wall" (the default): elapsed time, which on a machine
   * shared with other busy processes includes the time this one waited for a
   * core. "cpu": the process's CPU time (user + system, every thread), so the
   * warm-up and the batches count only work done, and each sample is the lesser
   * of the call's wall time and the CPU time it saw (net of the ~1 µs the
   * reading costs, `cpuClockCostNs`): wall time grows when the scheduler gives
   * the core to another process, process CPU time when V8's background
   * threads work alongside the call; the call's own work is in both.
   */
  clock?: "wall" | "cpu";
  /**
   * After the warm-up, untimed rounds until the first contender has stopped
   * getting faster: code whose hot closures V8 optimises one by one (CEL's)
   * needs seconds of calls, and whether earlier work in the process already
   * did it must not change the figures.
   */
  settle?: { minRounds: number; maxRounds: number; onSettled?: (rounds: number) => void };
}

/** Per contender, per round: the duration of each call in nanoseconds. */
type RoundSamples = Record<string, number[][]>;

let sink = 0;

async function runFor(contender: Contender, ms: number, now: () => number): Promise<number> {
  const end = now() + ms * 1e6;
  let calls = 0;
  while (now() < end) {
    const result = contender.run();
    sink ^= typeof result === "number" ? result : await result;
    calls++;
  }
  return calls;
}

/** What one reading of the CPU clock adds to a sample taken with it (the mean of many readings back to back). */
export function cpuClockCostNs(): number {
  const readings = 20_000;
  const started = cpuNs();
  for (let i = 0; i < readings; i++) cpuNs();
  return (cpuNs() - started) / (readings + 1);
}

export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<RoundSamples> {
  const now = options.clock === "cpu" ? cpuNs : nowNs;
  // Warm-up in turns, which also tells how many calls fill a batch.
  const perCallMs = new Map<string, number>();
  const slice = options.warmupMs / contenders.length / 4;
  for (let turn = 0; turn < 4; turn++) {
    for (const contender of contenders) {
      const calls = await runFor(contender, slice, now);
      perCallMs.set(contender.name, slice / Math.max(1, calls));
    }
  }
  const batch = new Map(contenders.map((c) => [c.name, Math.max(options.minBatch, Math.ceil(options.batchMs / perCallMs.get(c.name)!))]));

  const overheadNs = options.clock === "cpu" ? cpuClockCostNs() : 0;
  /** Every call of one batch: wall time, or in "cpu" mode the lesser of wall time and CPU time (see `clock`). */
  const timeBatch = async (contender: Contender): Promise<number[]> => {
    const durations = new Array<number>(batch.get(contender.name)!);
    for (let i = 0; i < durations.length; i++) {
      const wall = nowNs();
      const cpu = options.clock === "cpu" ? cpuNs() : 0;
      const result = contender.run();
      sink ^= typeof result === "number" ? result : await result;
      const wallNs = nowNs() - wall;
      durations[i] = options.clock === "cpu" ? Math.min(wallNs, Math.max(0, cpuNs() - cpu - overheadNs)) : wallNs;
    }
    return durations;
  };
  const rounds = async (count: number, take: (name: string, durations: number[]) => void) => {
    for (let round = 0; round < count; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const contender = contenders[(round + k) % contenders.length]!;
        take(contender.name, await timeBatch(contender));
      }
    }
  };

  if (options.settle !== undefined) {
    // Until the first contender's batch median stops falling: 4 rounds in a row without a new low (by 1 %), at least minRounds.
    const { minRounds, maxRounds } = options.settle;
    let best = Infinity;
    let sinceBest = 0;
    let settled = 0;
    while (settled < maxRounds && (settled < minRounds || sinceBest < 4)) {
      await rounds(1, (name, durations) => {
        if (name !== contenders[0]!.name) return;
        const median = quantile(durations, 0.5);
        if (median < best * 0.99) {
          best = median;
          sinceBest = 0;
        } else sinceBest++;
      });
      settled++;
    }
    options.settle.onSettled?.(settled);
  }

  const samples: RoundSamples = Object.fromEntries(contenders.map((c) => [c.name, []]));
  await rounds(options.rounds, (name, durations) => samples[name]!.push(durations));
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
