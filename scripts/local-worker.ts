// The function, served from workerd on loopback, configured from wrangler.toml:
// `npm start`, the CLI's end-to-end tests and the benchmarks all run it this way.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { PROJECT_ROOT } from "../infra/base/root.js";
import type { Registration } from "../shared/clusters/index.js";


interface LocalWorkerOptions {
  clusters: Record<string, Registration>;
  /** More Worker vars (LOG_REVIEWS). */
  vars?: Record<string, string>;
  /** "log" also prints the worker's console.log lines (through Node's console), not only its warnings. */
  logLevel?: "warn" | "log";
  /** 0 (default) picks a free port. */
  port?: number;
  /** Keep snapshots across restarts in this directory; by default each start gets a fresh, empty store. */
  persistTo?: string;
  /** Another entry point (the benchmarks' no-op twin, a previous release's function); the function's by default. */
  entry?: string;
  /** Another wrangler.toml (a previous release's); the project's by default. */
  config?: string;
}

/**
 * The time a test hook gives startLocalWorker (and what it does beside it):
 * a few seconds on a quiet machine, but wrangler bundles the function and
 * starts two workerd processes, and on a loaded 2-core machine (load 8) that
 * took up to 25 s; three times that, and more, so a busy CI never fails on it.
 */
export const WORKER_START_TIMEOUT_MS = 180_000;

export interface LocalWorker {
  url: string;
  stop(): Promise<void>;
}

/** Wrangler must not phone home or write outside the project (no network, no account here). */
export function offlineWranglerEnv(): void {
  process.env.WRANGLER_SEND_METRICS = "false";
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  process.env.XDG_CONFIG_HOME ??= join(PROJECT_ROOT, ".edgeadmit", "config");
  mkdirSync(process.env.XDG_CONFIG_HOME, { recursive: true });
}

export async function startLocalWorker(options: LocalWorkerOptions): Promise<LocalWorker> {
  offlineWranglerEnv();
  mkdirSync(join(PROJECT_ROOT, ".edgeadmit"), { recursive: true });
  const { unstable_dev } = await import("wrangler");
  const scratch = options.persistTo ? undefined : mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "worker-"));
  const worker = await unstable_dev(resolve(PROJECT_ROOT, options.entry ?? "functions/index.ts"), {
    config: options.config ?? join(PROJECT_ROOT, "wrangler.toml"),
    vars: { CLUSTERS: JSON.stringify(options.clusters), ...options.vars },
    ip: "127.0.0.1",
    port: options.port ?? 0,
    local: true,
    persistTo: options.persistTo ?? scratch,
    logLevel: options.logLevel ?? "warn",
    experimental: { disableExperimentalWarning: true },
  });
  return {
    url: `http://127.0.0.1:${worker.port}`,
    stop: async () => {
      await worker.stop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}
