// `edgeadmit operator keygen`: the operator's key pair, whose private key signs
// every change to the function's cluster registry and fleet (edgeadmit
// clusters …, fleet …; operator-flags.ts).
import { parseVerbArgs, requiredString } from "./args.js";
import { writeKeyPair } from "./keygen.js";
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, ALLOW_UNIGNORED_HELP } from "./secrets.js";
import type { Verb } from "./verb.js";

const OPERATOR_PRIVATE_KEY_FILE = "operator.key";
const OPERATOR_PUBLIC_KEY_FILE = "operator.pub";

export const operatorKeygen: Verb = {
  name: "operator keygen",
  summary: "make the operator's key pair, which signs changes to the cluster registry",
  usage: `edgeadmit operator keygen --out DIR [--force] [--${ALLOW_UNIGNORED}]

Writes DIR/${OPERATOR_PRIVATE_KEY_FILE} (PKCS#8 PEM, mode 0600: keep it with whoever
registers clusters, never in a cluster) and DIR/${OPERATOR_PUBLIC_KEY_FILE}; an existing key
is kept unless --force. Prints the public key: put it in the function's
OPERATOR_KEYS (a var or a secret; several keys separated by spaces while one
rotates) and deploy once. From then on edgeadmit clusters add|rotate|remove
sign with DIR/${OPERATOR_PRIVATE_KEY_FILE}.

${ALLOW_UNIGNORED_HELP}

Example:
  edgeadmit operator keygen --out ./keys`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { out: { type: "string" }, force: { type: "boolean" }, ...ALLOW_UNIGNORED_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const dir = requiredString(this.name, args, "out");
    const { publicKey, privateFile, publicFile } = await writeKeyPair(dir, OPERATOR_PRIVATE_KEY_FILE, OPERATOR_PUBLIC_KEY_FILE, args.values.force === true, args.values[ALLOW_UNIGNORED] === true);
    io.out(`${publicKey}\n`);
    io.err(`wrote ${privateFile} (mode 0600) and ${publicFile}; add the public key above to the function's OPERATOR_KEYS and deploy (docs/operations.md, Running a fleet)\n`);
    return 0;
  },
};
