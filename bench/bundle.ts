// Section 4: what is uploaded and what an isolate evaluates before its first
// request. The bundle is built as wrangler builds it (esbuild, workerd
// conditions, cloudflare:* external), minified, then gzipped.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { offlineWranglerEnv } from "../scripts/local-worker.js";
import { exact, nowMs, spread } from "./stats.js";
import { figure, goalsHold, type Section } from "./figures.js";

const run = promisify(execFile);
const KB = 1024;
const STARTUP_RUNS = 9;
const WORKERD_STARTS = 7;

/** Minified bytes per package (node_modules) or top-level project folder. */
type Contributors = Array<[source: string, bytes: number]>;

async function bundle(outfile: string): Promise<{ code: Buffer; contributors: Contributors }> {
  const { metafile } = await build({
    entryPoints: [join(PROJECT_ROOT, "functions/index.ts")],
    outfile,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*"],
    metafile: true,
    logLevel: "error",
  });
  const bySource = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const source = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? `${path.split("/")[0]}/`;
      bySource.set(source, (bySource.get(source) ?? 0) + bytesInOutput);
    }
  }
  return { code: readFileSync(outfile), contributors: [...bySource].sort((a, b) => b[1] - a[1]) };
}

/** `wrangler deploy --dry-run --outdir`: what wrangler itself would upload (as configured, and with --minify). */
async function wranglerDryRun(outdir: string, minify: boolean): Promise<{ bytes: number; gzip: number } | string> {
  offlineWranglerEnv();
  try {
    await run(process.execPath, [join(PROJECT_ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--outdir", outdir, ...(minify ? ["--minify"] : [])], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, TMPDIR: join(outdir, "..") },
      maxBuffer: 1 << 22,
    });
  } catch (e) {
    return `wrangler deploy --dry-run failed offline: ${((e as { stderr?: string }).stderr ?? String(e)).trim().split("\n").slice(-3).join(" ")}`;
  }
  const modules = readdirSync(outdir).filter((f) => f.endsWith(".js"));
  const code = Buffer.concat(modules.map((f) => readFileSync(join(outdir, f))));
  return { bytes: modules.reduce((sum, f) => sum + statSync(join(outdir, f)).size, 0), gzip: gzipSync(code).length };
}

/**
 * Evaluating the minified bundle in a fresh Node process, cloudflare:workers
 * replaced by a stub: V8 compiling and running the module's top level, minus
 * importing an empty module after the loader is warm.
 */
async function startupMs(dir: string, code: string): Promise<number[]> {
  const specifier = '"cloudflare:workers"';
  // Each Durable Object class's module imports it (esbuild keeps one import per module), so every one is replaced.
  if (!code.includes(specifier)) throw new Error(`expected the bundle to import ${specifier}`);
  writeFileSync(join(dir, "cloudflare-workers-stub.mjs"), "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }\n");
  writeFileSync(join(dir, "worker.mjs"), code.replaceAll(specifier, '"./cloudflare-workers-stub.mjs"'));
  writeFileSync(join(dir, "empty-a.mjs"), "export default {};\n");
  writeFileSync(join(dir, "empty-b.mjs"), "export default {};\n");
  const probe = join(dir, "startup-probe.mjs");
  const url = (f: string) => JSON.stringify(pathToFileURL(join(dir, f)).href);
  writeFileSync(
    probe,
    `await import(${url("cloudflare-workers-stub.mjs")});
await import(${url("empty-a.mjs")});
let t = performance.now();
await import(${url("empty-b.mjs")});
const empty = performance.now() - t;
t = performance.now();
const worker = await import(${url("worker.mjs")});
const module = performance.now() - t;
if (typeof worker.default?.fetch !== "function") throw new Error("the bundle has no default fetch handler");
console.log(JSON.stringify({ ms: module - empty }));
`,
  );
  const runs: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const { stdout } = await run(process.execPath, [probe]);
    runs.push((JSON.parse(stdout) as { ms: number }).ms);
  }
  return runs;
}

/** The same Durable Object binding as wrangler.toml, so both workers start the same way. */
const EMPTY_WORKER = `import { DurableObject } from "cloudflare:workers";
export class SnapshotStore extends DurableObject {}
export default { fetch() { return new Response("ok"); } };`;

/** From new Miniflare to its first answer: workerd starting, compiling and evaluating the module, serving one request. */
async function workerdReadyMs(script: string): Promise<number> {
  const start = nowMs();
  // Miniflare 5 takes a manifest; the converter keeps the one-script form this measurement needs.
  const mf = new Miniflare(convertV4MiniflareOptions({
    modules: true,
    script,
    compatibilityDate: "2026-04-26",
    durableObjects: { SNAPSHOTS: { className: "SnapshotStore", useSQLite: true } },
    bindings: { CLUSTERS: "{}" },
  }));
  try {
    await (await mf.dispatchFetch("http://localhost/healthz")).arrayBuffer();
    return nowMs() - start;
  } finally {
    await mf.dispose();
  }
}

/** Function and empty worker in turns after one warm-up pair; the difference is what the bundle adds to an isolate's start. */
async function workerdStartup(code: string): Promise<{ function: number[]; empty: number[] }> {
  await workerdReadyMs(code);
  await workerdReadyMs(EMPTY_WORKER);
  const runs = { function: [] as number[], empty: [] as number[] };
  for (let i = 0; i < WORKERD_STARTS; i++) {
    runs.function.push(await workerdReadyMs(code));
    runs.empty.push(await workerdReadyMs(EMPTY_WORKER));
  }
  return runs;
}

/** The worker bundle, CEL and RE2 included (the ValidatingAdmissionPolicy issue's goal). */
const BUNDLE_GZIP_GOAL_KB = 80;

export async function bundleAndStartup(dir: string): Promise<Section> {
  const { code, contributors } = await bundle(join(dir, "worker.min.js"));
  const gzipped = gzipSync(code).length;
  const [largest, largestBytes] = contributors[0]!;
  const section: Section = {
    id: "bundle",
    title: "4. Bundle and start-up",
    figures: [
      figure("bundle, minified", "KB", exact(code.length / KB)),
      figure("bundle, minified + gzip", "KB", exact(gzipped / KB), { op: "<=", value: BUNDLE_GZIP_GOAL_KB }),
      figure(`of the minified bundle: ${largest}`, "KB", exact(largestBytes / KB)),
    ],
    commands: [
      "npx esbuild functions/index.ts --bundle --minify --format=esm --platform=browser --target=es2022 --conditions=workerd,worker,browser --external:'cloudflare:*' | gzip -c | wc -c",
    ],
    notes: [
      `KB = 1,024 bytes; gzip at zlib's default level, as wrangler reports it.`,
      `Minified bytes by source (esbuild metafile): ${contributors.map(([source, bytes]) => `${source} ${(bytes / KB).toFixed(1)} KB`).join(", ")}.`,
    ],
  };
  for (const minify of [false, true]) {
    const outdir = join(dir, minify ? "wrangler-minified" : "wrangler");
    const dry = await wranglerDryRun(outdir, minify);
    const how = minify ? "wrangler deploy --dry-run --minify" : "wrangler deploy --dry-run (as wrangler.toml configures it)";
    section.commands.push(`WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false npx wrangler deploy --dry-run --outdir ${relative(PROJECT_ROOT, outdir)}${minify ? " --minify" : ""}`);
    if (typeof dry === "string") section.notes.push(dry);
    else section.figures.push(figure(`${how}: upload`, "KB", exact(dry.bytes / KB)), figure(`${how}: gzip`, "KB", exact(dry.gzip / KB), { op: "<=", value: BUNDLE_GZIP_GOAL_KB }));
  }
  const workerd = await workerdStartup(code.toString("utf8"));
  section.figures.push(
    figure("start-up in workerd: function − empty worker", "ms", spread(workerd.function.map((ms, i) => ms - workerd.empty[i]!))),
    figure("start-up in workerd: function, new Miniflare → first answer", "ms", spread(workerd.function)),
    figure("start-up in workerd: empty worker, new Miniflare → first answer", "ms", spread(workerd.empty)),
    figure("module evaluation in Node (import the minified bundle)", "ms", spread(await startupMs(dir, code.toString("utf8")))),
  );
  if (!goalsHold(section)) section.biggestCost = bundleCost(code.length, gzipped, contributors);
  section.commands.push(
    `new Miniflare({ modules: true, script: <${relative(PROJECT_ROOT, join(dir, "worker.min.js"))} | an empty worker>, durableObjects: { SNAPSHOTS } }) → dispatchFetch("/healthz")   # ${WORKERD_STARTS} pairs after a warm-up pair`,
    `node ${relative(PROJECT_ROOT, join(dir, "startup-probe.mjs"))}   # ${STARTUP_RUNS} fresh processes`,
  );
  section.notes.push(
    "Start-up, the honest figure: in workerd, the time from new Miniflare to the first answer for the minified bundle minus the same for an empty worker with the same Durable Object binding, in turns; what remains is what the bundle adds to a cold isolate (compiling and evaluating the module, Hono's routes, zod's schemas, the first request through them).",
    "For comparison, module evaluation in Node (same V8): a fresh process per run imports the bundle (cloudflare:workers stubbed) minus importing an empty module once the loader is warm.",
  );
  return section;
}

function bundleCost(bytes: number, gzipped: number, contributors: Contributors): string {
  const [largest, largestBytes] = contributors[0]!;
  const share = `${largest} is ${(largestBytes / KB).toFixed(0)} KB of the ${(bytes / KB).toFixed(0)} KB minified bundle (${((100 * largestBytes) / bytes).toFixed(0)}%; ${(gzipped / KB).toFixed(0)} KB gzipped)`;
  const zodModule = readFileSync(join(PROJECT_ROOT, "shared/zod/index.ts"), "utf8");
  if (largest !== "zod" || !/^export \{ z \}/m.test(zodModule)) return `Bundle: ${share}.`;
  return `Bundle: ${share}. shared/zod/index.ts re-exports the zod/mini namespace (\`export { z }\`), and a namespace passed on as a value cannot be tree-shaken, so all of zod ships: the JSON-schema generator and every locale. Importing \`* as z from "zod/mini"\` in each module (shared/zod keeping only the English locale setup and describeZodError) lets esbuild drop the unused parts.`;
}
