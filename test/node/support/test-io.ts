// Runs the CLI in-process for tests, with stdin given and stdout/stderr captured.
import { main } from "../../../infra/cli/main.js";
import type { CliIo } from "../../../infra/base/io.js";

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `io` adds to the in-memory io what a test plays (stdout redirected to a file: `stdoutFile`; a terminal's answer: `confirm`). */
export async function runCli(argv: string[], stdin = "", io: Pick<CliIo, "stdoutFile" | "confirm"> = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    readStdin: async () => stdin,
    ...io,
  });
  return { code, stdout, stderr };
}

/** `text` without the report of what leaves the cluster (infra/cli/leaving.ts), for tests about the rest of stderr or stdout. */
export function withoutLeaving(text: string): string {
  return text.replace(/^what leaves the cluster \(docs\/inventory\.md, "What leaves the cluster"\):\n(?: {2}.*\n)*? {2}never: .*\n/m, "");
}

/** runCli for tests of `snapshot build` about the rest of its stderr: the report of what leaves the cluster left out (infra/cli/snapshot.test.ts tests it). */
export async function runBuild(argv: string[], stdin?: string): Promise<CliRun> {
  const result = await runCli(argv, stdin);
  return { ...result, stderr: withoutLeaving(result.stderr) };
}
