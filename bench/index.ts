// `npm run bench`: every section in one run, then the table on the console,
// bench/results.json and docs/benchmarks.md. A report, not a test: it fails
// only when a measurement cannot be made, never because a goal is missed.
// `npm run bench -- --only <word>` runs the sections whose title has the word
// (--only again for more words: `--only "per review" --only Validating` runs
// section 7 after section 1, as the full run would) and prints their table,
// writing neither file (a partial report is no report).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { adversarial } from "./adversarial.js";
import { validatingAdmissionPolicies } from "./vap.js";
import { hostileInput } from "./hostile.js";
import { bundleAndStartup } from "./bundle.js";
import { checkScale } from "./check.js";
import { cliSnapshotBuild } from "./cli.js";
import { endToEnd } from "./e2e.js";
import type { Section } from "./figures.js";
import { consoleTable, describeMachine, endLoad, FIGURE_DOCS, markdown, withFigureBlocks, type Results } from "./report.js";
import { registryScale } from "./registry.js";
import { perReview, reviewCases } from "./review.js";
import { fleet } from "./fleet.js";
import { fleetPolicies } from "./fleet-policies.js";
import { dashboardScale } from "./dashboard.js";
import { inventory } from "./inventory.js";
import { hostileInventory } from "./hostile-inventory.js";
import { buildClusterSnapshot, viewOf } from "./snapshot.js";
import { nowMs } from "./stats.js";
import { syncScale } from "./sync.js";
import { scratchDir } from "./workdir.js";

const COMMAND = "npm run bench";
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Each `--only <word>`: run just the sections whose title contains one of them. */
function onlyFilter(argv: readonly string[]): string[] | undefined {
  const words = argv.flatMap((arg, index) => {
    if (arg !== "--only") return [];
    const word = argv[index + 1];
    if (!word) throw new Error("--only needs a word of a section's title, e.g. --only ValidatingAdmissionPolicies");
    return [word.toLowerCase()];
  });
  return words.length > 0 ? words : undefined;
}

async function main(): Promise<void> {
  const only = onlyFilter(process.argv.slice(2));
  const started = nowMs();
  const results: Results = { command: COMMAND, startedAt: new Date().toISOString(), durationSeconds: 0, machine: describeMachine(), sections: [] };
  // The per-review and end-to-end sections judge pods of an application in a 1,000-application cluster.
  const cluster = buildClusterSnapshot(1_000);
  const smallReview = reviewCases(cluster.shape)[0]!;
  // The end-to-end and check sections compare with the in-process review: measured once, by its own section or for them.
  let review: Section | undefined;
  const perReviewSection = async () => (review ??= await perReview(viewOf(cluster), cluster.shape));
  const inProcessUs = async () => (await perReviewSection()).figures.find((f) => f.name === `${smallReview.name}: median`)!.value.median;

  // In the order they run; numbered from this list, so a new section is one line here.
  const sections: ReadonlyArray<readonly [string, () => Promise<Section> | Section]> = [
    ["per review, in process", perReviewSection],
    ["fleet: snapshots in shards", () => fleet(scratchDir("fleet"))],
    ["end to end through workerd", async () => endToEnd(cluster, smallReview.text, smallReview.name, await inProcessUs(), scratchDir("e2e"))],
    ["bundle and start-up", () => bundleAndStartup(scratchDir("bundle"))],
    ["CLI snapshot build", () => cliSnapshotBuild(scratchDir("cli"))],
    ["adversarial reviews", adversarial],
    ["ValidatingAdmissionPolicies", validatingAdmissionPolicies],
    ["CLI check, in process", async () => checkScale(scratchDir("check"), await inProcessUs())],
    ["cluster registry at fleet size", registryScale],
    ["inventory inside CEL", inventory],
    ["the sync job at cluster size", () => syncScale(scratchDir("sync"))],
    ["hostile input to the cluster's own policies", hostileInput],
    ["hostile inventory objects", () => hostileInventory(scratchDir("hostile-inventory"))],
    ["fleet policy sets", fleetPolicies],
    ["dashboard and metrics", dashboardScale],
  ];
  for (const [index, [name, measure]] of sections.entries()) {
    const title = `${index + 1}/${sections.length} ${name}`;
    if (only !== undefined && !only.some((word) => title.toLowerCase().includes(word))) continue;
    process.stderr.write(`bench: ${title} (${((nowMs() - started) / 1000).toFixed(0)} s)\n`);
    gc(); // each section starts on a collected heap, not the previous one's garbage
    const sectionStarted = nowMs();
    const section = await measure();
    section.durationSeconds = (nowMs() - sectionStarted) / 1000;
    process.stderr.write(`bench: ${title}: ${section.durationSeconds.toFixed(0)} s\n`);
    results.sections.push(section);
  }

  results.durationSeconds = (nowMs() - started) / 1000;
  endLoad(results.machine);
  if (only !== undefined) {
    console.log(consoleTable(results));
    // The notes say how the figures were taken (and, for section 7, how long the code took to settle).
    for (const section of results.sections) console.log(`\n${section.title}:\n${section.notes.map((note) => `- ${note}`).join("\n")}`);
    console.log(`\n--only ${only.join(", ")}: ${results.sections.length} section(s) in ${results.durationSeconds.toFixed(0)} s; bench/results.json and docs/benchmarks.md left as they were.`);
    return;
  }
  mkdirSync(join(PROJECT_ROOT, "docs"), { recursive: true });
  writeFileSync(join(PROJECT_ROOT, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(PROJECT_ROOT, "docs", "benchmarks.md"), markdown(results));
  for (const doc of FIGURE_DOCS) writeFileSync(join(PROJECT_ROOT, doc), withFigureBlocks(readFileSync(join(PROJECT_ROOT, doc), "utf8"), results));
  console.log(consoleTable(results));
  const costs = results.sections.flatMap((s) => (s.biggestCost ? [s.biggestCost] : []));
  if (costs.length > 0) console.log(`\n${costs.join("\n\n")}`);
  console.log(`\nWrote bench/results.json and docs/benchmarks.md in ${results.durationSeconds.toFixed(0)} s.`);
}

main().catch((e: unknown) => {
  console.error(`npm run bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
