// `npm run bench`: every section in one run, then the table on the console,
// bench/results.json and docs/benchmarks.md. A report, not a test: it fails
// only when a measurement cannot be made, never because a goal is missed.
// `npm run bench -- --only <word>` runs the sections whose title has the word
// and prints their table, writing neither file (a partial report is no report).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../scripts/local-worker.js";
import { adversarial } from "./adversarial.js";
import { validatingAdmissionPolicies } from "./vap.js";
import { bundleAndStartup } from "./bundle.js";
import { checkScale } from "./check.js";
import { cliSnapshotBuild } from "./cli.js";
import { endToEnd } from "./e2e.js";
import type { Section } from "./figures.js";
import { consoleTable, describeMachine, endLoad, markdown, type Results } from "./report.js";
import { registryScale } from "./registry.js";
import { perReview, reviewCases } from "./review.js";
import { fleet } from "./fleet.js";
import { fleetPolicies } from "./fleet-policies.js";
import { inventory } from "./inventory.js";
import { buildClusterSnapshot, viewOf } from "./snapshot.js";
import { nowMs } from "./stats.js";
import { syncScale } from "./sync.js";
import { scratchDir } from "./workdir.js";

const COMMAND = "npm run bench";
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** `--only <word>`: run just the sections whose title contains it. */
function onlyFilter(argv: readonly string[]): string | undefined {
  const index = argv.indexOf("--only");
  if (index < 0) return undefined;
  const word = argv[index + 1];
  if (!word) throw new Error("--only needs a word of a section's title, e.g. --only ValidatingAdmissionPolicies");
  return word.toLowerCase();
}

async function main(): Promise<void> {
  const only = onlyFilter(process.argv.slice(2));
  const started = nowMs();
  const results: Results = { command: COMMAND, startedAt: new Date().toISOString(), durationSeconds: 0, machine: describeMachine(), sections: [] };
  const step = async (title: string, measure: () => Promise<Section> | Section) => {
    if (only !== undefined && !title.toLowerCase().includes(only)) return undefined;
    process.stderr.write(`bench: ${title} (${((nowMs() - started) / 1000).toFixed(0)} s)\n`);
    gc(); // each section starts on a collected heap, not the previous one's garbage
    const section = await measure();
    results.sections.push(section);
    return section;
  };

  // The per-review and end-to-end sections judge pods of an application in a 1,000-application cluster.
  const cluster = buildClusterSnapshot(1_000);
  const smallReview = reviewCases(cluster.shape)[0]!;
  // The end-to-end and check sections compare with the in-process review, so they need its figure.
  const needsReview = only === undefined || ["per review", "end to end", "check"].some((title) => title.includes(only));
  const review = needsReview ? await step("1/12 per review, in process", () => perReview(viewOf(cluster), cluster.shape)) ?? (await perReview(viewOf(cluster), cluster.shape)) : undefined;
  await step("2/12 fleet: snapshots in shards", () => fleet(scratchDir("fleet")));
  const inProcessUs = review?.figures.find((f) => f.name === `${smallReview.name}: median`)!.value.median ?? 0;
  await step("3/12 end to end through workerd", () => endToEnd(cluster, smallReview.text, smallReview.name, inProcessUs, scratchDir("e2e")));
  await step("4/12 bundle and start-up", () => bundleAndStartup(scratchDir("bundle")));
  await step("5/12 CLI snapshot build", () => cliSnapshotBuild(scratchDir("cli")));
  await step("6/12 adversarial reviews", adversarial);
  await step("7/12 ValidatingAdmissionPolicies", validatingAdmissionPolicies);
  await step("8/12 CLI check, in process", () => checkScale(scratchDir("check"), inProcessUs));
  await step("9/12 cluster registry at fleet size", registryScale);
  await step("10/12 inventory inside CEL", inventory);
  await step("11/12 the sync job at cluster size", () => syncScale(scratchDir("sync")));
  await step("12/12 fleet policy sets", fleetPolicies);

  results.durationSeconds = (nowMs() - started) / 1000;
  endLoad(results.machine);
  if (only !== undefined) {
    console.log(consoleTable(results));
    console.log(`\n--only ${only}: ${results.sections.length} section(s) in ${results.durationSeconds.toFixed(0)} s; bench/results.json and docs/benchmarks.md left as they were.`);
    return;
  }
  mkdirSync(join(PROJECT_ROOT, "docs"), { recursive: true });
  writeFileSync(join(PROJECT_ROOT, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(PROJECT_ROOT, "docs", "benchmarks.md"), markdown(results));
  console.log(consoleTable(results));
  const costs = results.sections.flatMap((s) => (s.biggestCost ? [s.biggestCost] : []));
  if (costs.length > 0) console.log(`\n${costs.join("\n\n")}`);
  console.log(`\nWrote bench/results.json and docs/benchmarks.md in ${results.durationSeconds.toFixed(0)} s.`);
}

main().catch((e: unknown) => {
  console.error(`npm run bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
