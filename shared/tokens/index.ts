// The bearer token a cluster's kube-apiserver presents to the function. The
// function keeps only each token's SHA-256 (CLUSTERS `tokenHashes`); the
// token itself lives in the apiserver's kubeconfig, or in the webhook URL on
// managed control planes that cannot present one (docs/operations.md).
import { sha256, toHex } from "../digest/index.js";

const TOKEN_PREFIX = "edgeadmit_";
/** What a token may look like: URL-path-safe, so the same token works in a header and in the URL form. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
export const TOKEN_HASH_PREFIX = "sha256:";
export const TOKEN_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** 32 random bytes, base64url: 256 bits nobody can guess. */
export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${TOKEN_PREFIX}${btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;
}

/** `sha256:<hex>`: what CLUSTERS holds for a token. */
export async function tokenHash(token: string): Promise<string> {
  return `${TOKEN_HASH_PREFIX}${toHex(await sha256(token))}`;
}
