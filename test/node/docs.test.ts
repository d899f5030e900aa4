// Executable docs: every shell block of README.md and docs/*.md marked
// `<!-- runnable -->` runs as written, in a fresh copy of the checkout (so
// this work tree stays untouched), against the demo `npm start` serves, and
// prints what the docs show after it. Then `git status` in the copy is clean:
// whatever a documented command writes is ignored. docs/contributing.md,
// "Executable docs", says how to mark a block.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoFiles, startDemo, type Demo } from "../../scripts/demo.js";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { disagreement, extractRunnable, matchesExpected, runBlock, type RunnableBlock } from "./support/runnable-docs.js";

const DOCUMENTED_URL = "http://127.0.0.1:8787";
/** A block runs the CLI a few times (each a Node start and, the first time, an esbuild build): far above that on a loaded machine. */
const BLOCK_TIMEOUT_MS = 120_000;

const PLANTED = `# A guide

<!-- runnable -->
\`\`\`sh
echo hello; echo "to stderr" >&2
\`\`\`

\`\`\`text
hello
to …
\`\`\`

Not marked, never run:

\`\`\`sh
rm -rf /
\`\`\`

- a list item

  <!-- runnable exit=1 -->
  \`\`\`sh
  echo one
  false
  echo never
  \`\`\`

<!-- runnable -->
\`\`\`sh
echo the docs are wrong here
npx --no-install edgeadmit no-such-verb
echo the docs say this runs
\`\`\`
`;

describe("the runnable-block extractor and runner", () => {
  const blocks = extractRunnable(PLANTED, "planted.md");

  it("finds the marked blocks only, with their exit status and expected output, indented or not", () => {
    expect(blocks).toEqual([
      { where: "planted.md:4", script: 'echo hello; echo "to stderr" >&2', exit: 0, expected: "hello\nto …" },
      { where: "planted.md:22", script: "echo one\nfalse\necho never", exit: 1 },
      { where: "planted.md:29", script: "echo the docs are wrong here\nnpx --no-install edgeadmit no-such-verb\necho the docs say this runs", exit: 0 },
    ]);
  });

  it("takes a marker shown inside a fenced example for an example", () => {
    expect(extractRunnable("````markdown\n<!-- runnable -->\n```sh\nfalse\n```\n````\n", "x.md")).toEqual([]);
  });

  it("refuses a marker that no ```sh block follows", () => {
    expect(() => extractRunnable("<!-- runnable -->\n```json\n{}\n```\n", "x.md")).toThrow("x.md:1: <!-- runnable --> must be followed by a ```sh block");
  });

  it("compares line for line; … stands for any text within one line", () => {
    expect(matchesExpected("hello\nto stderr\n", "hello\nto …")).toBe(true);
    expect(matchesExpected("hello\nto stderr\nmore\n", "hello\nto …")).toBe(false);
    expect(matchesExpected("hello\nto\nstderr", "hello\nto …")).toBe(false);
    expect(matchesExpected("hello (1.5)", "hello (1+5)")).toBe(false);
  });

  const options = { cwd: PROJECT_ROOT, env: process.env };

  it("passes a block that runs as written and prints what is shown (stderr interleaved)", async () => {
    const run = await runBlock(blocks[0]!, options);
    expect(run).toEqual({ exit: 0, output: "hello\nto stderr\n" });
    expect(disagreement(blocks[0]!, run)).toBeUndefined();
  });

  it("stops a block at its first failing command and holds it to its declared exit status", async () => {
    const run = await runBlock(blocks[1]!, options);
    expect(run).toEqual({ exit: 1, output: "one\n" });
    expect(disagreement(blocks[1]!, run)).toBeUndefined();
  });

  it("fails on a planted doc command that fails", async () => {
    const run = await runBlock(blocks[2]!, options);
    expect(run.exit).not.toBe(0);
    expect(run.output).not.toContain("the docs say this runs");
    expect(disagreement(blocks[2]!, run)).toMatch(/^planted\.md:29: exit \d+, the docs expect 0\n/);
  }, BLOCK_TIMEOUT_MS);

  it("fails on output that differs from the block shown after it", async () => {
    const wrong: RunnableBlock = { ...blocks[0]!, expected: "hello\nto stdout" };
    expect(disagreement(wrong, await runBlock(wrong, options))).toContain("planted.md:4: the output differs from the block after it");
  });

  it("runs the documented port's URL against the one it is given, and shows it back as documented", async () => {
    const block: RunnableBlock = { where: "x.md:1", script: `echo ${DOCUMENTED_URL}/readyz`, exit: 0, expected: `${DOCUMENTED_URL}/readyz` };
    const run = await runBlock(block, { ...options, substitute: { documented: DOCUMENTED_URL, actual: "http://127.0.0.1:45678" } });
    expect(run.output).toBe(`${DOCUMENTED_URL}/readyz\n`);
  });
});

/** README.md, then docs/*.md by name: the order a reader follows, and the order of the state they build up. */
function documentedBlocks(): RunnableBlock[] {
  const files = ["README.md", ...readdirSync(join(PROJECT_ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
  return files.flatMap((file) => extractRunnable(readFileSync(join(PROJECT_ROOT, file), "utf8"), file));
}

describe("the docs' runnable commands, against npm start's demo", () => {
  const blocks = documentedBlocks();
  let copy: string;
  let demo: Demo;

  beforeAll(async () => {
    // A fresh clone of this tree as it is (uncommitted docs included): the tracked files, committed, and the installed packages.
    mkdirSync(tmpdir(), { recursive: true });
    copy = mkdtempSync(join(tmpdir(), "edgeadmit-docs-"));
    const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: PROJECT_ROOT, encoding: "utf8" }).split("\0")
      // A file deleted in the work tree but not yet in git's index is not part of the tree as it is.
      .filter((file) => file && existsSync(join(PROJECT_ROOT, file)));
    for (const file of tracked) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(PROJECT_ROOT, file), join(copy, file), { verbatimSymlinks: true });
    }
    symlinkSync(join(PROJECT_ROOT, "node_modules"), join(copy, "node_modules"));
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=docs", "-c", "user.email=docs@example.com", ...args], { cwd: copy, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "fresh clone");
    demo = await startDemo({ files: demoFiles(join(copy, ".edgeadmit")), port: 0, logLevel: "warn" });
  }, WORKER_START_TIMEOUT_MS);

  afterAll(async () => {
    await demo?.worker.stop();
    if (copy) rmSync(copy, { recursive: true, force: true });
  }, WORKER_START_TIMEOUT_MS);

  it("marks blocks in the README and the operations guide", () => {
    expect(blocks.filter((b) => b.where.startsWith("README.md:")).length).toBeGreaterThan(0);
    expect(blocks.filter((b) => b.where.startsWith("docs/operations.md:")).length).toBeGreaterThan(0);
  });

  it.each(blocks.map((block) => [block.where, block] as const))("%s runs as written", async (_where, block) => {
    // A reader's shell: no registry context of the tests' (vitest.config.ts), and the contexts file where a
    // documented `edgeadmit context set` writes it ($XDG_CONFIG_HOME/edgeadmit), inside the copy.
    const { EDGEADMIT_ENDPOINT: _endpoint, EDGEADMIT_OPERATOR_KEY: _key, EDGEADMIT_CONTEXTS: _contexts, ...env } = process.env;
    const run = await runBlock(block, { cwd: copy, env: { ...env, XDG_CONFIG_HOME: join(copy, ".edgeadmit", "config") }, substitute: { documented: DOCUMENTED_URL, actual: demo.worker.url } });
    expect(disagreement(block, run)).toBeUndefined();
  }, BLOCK_TIMEOUT_MS);

  it("leaves git status clean: everything the commands wrote is ignored", () => {
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: copy, encoding: "utf8" })).toBe("");
  });
});
