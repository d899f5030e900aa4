import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { testClusters } from "./test/support/clusters.js";

// Two projects: "node" runs pure code, the CLI and the in-cluster side in Node;
// "worker" runs the real worker in workerd and drives it over HTTP.
// Limits far above what a test takes on a quiet machine, so a loaded 2-core
// CI (load 8) never fails on one: vitest's default 10 s for a hook is not;
// the hooks that start a worker give themselves WORKER_START_TIMEOUT_MS.
export default defineConfig(async () => {
  const clusters = await testClusters();
  return {
    test: {
      projects: [
        {
          test: {
            name: "node",
            include: ["{shared,policies,infra,functions,scripts}/**/*.test.ts", "test/node/**/*.test.ts", "bench/**/*.test.ts"],
            environment: "node",
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
          test: { name: "worker", include: ["test/worker/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 },
        },
      ],
    },
  };
});
