// bin/edgeadmit.mjs puts the young generation's bound on Node's command line
// (V8 reads it only at start): each Node image the launcher runs reports its
// flags through a preload, so the test sees the start-over and what it added.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";

const dir = mkdtempSync(join(tmpdir(), "edgeadmit-launcher-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const preload = join(dir, "flags.mjs");
writeFileSync(preload, 'process.stderr.write(`flags: ${JSON.stringify(process.execArgv.filter((flag) => flag !== "--import" && !flag.endsWith("flags.mjs")))}\\n`);\n');

/** The flags of every Node image `edgeadmit --version` ran in, in order, and what it printed. */
async function launch(env: Record<string, string> = {}) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", preload, join(PROJECT_ROOT, "bin", "edgeadmit.mjs"), "--version"], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
  });
  const images = [...stderr.matchAll(/^flags: (.*)$/gm)].map(([, flags]) => JSON.parse(flags!) as string[]);
  return { stdout, images };
}

describe("bin/edgeadmit.mjs", () => {
  it("starts Node again once, with 16 MB young generations, and runs the CLI there", async () => {
    const { stdout, images } = await launch();
    expect(images).toEqual([[], ["--max-semi-space-size=16"]]);
    expect(stdout).toMatch(/^edgeadmit \d+\.\d+\.\d+ \(commit [0-9a-f]{12}\)\n$/);
  }, 60_000);

  it("keeps a size the caller chose in NODE_OPTIONS, and starts only once", async () => {
    const { stdout, images } = await launch({ NODE_OPTIONS: "--max-semi-space-size=8" });
    expect(images).toEqual([[]]);
    expect(stdout).toMatch(/^edgeadmit /);
  }, 60_000);
});
