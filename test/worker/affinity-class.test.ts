// The AffinityClass policy through the HTTP function, on the demo cluster.
import { beforeAll, describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import deniedReview from "../../examples/reviews/pod-main-db-denied.json";
import allowedReview from "../../examples/reviews/pod-main-db-allowed.json";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";
import { lineage, MAIN_DB_LINEAGE, pod, reviewOf } from "../support/reviews.js";

const demoObjects = objectsFromYaml(demoYaml);
const extra = objectsFromYaml(`
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ghost-db
  namespace: tenant-acme
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Postgres
    apps.cozystack.io/application.name: ghost-db
    apps.cozystack.io/affinity-class: gpu2
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: cache
  namespace: tenant-acme
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Redis
    apps.cozystack.io/application.name: cache
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: trainer
  namespace: tenant-acme
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: VirtualMachine
    apps.cozystack.io/application.name: trainer
    apps.cozystack.io/affinity-class: gpu
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: loose
  namespace: tenant-free
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Redis
    apps.cozystack.io/application.name: loose
`);

beforeAll(async () => {
  const response = await push("demo", snapshotOf([...demoObjects, ...extra]));
  expect(response.status).toBe(200);
});

describe("Pod CREATE on the demo cluster", () => {
  it("denies the README's main-db pod without the dc1 zone, naming the pod by its generateName", async () => {
    const { response } = await validate("demo", deniedReview);
    expect(response).toEqual({
      uid: deniedReview.request.uid,
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message:
          'affinity-class: pod tenant-acme/main-db-1-* (generateName) belongs to application with AffinityClass "dc1" but missing required nodeSelector topology.kubernetes.io/zone=dc1',
      },
    });
  });

  it("allows the README's main-db pod that carries the class's nodeSelector", async () => {
    const { response } = await validate("demo", allowedReview);
    expect(response).toEqual({ uid: allowedReview.request.uid, allowed: true });
  });

  it("names a pod with a name as <ns>/<name>", async () => {
    const { response } = await validate("demo", reviewOf(pod({ name: "main-db-1" })));
    expect(response.status?.message).toBe(
      'affinity-class: pod tenant-acme/main-db-1 belongs to application with AffinityClass "dc1" but missing required nodeSelector topology.kubernetes.io/zone=dc1',
    );
  });

  it("denies a pod whose nodeSelector has the key with another value", async () => {
    const { response } = await validate("demo", reviewOf(pod({ name: "main-db-1", nodeSelector: { "topology.kubernetes.io/zone": "dc2" } })));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(/missing required nodeSelector topology\.kubernetes\.io\/zone=dc1$/);
  });

  it("allows a pod that carries the class's pairs among others", async () => {
    const { response } = await validate(
      "demo",
      reviewOf(pod({ name: "main-db-1", nodeSelector: { "topology.kubernetes.io/zone": "dc1", "kubernetes.io/arch": "amd64" } })),
    );
    expect(response.allowed).toBe(true);
  });

  it("denies a class that is not in the snapshot", async () => {
    const { response } = await validate("demo", reviewOf(pod({ name: "ghost-db-0", labels: lineage("Postgres", "ghost-db") })));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe('affinity-class: AffinityClass "gpu2" not found (required by application Postgres ghost-db of pod tenant-acme/ghost-db-0)');
  });

  it("does not judge a pod of an application whose HelmRelease names no class where the tenant has a default, and warns that it did not", async () => {
    // The draft's validateAffinity returns early without the label: CozyStack writes the tenant default into it when the application is created.
    // An application without it (made before the default, or the label removed) is not held to the default: said, not silent (issue 27).
    const review = reviewOf(pod({ name: "cache-0", labels: lineage("Redis", "cache") }));
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: true,
      warnings: [
        `affinity-class: pod tenant-acme/cache-0 belongs to application Redis cache, whose HelmRelease has no apps.cozystack.io/affinity-class label: not judged against tenant acme's default AffinityClass "dc1"; label the HelmRelease to enforce it`,
      ],
    });
  });

  it("allows a pod of an application with no class in a namespace without a tenant default", async () => {
    const { response } = await validate("demo", reviewOf(pod({ name: "loose-0", namespace: "tenant-free", labels: lineage("Redis", "loose") })));
    expect(response).toMatchObject({ allowed: true });
    expect(response.warnings).toBeUndefined();
  });

  it("allows a pod without lineage labels and one whose application the snapshot does not know", async () => {
    expect((await validate("demo", reviewOf(pod({ name: "plain", labels: { app: "plain" } })))).response.allowed).toBe(true);
    expect((await validate("demo", reviewOf(pod({ name: "x-0", labels: lineage("Postgres", "not-there") })))).response.allowed).toBe(true);
  });

  it("does not look up a same-named application in another namespace", async () => {
    const { response } = await validate("demo", reviewOf(pod({ name: "main-db-1", namespace: "tenant-other" })));
    expect(response.allowed).toBe(true);
  });

  it("allows other operations and kinds", async () => {
    for (const operation of ["UPDATE", "DELETE", "CONNECT"] as const) {
      const { response } = await validate("demo", reviewOf(pod({ name: "main-db-1" }), { operation }));
      expect(response.allowed, operation).toBe(true);
    }
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "tenant-acme", labels: MAIN_DB_LINEAGE } };
    expect((await validate("demo", reviewOf(configMap))).response.allowed).toBe(true);
  });

  it("names every missing pair of a multi-key class", async () => {
    const multi = objectsFromYaml(`
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: gpu-dc1}
spec:
  nodeSelector: {topology.kubernetes.io/zone: dc1, node.kubernetes.io/gpu: "true"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: trainer
  namespace: tenant-ml
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: VirtualMachine
    apps.cozystack.io/application.name: trainer
    apps.cozystack.io/affinity-class: gpu-dc1
`);
    expect((await push("other", snapshotOf(multi))).status).toBe(200);
    const { response } = await validate("other", reviewOf(pod({ name: "trainer", namespace: "tenant-ml", labels: lineage("VirtualMachine", "trainer") })));
    expect(response.status?.message).toBe(
      'affinity-class: pod tenant-ml/trainer belongs to application with AffinityClass "gpu-dc1" but missing required nodeSelector topology.kubernetes.io/zone=dc1, node.kubernetes.io/gpu=true',
    );
  });
});

describe("the per-policy route", () => {
  it("evaluates only the named policy", async () => {
    const { response } = await validate("demo", deniedReview, "affinity-class");
    expect(response.allowed).toBe(false);
  });
});
