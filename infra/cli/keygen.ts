// `edgeadmit keygen`: the Ed25519 key pair a cluster signs its snapshot
// pushes with (`edgeadmit key public`, key.ts, prints the public key of one
// already made).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clusterIdError } from "../../shared/clusters/index.js";
import { generateKeyPair, importPrivateKey } from "../../shared/signing/index.js";
import { tokenHash, TOKEN_PATTERN } from "../../shared/tokens/index.js";
import { optionalString, parseVerbArgs, requiredString } from "./args.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, ALLOW_UNIGNORED_HELP, refuseUnignoredSecrets } from "./secrets.js";
import type { Verb } from "./verb.js";

const PRIVATE_KEY_FILE = "edgeadmit.key";
export const PUBLIC_KEY_FILE = "edgeadmit.pub";
/** Where edgeadmit token keeps the apiserver's token (token.ts), read here for the whole registration. */
const TOKEN_FILES = ["edgeadmit.token.previous", "edgeadmit.token"] as const;

/** The trimmed text of `file`, or undefined when there is none. */
function textIn(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

/**
 * The cluster's whole CLUSTERS entry, as one JSON line, from the public key
 * and the token hashes `dir` holds (or the `hashes` given): what keygen and
 * token print once both have run, so the entry is usable as printed.
 * Undefined while one of the two is missing.
 */
export async function registrationLine(dir: string, cluster: string, hashes?: readonly string[]): Promise<string | undefined> {
  const publicKey = textIn(join(dir, PUBLIC_KEY_FILE));
  if (publicKey === undefined) return undefined;
  const tokenHashes = hashes ?? (await Promise.all(TOKEN_FILES.map((name) => textIn(join(dir, name))).filter((t): t is string => t !== undefined && TOKEN_PATTERN.test(t)).map(tokenHash)));
  if (tokenHashes.length === 0) return undefined;
  return JSON.stringify({ [cluster]: { publicKey, tokenHashes, withoutSnapshot: "FailOpen" } });
}

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
export async function writeKeyPair(dir: string, privateName: string, publicName: string, force: boolean, allowUnignored: boolean): Promise<{ publicKey: string; privateFile: string; publicFile: string }> {
  const privateFile = join(dir, privateName);
  const publicFile = join(dir, publicName);
  refuseUnignoredSecrets([privateFile], allowUnignored);
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
    throw new CliError(`${flag} ${keyFile}: ${(e as Error).message}`, EXIT_USAGE);
  }
  return pem;
}

export const keygen: Verb = {
  name: "keygen",
  summary: "make a cluster's signing key pair; print the public key to register",
  usage: `edgeadmit keygen --out DIR [--cluster ID] [--force] [--${ALLOW_UNIGNORED}]

Writes DIR/${PRIVATE_KEY_FILE} (PKCS#8 PEM, mode 0600: it belongs in the cluster's
Secret only) and DIR/${PUBLIC_KEY_FILE}; an existing key is kept unless --force.
Prints the public key, as edgeadmit clusters add --public-key and a CLUSTERS
registration take it. A registration also needs the apiserver's credential:
edgeadmit token --out DIR makes it and prints the whole CLUSTERS entry for
--cluster (default my-cluster); when DIR already holds the token, keygen
prints that entry itself, on the next line.

${ALLOW_UNIGNORED_HELP}

Example:
  edgeadmit keygen --out ./keys --cluster prod-eu`,
  async run(argv, io) {
    const args = parseVerbArgs("keygen", argv, { out: { type: "string" }, cluster: { type: "string" }, force: { type: "boolean" }, ...ALLOW_UNIGNORED_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const dir = requiredString("keygen", args, "out");
    const cluster = optionalString(args, "cluster") ?? "my-cluster";
    const idError = clusterIdError(cluster);
    if (idError) throw new CliError(`--cluster: ${idError}`, EXIT_USAGE);
    const { publicKey, privateFile, publicFile } = await writeKeyPair(dir, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, args.values.force === true, args.values[ALLOW_UNIGNORED] === true);
    const registration = await registrationLine(dir, cluster);
    io.out(`${publicKey}\n${registration !== undefined ? `${registration}\n` : ""}`);
    io.err(
      `wrote ${privateFile} (mode 0600) and ${publicFile}; ` +
        (registration !== undefined
          ? `the line after the public key is the cluster's whole CLUSTERS entry (or register it in the function's registry: edgeadmit clusters add ${cluster} --public-key ${publicFile} --token-hash …)\n`
          : `register the cluster with its apiserver's credential: edgeadmit token --cluster ${cluster} --url https://<function> --out ${dir} makes the token and prints the whole CLUSTERS entry ` +
            `(or, in the function's registry: edgeadmit clusters add ${cluster} --public-key ${publicFile} --token-hash …)\n`),
    );
    return 0;
  },
};
