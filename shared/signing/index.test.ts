import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { generateKeyPair, importPrivateKey, importPublicKey, publicKeyOf, signPush, verifyPush, MAX_CLOCK_SKEW_SECONDS } from "./index.js";

const body = new TextEncoder().encode('{"kind":"Snapshot"}');
const now = 1_800_000_000;

async function headersFor(pem: string, cluster = "prod", timestamp = now) {
  const headers = await signPush(await importPrivateKey(pem), cluster, body, timestamp);
  return { signature: headers["x-edgeadmit-signature"], timestamp: headers["x-edgeadmit-timestamp"] };
}

describe("snapshot signatures", () => {
  it("verify with the matching public key, for the cluster and time they were made for", async () => {
    const keys = await generateKeyPair();
    const publicKey = [(await importPublicKey(keys.publicKey)) as CryptoKey];
    expect(await verifyPush(publicKey, "prod", body, await headersFor(keys.privateKeyPem), now)).toEqual({ ok: true });
    expect(await verifyPush(publicKey, "staging", body, await headersFor(keys.privateKeyPem), now)).toMatchObject({ ok: false, status: 403 });
    expect(await verifyPush(publicKey, "prod", body, await headersFor(keys.privateKeyPem), now + MAX_CLOCK_SKEW_SECONDS + 1)).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(await verifyPush(publicKey, "prod", body, await headersFor(keys.privateKeyPem), now + MAX_CLOCK_SKEW_SECONDS)).toEqual({ ok: true });
  });

  it("verify with any of several registered keys, so a key can be rotated without a gap", async () => {
    const [retiring, next, stranger] = await Promise.all([generateKeyPair(), generateKeyPair(), generateKeyPair()]);
    const registered = [(await importPublicKey(retiring.publicKey)) as CryptoKey, (await importPublicKey(next.publicKey)) as CryptoKey];
    expect(await verifyPush(registered, "prod", body, await headersFor(retiring.privateKeyPem), now)).toEqual({ ok: true });
    expect(await verifyPush(registered, "prod", body, await headersFor(next.privateKeyPem), now)).toEqual({ ok: true });
    expect(await verifyPush(registered, "prod", body, await headersFor(stranger.privateKeyPem), now)).toMatchObject({ ok: false, status: 403 });
  });

  it("derive the registered public key from the private key", async () => {
    const keys = await generateKeyPair();
    expect(await publicKeyOf(keys.privateKeyPem)).toBe(keys.publicKey);
  });

  it("accept a key made by `openssl genpkey -algorithm ed25519`", async () => {
    const pem = execFileSync("openssl", ["genpkey", "-algorithm", "ed25519"], { encoding: "utf8" });
    const publicKey = [(await importPublicKey(await publicKeyOf(pem))) as CryptoKey];
    expect(await verifyPush(publicKey, "prod", body, await headersFor(pem), now)).toEqual({ ok: true });
  });

  it("explain a public key in the wrong form", async () => {
    expect(await importPublicKey("AAAA")).toBe('public key must be "ed25519:" followed by the base64 of 32 bytes');
    expect(await importPublicKey("ed25519:AAAA")).toBe('public key must be "ed25519:" followed by the base64 of 32 bytes');
  });

  it("explain a private key in the wrong form", async () => {
    await expect(importPrivateKey("not a key")).rejects.toThrow("not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)");
    const rsa = execFileSync("openssl", ["genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:1024"], { encoding: "utf8" });
    await expect(importPrivateKey(rsa)).rejects.toThrow("not an Ed25519 private key");
  });
});
