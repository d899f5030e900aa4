// The part of autocannon's programmatic API the benchmarks use (it ships no types).
declare module "autocannon" {
  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    idReplacement?: boolean;
    connections?: number;
    duration?: number;
  }
  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
