// The function an operator's signed request goes to and the operator key
// that signs it (edgeadmit clusters …, fleet …, operator …, proposals,
// approve, changes). Each of the two comes from the first of, as kubectl
// takes a flag before the context --context names and that before its
// kubeconfig's current context:
//   1. its flag: --endpoint, --operator-key;
//   2. the context --context names, in the contexts file (context-file.ts);
//   3. its environment variable: EDGEADMIT_ENDPOINT, EDGEADMIT_OPERATOR_KEY;
//   4. the contexts file's current context (edgeadmit context use).
// A shell's variables (direnv, CI) thus win over the file's default, and an
// explicit --context over both.
import { optionalString, type ParsedArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import type { CliIo } from "../base/io.js";
import { contextIn, contextsPath, readContexts, type OperatorContext } from "./context-file.js";
import { baseUrlOf } from "./endpoint.js";
import { readPrivateKey } from "./keygen.js";

export const ENDPOINT_VARIABLE = "EDGEADMIT_ENDPOINT";
export const OPERATOR_KEY_VARIABLE = "EDGEADMIT_OPERATOR_KEY";

export const TARGET_FLAGS = { endpoint: { type: "string" }, "operator-key": { type: "string" }, context: { type: "string" } } as const;
export const TARGET_USAGE = "[--endpoint URL] [--operator-key FILE] [--context NAME]";
export const TARGET_HELP = `--endpoint is the function's base URL; --operator-key the operator's private
key (edgeadmit operator keygen), whose public key is in the function's
OPERATOR_KEYS. Every request is signed with it; the function refuses others.
Each comes from the first of: its flag; the context --context names;
${ENDPOINT_VARIABLE} and ${OPERATOR_KEY_VARIABLE}; the current context
(edgeadmit context use). Contexts are in $EDGEADMIT_CONTEXTS, else
$XDG_CONFIG_HOME/edgeadmit/contexts.yaml (edgeadmit context --help).`;

export interface Target {
  endpoint: string;
  privateKeyPem: string;
}

/** A value and what gave it, as its messages name it (`--endpoint`, `EDGEADMIT_ENDPOINT`, `context prod's endpoint`). */
interface Given {
  value: string;
  from: string;
}

const given = (value: string | undefined, from: string): Given | undefined => (value === undefined || value === "" ? undefined : { value, from });

/** The endpoint and key file, each from the first source that has it; the contexts file is read only when a flag or variable leaves one open. */
function resolveTarget(verb: string, args: ParsedArgs): { endpoint: Given; keyFile: Given } {
  let endpoint = given(optionalString(args, "endpoint"), "--endpoint");
  let keyFile = given(optionalString(args, "operator-key"), "--operator-key");
  const named = optionalString(args, "context");
  const fromContext = (context: OperatorContext, how: string) => {
    endpoint ??= { value: context.endpoint, from: `${how} ${context.name}'s endpoint` };
    keyFile ??= { value: context.operatorKey, from: `${how} ${context.name}'s operatorKey` };
  };
  const path = contextsPath();
  if (named !== undefined) {
    const context = contextIn(readContexts(path), path, named);
    if (!context) throw new CliError(`--context ${named.slice(0, 80)}: ${path} has no such context (edgeadmit context list)`, EXIT_USAGE);
    fromContext(context, "context");
  }
  endpoint ??= given(process.env[ENDPOINT_VARIABLE], ENDPOINT_VARIABLE);
  keyFile ??= given(process.env[OPERATOR_KEY_VARIABLE], OPERATOR_KEY_VARIABLE);
  if (endpoint === undefined || keyFile === undefined) {
    const file = readContexts(path);
    const current = file.currentContext === undefined ? undefined : contextIn(file, path, file.currentContext);
    if (file.currentContext !== undefined && !current) throw new CliError(`the current context ${file.currentContext.slice(0, 80)} is not in ${path}: edgeadmit context use NAME (edgeadmit context list)`, EXIT_USAGE);
    if (current) fromContext(current, "current context");
  }
  const missing = (flag: string, variable: string) =>
    new CliError(
      `${flag} is required: pass ${flag}, set ${variable}, or choose a context (edgeadmit context set NAME --endpoint URL --operator-key FILE --use; none is current in ${path}) (see edgeadmit ${verb} --help)`,
      EXIT_USAGE,
    );
  if (endpoint === undefined) throw missing("--endpoint", ENDPOINT_VARIABLE);
  if (keyFile === undefined) throw missing("--operator-key", OPERATOR_KEY_VARIABLE);
  return { endpoint, keyFile };
}

/** The function and the operator's key, checked before anything is sent. */
export async function targetOf(verb: string, args: ParsedArgs, io: CliIo): Promise<Target> {
  const { endpoint, keyFile } = resolveTarget(verb, args);
  baseUrlOf(endpoint.from, endpoint.value);
  return { endpoint: endpoint.value, privateKeyPem: await readPrivateKey(keyFile.value, io, keyFile.from) };
}
