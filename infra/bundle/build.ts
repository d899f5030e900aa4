// `npm run bundle:infra`: the CLI as one ESM file with every dependency
// inside (client-node included), gzipped and cut into BUNDLE_PARTS files in
// infra/k8s/bundle/, whose component ships them as that many ConfigMaps to
// the CronJobs on a stock node:24 image. Built, never committed (git-ignored):
// run it before `kubectl apply -k` of an overlay with that component.
// `--out FILE` writes the plain bundle instead: the Dockerfile's build step.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { releaseCommit } from "../base/release.js";
import { PROJECT_ROOT } from "../base/root.js";

export const BUNDLE_DIR = join(PROJECT_ROOT, "infra", "k8s", "bundle");
/**
 * Why parts: client-side `kubectl apply` copies each object into its
 * last-applied-configuration annotation, and all annotations of an object
 * must fit in 256 KiB; binaryData travels base64 (4/3) in it. Four parts
 * of at most MAX_PART_BYTES keep every ConfigMap well inside that, and
 * inside the 1 MiB limit of a ConfigMap, for up to 720 KiB of gzip.
 */
export const BUNDLE_PARTS = 4;
export const MAX_PART_BYTES = 180 * 1024;

export function partFile(index: number): string {
  return join(BUNDLE_DIR, `edgeadmit.mjs.gz.part${index}`);
}

/** The gzip cut into BUNDLE_PARTS pieces of (almost) equal size; `cat part*` restores it. */
export function partsOf(gzip: Buffer): Buffer[] {
  const size = Math.ceil(gzip.length / BUNDLE_PARTS);
  return Array.from({ length: BUNDLE_PARTS }, (_, i) => gzip.subarray(i * size, (i + 1) * size));
}

export async function bundleCli(): Promise<{ js: Uint8Array; gzip: Buffer }> {
  // The commit the bundle is built from, fixed into it (infra/base/release.ts): a bundle has no checkout to ask.
  const commit = releaseCommit();
  const result = await build({
    entryPoints: [join(PROJECT_ROOT, "infra", "cli", "edgeadmit.ts")],
    absWorkingDir: PROJECT_ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "error",
    define: { "process.env.EDGEADMIT_COMMIT": JSON.stringify(commit ?? "") },
    // CommonJS dependencies call require(); ESM has none, so give them one.
    banner: { js: 'import { createRequire as __edgeadmitRequire } from "node:module"; const require = __edgeadmitRequire(import.meta.url);' },
  });
  const js = result.outputFiles[0]!.contents;
  // gzip's header carries no name and a zero mtime here, so the bytes depend on the sources only.
  return { js, gzip: gzipSync(js, { level: 9 }) };
}

/** `--out FILE`: the plain bundle for the edgeadmit image (the Dockerfile), instead of the ConfigMap parts. */
const outIndex = process.argv.indexOf("--out");

if (process.argv[1]?.endsWith("build.ts") && outIndex > 0) {
  const out = process.argv[outIndex + 1];
  if (!out) throw new Error("bundle:infra: --out needs a file");
  const { js } = await bundleCli();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, js);
  console.log(`${out}: ${js.length} bytes of JavaScript`);
} else if (process.argv[1]?.endsWith("build.ts")) {
  const { js, gzip } = await bundleCli();
  const parts = partsOf(gzip);
  if (parts[0]!.length > MAX_PART_BYTES) {
    console.error(`bundle:infra: ${gzip.length} bytes gzipped does not fit ${BUNDLE_PARTS} parts of ${MAX_PART_BYTES} bytes; raise BUNDLE_PARTS in infra/bundle/build.ts and infra/k8s`);
    process.exit(1);
  }
  mkdirSync(BUNDLE_DIR, { recursive: true });
  parts.forEach((part, i) => writeFileSync(partFile(i), part));
  console.log(`infra/k8s/bundle: ${js.length} bytes of JavaScript, ${gzip.length} gzipped, in ${BUNDLE_PARTS} parts of ≤ ${parts[0]!.length} bytes`);
}
