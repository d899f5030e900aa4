// End to end over real HTTP: the function in workerd on loopback, a snapshot
// built from YAML, signed and pushed with the CLI's client, then the README's
// example reviews judged against it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionError, pushSnapshot, storedSnapshot } from "../../infra/client/index.js";
import { generateKeyPair } from "../../shared/signing/index.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/build/index.js";
import { PROJECT_ROOT, startLocalWorker, type LocalWorker } from "../../scripts/local-worker.js";

let worker: LocalWorker;
let privateKeyPem: string;

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), "utf8");
const demoObjects = parseAllDocuments(read("examples/demo/cluster.yaml")).map((d) => d.toJS() as KubeObject);

async function validate(file: string) {
  const response = await fetch(`${worker.url}/v1/demo/validate?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: read(file),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { response: { allowed: boolean; status?: { message: string } } }).response;
}

beforeAll(async () => {
  const keys = await generateKeyPair();
  privateKeyPem = keys.privateKeyPem;
  worker = await startLocalWorker({ clusters: { demo: { publicKey: keys.publicKey } } });
});

afterAll(async () => {
  await worker?.stop();
});

describe("the demo cluster end to end", () => {
  it("fails open with a warning before any snapshot is pushed", async () => {
    expect(await storedSnapshot(worker.url, "demo")).toBeUndefined();
    const response = await validate("examples/reviews/pod-main-db-denied.json");
    expect(response).toMatchObject({ allowed: true, warnings: ['edgeadmit: no snapshot has been pushed for cluster "demo" yet; policies not enforced'] });
  });

  it("stores a signed push and enforces it", async () => {
    const { snapshot } = buildSnapshot(demoObjects, { generation: Date.now(), builtAt: new Date().toISOString() });
    const stored = await pushSnapshot(worker.url, "demo", privateKeyPem, JSON.stringify(snapshot));
    expect(stored).toMatchObject({ cluster: "demo", generation: snapshot.generation });
    expect(await storedSnapshot(worker.url, "demo")).toMatchObject({ generation: snapshot.generation, contentHash: stored.contentHash });

    expect(await validate("examples/reviews/pod-main-db-denied.json")).toMatchObject({
      allowed: false,
      status: {
        message:
          'pod tenant-acme/main-db-1-* (generateName) belongs to application with AffinityClass "dc1" but missing required nodeSelector topology.kubernetes.io/zone=dc1',
      },
    });
    expect(await validate("examples/reviews/pod-main-db-allowed.json")).toEqual({ uid: "7a9b8c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", allowed: true });
  });

  it("refuses an unsigned push and changes nothing", async () => {
    const before = await storedSnapshot(worker.url, "demo");
    const { snapshot } = buildSnapshot([], { generation: Date.now() + 1000, builtAt: new Date().toISOString() });
    const response = await fetch(`${worker.url}/v1/demo/snapshot`, { method: "PUT", body: JSON.stringify(snapshot) });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: "a snapshot push must be signed: headers x-edgeadmit-signature and x-edgeadmit-timestamp are required",
    });
    expect(await storedSnapshot(worker.url, "demo")).toMatchObject({ generation: before?.generation, contentHash: before?.contentHash });
    expect((await validate("examples/reviews/pod-main-db-denied.json")).allowed).toBe(false);
  });

  it("reports a refused push with the function's own words", async () => {
    const other = await generateKeyPair();
    const { snapshot } = buildSnapshot([], { generation: Date.now() + 2000, builtAt: new Date().toISOString() });
    const refused = pushSnapshot(worker.url, "demo", other.privateKeyPem, JSON.stringify(snapshot));
    await expect(refused).rejects.toThrow(new FunctionError(`the function refused the snapshot (403): signature does not verify with cluster "demo"'s public key`, 403));
  });
});
