// Summaries shared by every section: each figure is the median of repeated
// runs with their min and max, so one noisy run can neither hide nor fake a result.

export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

/** The q-quantile (0..1) of `values` by nearest rank; `values` need not be sorted. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error("quantile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function spread(values: readonly number[]): Spread {
  return { median: quantile(values, 0.5), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}

/** A figure known exactly (a byte count): one run, min = max = median. */
export function exact(value: number): Spread {
  return { median: value, min: value, max: value, runs: 1 };
}

/** Nanoseconds since an arbitrary origin, as a number (fine for the durations measured here). */
export function nowNs(): number {
  return Number(process.hrtime.bigint());
}

/**
 * The process's CPU time (user + system, all threads) in nanoseconds, at the
 * microsecond resolution getrusage gives: unlike wall time it does not grow
 * while other tenants of a busy machine hold the cores.
 */
export function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1e3;
}

export function nowMs(): number {
  return nowNs() / 1e6;
}
