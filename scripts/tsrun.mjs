// Runs a TypeScript entry point on Node 20 without a build step: esbuild
// bundles the project's own code (packages stay external and resolve from
// node_modules) into .edgeadmit/run/, and Node imports the result.
import { build } from "esbuild";
import { mkdirSync, renameSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export async function runTs(entry) {
  const outDir = join(root, ".edgeadmit", "run");
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, `${basename(entry, ".ts")}.mjs`);
  const tmp = `${out}.${process.pid}.tmp.mjs`;
  await build({
    entryPoints: [resolve(root, entry)],
    outfile: tmp,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    sourcemap: "inline",
    logLevel: "error",
  });
  renameSync(tmp, out);
  return import(pathToFileURL(out).href);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [entry, ...rest] = process.argv.slice(2);
  if (!entry) {
    console.error("usage: node scripts/tsrun.mjs <entry.ts> [args...]");
    process.exit(2);
  }
  process.argv = [process.argv[0], entry, ...rest];
  await runTs(entry);
}
