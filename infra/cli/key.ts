// `edgeadmit key public`: the public key of a key already made (keygen.ts
// makes the pair).
import { publicKeyOf } from "../../shared/signing/index.js";
import { parseVerbArgs, requiredString } from "./args.js";
import { readPrivateKey } from "./keygen.js";
import type { Verb } from "./verb.js";

export const keyPublic: Verb = {
  name: "key public",
  summary: "print the public key of a cluster's private key, as CLUSTERS wants it",
  usage: `edgeadmit key public --key FILE

Reads an Ed25519 private key (PKCS#8 PEM, as edgeadmit keygen or
openssl genpkey -algorithm ed25519 write it; - for stdin) and prints its
public key as the "publicKey" of the cluster's CLUSTERS entry: ed25519:<base64>.

Example:
  edgeadmit key public --key ./keys/edgeadmit.key`,
  async run(argv, io) {
    const args = parseVerbArgs("key public", argv, { key: { type: "string" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const pem = await readPrivateKey(requiredString("key public", args, "key"), io);
    io.out(`${await publicKeyOf(pem)}\n`);
    return 0;
  },
};
