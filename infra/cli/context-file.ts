// The operator's contexts file: named pairs of a function's endpoint and the
// operator key that signs for it, and which one is current, as kubeconfig's
// contexts are for kubectl (`edgeadmit context set|use|list|delete`;
// operator-flags.ts reads it). It names key files, never holds a key.
// Where: $EDGEADMIT_CONTEXTS, else $XDG_CONFIG_HOME/edgeadmit/contexts.yaml
// (~/.config when XDG_CONFIG_HOME is unset).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import * as z from "zod/mini";
import { describeZodError } from "../../shared/zod/index.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { yamlOf } from "./output-flag.js";

export const CONTEXTS_VARIABLE = "EDGEADMIT_CONTEXTS";
export const CONTEXTS_API_VERSION = "edgeadmit.io/v1alpha1";
/** Contexts one file holds: an operator has one per environment, a few. */
const MAX_CONTEXTS = 100;

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
export const contextNameError = (name: string) => (NAME.test(name) ? undefined : `a context name is 1-63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, not "${name.slice(0, 80)}"`);

const contextSchema = z.strictObject({
  name: z.string().check(z.refine((name) => contextNameError(name) === undefined, "must be 1-63 letters, digits, '-', '_' and '.'")),
  endpoint: z.string().check(z.minLength(1), z.maxLength(2048)),
  /** The operator's private key file: absolute as `context set` writes it; relative to the file's folder when written so by hand, as kubeconfig's paths are. */
  operatorKey: z.string().check(z.minLength(1), z.maxLength(4096)),
});
export type OperatorContext = z.infer<typeof contextSchema>;

const fileSchema = z.strictObject({
  apiVersion: z.literal(CONTEXTS_API_VERSION),
  kind: z.literal("Contexts"),
  currentContext: z.optional(z.string()),
  contexts: z._default(z.array(contextSchema).check(z.maxLength(MAX_CONTEXTS)), []),
});
export type ContextsFile = z.infer<typeof fileSchema>;

/** Where the contexts file is, by the environment. */
export function contextsPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env[CONTEXTS_VARIABLE]) return resolve(env[CONTEXTS_VARIABLE]);
  return join(env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), ".config"), "edgeadmit", "contexts.yaml");
}

/** The contexts file at `path`; an empty one when there is none yet. One that cannot be read or is not a contexts file is a usage error naming it. */
export function readContexts(path: string): ContextsFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { apiVersion: CONTEXTS_API_VERSION, kind: "Contexts", contexts: [] };
    throw fileError("read", `contexts file ${path}`, e);
  }
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 0 });
  } catch (e) {
    throw new CliError(`contexts file ${path} is not YAML: ${(e as Error).message.split("\n")[0]}`, EXIT_USAGE);
  }
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) throw new CliError(`contexts file ${path}: ${describeZodError(parsed.error)} (edgeadmit context --help says what it holds)`, EXIT_USAGE);
  const names = new Set<string>();
  for (const { name } of parsed.data.contexts) {
    if (names.has(name)) throw new CliError(`contexts file ${path}: context ${name} appears twice`, EXIT_USAGE);
    names.add(name);
  }
  return parsed.data;
}

/** The context named `name`, with its key file's path as the CLI opens it. */
export function contextIn(file: ContextsFile, path: string, name: string): OperatorContext | undefined {
  const context = file.contexts.find((one) => one.name === name);
  return context && { ...context, operatorKey: resolve(dirname(path), context.operatorKey) };
}

/** Writes the file whole, readable by its owner only, in one rename: a reader never sees half of it. */
export function writeContexts(path: string, file: ContextsFile): void {
  const text = `# edgeadmit contexts (edgeadmit context --help): which function and operator key a command uses\n${yamlOf(file)}`;
  const partial = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(partial, text, { mode: 0o600 });
    renameSync(partial, path);
  } catch (e) {
    throw fileError("write", `contexts file ${path}`, e);
  }
}
