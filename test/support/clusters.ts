// Test clusters: generated key pairs and bearer tokens, registered with the
// worker under test through its CLUSTERS binding (token hashes only, as in
// production). The private keys and the tokens reach the tests as bindings
// too (TEST_KEYS, TEST_TOKENS), never the function's code. Three operator
// keys are listed in OPERATOR_KEYS; their private halves reach the tests as
// TEST_OPERATOR_KEYS.
import { generateKeyPair } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";

const TEST_CLUSTERS = ["demo", "strict", "other", "fresh", "sealed", "pushes", "rotating", "open"] as const;
export type TestCluster = (typeof TEST_CLUSTERS)[number];

export async function testClusters() {
  const demo = await generateKeyPair();
  const strict = await generateKeyPair();
  const other = await generateKeyPair();
  const tokens = Object.fromEntries(TEST_CLUSTERS.map((id) => [id, generateToken()])) as Record<TestCluster, string>;
  const hashes = async (id: TestCluster) => ({ tokenHashes: [await tokenHash(tokens[id])] });
  const clusters = {
    demo: { publicKey: demo.publicKey, ...(await hashes("demo")) },
    strict: { publicKey: strict.publicKey, withoutSnapshot: "FailClosed", ...(await hashes("strict")) },
    other: { publicKey: other.publicKey, ...(await hashes("other")) },
    // Reserved for the contract and push tests: "fresh" and "sealed" never get a snapshot.
    fresh: { publicKey: other.publicKey, ...(await hashes("fresh")) },
    sealed: { publicKey: strict.publicKey, withoutSnapshot: "FailClosed", ...(await hashes("sealed")) },
    pushes: { publicKey: demo.publicKey, ...(await hashes("pushes")) },
    // Mid-rotation: both keys, and two tokens (the second is demo's) are registered.
    rotating: { publicKey: [demo.publicKey, other.publicKey], tokenHashes: [await tokenHash(tokens.rotating), await tokenHash(tokens.demo)] },
    // Reviews without a token, as only a function nobody else reaches may allow.
    open: { publicKey: other.publicKey, anonymous: true },
    // Broken registrations: each disables itself only (a 31-byte key; an id the function refuses; no credential).
    broken: { publicKey: `ed25519:${btoa("x".repeat(31))}`, tokenHashes: [await tokenHash(tokens.demo)] },
    My_Cluster: { publicKey: demo.publicKey, tokenHashes: [await tokenHash(tokens.demo)] },
    bare: { publicKey: demo.publicKey },
  };
  // Three: two approve a change where a threshold of two is set (vitest.config.ts, worker-threshold) while the third is revoked.
  const operators = [await generateKeyPair(), await generateKeyPair(), await generateKeyPair()];
  return {
    bindings: {
      CLUSTERS: JSON.stringify(clusters),
      OPERATOR_KEYS: operators.map((pair) => pair.publicKey).join(" "),
      TEST_OPERATOR_KEYS: JSON.stringify(operators.map((pair) => pair.privateKeyPem)),
      TEST_KEYS: JSON.stringify({ demo: demo.privateKeyPem, strict: strict.privateKeyPem, other: other.privateKeyPem }),
      TEST_TOKENS: JSON.stringify(tokens),
    },
  };
}
