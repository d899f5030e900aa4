// The boundaries `npm test` enforces. Imports: .dependency-cruiser.cjs, run on
// the tree by `npm run deps`; here, run on a planted tree, each kind of rule
// must refuse an import that crosses it. Globals: tsconfig.core.json declares
// none of Node's or the Workers', so the shared core compiles against the
// Web-standard ones of shared/platform.d.ts only. And the worker's bundle
// holds no Node-side code.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";

mkdirSync(join(PROJECT_ROOT, ".edgeadmit"), { recursive: true });
// Inside the project, so a planted import of a package resolves from its node_modules.
const probes = mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "boundary-probe-"));
afterAll(() => rmSync(probes, { recursive: true, force: true }));

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The violations .dependency-cruiser.cjs reports on a tree of `files` (path → source), as `rule: from → to`. */
function violationsOf(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(probes, "tree-"));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: join(PROJECT_ROOT, "tsconfig.base.json") }));
  const depcruise = join(PROJECT_ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");
  const result = spawnSync(process.execPath, [depcruise, "--config", join(PROJECT_ROOT, ".dependency-cruiser.cjs"), "--output-type", "json", ...Object.keys(files).map((p) => p.split("/")[0]!).filter((p, i, all) => all.indexOf(p) === i)], {
    cwd: dir,
    encoding: "utf8",
  });
  const { summary } = JSON.parse(result.stdout) as { summary: { violations: Violation[] } };
  // A package resolves from the project's node_modules, three folders up.
  return summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^(\.\.\/)+/, "")}`).sort();
}

describe("the dependency rules (.dependency-cruiser.cjs)", () => {
  const empty = "export const probe = 1;\n";

  it("refuse an upward import inside shared/ and inside infra/", () => {
    const violations = violationsOf({
      "shared/re2/index.ts": 'import { probe } from "../vap/index.js";\nexport const re2 = probe;\n',
      "shared/snapshot/view.ts": 'import type { probe } from "../vap/index.js";\nexport type View = typeof probe;\n',
      "shared/vap/index.ts": empty,
      "infra/objects/yaml.ts": 'import { probe } from "../cli/errors.js";\nexport const yaml = probe;\n',
      "infra/cli/errors.ts": empty,
    });
    expect(violations).toEqual([
      "infra-objects-imports-upward: infra/objects/yaml.ts → infra/cli/errors.ts",
      "shared-re2-imports-upward: shared/re2/index.ts → shared/vap/index.ts",
      "shared-snapshot-imports-upward: shared/snapshot/view.ts → shared/vap/index.ts",
    ]);
  });

  it("refuse the shared core and the policies importing functions/, infra/, scripts/ or bench/, and the worker importing infra/", () => {
    const violations = violationsOf({
      "shared/text/index.ts": 'import "../../functions/index.js";\nimport "../../scripts/local-worker.js";\nexport const text = 1;\n',
      "policies/probe/index.ts": 'import "../../infra/objects/yaml.js";\nimport "../../bench/stats.js";\nexport const policy = 1;\n',
      "functions/index.ts": 'import "../infra/objects/yaml.js";\nexport const worker = 1;\n',
      "infra/objects/yaml.ts": empty,
      "scripts/local-worker.ts": empty,
      "bench/stats.ts": empty,
    });
    expect(violations).toEqual([
      "core-imports-above-it: policies/probe/index.ts → bench/stats.ts",
      "core-imports-above-it: policies/probe/index.ts → infra/objects/yaml.ts",
      "core-imports-above-it: shared/text/index.ts → functions/index.ts",
      "core-imports-above-it: shared/text/index.ts → scripts/local-worker.ts",
      "worker-imports-node-side: functions/index.ts → infra/objects/yaml.ts",
    ]);
  });

  it("refuse the worker reaching shared/apiserver, directly or through another module (the apiserver sends the function the admitted object)", () => {
    const violations = violationsOf({
      "functions/index.ts": 'import "../shared/judge/index.js";\nexport const worker = 1;\n',
      "shared/judge/index.ts": 'import "../apiserver/index.js";\nexport const judge = 1;\n',
      "shared/apiserver/index.ts": empty,
    });
    expect(violations).toEqual(["worker-reaches-apiserver: functions/index.ts → shared/apiserver/index.ts"]);
  });

  it("refuse Node modules and @kubernetes/client-node in the worker and the shared core, Workers modules in the core, test code and vitest in product folders", () => {
    const violations = violationsOf({
      "shared/text/index.ts": 'import { readFileSync } from "node:fs";\nimport { DurableObject } from "cloudflare:workers";\nexport const text = [readFileSync, DurableObject];\n',
      "functions/index.ts": 'import { KubeConfig } from "@kubernetes/client-node";\nimport { Buffer } from "node:buffer";\nexport const worker = [KubeConfig, Buffer];\n',
      "infra/objects/yaml.ts": 'import { expect } from "vitest";\nimport { probe } from "../../test/node/support/fake.js";\nexport const yaml = [expect, probe];\n',
      "test/node/support/fake.ts": empty,
    });
    expect(violations).toEqual([
      "client-node-outside-infra: functions/index.ts → node_modules/@kubernetes/client-node/dist/index.js",
      "no-node-in-worker-or-core: functions/index.ts → buffer",
      "no-node-in-worker-or-core: shared/text/index.ts → fs",
      "no-workers-api-in-core: shared/text/index.ts → cloudflare:workers",
      "product-imports-test-code: infra/objects/yaml.ts → node_modules/vitest/dist/index.js",
      "product-imports-test-code: infra/objects/yaml.ts → test/node/support/fake.ts",
    ]);
  });

  it("refuse circles between files and between folders, and a folder without a layer", () => {
    const violations = violationsOf({
      "shared/text/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "shared/text/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
      "shared/json/index.ts": 'import { c } from "../text/c.js";\nexport const json = () => c;\n',
      "shared/text/c.ts": 'import { json } from "../json/index.js";\nexport const c = () => json;\n',
      "shared/newcomer/index.ts": 'import { a } from "../text/a.js";\nexport const newcomer = a;\n',
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        "no-circular: shared/text/a.ts → shared/text/b.ts",
        "no-folder-circular: shared/json → shared/text",
        "shared-folder-without-layer: shared/newcomer/index.ts → shared/text/a.ts",
      ]),
    );
  });
});

describe("runtime globals", () => {
  /** Type-checks `source` alone with tsconfig.core.json's options and the globals it declares; returns the diagnostics. */
  function compileAsCore(source: string): string[] {
    const dir = mkdtempSync(join(probes, "core-"));
    const probe = join(dir, "probe.ts");
    writeFileSync(probe, source);
    const { config } = ts.readConfigFile(join(PROJECT_ROOT, "tsconfig.core.json"), ts.sys.readFile) as { config: unknown };
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, PROJECT_ROOT);
    const program = ts.createProgram([probe, join(PROJECT_ROOT, "shared", "platform.d.ts")], { ...options, composite: false, incremental: false, tsBuildInfoFile: undefined });
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  }

  it("the shared core and the policies cannot use Node's or the Workers' globals", () => {
    const errors = compileAsCore("export const probe: [unknown, unknown, DurableObjectNamespace | undefined] = [process.env, Buffer.alloc(1), undefined];\n").join("\n");
    expect(errors).toMatch(/Cannot find name 'process'/);
    expect(errors).toMatch(/Cannot find name 'Buffer'/);
    expect(errors).toMatch(/Cannot find name 'DurableObjectNamespace'/);
  });

  it("the shared core may use the Web-standard globals both runtimes have", () => {
    expect(compileAsCore('export const probe = [crypto.subtle.digest("SHA-256", new TextEncoder().encode("x")), atob("eA==")];\n')).toEqual([]);
  });
});

describe("the worker's bundle", () => {
  it("holds no Node-side code and no @kubernetes/client-node", async () => {
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
