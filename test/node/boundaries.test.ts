// The runtime boundaries `npm test` enforces with separate TypeScript projects
// (tsconfig.{core,worker,node}.json): each project must keep refusing code
// that crosses its boundary, and the worker's bundle must hold no Node-side code.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../scripts/local-worker.js";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
mkdirSync(join(PROJECT_ROOT, ".edgeadmit"), { recursive: true });
const probes = mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "boundary-probe-"));
afterAll(() => rmSync(probes, { recursive: true, force: true }));

/** Type-checks `source` as a file of `project`; returns tsc's error lines for it. */
function compileIn(project: "core" | "worker", source: string): string[] {
  const dir = mkdtempSync(join(probes, `${project}-`));
  writeFileSync(join(dir, "probe.ts"), source);
  const extended = relative(dir, join(PROJECT_ROOT, `tsconfig.${project}.json`));
  const include = ["probe.ts", ...(project === "core" ? [relative(dir, join(PROJECT_ROOT, "shared", "platform.d.ts"))] : [])];
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: extended, include }));
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

  it("the shared core may use the Web-standard globals both runtimes have", () => {
    expect(compileIn("core", 'export const probe = [crypto.subtle.digest("SHA-256", new TextEncoder().encode("x")), atob("eA==")];\n')).toEqual([]);
  });

  it("the worker cannot import @kubernetes/client-node, Node APIs or the Node side", () => {
    const errors = compileIn(
      "worker",
      'import { KubeConfig } from "@kubernetes/client-node";\nimport { readObjects } from "../../../infra/objects/yaml.js";\nexport const probe = [KubeConfig, readObjects];\n',
    ).join("\n");
    expect(errors).toMatch(/probe\.ts\(1,10\): error TS2305: Module '"@kubernetes\/client-node"' has no exported member 'KubeConfig'/);
    expect(errors).toMatch(/infra\/cli\/io\.ts.*Cannot find module 'node:fs'/);
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
