// `npm test`: the type check (scripts/typecheck.mjs), the dependency rules
// (`npm run deps`) and vitest, side by side rather than one after another.
// Vitest alone leaves much of a 2-core machine idle (its files wait on the
// CLIs, workerd and kubectl they start), and the type check is a third of the
// run when it goes first: beside vitest it takes what vitest leaves. Vitest
// prints as it goes; the other two print whole when vitest is done, so the
// outputs never interleave. Any of the three failing fails the run. Arguments
// go to vitest (`npm test -- infra/cli`). Plain .mjs: nothing to build first.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Runs a command; with `buffered`, its output is kept and handed back instead of printed. */
function run(command, args, buffered) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => resolve({ code: 1, output: `${command}: ${error.message}\n` }));
    child.on("close", (code) => resolve({ code: code ?? 1, output: Buffer.concat(output).toString() }));
  });
}

const checks = [run(process.execPath, ["scripts/typecheck.mjs"], true), run(npm, ["run", "--silent", "deps"], true)];
const tests = await run(process.execPath, [vitest, "run", ...process.argv.slice(2)], false);
const [typecheck, deps] = await Promise.all(checks);
process.stdout.write(`\nnpm run typecheck: ${typecheck.code === 0 ? "passed" : "FAILED"}\n${typecheck.output}`);
process.stdout.write(`npm run deps: ${deps.code === 0 ? "passed" : "FAILED"}\n${deps.output}`);
process.exitCode = [typecheck, deps, tests].some(({ code }) => code !== 0) ? 1 : 0;
