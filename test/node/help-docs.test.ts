// The CLI's help and the docs say the same: every `edgeadmit <verb> --flag`
// a command line in README.md or docs/*.md writes (a fenced block or an
// inline code span) names a verb `edgeadmit --help` lists and a flag that
// verb's `--help` shows. A flag renamed, removed or never built fails here by
// file and line, as a step a reader copies would fail. (The whole `check
// --help` is in docs/check.md as a runnable block, compared line for line by
// docs.test.ts.)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { runCli } from "./support/test-io.js";

/** One `edgeadmit …` command line in the docs: where, the words after `edgeadmit`, up to the end of the command; `command` when it is one for sure (run with npx or node, or the line starts with it), not prose that names the CLI. */
interface Invocation {
  where: string;
  words: string[];
  command: boolean;
}

/** The code of a markdown file, line by line: fenced blocks whole, and the inline code spans of prose; a `\` at a line's end joins the next. */
function codeLines(markdown: string): Array<{ line: number; text: string }> {
  const lines = markdown.split("\n");
  const code: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  for (const [index, text] of lines.entries()) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) code.push({ line: index + 1, text });
    else for (const span of text.matchAll(/`([^`]+)`/g)) code.push({ line: index + 1, text: span[1]! });
  }
  const joined: Array<{ line: number; text: string }> = [];
  for (const entry of code) {
    const last = joined.at(-1);
    if (last && /\\\s*$/.test(last.text)) last.text = `${last.text.replace(/\\\s*$/, " ")}${entry.text.trim()}`;
    else joined.push({ ...entry });
  }
  return joined;
}

/** Every `edgeadmit <verb> …` in the code of `markdown`: the words up to a pipe, a redirect, `;`, `&&`, `#` or the line's end. */
function invocations(markdown: string, file: string): Invocation[] {
  const found: Invocation[] = [];
  for (const { line, text } of codeLines(markdown))
    for (const match of text.matchAll(/(^\s*(?:\$ )?|[\s(|])(npx |node bin\/)?edgeadmit(?:\.mjs)? ([a-z][a-z-]*(?: [^|;&>#\n]*)?)(?=$|[|;&>#\n])/g)) {
      // A placeholder's ellipsis (`--endpoint …`) is a value; quoted values are one word.
      const words = (match[3]!.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).filter((word) => word !== "…");
      const before = text.slice(0, match.index + match[1]!.length);
      found.push({ where: `${file}:${line}`, words, command: match[2] !== undefined || /^\s*(\$ )?$/.test(before) });
    }
  return found;
}

describe("the docs' edgeadmit command lines name verbs and flags the CLI has", () => {
  const usages = new Map<string, string>();
  const files = ["README.md", ...readdirSync(join(PROJECT_ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  const all = files.flatMap((file) => invocations(readFileSync(join(PROJECT_ROOT, file), "utf8"), file));

  beforeAll(async () => {
    const help = (await runCli(["--help"])).stdout;
    const names = [...help.matchAll(/^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*)?) {2,}/gm)].map((match) => match[1]!);
    for (const name of names) usages.set(name, (await runCli([...name.split(" "), "--help"])).stdout);
  });

  it("finds the command lines (and a planted wrong flag among them)", () => {
    expect(all.length).toBeGreaterThan(100);
    expect(invocations("```sh\nnpx edgeadmit check -f x \\\n  --no-such-flag | kubectl apply -f -\n```\n", "planted.md")).toEqual([{ where: "planted.md:2", words: ["check", "-f", "x", "--no-such-flag"], command: true }]);
  });

  it("each names a verb, and only flags its --help shows", () => {
    const problems: string[] = [];
    for (const { where, words, command } of all) {
      const two = words.slice(0, 2).join(" ");
      const verb = usages.has(two) ? two : usages.has(words[0]!) ? words[0]! : undefined;
      if (verb === undefined) {
        // `edgeadmit clusters` alone names the group, `edgeadmit --help` the help: no verb to hold flags to.
        if (command && ![...usages.keys()].some((name) => name.startsWith(`${words[0]} `))) problems.push(`${where}: edgeadmit ${words.slice(0, 2).join(" ")}: no such verb`);
        continue;
      }
      const usage = usages.get(verb)!;
      for (const word of words.slice(verb.split(" ").length)) {
        const flag = /^(--[a-z][a-z0-9-]*)(?:=.*)?$/.exec(word)?.[1];
        if (flag === undefined || flag === "--help" || flag === "--version") continue;
        if (!new RegExp(`(^|[\\s\\[(|])${flag}(?![a-z0-9-])`, "m").test(usage)) problems.push(`${where}: edgeadmit ${verb} ${flag}: not a flag of edgeadmit ${verb} --help`);
      }
    }
    expect(problems).toEqual([]);
  });
});
