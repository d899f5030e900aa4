// Every failure the CLI reports is one line on stderr and a non-zero exit:
// code that knows what went wrong throws CliError with that line, and main
// puts `edgeadmit <verb>: ` in front of it.

/**
 * Exit codes, one contract for every verb: 0 ok; 1 findings, a refused
 * request or a failure on the way (the function unreachable, a write that
 * failed); 2 a command line or input that cannot be used (a bad flag, a file
 * that cannot be read, a kubeconfig or --context that cannot be used, a
 * cluster whose apiserver does not answer the reads a verb judges or syncs).
 */
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

/** What the errno codes a file operation commonly fails with mean, in words. */
const ERRNO_MEANINGS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EEXIST: "it already exists",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is not a directory",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  EMFILE: "too many open files",
};

function isErrnoException(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === "string";
}

/** An fs error in words (`no such file`), the code when there are none for it, the message for anything else. */
export function describeFsError(e: unknown): string {
  if (isErrnoException(e)) return ERRNO_MEANINGS[e.code!] ?? e.code!;
  return firstLine(e instanceof Error ? e.message : String(e));
}

/** `cannot read x.yaml: no such file`, with `hint` in parentheses when given; an input that cannot be read is a usage error (2), a write that fails a failure (1). */
export function fileError(action: "read" | "write", path: string, e: unknown, hint?: string): CliError {
  return new CliError(`cannot ${action} ${path}: ${describeFsError(e)}${hint ? ` (${hint})` : ""}`, action === "read" ? EXIT_USAGE : EXIT_FAILURE);
}

/** The syscalls that read: an uncaught failure of one is an input that cannot be used (2). */
const READING_SYSCALLS = new Set(["open", "read", "stat", "lstat", "scandir", "opendir", "readlink", "realpath", "access"]);

/** The exit code of an fs error nobody caught: 2 when it read, 1 otherwise. */
export function uncaughtFsExit(e: unknown): number {
  return isErrnoException(e) && READING_SYSCALLS.has(e.syscall ?? "") && e.code !== "EMFILE" ? EXIT_USAGE : EXIT_FAILURE;
}

/** An fs error nobody caught, as one readable line: `cannot open x: no such file`; undefined for other errors. */
export function uncaughtFsError(e: unknown): string | undefined {
  if (!isErrnoException(e) || typeof e.path !== "string") return undefined;
  return `cannot ${e.syscall ?? "use"} ${e.path}: ${describeFsError(e)}`;
}
