// Runs a TypeScript entry point on Node (24, the devDependency `node`) without a build step: esbuild
// bundles the project's own code (packages stay external and resolve from
// node_modules) into .edgeadmit/run/, and Node imports the result.
//
// Split into chunks, so what a module imports only dynamically is loaded only
// when reached: `edgeadmit check` never loads @kubernetes/client-node, which
// only the verbs that talk to a cluster import. The chunks of one build live
// in a directory named by a hash of their contents, written whole and renamed
// into place, so processes starting at once share a build or each write their
// own, and a running process never sees its chunks replaced.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runDir = join(root, ".edgeadmit", "run");
/** Builds older than this, of any entry, are removed when a new one is written. */
const STALE_MS = 24 * 60 * 60 * 1000;

function removeStaleBuilds(now) {
  for (const name of readdirSync(runDir)) {
    const dir = join(runDir, name);
    try {
      if (now - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // another process removed it first
    }
  }
}

export async function runTs(entry) {
  const name = basename(entry, ".ts");
  const tmp = join(runDir, `.${name}.${process.pid}.tmp`);
  const result = await build({
    entryPoints: { [name]: resolve(root, entry) },
    outdir: tmp,
    write: false,
    bundle: true,
    splitting: true,
    chunkNames: "chunk-[hash]",
    outExtension: { ".js": ".mjs" },
    platform: "node",
    format: "esm",
    target: "node24",
    packages: "external",
    sourcemap: "inline",
    logLevel: "error",
  });
  const files = result.outputFiles.map((file) => ({ path: relative(tmp, file.path), contents: file.contents })).sort((a, b) => (a.path < b.path ? -1 : 1));
  const hash = createHash("sha256");
  for (const file of files) hash.update(file.path).update("\0").update(file.contents);
  const final = join(runDir, `${name}-${hash.digest("hex").slice(0, 16)}`);
  if (!existsSync(final)) {
    mkdirSync(tmp, { recursive: true });
    for (const file of files) writeFileSync(join(tmp, file.path), file.contents);
    try {
      renameSync(tmp, final);
      removeStaleBuilds(Date.now());
    } catch {
      // the same build renamed into place by another process first
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return import(pathToFileURL(join(final, `${name}.mjs`)).href);
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
