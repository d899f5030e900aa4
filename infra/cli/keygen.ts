// `edgeadmit keygen`: the Ed25519 key pair a cluster signs its snapshot pushes with.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateKeyPair } from "../../shared/signing/index.js";
import { optionalString, parseVerbArgs, requiredString } from "./args.js";
import { CliError } from "./errors.js";
import type { Verb } from "./verb.js";

export const PRIVATE_KEY_FILE = "edgeadmit.key";
export const PUBLIC_KEY_FILE = "edgeadmit.pub";

export const keygen: Verb = {
  name: "keygen",
  summary: "make a cluster's signing key pair; print the public key for CLUSTERS",
  usage: `edgeadmit keygen --out DIR [--cluster ID]

Writes DIR/${PRIVATE_KEY_FILE} (PKCS#8 PEM, mode 0600: it belongs in the cluster's
Secret only) and DIR/${PUBLIC_KEY_FILE}. Prints the public key as the function's
CLUSTERS registration wants it, then a ready CLUSTERS entry for --cluster.

Example:
  edgeadmit keygen --out ./keys --cluster prod-eu`,
  async run(argv, io) {
    const args = parseVerbArgs("keygen", argv, { out: { type: "string" }, cluster: { type: "string" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const dir = requiredString("keygen", args, "out");
    const cluster = optionalString(args, "cluster") ?? "my-cluster";
    const privateFile = join(dir, PRIVATE_KEY_FILE);
    if (existsSync(privateFile)) throw new CliError(`${privateFile} exists: not overwriting a key (move it away or choose another --out)`);
    const pair = await generateKeyPair();
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(privateFile, pair.privateKeyPem, { mode: 0o600, flag: "wx" });
      writeFileSync(join(dir, PUBLIC_KEY_FILE), `${pair.publicKey}\n`);
    } catch (e) {
      throw new CliError(`cannot write the key to ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    io.out(`${pair.publicKey}\n${JSON.stringify({ [cluster]: { publicKey: pair.publicKey, withoutSnapshot: "FailOpen" } })}\n`);
    io.err(`wrote ${privateFile} (mode 0600) and ${join(dir, PUBLIC_KEY_FILE)}; add the entry above to the function's CLUSTERS\n`);
    return 0;
  },
};
