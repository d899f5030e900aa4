import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..");

describe("npm start", () => {
  it.each(["abc", "0", "65536", "80.5", "-1"])("PORT=%s: one line saying what PORT must be, exit 1, before anything starts", async (port) => {
    const failure = await promisify(execFile)(process.execPath, [join(ROOT, "scripts", "tsrun.mjs"), "scripts/start.ts"], { cwd: ROOT, env: { ...process.env, PORT: port } }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failure).toMatchObject({ code: 1, stdout: "", stderr: `npm start: PORT must be a whole number from 1 to 65535, not "${port}"\n` });
  });
});
