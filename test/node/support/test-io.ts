// Runs the CLI in-process for tests, with stdin given and stdout/stderr captured.
import { main } from "../../../infra/cli/main.js";

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], stdin = ""): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}
