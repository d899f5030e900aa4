// No input may produce a 5xx: random bodies and mutated AdmissionReviews,
// through the HTTP function in workerd.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { wrapReview } from "../../shared/admission/wrap.js";
import { POLICIES } from "../../policies/index.js";
import { bearer, dispatch, objectsFromYaml, push, snapshotOf, tokenOf } from "../support/worker.js";
import { credentials, operatorHeaders, REGISTRY_PATH } from "../support/registry.js";
import { MAIN_DB_LINEAGE, pod } from "../support/reviews.js";

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "main-db", namespace: "tenant-acme", labels: { "helm.toolkit.fluxcd.io/name": "main-db" } },
  spec: {
    replicas: 2,
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%" } },
    selector: { matchLabels: { app: "db" } },
    template: {
      metadata: { labels: { app: "db", ...MAIN_DB_LINEAGE } },
      spec: {
        nodeSelector: { "topology.kubernetes.io/zone": "dc1" },
        affinity: {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "db" } }, topologyKey: "kubernetes.io/hostname" }] },
          podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["db"] }] }, topologyKey: "kubernetes.io/hostname" } }] },
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["dc1"] }] }] } },
        },
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
        containers: [{ name: "db", image: "postgres:17" }],
      },
    },
  },
};
const affinityClass = { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc3" }, spec: { nodeSelector: { "topology.kubernetes.io/zone": "dc3" } } };
const tenant = { apiVersion: "apps.cozystack.io/v1alpha1", kind: "Tenant", metadata: { name: "beta", namespace: "tenant-root" }, spec: { allowedAffinityClasses: ["dc1"], defaultAffinityClass: "dc1" } };
const application = { apiVersion: "apps.cozystack.io/v1alpha1", kind: "Postgres", metadata: { name: "db2", namespace: "tenant-acme" }, spec: { affinityClass: "gpu" } };

const validReviews = [
  wrapReview(pod({ name: "main-db-1" })),
  wrapReview(pod({ generateName: "main-db-", nodeSelector: { "topology.kubernetes.io/zone": "dc1" } })),
  wrapReview(deployment),
  wrapReview(deployment, { operation: "UPDATE", oldObject: deployment }),
  wrapReview({ ...deployment, kind: "StatefulSet" }),
  wrapReview({ apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "c", namespace: "tenant-acme" }, spec: { jobTemplate: { spec: { template: deployment.spec.template } } } }),
  wrapReview(affinityClass),
  wrapReview(affinityClass, { operation: "DELETE" }),
  wrapReview(tenant),
  wrapReview(application),
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside `value`. */
function paths(value: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== "object") return [prefix];
  const children = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...children.flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

type Mutation = { kind: "set"; value: Json } | { kind: "delete" };

function mutate(root: Json, path: Array<string | number>, mutation: Mutation): Json {
  if (path.length === 0) return mutation.kind === "set" ? mutation.value : null;
  const copy = structuredClone(root) as Record<string | number, Json>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (mutation.kind === "set") parent[last] = mutation.value;
  else if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return copy;
}

const routes = ["/v1/demo/validate", `/v1/demo/token/${tokenOf("demo")}/validate`, ...POLICIES.map((p) => `/v1/demo/validate/${p.id}`)];

/** As the demo cluster's apiserver sends it (the token-in-path route carries its own). */
async function send(route: string, body: string | Uint8Array) {
  const response = await dispatch(route, { method: "POST", body, headers: { "content-type": "application/json", ...(route.includes("/token/") ? {} : bearer("demo")) } });
  const text = await response.text();
  return { status: response.status, text };
}

/** A response the apiserver accepts, or a 400 with a JSON error: anything else fails the property. */
function expectWellFormed(result: { status: number; text: string }, sentUid: unknown) {
  expect([200, 400]).toContain(result.status);
  const body = JSON.parse(result.text) as Record<string, unknown>;
  if (result.status === 400) {
    expect(typeof body.error).toBe("string");
    return;
  }
  const response = body.response as Record<string, unknown>;
  expect(response.uid).toBe(sentUid);
  expect(typeof response.allowed).toBe("boolean");
  expect(response).not.toHaveProperty("patch");
  expect(response).not.toHaveProperty("patchType");
  for (const warning of (response.warnings as string[] | undefined) ?? []) {
    expect(new TextEncoder().encode(warning).length).toBeLessThanOrEqual(256);
    expect(warning).not.toMatch(/[\u0000-\u001f\u007f]/);
  }
}

beforeAll(async () => {
  expect((await push("demo", snapshotOf(objectsFromYaml(demoYaml)))).status).toBe(200);
});

describe("no input produces a 5xx", () => {
  it("holds for arbitrary bytes, strings and JSON", async () => {
    const body = fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.uint8Array({ maxLength: 200 }),
      fc.json({ maxDepth: 4 }),
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: value })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async (route, payload) => {
        const result = await send(route, payload);
        expect([200, 400]).toContain(result.status);
      }),
      { numRuns: 1000 },
    );
  });

  it("holds for AdmissionReviews with one value replaced or removed anywhere", async () => {
    const mutated = fc
      .constantFrom(...validReviews)
      .chain((review) => {
        const all = paths(review as unknown as Json);
        return fc.record({
          review: fc.constant(review as unknown as Json),
          path: fc.constantFrom(...all),
          mutation: fc.oneof(
            fc.record({ kind: fc.constant("set" as const), value: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> }),
            fc.constant({ kind: "delete" as const }),
          ),
        });
      })
      .map(({ review, path, mutation }) => mutate(review, path, mutation));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), mutated, async (route, review) => {
        const uid = (review as { request?: { uid?: unknown } } | null)?.request?.uid;
        expectWellFormed(await send(route, JSON.stringify(review)), uid);
      }),
      { numRuns: 2000 },
    );
  });

  it("holds for any method, path, headers and body from a caller without the credential: 401 or 404, nothing else", async () => {
    const segment = fc.oneof(fc.constantFrom("v1", "demo", "nope", "validate", "snapshot", "token", tokenOf("demo"), "affinity-class", "registry", "clusters", "", ".."), fc.string({ maxLength: 12 }));
    const path = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.map(encodeURIComponent).join("/")}`);
    const headers = fc.dictionary(
      fc.constantFrom("authorization", "x-edgeadmit-signature", "x-edgeadmit-timestamp", "x-edgeadmit-content-sha256", "content-type"),
      fc.oneof(fc.string({ maxLength: 100 }), fc.constant("Bearer edgeadmit_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("GET", "POST", "PUT", "DELETE"), path, headers, fc.string({ maxLength: 200 }), async (method, route, sent, body) => {
        if (route === "/healthz" || route === "/readyz") return;
        const response = await dispatch(route, { method, headers: sent, ...(method === "GET" ? {} : { body }) });
        expect([401, 404]).toContain(response.status);
        expect(typeof ((await response.json()) as { error?: unknown }).error).toBe("string");
      }),
      { numRuns: 500 },
    );
  });

  it("holds for signed pushes of any body: 200, 400 or 409", async () => {
    const body = fc.oneof(fc.string({ maxLength: 300 }), fc.json({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify({ apiVersion: "edgeadmit.io/v1alpha1", kind: "Snapshot", generation: 1, ...((value ?? {}) as object) })));
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const response = await push("fresh", payload);
        expect([200, 400, 409]).toContain(response.status);
      }),
      { numRuns: 300 },
    );
  });

  it("holds for registry changes of any body signed by the operator: 200, 400, 404 or 409, and the listing stays readable", async () => {
    const [c, d] = [await credentials(), await credentials()];
    const fleet = fc.constantFrom("fuzz-a", "fuzz-b", "fuzz-c");
    const stance = fc.constantFrom("FailOpen", "FailClosed");
    // Mostly changes that may apply, so that adds, rotations, removals and their conflicts all happen.
    const plausible = fc.oneof(
      fc.record({ op: fc.constant("add"), cluster: fleet, registration: fc.record({ publicKey: fc.constantFrom(c.publicKey, [c.publicKey, d.publicKey]), tokenHashes: fc.subarray([c.tokenHash, d.tokenHash]), withoutSnapshot: stance }) }),
      fc.record(
        { op: fc.constant("rotate"), cluster: fleet, addPublicKeys: fc.constant([d.publicKey]), removePublicKeys: fc.constant([c.publicKey]), addTokenHashes: fc.constant([d.tokenHash]), removeTokenHashes: fc.constant([c.tokenHash]), withoutSnapshot: stance, ifRevision: fc.integer({ min: 1, max: 50 }) },
        { requiredKeys: ["op", "cluster"] },
      ),
      fc.record({ op: fc.constant("remove"), cluster: fleet, ifRevision: fc.integer({ min: 1, max: 50 }) }, { requiredKeys: ["op", "cluster"] }),
    );
    const hostile = fc.oneof(
      fc.record({ op: fc.constantFrom("add", "rotate", "remove", "drop"), cluster: fc.constantFrom("demo", "Fuzz_C", "", "x".repeat(70)), registration: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ["op"] }),
      fc.record({ op: fc.constant("rotate"), cluster: fleet, addPublicKeys: fc.constantFrom([], ["ed25519:AAAA"], ["not a key"]), addTokenHashes: fc.constantFrom([], ["sha256:00"]), ifRevision: fc.integer({ min: -1, max: 0 }) }, { requiredKeys: ["op", "cluster"] }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const request = (changes: unknown[]) => JSON.stringify({ requestId: crypto.randomUUID(), changes });
    const body = fc.oneof(
      { weight: 6, arbitrary: fc.array(fc.oneof({ weight: 6, arbitrary: plausible }, { weight: 1, arbitrary: hostile }), { minLength: 1, maxLength: 3 }).map(request) },
      { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    );
    // Every outcome on every seed, before the drawn bodies (of whose 300 only 4 to 8 applied, over six seeds: too few to count on):
    // the removal of a cluster not registered yet (404), its add (200), the add again (409), a body that is no change (400).
    const registration = { publicKey: c.publicKey, tokenHashes: [c.tokenHash], withoutSnapshot: "FailOpen" };
    const add = () => request([{ op: "add", cluster: "fuzz-a", registration }]);
    const examples: Array<[string]> = [[request([{ op: "remove", cluster: "fuzz-a" }])], [add()], [add()], ["{}"]];
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const bytes = new TextEncoder().encode(payload);
        const response = await dispatch(REGISTRY_PATH, { method: "POST", body: bytes, headers: await operatorHeaders("POST", REGISTRY_PATH, bytes) });
        expect([200, 400, 404, 409]).toContain(response.status);
        seen.add(response.status);
        const answer = (await response.json()) as { error?: unknown; revision?: unknown };
        expect(response.status === 200 ? typeof answer.revision : typeof answer.error).toBe(response.status === 200 ? "number" : "string");
      }),
      { numRuns: 300, examples },
    );
    expect([...seen].sort()).toEqual([200, 400, 404, 409]);
    const listing = await dispatch(REGISTRY_PATH, { headers: await operatorHeaders("GET", REGISTRY_PATH, new Uint8Array()) });
    expect(listing.status).toBe(200);
  });

  it("answers every unmutated review with a verdict", async () => {
    for (const review of validReviews) {
      for (const route of routes) expectWellFormed(await send(route, JSON.stringify(review)), review.request.uid);
    }
  });
});
