import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { missingConformanceData } from "./scripts/conformance-data.js";
import { testClusters } from "./test/support/clusters.js";

// `npm run conformance`: the team's acceptance data beside the clone
// (../shared: real-world fixtures, conformance suites), through the real
// worker in workerd. `npm test` never reads ../shared.
export default defineConfig(async () => {
  const missing = missingConformanceData(fileURLToPath(new URL(".", import.meta.url)));
  if (missing) {
    process.stderr.write(`${missing}\n`);
    process.exit(2);
  }
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
