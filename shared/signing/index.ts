// Ed25519 signatures over snapshot pushes, with WebCrypto only, so the same
// code signs in Node (CLI, CronJob) and verifies in workerd.

export const SIGNATURE_HEADER = "x-edgeadmit-signature";
export const TIMESTAMP_HEADER = "x-edgeadmit-timestamp";
export const PUBLIC_KEY_PREFIX = "ed25519:";
/** How far a push's signing time may be from the function's clock. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

const ED25519 = { name: "Ed25519" } as const;

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/**
 * The signed bytes: a domain tag, the cluster (so a push for one cluster
 * cannot be replayed to another sharing its key), the signing time, the body.
 */
export function signedMessage(cluster: string, timestamp: number, body: Uint8Array): Uint8Array {
  const head = new TextEncoder().encode(`edgeadmit-snapshot-v1\n${cluster}\n${timestamp}\n`);
  const message = new Uint8Array(head.length + body.length);
  message.set(head, 0);
  message.set(body, head.length);
  return message;
}

export async function generateKeyPair(): Promise<{ privateKeyPem: string; publicKey: string }> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const raw = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const body = toBase64(pkcs8).replace(/(.{64})/g, "$1\n").trim();
  return { privateKeyPem: `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`, publicKey: `${PUBLIC_KEY_PREFIX}${toBase64(raw)}` };
}

/** A PKCS#8 PEM Ed25519 private key (as written by `edgeadmit keygen` or `openssl genpkey -algorithm ed25519`). */
export async function importPrivateKey(pem: string): Promise<CryptoKey> {
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem);
  const der = match ? fromBase64(match[1]!.replace(/\s+/g, "")) : undefined;
  if (!der) throw new Error("not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)");
  try {
    return await crypto.subtle.importKey("pkcs8", der, ED25519, false, ["sign"]);
  } catch {
    throw new Error("not an Ed25519 private key");
  }
}

/** `ed25519:<base64 of the 32-byte key>` → a verifying key, or a message saying why not. */
export async function importPublicKey(text: string): Promise<CryptoKey | string> {
  const raw = text.startsWith(PUBLIC_KEY_PREFIX) ? fromBase64(text.slice(PUBLIC_KEY_PREFIX.length)) : undefined;
  if (!raw || raw.length !== 32) return `public key must be "${PUBLIC_KEY_PREFIX}" followed by the base64 of 32 bytes`;
  return crypto.subtle.importKey("raw", raw, ED25519, false, ["verify"]);
}

export async function publicKeyOf(pem: string): Promise<string> {
  // WebCrypto cannot derive a public key from a private one; the JWK export carries it.
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem);
  const der = match ? fromBase64(match[1]!.replace(/\s+/g, "")) : undefined;
  if (!der) throw new Error("not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)");
  const key = await crypto.subtle.importKey("pkcs8", der, ED25519, true, ["sign"]);
  const jwk = (await crypto.subtle.exportKey("jwk", key)) as JsonWebKey;
  const raw = fromBase64(jwk.x!.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(jwk.x!.length / 4) * 4, "="));
  return `${PUBLIC_KEY_PREFIX}${toBase64(raw!)}`;
}

/** The headers that sign `body` for `cluster` at `timestamp` (seconds since the epoch). */
export async function signPush(
  privateKey: CryptoKey,
  cluster: string,
  body: Uint8Array,
  timestamp: number,
): Promise<Record<string, string>> {
  const signature = new Uint8Array(await crypto.subtle.sign(ED25519, privateKey, signedMessage(cluster, timestamp, body)));
  return { [SIGNATURE_HEADER]: toBase64(signature), [TIMESTAMP_HEADER]: String(timestamp) };
}

export type VerifyResult = { ok: true } | { ok: false; status: 401 | 403; error: string };

/** Checks a push's signature headers against the cluster's public keys (more than one while a key is rotated) and the clock. */
export async function verifyPush(
  publicKeys: readonly CryptoKey[],
  cluster: string,
  body: Uint8Array,
  headers: { signature: string | undefined; timestamp: string | undefined },
  nowSeconds: number,
): Promise<VerifyResult> {
  if (!headers.signature || !headers.timestamp)
    return { ok: false, status: 401, error: `a snapshot push must be signed: headers ${SIGNATURE_HEADER} and ${TIMESTAMP_HEADER} are required` };
  if (!/^\d{1,12}$/.test(headers.timestamp))
    return { ok: false, status: 401, error: `${TIMESTAMP_HEADER} must be whole seconds since the epoch` };
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > MAX_CLOCK_SKEW_SECONDS)
    return {
      ok: false,
      status: 403,
      error: `signing time ${new Date(timestamp * 1000).toISOString()} is more than ${MAX_CLOCK_SKEW_SECONDS}s from the function's clock (${new Date(nowSeconds * 1000).toISOString()})`,
    };
  const signature = fromBase64(headers.signature);
  if (!signature || signature.length !== 64) return { ok: false, status: 401, error: `${SIGNATURE_HEADER} must be the base64 of a 64-byte Ed25519 signature` };
  const message = signedMessage(cluster, timestamp, body);
  for (const publicKey of publicKeys) {
    if (await crypto.subtle.verify(ED25519, publicKey, signature, message)) return { ok: true };
  }
  return { ok: false, status: 403, error: `signature does not verify with cluster "${cluster}"'s public key` };
}
