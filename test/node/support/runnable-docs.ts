// Executable docs: the shell blocks of README.md and docs/*.md marked
// `<!-- runnable -->` are run with bash, and an expected-output block after
// one is compared with what it printed. The marker, the placeholder and the
// substitutions are described in docs/contributing.md, "Executable docs".
import { spawn } from "node:child_process";

export interface RunnableBlock {
  /** file:line of the ```sh fence, for the failure message. */
  where: string;
  script: string;
  /** The exit status the block must end with (`<!-- runnable exit=1 -->`), 0 by default. */
  exit: number;
  /** The ```text block right after the ```sh block, if there is one. */
  expected?: string;
}

const MARKER = /^\s*<!--\s*runnable(?:\s+exit=(\d+))?\s*-->\s*$/;
const FENCE = /^(\s*)```(\S*)\s*$/;

/** The body of the fenced block opening at `lines[start]`, its indentation removed, and the line after its close. */
function fencedBlock(lines: string[], start: number, where: string): { body: string; next: number } {
  const indent = FENCE.exec(lines[start]!)![1]!.length;
  for (let i = start + 1; i < lines.length; i++)
    if (/^\s*```\s*$/.test(lines[i]!)) return { body: lines.slice(start + 1, i).map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join("\n"), next: i + 1 };
  throw new Error(`${where}: the block is never closed`);
}

/** The line after the fence opening at `lines[start]` is closed (by a fence of at least its backticks), so a marker shown inside an example is not one. */
function afterFence(lines: string[], start: number): number {
  const ticks = /^\s*(`{3,})/.exec(lines[start]!)![1]!.length;
  for (let i = start + 1; i < lines.length; i++) {
    const close = /^\s*(`{3,})\s*$/.exec(lines[i]!);
    if (close && close[1]!.length >= ticks) return i + 1;
  }
  return lines.length;
}

/** Every runnable block of one markdown file, in order; a marker that is not followed by a ```sh block is an error, not a skip. */
export function extractRunnable(markdown: string, file: string): RunnableBlock[] {
  const lines = markdown.split("\n");
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*`{3,}/.test(lines[i]!)) {
      i = afterFence(lines, i) - 1;
      continue;
    }
    const marker = MARKER.exec(lines[i]!);
    if (!marker) continue;
    let fence = i + 1;
    while (fence < lines.length && lines[fence]!.trim() === "") fence++;
    const where = `${file}:${fence + 1}`;
    if (FENCE.exec(lines[fence] ?? "")?.[2] !== "sh") throw new Error(`${file}:${i + 1}: <!-- runnable --> must be followed by a \`\`\`sh block`);
    const script = fencedBlock(lines, fence, where);
    let after = script.next;
    while (after < lines.length && lines[after]!.trim() === "") after++;
    const expected = FENCE.exec(lines[after] ?? "")?.[2] === "text" ? fencedBlock(lines, after, `${file}:${after + 1}`).body : undefined;
    blocks.push({ where, script: script.body, exit: marker[1] === undefined ? 0 : Number(marker[1]), ...(expected === undefined ? {} : { expected }) });
    i = (expected === undefined ? script.next : afterFence(lines, after)) - 1;
  }
  return blocks;
}

/** Lines without trailing blanks, and no trailing empty lines: what the reader sees. */
function normalise(text: string): string[] {
  return text.replace(/\s+$/, "").split("\n").map((l) => l.trimEnd());
}

/**
 * Whether the output matches the expected block: line for line, exactly,
 * except that `…` in an expected line stands for any text within that line
 * (a key, a hash, a timestamp, a temp path).
 */
export function matchesExpected(actual: string, expected: string): boolean {
  const got = normalise(actual);
  const want = normalise(expected);
  if (got.length !== want.length) return false;
  return want.every((line, i) => new RegExp(`^${line.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`).test(got[i]!));
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text of the docs replaced in the script, and back in its output (the documented port for the one the test serves on). */
  substitute?: { documented: string; actual: string };
}

/** Runs a block as `bash -eo pipefail`, stdout and stderr interleaved as a terminal shows them. */
export function runBlock(block: RunnableBlock, options: RunOptions): Promise<{ exit: number; output: string }> {
  const { documented, actual } = options.substitute ?? { documented: "", actual: "" };
  const script = documented ? block.script.replaceAll(documented, actual) : block.script;
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-eo", "pipefail", "-c", `exec 2>&1\n${script}`], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ exit: code ?? (signal ? 128 : 1), output: documented ? output.replaceAll(actual, documented) : output }));
  });
}

/** Why a block's run does not agree with its docs, or undefined when it does. */
export function disagreement(block: RunnableBlock, run: { exit: number; output: string }): string | undefined {
  const problems: string[] = [];
  if (run.exit !== block.exit) problems.push(`exit ${run.exit}, the docs expect ${block.exit}`);
  if (block.expected !== undefined && !matchesExpected(run.output, block.expected)) problems.push(`the output differs from the block after it:\n--- expected\n${block.expected}\n--- got`);
  return problems.length === 0 ? undefined : `${block.where}: ${problems.join("; ")}\n${run.output}\n--- the block\n${block.script}`;
}
