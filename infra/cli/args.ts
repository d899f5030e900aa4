// Flags of one verb, parsed with node:util parseArgs; its errors become one
// line that points at the verb's --help.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError, EXIT_USAGE, firstLine } from "../base/errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedArgs {
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
  help: boolean;
}

/** `-o=json` as `-o json`: parseArgs would take "=json" as the value, where users of kubectl expect both spellings to work. */
function splitShortEquals(argv: readonly string[], options: Options): string[] {
  const short = new Set(Object.values(options).filter((option) => option.type === "string" && option.short).map((option) => option.short!));
  const split: string[] = [];
  for (const [index, arg] of argv.entries()) {
    if (arg === "--") return [...split, ...argv.slice(index)];
    const match = /^-([A-Za-z])=(.*)$/s.exec(arg);
    if (match && short.has(match[1]!)) split.push(`-${match[1]}`, match[2]!);
    else split.push(arg);
  }
  return split;
}

/**
 * kubectl's spellings of --dry-run: =client is --dry-run, =none is no dry
 * run; =server is refused, as nothing here asks the function for a dry run.
 */
function dryRunSpellings(verb: string, argv: readonly string[], options: Options): string[] {
  if (options["dry-run"]?.type !== "boolean") return [...argv];
  const end = argv.indexOf("--");
  return argv.flatMap((arg, index) => {
    const match = (end === -1 || index < end) && /^--dry-run=(.*)$/s.exec(arg);
    if (!match) return [arg];
    if (match[1] === "client") return ["--dry-run"];
    if (match[1] === "none") return [];
    if (match[1] === "server")
      throw new CliError(`--dry-run=server is not offered: --dry-run is client-side only (=client): it shows what would be sent or written and changes nothing (see edgeadmit ${verb} --help)`, EXIT_USAGE);
    throw new CliError(`--dry-run takes client or none, as kubectl's does, not "${match[1]!.slice(0, 20)}" (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  });
}

export function parseVerbArgs(verb: string, argv: string[], options: Options, maxPositionals = 0): ParsedArgs {
  const args = splitShortEquals(dryRunSpellings(verb, argv, options), options);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (e) {
    // parseArgs explains at length how to pass a dash-prefixed value; its first sentence is what matters.
    const sentence = firstLine((e as Error).message).replace(/\. .*$/, "");
    throw new CliError(`${sentence} (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  }
  const help = parsed.values.help === true;
  if (!help && parsed.positionals.length > maxPositionals)
    throw new CliError(`unexpected argument "${parsed.positionals[maxPositionals]}" (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  return { values: parsed.values, positionals: parsed.positionals, help };
}

export function requiredString(verb: string, args: ParsedArgs, flag: string): string {
  const value = args.values[flag];
  if (typeof value !== "string" || value === "") throw new CliError(`--${flag} is required (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  return value;
}

export function optionalString(args: ParsedArgs, flag: string): string | undefined {
  const value = args.values[flag];
  return typeof value === "string" ? value : undefined;
}

export function stringList(args: ParsedArgs, flag: string): string[] {
  const value = args.values[flag];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** One of `choices`, or a usage error naming them. */
export function choice<T extends string>(flag: string, value: string | undefined, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new CliError(`--${flag} must be one of ${choices.join(", ")}, not "${value}"`, EXIT_USAGE);
}

/**
 * The paths of `-f PATH...`: every -f, and the arguments after them, as
 * `kubectl apply -f a -f b` and the shell's `-f dir/*.yaml` both give them.
 * Parse with maxPositionals Infinity; a positional without any -f is refused.
 */
export function fileList(verb: string, args: ParsedArgs): string[] {
  const files = stringList(args, "file");
  if (files.length === 0 && args.positionals.length > 0) throw new CliError(`unexpected argument "${args.positionals[0]}": paths follow -f (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  return [...files, ...args.positionals];
}
