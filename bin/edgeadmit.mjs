#!/usr/bin/env node
// `edgeadmit`: runs the TypeScript CLI (infra/cli) on Node 20 without a build step.
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
