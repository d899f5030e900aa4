import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { testClusters } from "./test/support/clusters.js";

// Two projects: "node" runs pure code, the CLI and the in-cluster side in Node;
// "worker" runs the real worker in workerd and drives it over HTTP.
export default defineConfig(async () => {
  const clusters = await testClusters();
  return {
    test: {
      projects: [
        {
          test: {
            name: "node",
            include: ["{shared,policies,infra,functions,scripts}/**/*.test.ts", "test/node/**/*.test.ts"],
            environment: "node",
            testTimeout: 60_000,
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
          test: { name: "worker", include: ["test/worker/**/*.test.ts"], testTimeout: 60_000 },
        },
      ],
    },
  };
});
