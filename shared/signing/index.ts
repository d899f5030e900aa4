// Ed25519 signatures over snapshot pushes, with WebCrypto only, so the same
// code signs in Node (CLI, CronJob) and verifies in workerd.
import { sha256Hex } from "../digest/index.js";

export const SIGNATURE_HEADER = "x-edgeadmit-signature";
export const TIMESTAMP_HEADER = "x-edgeadmit-timestamp";
export const CONTENT_SHA256_HEADER = "x-edgeadmit-content-sha256";
export const PUBLIC_KEY_PREFIX = "ed25519:";
/** How far a push's signing time may be from the function's clock. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

const ED25519 = { name: "Ed25519" } as const;

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The methods a cluster's key signs: PUT pushes a snapshot, GET reads what is stored. */
export type SignedMethod = "GET" | "PUT";
/** The methods the operator's key signs: POST changes the cluster registry, GET lists it. */
export type OperatorMethod = "GET" | "POST";

/**
 * Who signs, and what the subject of the signed bytes is: a cluster's sync job
 * (the cluster id) or the fleet's operator changing the cluster registry (the
 * request's path and query). Each has its own domain tag, so a cluster's
 * signature never verifies as the operator's, nor the other way round.
 */
const SIGNING_DOMAINS = { cluster: "edgeadmit-request-v2", operator: "edgeadmit-operator-v1" } as const;
export type SigningDomain = keyof typeof SIGNING_DOMAINS;

/**
 * The signed bytes: a domain tag; the method, so a read's signature cannot
 * push; the subject, so a request for one cluster cannot be replayed to
 * another sharing its key; the signing time; and the body's SHA-256, so the
 * function checks the signature before it reads a byte of the body.
 */
export function signedMessage(
  method: SignedMethod | OperatorMethod,
  subject: string,
  timestamp: number,
  contentSha256: string,
  domain: SigningDomain = "cluster",
): Uint8Array {
  return new TextEncoder().encode(`${SIGNING_DOMAINS[domain]}\n${method}\n${subject}\n${timestamp}\n${contentSha256}\n`);
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

/** `ed25519:<base64 of the 32-byte key>` → the key's 32 bytes, or a message saying why not. */
export function publicKeyBytes(text: string): Uint8Array | string {
  const raw = text.startsWith(PUBLIC_KEY_PREFIX) ? fromBase64(text.slice(PUBLIC_KEY_PREFIX.length)) : undefined;
  if (!raw || raw.length !== 32) return `public key must be "${PUBLIC_KEY_PREFIX}" followed by the base64 of 32 bytes`;
  return raw;
}

/** A verifying key from its 32 bytes. */
export function importRawPublicKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, ED25519, false, ["verify"]);
}

/** `ed25519:<base64 of the 32-byte key>` → a verifying key, or a message saying why not. */
export async function importPublicKey(text: string): Promise<CryptoKey | string> {
  const raw = publicKeyBytes(text);
  return typeof raw === "string" ? raw : importRawPublicKey(raw);
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

/** The headers that sign a request with `body` about `subject` (a cluster, or the operator's path) at `timestamp` (seconds since the epoch). */
export async function signRequest(
  privateKey: CryptoKey,
  method: SignedMethod | OperatorMethod,
  subject: string,
  body: Uint8Array,
  timestamp: number,
  domain: SigningDomain = "cluster",
): Promise<Record<string, string>> {
  const contentSha256 = await sha256Hex(body);
  const signature = new Uint8Array(await crypto.subtle.sign(ED25519, privateKey, signedMessage(method, subject, timestamp, contentSha256, domain)));
  return { [SIGNATURE_HEADER]: toBase64(signature), [TIMESTAMP_HEADER]: String(timestamp), [CONTENT_SHA256_HEADER]: contentSha256 };
}

interface SignatureHeaders {
  signature: string | undefined;
  timestamp: string | undefined;
  contentSha256: string | undefined;
}

/**
 * Why a signed request is refused. Only `clock-skew` comes after the signature
 * verified, so only a holder of the key learns anything from it; the others
 * are one generic refusal to the caller and a reason in the function's log.
 */
type SignatureRefusal = "unsigned" | "malformed" | "bad-signature" | "clock-skew";

type SignatureCheck =
  /** `keyIndex`: which of the given keys verified (the first, when several would), so what the request stores can record its signer. */
  | { ok: true; contentSha256: string; keyIndex: number }
  | { ok: false; refusal: SignatureRefusal; detail: string };

const CONTENT_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Checks a request's signature headers against the signer's public keys (more
 * than one while a key is rotated), then the clock. Reads no body: the caller
 * compares the body it then reads with `contentSha256`.
 */
export async function verifyRequest(
  publicKeys: readonly CryptoKey[],
  method: SignedMethod | OperatorMethod,
  subject: string,
  headers: SignatureHeaders,
  nowSeconds: number,
  domain: SigningDomain = "cluster",
): Promise<SignatureCheck> {
  if (!headers.signature && !headers.timestamp && !headers.contentSha256)
    return { ok: false, refusal: "unsigned", detail: "no signature headers" };
  if (!headers.signature || !headers.timestamp || !headers.contentSha256)
    return { ok: false, refusal: "malformed", detail: `needs all of ${SIGNATURE_HEADER}, ${TIMESTAMP_HEADER} and ${CONTENT_SHA256_HEADER}` };
  if (!/^\d{1,12}$/.test(headers.timestamp)) return { ok: false, refusal: "malformed", detail: `${TIMESTAMP_HEADER} is not whole seconds since the epoch` };
  if (!CONTENT_SHA256.test(headers.contentSha256)) return { ok: false, refusal: "malformed", detail: `${CONTENT_SHA256_HEADER} is not 64 lowercase hex digits` };
  const signature = headers.signature.length <= 100 ? fromBase64(headers.signature) : undefined;
  if (!signature || signature.length !== 64) return { ok: false, refusal: "malformed", detail: `${SIGNATURE_HEADER} is not the base64 of a 64-byte Ed25519 signature` };
  const timestamp = Number(headers.timestamp);
  const message = signedMessage(method, subject, timestamp, headers.contentSha256, domain);
  // Every key is tried, so the time taken does not say which one verified.
  let keyIndex = -1;
  for (const [index, publicKey] of publicKeys.entries()) if ((await crypto.subtle.verify(ED25519, publicKey, signature, message)) && keyIndex < 0) keyIndex = index;
  if (keyIndex < 0) return { ok: false, refusal: "bad-signature", detail: `the signature does not verify with ${domain === "cluster" ? "the cluster's public key" : "any key in OPERATOR_KEYS"}` };
  if (Math.abs(nowSeconds - timestamp) > MAX_CLOCK_SKEW_SECONDS)
    return {
      ok: false,
      refusal: "clock-skew",
      detail: `signing time ${new Date(timestamp * 1000).toISOString()} is more than ${MAX_CLOCK_SKEW_SECONDS}s from the function's clock (${new Date(nowSeconds * 1000).toISOString()}): check the clock of the node that signed`,
    };
  return { ok: true, contentSha256: headers.contentSha256, keyIndex };
}
