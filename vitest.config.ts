import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { testClusters } from "./test/support/clusters.js";

// Two projects: "node" runs pure code, the CLI and the in-cluster side in Node;
// "worker" runs the real worker in workerd and drives it over HTTP.
// Limits far above what a test takes on a quiet machine, so a loaded 2-core
// CI (load 8) never fails on one: vitest's default 10 s for a hook is not;
// the hooks that start a worker give themselves WORKER_START_TIMEOUT_MS.
//
// Speed (docs/contributing.md, "Tests"): a file per core, not vitest's
// default of one fewer (one at a time on 2 cores): much of a file's time is
// spent waiting on what it started (the CLI, workerd, kubectl). And
// `isolate: false` in both projects: a worker runs file after file with the
// modules it has loaded, where isolation imported the whole code again for
// every file, and in the worker project started a new workerd for each (most
// of that project's time). So a file puts back what it changes of the process
// (process.env, spies) after itself; and the worker project's files share the
// function's storage (its Durable Objects) with the files before them in that
// worker: they pass all in one worker and in shuffled orders (--maxWorkers=1,
// --sequence.shuffle.files), pushes taking ever newer generations
// (test/support/worker.ts, freshGeneration).
/**
 * The docs test (test/node/docs.test.ts) is a third of the node project's time
 * in one file that cannot be split (its blocks build on each other): started
 * first, it runs beside everything else. Vitest orders by the durations it
 * cached, but a fresh clone has none, and by size it came 33rd of 106.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const longest = (file: TestSpecification) => file.moduleId.endsWith("/test/node/docs.test.ts");
    return [...sorted.filter(longest), ...sorted.filter((file) => !longest(file))];
  }
}

/**
 * The seed of every property test (fast-check) of the run: a fixed one, so
 * `npm test` draws the same cases on every run and machine and a property
 * passes or fails alike every time. EDGEADMIT_FC_SEED=random draws new cases
 * (a seed per property, printed with a failure), EDGEADMIT_FC_SEED=<integer>
 * replays a printed one (docs/contributing.md, "Property tests").
 */
const FAST_CHECK_SEED = 37;

function fastCheckSeed(setting: string | undefined): number | undefined {
  if (setting === undefined || setting === "") return FAST_CHECK_SEED;
  if (setting === "random") return undefined;
  const seed = Number(setting);
  if (!Number.isSafeInteger(seed)) throw new Error(`EDGEADMIT_FC_SEED is "${setting}": an integer (a seed a failing property printed) or "random"`);
  return seed;
}

export default defineConfig(async () => {
  const clusters = await testClusters();
  return {
    test: {
      maxWorkers: availableParallelism(),
      provide: { fastCheckSeed: fastCheckSeed(process.env["EDGEADMIT_FC_SEED"]) },
      // What a test printed (the function's structured logs, thousands of
      // lines) is shown for a failing test only: a passing run stays readable.
      silent: "passed-only" as const,
      sequence: { sequencer: LongestFirst },
      projects: [
        {
          test: {
            name: "node",
            include: ["{shared,policies,infra,functions,scripts}/**/*.test.ts", "test/node/**/*.test.ts", "bench/**/*.test.ts"],
            environment: "node",
            // The operator's own registry context (infra/cli/operator-flags.ts) never reaches a test: each passes
            // its endpoint and key, or sets these itself.
            env: { EDGEADMIT_ENDPOINT: "", EDGEADMIT_OPERATOR_KEY: "", EDGEADMIT_CONTEXTS: "/nonexistent/edgeadmit/contexts.yaml" },
            isolate: false,
            setupFiles: ["./test/support/fast-check.setup.ts"],
            testTimeout: 60_000,
            hookTimeout: 60_000,
          },
        },
        {
          plugins: [
            cloudflareTest({
              main: "./functions/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: { bindings: clusters.bindings },
            }),
          ],
          test: { name: "worker", include: ["test/worker/**/*.test.ts"], isolate: false, setupFiles: ["./test/support/fast-check.setup.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
        },
        {
          // The same function deployed with OPERATOR_THRESHOLD=2: changes that widen access wait for a second key.
          plugins: [
            cloudflareTest({
              main: "./functions/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: { bindings: { ...clusters.bindings, OPERATOR_THRESHOLD: "2" } },
            }),
          ],
          test: { name: "worker-threshold", include: ["test/worker-threshold/**/*.test.ts"], isolate: false, setupFiles: ["./test/support/fast-check.setup.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
        },
      ],
    },
  };
});
