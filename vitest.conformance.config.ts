import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { testClusters } from "./test/support/clusters.js";

// `npm run conformance`: acceptance data written by others, kept in the
// repository with its source and licence (conformance/data/*/README.md:
// Kubernetes' test tables, kubescape's policy library, real-world
// manifests), through the real worker in workerd. `npm test` never runs it.
export default defineConfig(async () => {
  const clusters = await testClusters();
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              main: "./functions/index.ts",
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: { bindings: clusters.bindings },
            }),
          ],
          test: { name: "conformance", include: ["conformance/**/*.test.ts"], testTimeout: 120_000 },
        },
      ],
    },
  };
});
