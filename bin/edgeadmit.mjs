#!/usr/bin/env node
// `edgeadmit`: runs the TypeScript CLI (infra/cli) on Node without a build step: in the
// project (npm run, npx) the `node` devDependency, Node 24.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Young generations of 16 MB, as Node 20 had: Node 24's V8 grows them to 64 MB under a
// stream of short-lived objects (check of 45,000 objects: 360 MB resident instead of 214;
// npm run bench, section 8) and reads their bound only when it starts, so it goes on
// Node's command line: the launcher starts Node again in its own place (same process,
// nothing runs twice) unless the caller chose a size (a flag, NODE_OPTIONS). The CronJob
// sets it in NODE_OPTIONS (infra/k8s/cronjob.yaml). process.execve is POSIX only.
const YOUNG_GENERATION = "--max-semi-space-size";
const chosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((flag) => flag.startsWith(YOUNG_GENERATION));
if (!chosen && typeof process.execve === "function")
  process.execve(process.execPath, [process.execPath, `${YOUNG_GENERATION}=16`, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], process.env);

const { runTs } = await import("../scripts/tsrun.mjs");
try {
  await runTs(join(dirname(fileURLToPath(import.meta.url)), "..", "infra", "cli", "edgeadmit.ts"));
} catch (e) {
  // A compile failure of the CLI itself: one line, not esbuild's report.
  process.stderr.write(`edgeadmit: cannot start: ${String(e instanceof Error ? e.message : e).split("\n")[0]}\n`);
  process.exitCode = 1;
}
