// Where a verb reads and writes: the process in real use, buffers in tests.
import { fstatSync, readFileSync, readlinkSync } from "node:fs";
import { CliError, fileError } from "./errors.js";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  /** Whether stderr is a terminal, where a progress line may be rewritten in place. */
  readonly stderrIsTerminal?: boolean;
  /** Whether what goes to stdout may be coloured: a terminal, and NO_COLOR unset or empty (no-color.org). */
  readonly colour?: boolean;
  /** Resolves once what `out` wrote has gone out (a pipe's reader can be slower than us): a long report waits instead of piling up in memory. */
  drained?(): Promise<void>;
  /** Asks a yes/no question on a terminal (stdin and stderr both one); absent elsewhere, where a verb needs --yes instead. */
  confirm?(question: string): Promise<boolean>;
  /**
   * Where stdout goes when the shell redirected it to a regular file (`> x.yaml`):
   * its path, or "" when it is a file whose path cannot be told; undefined for
   * a terminal or a pipe. A verb printing a secret checks it as it checks -o.
   */
  readonly stdoutFile?: string | undefined;
}

/** The path of the regular file fd 1 is, "" when it is one whose path this system does not tell (no /proc), undefined otherwise. */
function redirectedStdout(): string | undefined {
  try {
    if (!fstatSync(1).isFile()) return undefined;
  } catch {
    return undefined;
  }
  try {
    return readlinkSync("/proc/self/fd/1");
  } catch {
    return "";
  }
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  get stderrIsTerminal() {
    return process.stderr.isTTY === true;
  },
  get colour() {
    return process.stdout.isTTY === true && !process.env.NO_COLOR;
  },
  drained: () => (process.stdout.writableNeedDrain ? new Promise((resolve) => process.stdout.once("drain", () => resolve())) : Promise.resolve()),
  get confirm() {
    if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
    return async (question: string) => {
      const { createInterface } = await import("node:readline/promises");
      const terminal = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await terminal.question(`${question} [y/N] `)).trim());
      } finally {
        terminal.close();
      }
    };
  },
  get stdoutFile() {
    return redirectedStdout();
  },
  readStdin: async () => {
    // Waiting on a terminal looks like a hang: say what was expected instead.
    if (process.stdin.isTTY) throw new CliError("expected input on stdin (a pipe or a file), not a terminal: give a FILE or pipe the input in");
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
};

/** A file's text, or stdin's for `-`; a missing or unreadable file is one line naming it. */
export async function readInput(path: string, io: CliIo, what: string): Promise<string> {
  if (path === "-") return io.readStdin();
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw fileError("read", `${what} ${path}`, e);
  }
}
