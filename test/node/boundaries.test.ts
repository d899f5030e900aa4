// The boundaries `npm test` enforces with separate TypeScript projects
// (tsconfig.{core,worker,node}.json): each project must keep refusing code
// that crosses its boundary — another runtime's APIs, and (being composite)
// any module outside its own folders — and the worker's bundle must hold no
// Node-side code.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../scripts/local-worker.js";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
mkdirSync(join(PROJECT_ROOT, ".edgeadmit"), { recursive: true });
const probes = mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "boundary-probe-"));
afterAll(() => rmSync(probes, { recursive: true, force: true }));

/** Type-checks `source` as one more file of `project`, with the project's own file list; returns tsc's error lines. */
function compileIn(project: "core" | "worker", source: string): string[] {
  const dir = mkdtempSync(join(probes, `${project}-`));
  writeFileSync(join(dir, "probe.ts"), source);
  const config = join(PROJECT_ROOT, `tsconfig.${project}.json`);
  const { config: own } = ts.readConfigFile(config, ts.sys.readFile) as { config: { include: string[]; exclude?: string[] } };
  const fromProbe = (pattern: string) => relative(dir, join(PROJECT_ROOT, pattern));
  const include = ["probe.ts", ...own.include.map(fromProbe), ...(project === "core" ? [fromProbe("shared/platform.d.ts")] : [])];
  const probeConfig = { extends: relative(dir, config), compilerOptions: { tsBuildInfoFile: "./probe.tsbuildinfo" }, include, exclude: (own.exclude ?? []).map(fromProbe) };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(probeConfig));
  const result = spawnSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
  return result.stdout.split("\n").filter((line) => line.includes("error TS"));
}

describe("runtime boundaries", () => {
  it("the shared core and the policies cannot use Node APIs", () => {
    const errors = compileIn("core", 'import { readFileSync } from "node:fs";\nexport const probe = [readFileSync, process.env, Buffer.alloc(1)];\n');
    expect(errors.join("\n")).toMatch(/probe\.ts\(1,30\): error TS2307: Cannot find module 'node:fs'/);
    expect(errors.join("\n")).toMatch(/Cannot find name 'process'/);
    expect(errors.join("\n")).toMatch(/Cannot find name 'Buffer'/);
  });

  it("the shared core and the policies cannot use Workers APIs", () => {
    const errors = compileIn("core", 'import { DurableObject } from "cloudflare:workers";\nexport const probe: DurableObjectNamespace | typeof DurableObject | undefined = undefined;\n');
    expect(errors.join("\n")).toMatch(/Cannot find module 'cloudflare:workers'/);
    expect(errors.join("\n")).toMatch(/Cannot find name 'DurableObjectNamespace'/);
  });

  it("the shared core may use the Web-standard globals both runtimes have, and its own modules", () => {
    const source = 'import { compilePolicySet } from "../../../shared/vap/index.js";\nexport const probe = [compilePolicySet, crypto.subtle.digest("SHA-256", new TextEncoder().encode("x")), atob("eA==")];\n';
    expect(compileIn("core", source)).toEqual([]);
  });

  it("the shared core and the policies cannot import functions/, infra/, scripts/ or bench/", () => {
    const errors = compileIn(
      "core",
      [
        'import * as functions from "../../../functions/index.js";',
        'import * as infra from "../../../infra/objects/yaml.js";',
        'import * as scripts from "../../../scripts/local-worker.js";',
        'import * as bench from "../../../bench/stats.js";',
        "export const probe = [functions, infra, scripts, bench];",
      ].join("\n"),
    ).join("\n");
    for (const [line, file] of [[1, "functions/index.ts"], [2, "infra/objects/yaml.ts"], [3, "scripts/local-worker.ts"], [4, "bench/stats.ts"]] as const) {
      expect(errors).toContain(`probe.ts(${line},`);
      expect(errors).toMatch(new RegExp(`error TS6307: File '[^']*/${file}' is not listed within the file list of project`));
    }
  });

  it("the worker cannot import @kubernetes/client-node, Node APIs or the Node side", () => {
    const errors = compileIn(
      "worker",
      'import { KubeConfig } from "@kubernetes/client-node";\nimport { readObjects } from "../../../infra/objects/yaml.js";\nexport const probe = [KubeConfig, readObjects];\n',
    ).join("\n");
    expect(errors).toMatch(/probe\.ts\(1,10\): error TS2305: Module '"@kubernetes\/client-node"' has no exported member 'KubeConfig'/);
    expect(errors).toMatch(/probe\.ts\(2,29\): error TS6307: File '[^']*\/infra\/objects\/yaml\.ts' is not listed within the file list of project/);
  });

  it("the worker's bundle holds no Node-side code and no @kubernetes/client-node", async () => {
    const result = await build({
      entryPoints: [join(PROJECT_ROOT, "functions", "index.ts")],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "neutral",
      external: ["cloudflare:*"],
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /^(infra|scripts|bench)\/|@kubernetes\/client-node|^node:/.test(path))).toEqual([]);
    expect(inputs.some((path) => path.startsWith("functions/"))).toBe(true);
  });
});
