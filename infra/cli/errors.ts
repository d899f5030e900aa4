// Every failure the CLI reports is one line on stderr and a non-zero exit:
// code that knows what went wrong throws CliError with that line.

/** Exit codes: 1 for a failure, 2 for a command line that cannot be run. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** The first line of a message, so a multi-line library error still prints as one line. */
export function firstLine(text: string): string {
  return text.split("\n").find((line) => line.trim() !== "")?.trim() ?? text;
}
