// docs/contributing.md is the map a newcomer reads the code by: every path it
// names exists, every table of a folder's files names files of that folder,
// and its table of verbs holds every verb `edgeadmit --help` lists, each in the
// file that declares it. A move or a new verb that the map does not follow fails here.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { runCli } from "./support/test-io.js";

const CONTRIBUTING = "docs/contributing.md";
/** A path from the project's root, as the docs write one in backticks. */
const PROJECT_PATH = /^(?:shared|infra|functions|policies|test|bench|scripts|examples|conformance|bin|docs)\/[\w./-]*$/;
const VERB_TABLE = "Where each verb lives, all in `infra/cli/`:";

const codeSpans = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

/** Everything in `markdown` that does not hold under `root`, one line each; `verbs` are the CLI's. */
function mapProblems(markdown: string, root: string, verbs: readonly string[]): string[] {
  const problems: string[] = [];
  const missing = (path: string) => !existsSync(join(root, path));
  // Fenced blocks are examples (a runnable marker's demonstration), not the map.
  const prose = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "");
  for (const span of codeSpans(prose)) if (PROJECT_PATH.test(span) && missing(span)) problems.push(`${span} does not exist`);

  const paragraphs = prose.split(/\n\s*\n/);
  paragraphs.forEach((paragraph, i) => {
    if (!paragraph.startsWith("| file | job |")) return;
    // A folder's table: its files are in the first folder the paragraph before it names.
    const folder = codeSpans(paragraphs[i - 1] ?? "").find((span) => PROJECT_PATH.test(span) && span.endsWith("/"));
    if (!folder) return void problems.push(`a table of files after "${(paragraphs[i - 1] ?? "").slice(0, 40)}…" names no folder before it`);
    for (const row of paragraph.split("\n").slice(2)) {
      const file = codeSpans(row.split("|")[1] ?? "")[0];
      if (file !== undefined && missing(join(folder, file))) problems.push(`${folder}${file} does not exist`);
    }
  });

  const table = paragraphs[paragraphs.findIndex((paragraph) => paragraph.trim() === VERB_TABLE) + 1];
  if (table === undefined || !table.startsWith("| verb | file |")) return [...problems, `no table of verbs after "${VERB_TABLE}"`];
  const mapped = new Map<string, string>();
  for (const row of table.split("\n").slice(2)) {
    const [, verbCell = "", fileCell = ""] = row.split("|");
    const file = join("infra/cli", codeSpans(fileCell)[0] ?? "");
    const source = existsSync(join(root, file)) ? readFileSync(join(root, file), "utf8") : undefined;
    for (const verb of codeSpans(verbCell)) {
      if (mapped.has(verb)) problems.push(`${verb} is in the table twice`);
      mapped.set(verb, file);
      if (!verbs.includes(verb)) problems.push(`${verb} is no verb of edgeadmit --help`);
      else if (!source?.includes(`name: "${verb}"`)) problems.push(`${verb} is not declared in ${file}`);
    }
  }
  for (const verb of verbs) if (!mapped.has(verb)) problems.push(`${verb} is not in the table of verbs`);
  return problems;
}

/** The verbs `edgeadmit --help` lists, in its order. */
async function helpVerbs(): Promise<string[]> {
  const { code, stdout } = await runCli(["--help"]);
  expect(code).toBe(0);
  const listing = stdout.slice(stdout.indexOf("\nUsage:"), stdout.indexOf("\nExamples:"));
  return [...listing.matchAll(/^ {2}([a-z-]+(?: [a-z-]+)?) {2,}\S/gm)].map((match) => match[1]!);
}

describe("docs/contributing.md's map of the code", () => {
  it("names only paths that exist, and every verb in the file that declares it", async () => {
    const verbs = await helpVerbs();
    expect(verbs).toContain("clusters reset-snapshot");
    expect(verbs).toContain("completion");
    expect(mapProblems(readFileSync(join(PROJECT_ROOT, CONTRIBUTING), "utf8"), PROJECT_ROOT, verbs)).toEqual([]);
  });

  it("fails on a path that is gone, a file a folder's table names that it does not hold, and a verb in the wrong file, twice or missing", () => {
    const planted = [
      "The review is `shared/dispatcher/index.ts`; `shared/review/` is real.",
      "Under `infra/cli/check/`:",
      "| file | job |\n| --- | --- |\n| `run.ts` | real |\n| `gone.ts` | not |",
      VERB_TABLE,
      "| verb | file |\n| --- | --- |\n| `keygen` | `keygen.ts` |\n| `operator keygen`, `keygen` | `clusters.ts` |\n| `nonsense` | `main.ts` |",
    ].join("\n\n");
    expect(mapProblems(planted, PROJECT_ROOT, ["keygen", "operator keygen", "sync"])).toEqual([
      "shared/dispatcher/index.ts does not exist",
      "infra/cli/check/gone.ts does not exist",
      "operator keygen is not declared in infra/cli/clusters.ts",
      "keygen is in the table twice",
      "keygen is not declared in infra/cli/clusters.ts",
      "nonsense is no verb of edgeadmit --help",
      "sync is not in the table of verbs",
    ]);
  });
});
