// In-process timing of competing functions: warmed up, then run in batches that
// take turns (rotating which goes first) so drift in CPU speed or load from the
// other tenants of this machine hits every candidate alike.
import { nowNs } from "./stats.js";

export interface Contender {
  name: string;
  /** One call; returns something derived from its result so the work cannot be optimised away. */
  run: () => number;
}

export interface InterleaveOptions {
  rounds: number;
  warmupMs: number;
  /** Wall time one batch should take; at least `minBatch` calls each. */
  batchMs: number;
  minBatch: number;
}

/** Per contender, per round: the duration of each call in nanoseconds. */
export type RoundSamples = Record<string, number[][]>;

let sink = 0;

function runFor(contender: Contender, ms: number): number {
  const end = nowNs() + ms * 1e6;
  let calls = 0;
  while (nowNs() < end) {
    sink ^= contender.run();
    calls++;
  }
  return calls;
}

export function interleave(contenders: readonly Contender[], options: InterleaveOptions): RoundSamples {
  // Warm-up in turns, which also tells how many calls fill a batch.
  const perCallMs = new Map<string, number>();
  const slice = options.warmupMs / contenders.length / 4;
  for (let turn = 0; turn < 4; turn++) {
    for (const contender of contenders) {
      const calls = runFor(contender, slice);
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
        sink ^= contender.run();
        durations[i] = nowNs() - start;
      }
      samples[contender.name]!.push(durations);
    }
  }
  if (sink === 0.5) console.log(sink); // never true; keeps `sink` observable
  return samples;
}
