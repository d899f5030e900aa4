import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { bannerOf } from "./banner.js";
import { localStateProblem } from "./local-state.js";

const ROOT = join(__dirname, "..");

describe("npm start", () => {
  it.each(["abc", "0", "65536", "80.5", "-1"])("PORT=%s: one line saying what PORT must be, exit 1, before anything starts", async (port) => {
    const failure = await promisify(execFile)(process.execPath, [join(ROOT, "scripts", "tsrun.mjs"), "scripts/start.ts"], { cwd: ROOT, env: { ...process.env, PORT: port } }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failure).toMatchObject({ code: 1, stdout: "", stderr: `npm start: PORT must be a whole number from 1 to 65535, not "${port}"\n` });
  });
});

describe("the local state another checkout left", () => {
  it("is served when this release reads it: its own, its window's, the next release's (a checkout one back)", () => {
    for (const written of [undefined, "0.2.0", "0.1.0", "0.2.9", "0.3.0"]) expect(localStateProblem(written, "0.2.0")).toBeUndefined();
  });

  it("is refused, saying how to start over, when it is further off or unreadable", () => {
    for (const written of ["0.4.0", "1.0.0", "banana"])
      expect(localStateProblem(written, "0.2.0")).toBe(
        `the local state in .edgeadmit/state was written by edgeadmit ${written}, which this checkout (0.2.0) does not read: stop npm start, run rm -rf .edgeadmit/state (the demo's keys and token stay), and npm start again`,
      );
  });
});

describe("the banner", () => {
  const facts = {
    url: "http://127.0.0.1:8787",
    clustersVariable: ["demo"],
    snapshot: { generation: 1795312345678, bytes: 1146 },
    files: { demoKey: ".edgeadmit/demo.key", demoToken: ".edgeadmit/demo.token", operatorKey: ".edgeadmit/operator.key", state: ".edgeadmit/state" },
  };

  it("names every cluster served, CLUSTERS' and the registry's, the operator key, how to start over, and the registry context to export", () => {
    const banner = bannerOf({ ...facts, registry: ["lab", "prod-eu"] }).split("\n");
    expect(banner.slice(0, 6)).toEqual([
      "edgeadmit is serving on http://127.0.0.1:8787",
      "  clusters: demo (CLUSTERS); lab, prod-eu (the registry)",
      "  demo snapshot: generation 1795312345678, 1146 bytes (examples/demo/cluster.yaml, signed with .edgeadmit/demo.key)",
      "  demo apiserver token: in .edgeadmit/demo.token",
      "  operator key: .edgeadmit/operator.key (this function trusts it: it signs clusters and fleet changes)",
      '  state: .edgeadmit/state (the registry, the fleet, snapshots), kept across restarts; to start over: stop npm start, run rm -rf .edgeadmit/state (the demo\'s keys and token stay), and npm start again (docs/operations.md, "Reset the local function")',
    ]);
    expect(banner).toContain("  export EDGEADMIT_ENDPOINT=http://127.0.0.1:8787 EDGEADMIT_OPERATOR_KEY=.edgeadmit/operator.key");
  });

  it("counts a large registry past the first 20, and says when the registry could not be read", () => {
    const registry = Array.from({ length: 1_025 }, (_, i) => `tenant-${String(i).padStart(4, "0")}`);
    expect(bannerOf({ ...facts, registry }).split("\n")[1]).toBe(`  clusters: demo (CLUSTERS); ${registry.slice(0, 20).join(", ")} and 1,005 more (the registry)`);
    expect(bannerOf({ ...facts, registry: [] }).split("\n")[1]).toBe("  clusters: demo (CLUSTERS); none in the registry yet");
    expect(bannerOf({ ...facts, registry: { unread: "the registry does not answer" } }).split("\n")[1]).toBe("  clusters: demo (CLUSTERS); the registry not read (the registry does not answer)");
  });
});
