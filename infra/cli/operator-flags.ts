// --endpoint and --operator-key: the function a verb's signed request goes to,
// and the operator's key that signs it (edgeadmit clusters …, fleet …).
import { requiredString, type ParsedArgs } from "./args.js";
import type { CliIo } from "../base/io.js";
import { baseUrlOf } from "./endpoint.js";
import { readPrivateKey } from "./keygen.js";

export const TARGET_FLAGS = { endpoint: { type: "string" }, "operator-key": { type: "string" } } as const;
export const TARGET_USAGE = "--endpoint URL --operator-key FILE";
export const TARGET_HELP = `--endpoint is the function's base URL; --operator-key the operator's private
key (edgeadmit operator keygen), whose public key is in the function's
OPERATOR_KEYS. Every request is signed with it; the function refuses others.`;

interface Target {
  endpoint: string;
  privateKeyPem: string;
}

/** --endpoint and --operator-key, checked before anything is sent. */
export async function targetOf(verb: string, args: ParsedArgs, io: CliIo): Promise<Target> {
  const endpoint = requiredString(verb, args, "endpoint");
  const keyFile = requiredString(verb, args, "operator-key");
  baseUrlOf("--endpoint", endpoint);
  return { endpoint, privateKeyPem: await readPrivateKey(keyFile, io, "--operator-key") };
}
