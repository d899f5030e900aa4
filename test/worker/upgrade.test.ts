// What an upgrade must not change, over HTTP in workerd: a head stored
// before signers were recorded still counts (no cluster falls into its
// withoutSnapshot stance because of a deploy), a push refused in any batch
// leaves what is stored and its verdicts as they were, and a sync job or CLI
// outside the function's skew window is refused with both releases named
// (docs/operations.md, "Upgrading"). test/node/upgrade.test.ts runs the
// previous release's function, CLI and sync job against this one.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { forget, storeOf } from "../../functions/store/cache.js";
import { importPrivateKey, signRequest } from "../../shared/signing/index.js";
import { CLUSTER_UNIT, encodeSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import { FUNCTION_RELEASE_HEADER, RELEASE, USER_AGENT_HEADER, userAgent } from "../../shared/version/index.js";
import { putBody, unitsOf } from "../support/push.js";
import { applied, change, credentials, list, type Credentials } from "../support/registry.js";
import { REGISTRY_NAME } from "../../functions/config/index.js";
import { pod, reviewOf } from "../support/reviews.js";
import { dispatch, fullPushBodies, objectsFromYaml, snapshotOf } from "../support/worker.js";

const demoObjects = objectsFromYaml(demoYaml);
const DENIED_BY_POLICY = { allowed: false, status: { code: 403, message: expect.stringContaining('AffinityClass "dc1"') } };

/** A cluster registered in the registry, FailClosed, with the demo's snapshot pushed by its sync job of this release. */
async function registered(id: string): Promise<Credentials & { stored: Snapshot }> {
  const owner = await credentials();
  await applied([{ op: "add", cluster: id, registration: { publicKey: owner.publicKey, tokenHashes: [owner.tokenHash], withoutSnapshot: "FailClosed" } }]);
  const stored = snapshotOf(demoObjects, { generation: Date.now() });
  for (const body of await fullPushBodies(stored)) expect((await put(id, owner, body)).status).toBe(200);
  return { ...owner, stored };
}

/** The sync job of this release, as infra/client names it. */
const THIS_RELEASE = userAgent(RELEASE, "sync", undefined);

/** Signed as `c`'s sync job; `agent` null: one that names no release (0.1.0 and older). */
async function signed(cluster: string, c: Credentials, method: "PUT" | "GET", bytes: Uint8Array, agent: string | null): Promise<Record<string, string>> {
  const headers = await signRequest(await importPrivateKey(c.privateKeyPem), method, cluster, bytes, Math.floor(Date.now() / 1000));
  return agent === null ? headers : { ...headers, [USER_AGENT_HEADER]: agent };
}

function put(cluster: string, c: Credentials, body: string, agent: string | null = THIS_RELEASE): Promise<Response> {
  const bytes = new TextEncoder().encode(body);
  return signed(cluster, c, "PUT", bytes, agent).then((headers) => dispatch(`/v1/${cluster}/snapshot`, { method: "PUT", body: bytes, headers }));
}

async function meta(cluster: string, c: Credentials, agent: string | null = THIS_RELEASE) {
  const response = await dispatch(`/v1/${cluster}/snapshot`, { headers: await signed(cluster, c, "GET", new Uint8Array(), agent) });
  return { status: response.status, release: response.headers.get(FUNCTION_RELEASE_HEADER), body: (await response.json()) as Record<string, unknown> };
}

async function verdict(cluster: string, token: string) {
  const response = await dispatch(`/v1/${cluster}/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(reviewOf(pod({ name: "main-db-1" }))),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { response: Record<string, unknown> }).response;
}

/** The head as a release before 0.1.0 left it: no signer recorded. */
async function unrecordSigner(cluster: string): Promise<void> {
  await runInDurableObject(storeOf(env, cluster), (_, state) => void state.storage.sql.exec("UPDATE head SET signed_by = NULL"));
  forget();
}

/** Three bodies of one push: two stage a shard each, the third commits with a digest the units do not have. */
async function pushFailingInThirdBatch(cluster: string, c: Credentials, stored: Snapshot): Promise<Response[]> {
  const next = snapshotOf(demoObjects, { generation: stored.generation + 1 });
  const units = await unitsOf(next);
  const shards = Object.keys(units).filter((name) => name !== CLUSTER_UNIT);
  expect(shards.length).toBeGreaterThanOrEqual(2);
  const [first, ...rest] = shards;
  const answers = [
    await put(cluster, c, putBody(next.generation, { [first!]: units[first!] })),
    await put(cluster, c, putBody(next.generation, Object.fromEntries(rest.map((name) => [name, units[name]])))),
    await put(cluster, c, putBody(next.generation, { [CLUSTER_UNIT]: units[CLUSTER_UNIT] }, { base: null, digest: "0".repeat(64) })),
  ];
  return answers;
}

describe("an upgrade changes no verdict", () => {
  it("a head stored before signers were recorded counts for the keys registered now, from the first review, and is adopted by them", async () => {
    const owner = await registered("upg-unsigned");
    await unrecordSigner("upg-unsigned");
    expect(await meta("upg-unsigned", owner)).toMatchObject({ status: 200, body: { generation: owner.stored.generation, signedBy: null } });
    // Judged by the snapshot, as before the upgrade: not the FailClosed stance, not "a key the registration does not list".
    expect(await verdict("upg-unsigned", owner.token)).toMatchObject(DENIED_BY_POLICY);
    // Adopted: the head now names the cluster's key, so a release that disowns unsigned heads (0.1.0, after a rollback) counts it too.
    expect(await meta("upg-unsigned", owner)).toMatchObject({ status: 200, body: { generation: owner.stored.generation, signedBy: owner.publicKey } });
  });

  for (const unsigned of [false, true])
    it(`a push refused in its third batch leaves the stored snapshot and its verdicts as they were${unsigned ? ", over a head stored before signers were recorded" : ""}`, async () => {
      const id = unsigned ? "upg-batch-unsigned" : "upg-batch";
      const owner = await registered(id);
      if (unsigned) await unrecordSigner(id);
      const before = await meta(id, owner);
      const [first, second, third] = await pushFailingInThirdBatch(id, owner, owner.stored);
      expect([first!.status, second!.status]).toEqual([200, 200]);
      expect({ status: third!.status, body: await third!.json() }).toEqual({
        status: 400,
        body: {
          error: expect.stringMatching(
            new RegExp(`^the units stored for generation ${owner.stored.generation + 1} have digest [0-9a-f]{12}, not the 000000000000 the push computed: a batch is missing or a unit was not in the schema's form; nothing was stored$`),
          ),
        },
      });
      forget();
      // All but the age, which is the clock's: the same generation, content, signer and push time.
      const withoutAge = ({ body: { ageSeconds: _age, ...body }, ...rest }: Awaited<ReturnType<typeof meta>>) => ({ ...rest, body });
      expect(withoutAge(await meta(id, owner))).toEqual(withoutAge(before));
      expect(await verdict(id, owner.token)).toMatchObject(DENIED_BY_POLICY);
    });
});

describe("the skew window, held at the function", () => {
  it("serves a sync job of this release and one that names no release (0.1.0), and names its own release to them", async () => {
    const owner = await registered("upg-window");
    for (const agent of [userAgent(RELEASE, "sync", "1a2b3c4"), null, "curl/8.5.0"])
      expect(await meta("upg-window", owner, agent)).toMatchObject({ status: 200, release: RELEASE, body: { generation: owner.stored.generation } });
  });

  it("refuses a sync job older than its window, naming both releases and the CronJob to upgrade; nothing stored changes", async () => {
    const owner = await registered("upg-old");
    const old = userAgent("0.0.9", "sync", undefined);
    const expected = `the sync job (sync 0.0.9) is older than the function (${RELEASE}) serves: it serves releases 0.1 to 0.2; upgrade the cluster's CronJob edgeadmit-sync (namespace edgeadmit-system) to ${RELEASE}: kubectl -n edgeadmit-system set image cronjob/edgeadmit-sync edgeadmit=<registry>/edgeadmit:${RELEASE}, or apply the release's infra/k8s (docs/operations.md, "Upgrading"); nothing changed`;
    expect(await meta("upg-old", owner, old)).toEqual({ status: 400, release: RELEASE, body: { error: expected } });
    const next = snapshotOf(demoObjects, { generation: owner.stored.generation + 1 });
    const refused = await put("upg-old", owner, (await fullPushBodies(next))[0]!, old);
    expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 400, body: { error: expected } });
    expect((await meta("upg-old", owner)).body).toMatchObject({ generation: owner.stored.generation, contentHash: (await encodeSnapshot(owner.stored)).digest });
    expect(await verdict("upg-old", owner.token)).toMatchObject(DENIED_BY_POLICY);
  });

  it("refuses a sync job newer than itself: the function is upgraded first", async () => {
    const owner = await registered("upg-new");
    expect(await meta("upg-new", owner, userAgent("0.3.0", "sync", undefined))).toEqual({
      status: 400,
      release: RELEASE,
      body: { error: `the sync job (sync 0.3.0) is newer than the function (${RELEASE}): upgrade the function first (wrangler deploy), then the sync jobs and CLIs (docs/operations.md, "Upgrading"); nothing changed` },
    });
  });

  it("tells an unauthenticated caller nothing, not even its release", async () => {
    const stranger = await credentials();
    const response = await dispatch("/v1/upg-window/snapshot", { headers: await signed("upg-window", stranger, "GET", new Uint8Array(), userAgent("0.0.9", "sync", undefined)) });
    expect(response.status).toBe(401);
    expect(response.headers.get(FUNCTION_RELEASE_HEADER)).toBeNull();
  });

  it("an old job's push it cannot read names both releases and the CronJob to upgrade", async () => {
    const owner = await registered("upg-unreadable");
    const body = putBody(owner.stored.generation + 1, { "tenant-acme": { applications: { "tenant-acme/x": { kind: 7 } } } });
    const refused = await put("upg-unreadable", owner, body, null);
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 400,
      body: {
        error: expect.stringMatching(
          /^unit "tenant-acme": .*; nothing was stored \(the sync job is 0\.1\.0 or older \(it named no release\), the function 0\.2\.0, which reads the pushes of releases 0\.1 to 0\.2: upgrade the cluster's CronJob edgeadmit-sync \(namespace edgeadmit-system\) to 0\.2\.0 \(docs\/operations\.md, "Upgrading"\)\)$/,
        ),
      },
    });
  });
});

describe("a rollback reads what the next release stored", () => {
  /** The registry's row for `cluster`, as stored. */
  const registryRow = (update?: string) =>
    runInDurableObject(env.REGISTRY!.get(env.REGISTRY!.idFromName(REGISTRY_NAME)), (_, state) => {
      if (update) state.storage.sql.exec(update);
      return state.storage.sql.exec<{ cluster: string; body: string }>("SELECT cluster, body FROM registration WHERE cluster = 'upg-later'").one();
    });

  it("serves a registration holding a field a later release added, and keeps the field when it rotates or relabels it", async () => {
    const owner = await credentials();
    await applied([{ op: "add", cluster: "upg-later", registration: { publicKey: owner.publicKey, tokenHashes: [owner.tokenHash], withoutSnapshot: "FailClosed" } }]);
    // As the next release would write it, before this isolate first reads the registration.
    await registryRow(`UPDATE registration SET body = json_set(body, '$.laterField', json('{"kept":true}')) WHERE cluster = 'upg-later'`);
    const stored = snapshotOf(demoObjects, { generation: Date.now() });
    for (const body of await fullPushBodies(stored)) expect((await put("upg-later", owner, body)).status).toBe(200);
    expect(await verdict("upg-later", owner.token)).toMatchObject(DENIED_BY_POLICY);

    await applied([{ op: "label", cluster: "upg-later", set: { ring: "canary" } }]);
    const next = await credentials();
    await applied([{ op: "rotate", cluster: "upg-later", addTokenHashes: [next.tokenHash], withoutSnapshot: "FailOpen" }]);
    expect(JSON.parse((await registryRow()).body)).toEqual({
      publicKey: [owner.publicKey],
      tokenHashes: [owner.tokenHash, next.tokenHash],
      withoutSnapshot: "FailOpen",
      maxAgeSeconds: 86_400,
      labels: { ring: "canary" },
      laterField: { kept: true },
    });
    expect(await verdict("upg-later", next.token)).toMatchObject(DENIED_BY_POLICY);
  });

  it("but an operator's own registration with a field this release does not know is refused, not ignored", async () => {
    const owner = await credentials();
    const refused = await change([{ op: "add", cluster: "upg-typo", registration: { publicKey: owner.publicKey, tokenHashes: [owner.tokenHash], withoutSnapshots: "FailClosed" } }]);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('registry change does not fit: changes.0.registration: Unrecognized key: "withoutSnapshots"; nothing changed');
  });
});

describe("the registry lists each cluster's sync job", () => {
  it("with the release it named when it last called, and when; null for one that named none", async () => {
    const owner = await registered("upg-listed");
    await meta("upg-listed", owner, userAgent(RELEASE, "sync", "1a2b3c4d5e6f"));
    const entry = (await list()).clusters.find((cluster) => cluster.cluster === "upg-listed") as { lastSync?: unknown } | undefined;
    expect(entry?.lastSync).toEqual({ release: RELEASE, verb: "sync", commit: "1a2b3c4d5e6f", at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    await meta("upg-listed", owner, null);
    const unnamed = (await list()).clusters.find((cluster) => cluster.cluster === "upg-listed") as { lastSync?: unknown } | undefined;
    expect(unnamed?.lastSync).toEqual({ release: null, verb: null, commit: null, at: expect.any(String) });
  });
});
