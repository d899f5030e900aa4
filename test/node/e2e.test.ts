// End to end over real HTTP: the function in workerd on loopback, a snapshot
// built from YAML, signed and pushed with the CLI's client, then the README's
// example reviews judged against it.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { runCli } from "./support/test-io.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionError, pushSnapshot, storedSnapshot } from "../../infra/client/index.js";
import { generateKeyPair } from "../../shared/signing/index.js";
import { THIS_RELEASE_WRITES } from "../../shared/version/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";

let worker: LocalWorker;
let privateKeyPem: string;
const token = generateToken();

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), "utf8");
const demoObjects = parseAllDocuments(read("examples/demo/cluster.yaml")).map((d) => d.toJS() as KubeObject);

async function validate(file: string) {
  const response = await fetch(`${worker.url}/v1/demo/validate?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: read(file),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { response: { allowed: boolean; status?: { message: string } } }).response;
}

/** Tokens made by `edgeadmit token` in both forms, registered with the hashes it printed. */
const cliTokens = { dir: mkdtempSync(join(tmpdir(), "edgeadmit-e2e-token-")), kubeconfigToken: "", urlPath: "" };

beforeAll(async () => {
  const keys = await generateKeyPair();
  privateKeyPem = keys.privateKeyPem;
  const header = await runCli(["token", "--cluster", "selfmanaged", "--url", "https://edgeadmit.example.com", "--out", join(cliTokens.dir, "header")]);
  const url = await runCli(["token", "--cluster", "managed", "--url", "https://edgeadmit.example.com", "--out", join(cliTokens.dir, "url"), "--form", "url"]);
  const [headerHashes, urlHashes] = [header, url].map((run) => JSON.parse(run.stdout.split("\n")[0]!) as { tokenHashes: string[] });
  cliTokens.kubeconfigToken = parse(readFileSync(join(cliTokens.dir, "header", "webhook-kubeconfig.yaml"), "utf8")).users[0].user.token;
  cliTokens.urlPath = new URL(url.stdout.split("\n")[1]!).pathname;
  worker = await startLocalWorker({
    clusters: {
      demo: { publicKey: keys.publicKey, tokenHashes: [await tokenHash(token)] },
      selfmanaged: { publicKey: keys.publicKey, ...headerHashes! },
      managed: { publicKey: keys.publicKey, ...urlHashes! },
    },
  });
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
});

describe("the demo cluster end to end", () => {
  it("fails open with a warning before any snapshot is pushed", async () => {
    expect(await storedSnapshot(worker.url, "demo", privateKeyPem)).toBeUndefined();
    const response = await validate("examples/reviews/pod-main-db-denied.json");
    expect(response).toMatchObject({ allowed: true, warnings: ['edgeadmit: no snapshot has been pushed for cluster "demo" yet; policies not enforced'] });
  });

  it("stores a signed push and enforces it", async () => {
    const { snapshot } = buildSnapshot(demoObjects, { generation: Date.now(), builtAt: new Date().toISOString() });
    const { stored } = await pushSnapshot(worker.url, "demo", privateKeyPem, snapshot);
    expect(stored).toMatchObject({ cluster: "demo", generation: snapshot.generation });
    expect(await storedSnapshot(worker.url, "demo", privateKeyPem)).toMatchObject({ generation: snapshot.generation, contentHash: stored.contentHash });

    expect(await validate("examples/reviews/pod-main-db-denied.json")).toMatchObject({
      allowed: false,
      status: {
        message:
          'affinity-class: pod tenant-acme/main-db-1-* (generateName) belongs to application with AffinityClass "dc1" but missing required nodeSelector topology.kubernetes.io/zone=dc1',
      },
    });
    expect(await validate("examples/reviews/pod-main-db-allowed.json")).toEqual({ uid: "7a9b8c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", allowed: true });
  });

  it("refuses an unsigned push and changes nothing", async () => {
    const before = await storedSnapshot(worker.url, "demo", privateKeyPem);
    const { snapshot } = buildSnapshot([], { generation: Date.now() + 1000, builtAt: new Date().toISOString() });
    const response = await fetch(`${worker.url}/v1/demo/snapshot`, { method: "PUT", body: JSON.stringify(snapshot) });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)" });
    expect(await storedSnapshot(worker.url, "demo", privateKeyPem)).toMatchObject({ generation: before?.generation, contentHash: before?.contentHash });
    expect((await validate("examples/reviews/pod-main-db-denied.json")).allowed).toBe(false);
  });

  it("tells the holder of a wrong key, on a push and on a read, what to check", async () => {
    const other = await generateKeyPair();
    const { snapshot } = buildSnapshot([], { generation: Date.now() + 2000, builtAt: new Date().toISOString() });
    const refusedKey = 'the function does not accept this key for cluster "demo": is the cluster registered (edgeadmit clusters list, or the function\'s CLUSTERS) with this key\'s public key (edgeadmit key public --key FILE)?';
    await expect(pushSnapshot(worker.url, "demo", other.privateKeyPem, snapshot, { writes: THIS_RELEASE_WRITES })).rejects.toThrow(
      new FunctionError(`the function refused the snapshot (401): ${refusedKey}`, 401),
    );
    await expect(storedSnapshot(worker.url, "demo", other.privateKeyPem)).rejects.toThrow(
      new FunctionError(`GET ${worker.url}/v1/demo/snapshot was refused (401): ${refusedKey}`, 401),
    );
  });

  it("admits the apiserver with the token `edgeadmit token` made, from its kubeconfig or in the webhook URL", async () => {
    const review = read("examples/reviews/pod-main-db-allowed.json");
    const fromKubeconfig = await fetch(`${worker.url}/v1/selfmanaged/validate`, { method: "POST", headers: { authorization: `Bearer ${cliTokens.kubeconfigToken}` }, body: review });
    expect(fromKubeconfig.status).toBe(200);
    const fromUrl = await fetch(`${worker.url}${cliTokens.urlPath}`, { method: "POST", body: review });
    expect(fromUrl.status).toBe(200);
    const crossed = await fetch(`${worker.url}/v1/managed/validate`, { method: "POST", headers: { authorization: `Bearer ${cliTokens.kubeconfigToken}` }, body: review });
    expect(crossed.status).toBe(401);
  });

  it("refuses a review without the apiserver's token", async () => {
    const response = await fetch(`${worker.url}/v1/demo/validate`, { method: "POST", body: read("examples/reviews/pod-main-db-denied.json") });
    expect(response.status).toBe(401);
  });
});
