// The three faces of one run: a table on the console, bench/results.json for
// machines, docs/benchmarks.md for people.
import { readFileSync } from "node:fs";
import { cpus, arch, loadavg, release, totalmem, type } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../infra/base/root.js";
import type { Figure, Section } from "./figures.js";

interface Machine {
  os: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  workerd: string;
  wrangler: string;
  miniflare: string;
  esbuild: string;
  autocannon: string;
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
}

export interface Results {
  command: string;
  startedAt: string;
  durationSeconds: number;
  machine: Machine;
  sections: Section[];
}

const versionOf = (pkg: string) => (JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
const round2 = (values: number[]) => values.map((v) => Math.round(v * 100) / 100);

export function describeMachine(): Machine {
  const cpuList = cpus();
  return {
    os: `${type()} ${release()} ${arch()}`,
    cpu: cpuList[0]?.model.trim() ?? "unknown",
    cores: cpuList.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    workerd: versionOf("workerd"),
    wrangler: versionOf("wrangler"),
    miniflare: versionOf("miniflare"),
    esbuild: versionOf("esbuild"),
    autocannon: versionOf("autocannon"),
    loadAverageAtStart: round2(loadavg()),
  };
}

export function endLoad(machine: Machine): void {
  machine.loadAverageAtEnd = round2(loadavg());
}

function number(value: number, unit: string): string {
  const digits = unit === "×" ? 2 : unit === "s" ? 2 : unit === "req/s" ? 0 : Math.abs(value) >= 100 ? 0 : 1;
  return value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

const withUnit = (value: number, unit: string) => (unit === "×" ? `${number(value, unit)}×` : `${number(value, unit)} ${unit}`);
const goalText = (f: Figure) => (f.goal ? `${f.goal.op === "<=" ? "≤" : "≥"} ${withUnit(f.goal.value, f.unit)}` : "");
const verdict = (f: Figure) => (f.pass === undefined ? "" : f.pass ? "PASS" : "FAIL");
const rangeText = (f: Figure) => (f.value.runs > 1 ? `${number(f.value.min, f.unit)} – ${number(f.value.max, f.unit)}` : "(exact)");

function row(f: Figure): string[] {
  return [f.name, withUnit(f.value.median, f.unit), rangeText(f), String(f.value.runs), goalText(f), verdict(f)];
}

const HEAD = ["figure", "median", "min – max", "runs", "goal", ""];

export function consoleTable(results: Results): string {
  const lines: string[] = [];
  for (const section of results.sections) {
    const rows = [HEAD, ...section.figures.map(row)];
    const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    lines.push("", `${section.title}${section.durationSeconds === undefined ? "" : ` (${section.durationSeconds.toFixed(0)} s)`}`);
    for (const r of rows) lines.push(r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "));
  }
  return lines.join("\n");
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** Figures right-aligned after a left-aligned name; `left` keeps every column left-aligned (text tables). */
function markdownTable(header: string[], rows: string[][], left = false): string[] {
  return [`| ${header.map(cell).join(" | ")} |`, `| ${header.map((_, i) => (i === 0 || left ? "---" : "---:")).join(" | ")} |`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)];
}

export function markdown(results: Results): string {
  const { machine } = results;
  const goals = results.sections.flatMap((s) => s.figures.filter((f) => f.goal).map((f) => ({ section: s, figure: f })));
  const failing = goals.filter((g) => g.figure.pass === false);
  const out: string[] = [
    "# Benchmarks",
    "",
    `Written by \`${results.command}\` (bench/index.ts) on ${results.startedAt}, in ${results.durationSeconds.toFixed(0)} s; the same run wrote bench/results.json. Not part of \`npm test\`: re-run it to refresh both.`,
    "",
    "Every figure is the median over repeated runs, with the min and max of those runs and their number; a goal is judged on the median. Byte counts are exact (one run).",
    "",
    "## Machine",
    "",
    ...markdownTable(
      ["", ""],
      [
        ["OS", machine.os],
        ["CPU", `${machine.cpu}, ${machine.cores} cores`],
        ["memory", `${machine.memoryGiB} GiB`],
        ["Node", machine.node],
        ["workerd / wrangler / miniflare", `${machine.workerd} / ${machine.wrangler} / ${machine.miniflare}`],
        ["esbuild / autocannon", `${machine.esbuild} / ${machine.autocannon}`],
        ["load average (1, 5, 15 min) at start → end", `${machine.loadAverageAtStart.join(", ")} → ${machine.loadAverageAtEnd?.join(", ") ?? "?"}`],
      ],
      true,
    ),
    "",
    "The machine is shared (other jobs were running during the run; see the load average), so the min–max spreads are wider than on an idle machine; ratios against a floor measured in the same run are the robust figures.",
    "",
    "## Goals",
    "",
    ...markdownTable(
      ["goal", "median", "min – max", "", "section"],
      goals.map(({ section, figure }) => [`${figure.name} ${goalText(figure)}`, withUnit(figure.value.median, figure.unit), rangeText(figure), verdict(figure), section.title.replace(/^(\d+)\..*/, "$1")]),
    ),
    "",
    failing.length === 0
      ? `All ${goals.length} goals hold.`
      : `${goals.length - failing.length} of ${goals.length} goals hold; ${failing.length} fail: ${failing.map((g) => g.figure.name).join("; ")}.`,
    "",
  ];
  const costs = results.sections.filter((s) => s.biggestCost);
  if (costs.length > 0) out.push("## Where a goal fails: the biggest cost", "", ...costs.flatMap((s) => [s.biggestCost!, ""]));
  for (const section of results.sections) {
    out.push(`## ${section.title}`, "");
    if (section.durationSeconds !== undefined) out.push(`Measured in ${section.durationSeconds.toFixed(0)} s.`, "");
    out.push(...markdownTable(HEAD, section.figures.map(row)), "");
    if (section.commands.length > 0) out.push("```sh", ...section.commands, "```", "");
    out.push(...section.notes.map((n) => `- ${n}`), "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/**
 * The docs quote figures only through generated blocks: `<!-- bench: <section id> -->`,
 * then the section's table as results.json has it, then `<!-- /bench -->`. A full
 * `npm run bench` rewrites every block; test/node/docs-figures.test.ts fails when a
 * block differs from results.json, so no figure is copied by hand.
 */
const BLOCK = /(<!-- bench: ([\w-]+) -->\n)[\s\S]*?(<!-- \/bench -->)/g;

/** `text` with every generated block rendered from `results`; throws on a block naming no section. */
export function withFigureBlocks(text: string, results: Results): string {
  return text.replace(BLOCK, (_, open: string, id: string, close: string) => {
    const section = results.sections.find((s) => s.id === id);
    if (!section) throw new Error(`<!-- bench: ${id} -->: no section with that id in bench/results.json (${results.sections.map((s) => s.id).join(", ")})`);
    const source = `From \`${results.command}\` of ${results.startedAt.slice(0, 10)} ([benchmarks.md](benchmarks.md), section ${section.title.replace(/^(\d+)\..*/, "$1")}; bench/results.json):`;
    return `${open}${source}\n\n${markdownTable(HEAD, section.figures.map(row)).join("\n")}\n${close}`;
  });
}

/** The docs with generated blocks. */
export const FIGURE_DOCS = ["docs/operations.md", "docs/dashboard.md"];

