// `npm run test:repeat -- <runs> [--burners <n>] [--explore] [vitest arguments]`:
// the whole `npm test` (scripts/test.mjs) <runs> times, one after another, to
// catch a test that fails by chance: one that races a timeout on a loaded
// machine, or depends on the clock or on what a property drew. Prints per run
// whether it passed, its wall time, its tests and the load average, then a
// summary; exits 1 if any run failed. Each run's output goes to a log under
// .edgeadmit/test-repeat/; a failing run's FAIL lines are printed.
//   --burners <n>  n CPU burners (`node -e 'for(;;);'`) beside every second
//                  run (the 2nd, 4th, ...), started before it, killed after.
//   --explore      new property-test cases every run (EDGEADMIT_FC_SEED=random):
//                  a failing property prints the seed that replays it.
// Other arguments go to vitest, as with `npm test`. docs/contributing.md, "Tests".
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

const usage = "usage: npm run test:repeat -- <runs> [--burners <n>] [--explore] [vitest arguments]";
const args = process.argv.slice(2);
const runs = Number(args.shift());
let burners = 0;
let explore = false;
const vitestArgs = [];
while (args.length > 0) {
  const arg = args.shift();
  if (arg === "--burners") burners = Number(args.shift());
  else if (arg === "--explore") explore = true;
  else vitestArgs.push(arg);
}
if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(burners) || burners < 0) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}

const logs = join(".edgeadmit", "test-repeat", new Date().toISOString().replace(/[:.]/g, "-"));
mkdirSync(logs, { recursive: true });
const env = explore ? { ...process.env, EDGEADMIT_FC_SEED: "random" } : process.env;
const running = new Set();
const stopBurners = () => {
  for (const burner of running) burner.kill("SIGKILL");
  running.clear();
};
process.on("exit", stopBurners);
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

const load = () => loadavg()[0].toFixed(2);
const strip = (text) => text.replace(/\x1b\[[0-9;]*m/g, "");

/** One `npm test`, its output to `log`; its exit code and output. */
function npmTest(log) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/test.mjs", ...vitestArgs], { env, stdio: ["ignore", "pipe", "pipe"] });
    const file = createWriteStream(log);
    const output = [];
    for (const stream of [child.stdout, child.stderr])
      stream.on("data", (chunk) => {
        output.push(chunk);
        file.write(chunk);
      });
    child.on("close", (code) => file.end(() => resolve({ code: code ?? 1, output: strip(Buffer.concat(output).toString()) })));
  });
}

const results = [];
for (let run = 1; run <= runs; run++) {
  const burned = burners > 0 && run % 2 === 0 ? burners : 0;
  for (let i = 0; i < burned; i++) running.add(spawn(process.execPath, ["-e", "for(;;);"], { stdio: "ignore" }));
  const loadBefore = load();
  const log = join(logs, `run-${run}.log`);
  const started = performance.now();
  const { code, output } = await npmTest(log);
  const seconds = (performance.now() - started) / 1000;
  stopBurners();
  const passed = code === 0;
  results.push({ passed, seconds, burned: burned > 0 });
  const tests = /^\s*Tests\s+(.+)$/m.exec(output)?.[1].trim() ?? "no vitest summary";
  const beside = burned > 0 ? `, ${burned} CPU burner${burned > 1 ? "s" : ""} beside it` : "";
  process.stdout.write(`run ${run}/${runs}: ${passed ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s (tests: ${tests}; load ${loadBefore} before, ${load()} after${beside})\n`);
  if (!passed) {
    const failures = [...new Set(output.split("\n").filter((line) => /\bFAIL\b|FAILED|Property failed|\{ seed: /.test(line)).map((line) => line.trim()))];
    process.stdout.write(`${failures.map((line) => `    ${line}`).join("\n")}\n    whole output: ${log}\n`);
  }
}

/** "min–max s (median m s)" of some runs' wall times. */
function spread(times) {
  if (times.length === 0) return "none";
  const sorted = [...times].sort((a, b) => a - b);
  return `${sorted[0].toFixed(1)}–${sorted.at(-1).toFixed(1)} s (median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} s)`;
}
const failed = results.filter((result) => !result.passed).length;
const quiet = results.filter((result) => !result.burned).map((result) => result.seconds);
const busy = results.filter((result) => result.burned).map((result) => result.seconds);
process.stdout.write(`\n${runs} runs${explore ? " with new property seeds" : ""}: ${runs - failed} passed, ${failed} failed. Wall time: ${quiet.length} without burners ${spread(quiet)}`);
process.stdout.write(busy.length > 0 ? `, ${busy.length} beside ${burners} CPU burner${burners > 1 ? "s" : ""} ${spread(busy)}.\n` : ".\n");
process.exitCode = failed > 0 ? 1 : 0;
