// `edgeadmit keygen`: the Ed25519 key pair a cluster signs its snapshot
// pushes with; `edgeadmit key public`: the public key of a key already made.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clusterIdError } from "../../shared/clusters/index.js";
import { generateKeyPair, importPrivateKey, publicKeyOf } from "../../shared/signing/index.js";
import { optionalString, parseVerbArgs, requiredString } from "./args.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import type { Verb } from "./verb.js";

const PRIVATE_KEY_FILE = "edgeadmit.key";
const PUBLIC_KEY_FILE = "edgeadmit.pub";

/** Writes `text` to `file`; without `force`, a file already there is an error, not overwritten. */
function writeNew(file: string, text: string, force: boolean, mode?: number): void {
  try {
    writeFileSync(file, text, { flag: force ? "w" : "wx", ...(mode !== undefined ? { mode } : {}) });
  } catch (e) {
    throw fileError("write", file, e, (e as NodeJS.ErrnoException).code === "EEXIST" ? "pass --force to overwrite" : undefined);
  }
}

/**
 * A new Ed25519 key pair into `dir`: the private key as PKCS#8 PEM (mode 0600;
 * an existing one is kept unless `force`), the public key as `ed25519:…`.
 */
export async function writeKeyPair(dir: string, privateName: string, publicName: string, force: boolean): Promise<{ publicKey: string; privateFile: string; publicFile: string }> {
  const privateFile = join(dir, privateName);
  const publicFile = join(dir, publicName);
  const pair = await generateKeyPair();
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw fileError("write", dir, e);
  }
  writeNew(privateFile, pair.privateKeyPem, force, 0o600);
  writeNew(publicFile, `${pair.publicKey}\n`, true);
  return { publicKey: pair.publicKey, privateFile, publicFile };
}

/** The PEM text of --key FILE (or another `flag`), checked to be an Ed25519 private key. */
export async function readPrivateKey(keyFile: string, io: CliIo, flag = "--key"): Promise<string> {
  const pem = await readInput(keyFile, io, "key");
  try {
    await importPrivateKey(pem);
  } catch (e) {
    throw new CliError(`${flag} ${keyFile}: ${(e as Error).message}`);
  }
  return pem;
}

export const keygen: Verb = {
  name: "keygen",
  summary: "make a cluster's signing key pair; print the public key to register",
  usage: `edgeadmit keygen --out DIR [--cluster ID] [--force]

Writes DIR/${PRIVATE_KEY_FILE} (PKCS#8 PEM, mode 0600: it belongs in the cluster's
Secret only) and DIR/${PUBLIC_KEY_FILE}; an existing key is kept unless --force.
Prints the public key, as edgeadmit clusters add --public-key and a CLUSTERS
registration take it, then a CLUSTERS entry for --cluster (default
my-cluster). A registration also needs the apiserver's credential: edgeadmit
token prints the token hash to add.

Example:
  edgeadmit keygen --out ./keys --cluster prod-eu`,
  async run(argv, io) {
    const args = parseVerbArgs("keygen", argv, { out: { type: "string" }, cluster: { type: "string" }, force: { type: "boolean" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const dir = requiredString("keygen", args, "out");
    const cluster = optionalString(args, "cluster") ?? "my-cluster";
    const idError = clusterIdError(cluster);
    if (idError) throw new CliError(`--cluster: ${idError}`, EXIT_USAGE);
    const { publicKey, privateFile, publicFile } = await writeKeyPair(dir, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, args.values.force === true);
    io.out(`${publicKey}\n${JSON.stringify({ [cluster]: { publicKey, withoutSnapshot: "FailOpen" } })}\n`);
    io.err(
      `wrote ${privateFile} (mode 0600) and ${publicFile}; register the cluster with its apiserver's credential, in the function's registry (edgeadmit clusters add ${cluster} --public-key ${publicFile} --token-hash …) or as the entry above in CLUSTERS: ` +
        `edgeadmit token --cluster ${cluster} --url https://<function> --out ${dir} prints the "tokenHashes" to add (edgeadmit clusters check names what an entry lacks)\n`,
    );
    return 0;
  },
};

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
