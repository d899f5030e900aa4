// The CLI's client against the function in workerd: a push sends every unit,
// a push against what the function holds sends only the units that changed,
// and one whose base moved under it sends every unit instead.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushSnapshot, storedSnapshot } from "../../infra/client/index.js";
import { generateKeyPair } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { contentHash, type Snapshot } from "../../shared/snapshot/index.js";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";

let worker: LocalWorker;
let key: string;
let generation = Date.now();

const demoObjects = parseAllDocuments(readFileSync(join(PROJECT_ROOT, "examples/demo/cluster.yaml"), "utf8")).map((d) => d.toJS() as KubeObject);
const helmRelease = (namespace: string, name: string): KubeObject => ({
  apiVersion: "helm.toolkit.fluxcd.io/v2",
  kind: "HelmRelease",
  metadata: { name, namespace, labels: { "apps.cozystack.io/affinity-class": "dc1" } },
});

function snapshotWith(extra: KubeObject[]): Snapshot {
  return buildSnapshot([...demoObjects, ...extra], { generation: ++generation, builtAt: new Date().toISOString() }).snapshot;
}

beforeAll(async () => {
  const keys = await generateKeyPair();
  key = keys.privateKeyPem;
  worker = await startLocalWorker({ clusters: { fleet: { publicKey: keys.publicKey, tokenHashes: [await tokenHash(generateToken())] } } });
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
});

describe("pushSnapshot", () => {
  const namespaces = Array.from({ length: 30 }, (_, i) => helmRelease(`tenant-n${i}`, "db"));

  it("sends every unit, then only the changed ones against what the function holds, then nothing but the commit for the same content", async () => {
    const first = snapshotWith(namespaces);
    const full = await pushSnapshot(worker.url, "fleet", key, first);
    expect(full).toMatchObject({ full: true, removed: 0, bodies: 1 });
    expect(full.units).toBe(full.totalUnits);
    expect(full.stored).toMatchObject({ generation: first.generation, contentHash: await contentHash(first), units: full.totalUnits });

    // One namespace gains an application, one goes away.
    const second = snapshotWith([...namespaces.slice(1), helmRelease("tenant-n5", "cache")]);
    const incremental = await pushSnapshot(worker.url, "fleet", key, second, { against: full.stored });
    expect(incremental).toMatchObject({ full: false, units: 2, removed: 1, bodies: 1 });
    expect(incremental.bytes).toBeLessThan(full.bytes / 5);
    expect(await storedSnapshot(worker.url, "fleet", key)).toMatchObject({ generation: second.generation, contentHash: await contentHash(second) });

    const same = await pushSnapshot(worker.url, "fleet", key, { ...second, generation: ++generation }, { against: incremental.stored });
    expect(same).toMatchObject({ full: false, units: 0, removed: 0 });
    expect(same.stored.contentHash).toBe(incremental.stored.contentHash);
  });

  it("sends every unit, above the stored generation, when another push landed after it read what the function holds", async () => {
    const stale = (await storedSnapshot(worker.url, "fleet", key))!;
    // Another push lands after this one compared digests, before its first PUT, with a generation between the two.
    const other = { ...snapshotWith(namespaces.slice(3)), generation: stale.generation + 1 };
    const mine = snapshotWith(namespaces.slice(2));
    const realFetch = globalThis.fetch;
    let interject: (() => Promise<unknown>) | undefined = () => pushSnapshot(worker.url, "fleet", key, other);
    globalThis.fetch = async (input, init) => {
      const land = init?.method === "PUT" ? interject : undefined;
      interject = land ? undefined : interject;
      if (land) await land();
      return realFetch(input, init);
    };
    let report;
    try {
      report = await pushSnapshot(worker.url, "fleet", key, mine, { against: stale });
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(report.full).toBe(true);
    expect(report.fullBecause).toBe(`base generation ${stale.generation} is not the stored generation ${other.generation}: push every unit (sync does so by itself); nothing was stored`);
    expect(report.stored.generation).toBe(mine.generation + 1);
    expect(report.stored.contentHash).toBe(await contentHash(mine));
  });
});
