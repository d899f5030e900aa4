#!/usr/bin/env node
// `edgeadmit`: runs the TypeScript CLI (infra/cli) on Node without a build step: in the
// project (npm run, npx) the `node` devDependency, Node 24.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runTs } from "../scripts/tsrun.mjs";

try {
  await runTs(join(dirname(fileURLToPath(import.meta.url)), "..", "infra", "cli", "edgeadmit.ts"));
} catch (e) {
  // A compile failure of the CLI itself: one line, not esbuild's report.
  process.stderr.write(`edgeadmit: cannot start: ${String(e instanceof Error ? e.message : e).split("\n")[0]}\n`);
  process.exitCode = 1;
}
