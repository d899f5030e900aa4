// Test clusters: generated key pairs, registered with the worker under test
// through its CLUSTERS binding. The private keys reach the tests as bindings
// too (TEST_KEYS), never the function's code.
import { generateKeyPair } from "../../shared/signing/index.js";

export async function testClusters() {
  const demo = await generateKeyPair();
  const strict = await generateKeyPair();
  const other = await generateKeyPair();
  const clusters = {
    demo: { publicKey: demo.publicKey },
    strict: { publicKey: strict.publicKey, withoutSnapshot: "FailClosed" },
    other: { publicKey: other.publicKey },
    // Reserved for the contract and push tests: "fresh" and "sealed" never get a snapshot.
    fresh: { publicKey: other.publicKey },
    sealed: { publicKey: strict.publicKey, withoutSnapshot: "FailClosed" },
    pushes: { publicKey: demo.publicKey },
    // Mid-rotation: both keys are registered.
    rotating: { publicKey: [demo.publicKey, other.publicKey] },
  };
  return {
    bindings: {
      CLUSTERS: JSON.stringify(clusters),
      TEST_KEYS: JSON.stringify({ demo: demo.privateKeyPem, strict: strict.privateKeyPem, other: other.privateKeyPem }),
    },
  };
}
