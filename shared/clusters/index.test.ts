import { describe, expect, it } from "vitest";
import { fromHex } from "../digest/index.js";
import { generateKeyPair, publicKeyBytes } from "../signing/index.js";
import { tokenHash } from "../tokens/index.js";
import { clusterIdError, loadClusters, publicKeysOf, tokenDigestsOf } from "./index.js";

const { publicKey } = await generateKeyPair();
const hash = await tokenHash("edgeadmit_abcdefghijklmnopqrstuvwxyz");

describe("loadClusters", () => {
  it("loads a registration with a key and token hashes, defaulting withoutSnapshot", async () => {
    const { clusters, problems } = await loadClusters(JSON.stringify({ "prod-eu": { publicKey, tokenHashes: [hash] } }));
    expect(problems).toEqual([]);
    expect(clusters.get("prod-eu")).toMatchObject({ id: "prod-eu", anonymous: false, withoutSnapshot: "FailOpen" });
    expect(tokenDigestsOf(clusters.get("prod-eu")!)).toEqual([fromHex(hash.slice("sha256:".length))]);
    expect(publicKeysOf(clusters.get("prod-eu")!)).toEqual([publicKeyBytes(publicKey)]);
  });

  it("keeps every key and every token digest of a registration mid-rotation, each apart", async () => {
    const next = await generateKeyPair();
    const nextHash = await tokenHash("edgeadmit_zyxwvutsrqponmlkjihgfedcba");
    const { clusters } = await loadClusters(JSON.stringify({ rotating: { publicKey: [publicKey, next.publicKey], tokenHashes: [hash, nextHash] } }));
    const cluster = clusters.get("rotating")!;
    expect(publicKeysOf(cluster)).toEqual([publicKeyBytes(publicKey), publicKeyBytes(next.publicKey)]);
    expect(tokenDigestsOf(cluster)).toEqual([fromHex(hash.slice("sha256:".length)), fromHex(nextHash.slice("sha256:".length))]);
  });

  it("disables a broken entry only, saying why, and keeps the others", async () => {
    const { clusters, problems } = await loadClusters(
      JSON.stringify({
        good: { publicKey, tokenHashes: [hash] },
        "My_Cluster": { publicKey, tokenHashes: [hash] },
        short: { publicKey: "ed25519:AAAA", tokenHashes: [hash] },
        open: { publicKey },
        typo: { publicKey, tokenHash: hash },
        hashless: { publicKey, tokenHashes: ["sha256:abc"] },
      }),
    );
    expect([...clusters.keys()]).toEqual(["good"]);
    expect(problems).toEqual([
      { cluster: "My_Cluster", reason: "cluster id \"My_Cluster\" must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit" },
      { cluster: "short", reason: 'publicKey: public key must be "ed25519:" followed by the base64 of 32 bytes' },
      { cluster: "open", reason: "no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach" },
      { cluster: "typo", reason: 'Unrecognized key: "tokenHash"' },
      { cluster: "hashless", reason: 'tokenHashes.0: must be "sha256:" and 64 lowercase hex digits (edgeadmit token prints it)' },
    ]);
  });

  it("admits a cluster without tokens only when it says anonymous: true", async () => {
    const { clusters, problems } = await loadClusters(JSON.stringify({ demo: { publicKey, anonymous: true } }));
    expect(problems).toEqual([]);
    expect(clusters.get("demo")).toMatchObject({ anonymous: true, keyCount: 1 });
    expect(tokenDigestsOf(clusters.get("demo")!)).toEqual([]);
  });

  it("names a value that is not a JSON object", async () => {
    expect((await loadClusters("{nope")).problems[0]!.reason).toMatch(/^CLUSTERS is not JSON: /);
    expect((await loadClusters("[]")).problems).toEqual([{ reason: 'CLUSTERS must be a JSON object: {"<cluster>": {"publicKey": …, "tokenHashes": […]}}' }]);
  });

  it("caps a hostile id in what it reports", async () => {
    const { problems } = await loadClusters(JSON.stringify({ ["X".repeat(10_000)]: {} }));
    expect(problems[0]!.cluster).toHaveLength(80);
    expect(problems[0]!.reason.length).toBeLessThan(200);
  });
});

describe("clusterIdError", () => {
  it.each([
    ["prod-eu", undefined],
    ["a", undefined],
    ["x".repeat(63), undefined],
    ["x".repeat(64), "cluster id"],
    ["-prod", "cluster id"],
    ["prod_eu", "cluster id"],
    ["Prod", "cluster id"],
    ["", "cluster id"],
  ])("%s", (id, error) => {
    if (error === undefined) expect(clusterIdError(id)).toBeUndefined();
    else expect(clusterIdError(id)).toMatch(/^cluster id /);
  });
});
