import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../digest/index.js";
import { generateKeyPair, importPrivateKey, importPublicKey, publicKeyOf, signRequest, verifyRequest, MAX_CLOCK_SKEW_SECONDS, type SignedMethod } from "./index.js";

const body = new TextEncoder().encode('{"kind":"Snapshot"}');
const now = 1_800_000_000;

async function headersFor(pem: string, cluster = "prod", timestamp = now, method: SignedMethod = "PUT") {
  const headers = await signRequest(await importPrivateKey(pem), method, cluster, body, timestamp);
  return { signature: headers["x-edgeadmit-signature"], timestamp: headers["x-edgeadmit-timestamp"], contentSha256: headers["x-edgeadmit-content-sha256"] };
}

const accepted = async (keyIndex = 0) => ({ ok: true, contentSha256: await sha256Hex(body), keyIndex });

describe("request signatures", () => {
  it("verify with the matching public key, for the method, cluster and time they were made for", async () => {
    const keys = await generateKeyPair();
    const publicKey = [(await importPublicKey(keys.publicKey)) as CryptoKey];
    expect(await verifyRequest(publicKey, "PUT", "prod", await headersFor(keys.privateKeyPem), now)).toEqual(await accepted());
    expect(await verifyRequest(publicKey, "PUT", "staging", await headersFor(keys.privateKeyPem), now)).toMatchObject({ ok: false, refusal: "bad-signature" });
    expect(await verifyRequest(publicKey, "PUT", "prod", await headersFor(keys.privateKeyPem, "prod", now, "GET"), now)).toMatchObject({ ok: false, refusal: "bad-signature" });
    expect(await verifyRequest(publicKey, "PUT", "prod", await headersFor(keys.privateKeyPem), now + MAX_CLOCK_SKEW_SECONDS)).toEqual(await accepted());
  });

  it("say the clock is off only once the signature verified", async () => {
    const [keys, stranger] = await Promise.all([generateKeyPair(), generateKeyPair()]);
    const publicKey = [(await importPublicKey(keys.publicKey)) as CryptoKey];
    const late = now + MAX_CLOCK_SKEW_SECONDS + 1;
    expect(await verifyRequest(publicKey, "PUT", "prod", await headersFor(keys.privateKeyPem), late)).toEqual({
      ok: false,
      refusal: "clock-skew",
      detail: "signing time 2027-01-15T08:00:00.000Z is more than 300s from the function's clock (2027-01-15T08:05:01.000Z): check the clock of the node that signed",
    });
    expect(await verifyRequest(publicKey, "PUT", "prod", await headersFor(stranger.privateKeyPem), late)).toMatchObject({ ok: false, refusal: "bad-signature" });
  });

  it("bind the body through its SHA-256: a signature with another body's hash does not verify", async () => {
    const keys = await generateKeyPair();
    const publicKey = [(await importPublicKey(keys.publicKey)) as CryptoKey];
    const headers = { ...(await headersFor(keys.privateKeyPem)), contentSha256: await sha256Hex("another body") };
    expect(await verifyRequest(publicKey, "PUT", "prod", headers, now)).toMatchObject({ ok: false, refusal: "bad-signature" });
  });

  it("tell unsigned from malformed, without trying a signature", async () => {
    const publicKey = [(await importPublicKey((await generateKeyPair()).publicKey)) as CryptoKey];
    const none = { signature: undefined, timestamp: undefined, contentSha256: undefined };
    expect(await verifyRequest(publicKey, "GET", "prod", none, now)).toEqual({ ok: false, refusal: "unsigned", detail: "no signature headers" });
    for (const headers of [
      { ...none, signature: "AAAA" },
      { signature: "A".repeat(88), timestamp: "soon", contentSha256: "0".repeat(64) },
      { signature: "A".repeat(88), timestamp: String(now), contentSha256: "XYZ" },
      { signature: "A".repeat(10_000), timestamp: String(now), contentSha256: "0".repeat(64) },
    ]) {
      expect(await verifyRequest(publicKey, "GET", "prod", headers, now)).toMatchObject({ ok: false, refusal: "malformed" });
    }
  });

  it("verify with any of several registered keys, so a key can be rotated without a gap", async () => {
    const [retiring, next, stranger] = await Promise.all([generateKeyPair(), generateKeyPair(), generateKeyPair()]);
    const registered = [(await importPublicKey(retiring.publicKey)) as CryptoKey, (await importPublicKey(next.publicKey)) as CryptoKey];
    expect(await verifyRequest(registered, "PUT", "prod", await headersFor(retiring.privateKeyPem), now)).toEqual(await accepted());
    expect(await verifyRequest(registered, "PUT", "prod", await headersFor(next.privateKeyPem), now)).toEqual(await accepted(1));
    expect(await verifyRequest(registered, "PUT", "prod", await headersFor(stranger.privateKeyPem), now)).toMatchObject({ ok: false, refusal: "bad-signature" });
  });

  it("of a cluster never verify as the operator's, nor the other way round, even for the same key and subject", async () => {
    const keys = await generateKeyPair();
    const publicKey = [(await importPublicKey(keys.publicKey)) as CryptoKey];
    const key = await importPrivateKey(keys.privateKeyPem);
    const headersOf = (signed: Record<string, string>) => ({ signature: signed["x-edgeadmit-signature"], timestamp: signed["x-edgeadmit-timestamp"], contentSha256: signed["x-edgeadmit-content-sha256"] });
    const asCluster = headersOf(await signRequest(key, "GET", "/v1/registry/clusters", body, now));
    const asOperator = headersOf(await signRequest(key, "GET", "/v1/registry/clusters", body, now, "operator"));
    expect(await verifyRequest(publicKey, "GET", "/v1/registry/clusters", asOperator, now, "operator")).toEqual(await accepted());
    expect(await verifyRequest(publicKey, "GET", "/v1/registry/clusters", asCluster, now, "operator")).toEqual({
      ok: false,
      refusal: "bad-signature",
      detail: "the signature does not verify with any key in OPERATOR_KEYS",
    });
    expect(await verifyRequest(publicKey, "GET", "/v1/registry/clusters", asOperator, now)).toMatchObject({ ok: false, refusal: "bad-signature" });
  });

  it("derive the registered public key from the private key", async () => {
    const keys = await generateKeyPair();
    expect(await publicKeyOf(keys.privateKeyPem)).toBe(keys.publicKey);
  });

  it("accept a key made by `openssl genpkey -algorithm ed25519`", async () => {
    const pem = execFileSync("openssl", ["genpkey", "-algorithm", "ed25519"], { encoding: "utf8" });
    const publicKey = [(await importPublicKey(await publicKeyOf(pem))) as CryptoKey];
    expect(await verifyRequest(publicKey, "PUT", "prod", await headersFor(pem), now)).toEqual(await accepted());
  });

  it("explain a public key in the wrong form", async () => {
    expect(await importPublicKey("AAAA")).toBe('public key must be "ed25519:" followed by the base64 of 32 bytes');
    expect(await importPublicKey("ed25519:AAAA")).toBe('public key must be "ed25519:" followed by the base64 of 32 bytes');
  });

  it("explain a private key in the wrong form", async () => {
    await expect(importPrivateKey("not a key")).rejects.toThrow("not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)");
    const rsa = execFileSync("openssl", ["genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:1024"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    await expect(importPrivateKey(rsa)).rejects.toThrow("not an Ed25519 private key");
  });
});
