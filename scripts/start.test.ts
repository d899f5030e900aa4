import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
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
