// `edgeadmit context set|use|list|delete`: the operator's named contexts
// (a function's endpoint and the operator key that signs for it) and the
// current one, as kubectl config set-context|use-context|get-contexts|
// delete-context keep kubeconfig's. The file is context-file.ts's; how a
// verb picks its endpoint and key is operator-flags.ts's.
import { resolve } from "node:path";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import type { CliIo } from "../base/io.js";
import { optionalString, parseVerbArgs, type ParsedArgs } from "./args.js";
import { contextIn, contextNameError, contextsPath, CONTEXTS_VARIABLE, readContexts, writeContexts } from "./context-file.js";
import { baseUrlOf } from "./endpoint.js";
import { readPrivateKey } from "./keygen.js";
import { ENDPOINT_VARIABLE, OPERATOR_KEY_VARIABLE } from "./operator-flags.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import type { Verb } from "./verb.js";

const FILE_HELP = `The contexts file is $${CONTEXTS_VARIABLE}, else
$XDG_CONFIG_HOME/edgeadmit/contexts.yaml (~/.config when XDG_CONFIG_HOME is
unset), written with mode 0600. A verb that signs with the operator key
takes its endpoint and key from the first of: --endpoint and --operator-key;
the context --context names; ${ENDPOINT_VARIABLE} and ${OPERATOR_KEY_VARIABLE};
the current context.`;

function nameArg(verb: string, args: ParsedArgs): string {
  const name = args.positionals[0];
  if (name === undefined) throw new CliError(`say which context: edgeadmit ${verb} NAME (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  const error = contextNameError(name);
  if (error) throw new CliError(error, EXIT_USAGE);
  return name;
}

/** The context NAME names, in the contexts file as it is (use, delete): one it lacks is a usage error. */
function named(verb: string, args: ParsedArgs) {
  const name = nameArg(verb, args);
  const path = contextsPath();
  const file = readContexts(path);
  const context = contextIn(file, path, name);
  if (!context) throw new CliError(`${path} has no context ${name} (edgeadmit context list)`, EXIT_USAGE);
  return { name, path, file, context };
}

const set: Verb = {
  name: "context set",
  summary: "add or change a named context: a function's endpoint and the operator key that signs for it",
  usage: `edgeadmit context set NAME [--endpoint URL] [--operator-key FILE] [--use]

Adds context NAME (both --endpoint and --operator-key are needed) or changes
what of it the flags give, as kubectl config set-context does. The endpoint
is checked as --endpoint is, the key file read as an Ed25519 private key;
the file keeps the key file's absolute path, never the key. --use makes
NAME the current context too.
${FILE_HELP}

Examples:
  edgeadmit context set production --endpoint https://edgeadmit.example.com --operator-key ./keys/operator/operator.key
  edgeadmit context set local --endpoint http://127.0.0.1:8787 --operator-key .edgeadmit/operator.key --use`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { endpoint: { type: "string" }, "operator-key": { type: "string" }, use: { type: "boolean" } }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const name = nameArg(this.name, args);
    const endpoint = optionalString(args, "endpoint");
    const keyFile = optionalString(args, "operator-key");
    if (endpoint !== undefined) baseUrlOf("--endpoint", endpoint);
    if (keyFile !== undefined) await readPrivateKey(keyFile, io, "--operator-key");
    const path = contextsPath();
    const file = readContexts(path);
    const before = file.contexts.find((context) => context.name === name);
    if (!before && (endpoint === undefined || keyFile === undefined))
      throw new CliError(`context ${name} is new: give both --endpoint and --operator-key (see edgeadmit ${this.name} --help)`, EXIT_USAGE);
    if (before && endpoint === undefined && keyFile === undefined && args.values.use !== true)
      throw new CliError(`nothing to change: give --endpoint, --operator-key or --use (see edgeadmit ${this.name} --help)`, EXIT_USAGE);
    const context = { name, endpoint: endpoint ?? before!.endpoint, operatorKey: keyFile !== undefined ? resolve(keyFile) : before!.operatorKey };
    const contexts = before ? file.contexts.map((one) => (one.name === name ? context : one)) : [...file.contexts, context];
    writeContexts(path, { ...file, contexts, ...(args.values.use === true ? { currentContext: name } : {}) });
    if (endpoint !== undefined || keyFile !== undefined) io.out(`context ${name} ${before ? "modified" : "created"}: ${context.endpoint}, operator key ${context.operatorKey}\n`);
    if (args.values.use === true) io.out(`switched to context ${name}\n`);
    io.err(`in ${path}\n`);
    return 0;
  },
};

const use: Verb = {
  name: "context use",
  summary: "make a named context the current one: what verbs use without --endpoint and --operator-key",
  usage: `edgeadmit context use NAME

Makes NAME the current context, as kubectl config use-context does: verbs
that sign with the operator key then use its endpoint and key, unless a
flag, --context or ${ENDPOINT_VARIABLE} / ${OPERATOR_KEY_VARIABLE} say otherwise.
${FILE_HELP}

Example:
  edgeadmit context use production`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, {}, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const { name, path, file, context } = named(this.name, args);
    writeContexts(path, { ...file, currentContext: name });
    io.out(`switched to context ${name} (${context.endpoint})\n`);
    warnShadowed(io);
    return 0;
  },
};

/** The variables that take precedence over the current context, said where a current context is shown or chosen. */
function warnShadowed(io: CliIo): void {
  for (const variable of [ENDPOINT_VARIABLE, OPERATOR_KEY_VARIABLE])
    if (process.env[variable]) io.err(`note: ${variable} is set in this shell: it takes precedence over the current context\n`);
}

const list: Verb = {
  name: "context list",
  summary: "list the named contexts, the current one marked",
  usage: `edgeadmit context list [-o text|json|yaml]

Prints each context: * for the current one, its name, endpoint and operator
key file, as kubectl config get-contexts does; -o json (or yaml) the whole
file. Says when ${ENDPOINT_VARIABLE} or ${OPERATOR_KEY_VARIABLE} is set, since
they take precedence over the current context.
${FILE_HELP}

Example:
  edgeadmit context list`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, OUTPUT_FLAG);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const path = contextsPath();
    const file = readContexts(path);
    if (output !== "text") {
      printData(io, output, file);
      return 0;
    }
    const rows = [["CURRENT", "NAME", "ENDPOINT", "OPERATOR KEY"], ...file.contexts.map((context) => [context.name === file.currentContext ? "*" : "", context.name, context.endpoint, contextIn(file, path, context.name)!.operatorKey])];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    if (file.contexts.length > 0) for (const row of rows) io.out(`${row.map((cell, column) => (column < row.length - 1 ? cell.padEnd(widths[column]!) : cell)).join("   ")}\n`);
    io.err(file.contexts.length > 0 ? `in ${path}\n` : `no contexts in ${path}: edgeadmit context set NAME --endpoint URL --operator-key FILE\n`);
    warnShadowed(io);
    return 0;
  },
};

const remove: Verb = {
  name: "context delete",
  summary: "delete a named context (the current one too: then none is current)",
  usage: `edgeadmit context delete NAME

Deletes context NAME from the contexts file, as kubectl config
delete-context does; the key file it names stays where it is. When NAME is
the current context, no context is current afterwards.
${FILE_HELP}

Example:
  edgeadmit context delete staging`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, {}, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const { name, path, file } = named(this.name, args);
    const { currentContext, ...rest } = file;
    writeContexts(path, { ...rest, contexts: file.contexts.filter((context) => context.name !== name), ...(currentContext !== undefined && currentContext !== name ? { currentContext } : {}) });
    io.out(`deleted context ${name}${currentContext === name ? "; no context is current now" : ""}\n`);
    return 0;
  },
};

export const contextVerbs: readonly Verb[] = [set, use, list, remove];
