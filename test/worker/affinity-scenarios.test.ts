// The CozyStack AffinityClass draft's scenarios, through the HTTP function:
// exact verdicts and messages for pods and for the applications that name classes.
import { beforeAll, describe, expect, it } from "vitest";
import { toWarning } from "../../shared/admission/index.js";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";
import { lineage, pod, reviewOf } from "../support/reviews.js";
import { DRAFT_CLASSES, ROOT_TENANT } from "../support/draft.js";

const ZONE = "topology.kubernetes.io/zone";

const objects = [
  ...DRAFT_CLASSES,
  ...ROOT_TENANT,
  ...objectsFromYaml(`
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: soft}
spec: {nodeSelector: {topology.kubernetes.io/zone: dc1}, enforcement: Warn}
---
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: quiet}
spec: {nodeSelector: {topology.kubernetes.io/zone: dc1}, enforcement: Audit}
---
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: two-zone}
spec:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [dc1]}]
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [dc2]}]
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: acme, namespace: tenant-root}
spec:
  allowedAffinityClasses: [dc1, dc2, soft, quiet, two-zone]
  defaultAffinityClass: dc1
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: dev, namespace: tenant-acme}
spec: {}
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: lab, namespace: tenant-root}
spec: {defaultAffinityClass: dc1, affinityClassEnforcement: Warn}
`),
];

function helmRelease(namespace: string, name: string, affinityClass?: string) {
  return {
    apiVersion: "helm.toolkit.fluxcd.io/v2",
    kind: "HelmRelease",
    metadata: { name, namespace, labels: { ...lineage("Postgres", name), ...(affinityClass ? { "apps.cozystack.io/affinity-class": affinityClass } : {}) } },
  };
}

function application(namespace: string, name: string, affinityClass?: string) {
  return {
    apiVersion: "apps.cozystack.io/v1alpha1",
    kind: "Postgres",
    metadata: { name, namespace },
    spec: { replicas: 2, ...(affinityClass ? { affinityClass } : {}) },
  };
}
const appReview = (object: ReturnType<typeof application>, operation: "CREATE" | "UPDATE" = "CREATE") =>
  reviewOf(object, { group: "apps.cozystack.io", version: "v1alpha1", operation, ...(operation === "UPDATE" ? { oldObject: object } : {}) });

const podOf = (namespace: string, name: string, constraints: { nodeSelector?: Record<string, string>; affinity?: unknown } = {}) =>
  reviewOf(pod({ name: `${name}-0`, namespace, labels: lineage("Postgres", name), ...constraints }));

const zoneAffinity = (...terms: string[][]) => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((values) => ({ matchExpressions: [{ key: ZONE, operator: "In", values }] })) },
  },
});

beforeAll(async () => {
  const releases = [
    helmRelease("tenant-acme", "main-db", "dc1"),
    helmRelease("tenant-acme", "ghost-db", "gpu2"),
    helmRelease("tenant-acme", "cache"),
    helmRelease("tenant-acme", "soft-db", "soft"),
    helmRelease("tenant-acme", "quiet-db", "quiet"),
    helmRelease("tenant-acme", "zoned", "two-zone"),
    helmRelease("tenant-acme", "trainer", "gpu"),
    helmRelease("tenant-acme-dev", "dev-cache"),
    helmRelease("tenant-lab", "lab-db", "dc1"),
  ];
  expect((await push("demo", snapshotOf([...objects, ...releases]))).status).toBe(200);
});

describe("class exists and the pod conforms", () => {
  it("allows the pod with no warning", async () => {
    const review = podOf("tenant-acme", "main-db", { nodeSelector: { [ZONE]: "dc1" } });
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });

  it("allows the application that names an allowed class", async () => {
    const review = appReview(application("tenant-acme", "main-db", "dc1"));
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });
});

describe("the pod misses the selector", () => {
  it("denies, naming the missing pair", async () => {
    const review = podOf("tenant-acme", "main-db");
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message: `affinity-class: pod tenant-acme/main-db-0 belongs to application with AffinityClass "dc1" but missing required nodeSelector ${ZONE}=dc1`,
      },
    });
  });
});

describe("the class is missing", () => {
  it("denies the pod of an application whose class is not in the snapshot", async () => {
    const { response } = await validate("demo", podOf("tenant-acme", "ghost-db", { nodeSelector: { [ZONE]: "dc1" } }));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe('affinity-class: AffinityClass "gpu2" not found (required by application Postgres ghost-db of pod tenant-acme/ghost-db-0)');
  });

  it("denies the application on CREATE and UPDATE, naming the classes the tenant allows", async () => {
    for (const operation of ["CREATE", "UPDATE"] as const) {
      const { response } = await validate("demo", appReview(application("tenant-acme", "ghost-db", "gpu2"), operation));
      expect(response.allowed, operation).toBe(false);
      expect(response.status?.message).toBe('affinity-class-references: Postgres tenant-acme/ghost-db: AffinityClass "gpu2" does not exist; allowed in tenant acme: dc1, dc2, soft, quiet, two-zone');
    }
  });

  it("names the existing classes when the tenant allows every class", async () => {
    const { response } = await validate("demo", appReview(application("tenant-root", "x", "gpu2")));
    expect(response.status?.message).toBe('affinity-class-references: Postgres tenant-root/x: AffinityClass "gpu2" does not exist; existing classes: dc1, dc2, gpu, quiet, soft and 1 more');
  });
});

describe("the class is not allowed for the tenant", () => {
  it("denies the application, naming the allowed classes", async () => {
    const { response } = await validate("demo", appReview(application("tenant-acme", "trainer", "gpu")));
    expect(response).toMatchObject({
      allowed: false,
      status: { code: 403, message: 'affinity-class-references: Postgres tenant-acme/trainer: AffinityClass "gpu" is not allowed in tenant acme; allowed: dc1, dc2, soft, quiet, two-zone' },
    });
  });

  it("denies the pods of an application labelled with a class the tenant does not allow, even when they conform to it", async () => {
    const { response } = await validate("demo", podOf("tenant-acme", "trainer", { nodeSelector: { "node.kubernetes.io/gpu": "true" } }));
    expect(response.status?.message).toBe('affinity-class: pod tenant-acme/trainer-0 belongs to application with AffinityClass "gpu", which tenant acme does not allow; allowed: dc1, dc2, soft, quiet, two-zone');
    const both = await validate("demo", podOf("tenant-acme", "trainer"));
    expect(both.response.status?.message).toBe(
      'affinity-class: pod tenant-acme/trainer-0 belongs to application with AffinityClass "gpu", which tenant acme does not allow; allowed: dc1, dc2, soft, quiet, two-zone; ' +
        'affinity-class: pod tenant-acme/trainer-0 belongs to application with AffinityClass "gpu" but missing required nodeSelector node.kubernetes.io/gpu=true',
    );
  });
});

describe("the tenant's default", () => {
  it("allows an application that names no class, warning which default will apply", async () => {
    const review = appReview(application("tenant-acme", "cache"));
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: true,
      warnings: ['affinity-class-references: Postgres tenant-acme/cache names no AffinityClass: tenant acme\'s default "dc1" will apply'],
    });
  });

  it("is not applied to pods: only a HelmRelease labelled with a class has its pods judged; the others are allowed with a warning saying so", async () => {
    for (const review of [podOf("tenant-acme", "cache"), podOf("tenant-acme", "cache", { nodeSelector: { [ZONE]: "dc2" } })]) {
      expect((await validate("demo", review)).response).toEqual({
        uid: review.request.uid,
        allowed: true,
        warnings: [
          `affinity-class: pod tenant-acme/cache-0 belongs to application Postgres cache, whose HelmRelease has no apps.cozystack.io/affinity-class label: not judged against tenant acme's default AffinityClass "dc1"; label the HelmRelease to enforce it`,
        ],
      });
    }
  });

  it("says nothing about an application without a class where the tenant has no default", async () => {
    const review = appReview(application("tenant-root", "plain"));
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });
});

describe("soft mode", () => {
  const softMessage = `affinity-class: pod tenant-acme/soft-db-0 belongs to application with AffinityClass "soft" but missing required nodeSelector ${ZONE}=dc1`;

  it("Warn (class enforcement): allows with the whole message as one warning, the missing selector included", async () => {
    const review = podOf("tenant-acme", "soft-db");
    const { response } = await validate("demo", review);
    expect(response).toEqual({ uid: review.request.uid, allowed: true, warnings: [softMessage] });
  });

  it("Audit (class enforcement): allows with an auditAnnotation keyed by the policy id", async () => {
    const review = podOf("tenant-acme", "quiet-db");
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: true,
      auditAnnotations: { "affinity-class": `pod tenant-acme/quiet-db-0 belongs to application with AffinityClass "quiet" but missing required nodeSelector ${ZONE}=dc1` },
    });
  });

  it("a tenant's affinityClassEnforcement overrides the class's Deny", async () => {
    const review = podOf("tenant-lab", "lab-db");
    const message = `affinity-class: pod tenant-lab/lab-db-0 belongs to application with AffinityClass "dc1" but missing required nodeSelector ${ZONE}=dc1`;
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true, warnings: [toWarning(message)] });
  });

  it("a tenant's affinityClassEnforcement softens its applications' findings too", async () => {
    const review = appReview(application("tenant-lab", "x", "gpu2"));
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: true,
      warnings: ['affinity-class-references: Postgres tenant-lab/x: AffinityClass "gpu2" does not exist; existing classes: dc1, dc2, gpu, quiet, soft and 1 more'],
    });
  });

  it("a conforming pod of a soft class gets no warning", async () => {
    const review = podOf("tenant-acme", "soft-db", { nodeSelector: { [ZONE]: "dc1" } });
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });
});

describe("a child tenant inherits", () => {
  it("its parent's default: the child's applications are told which applies", async () => {
    const { response } = await validate("demo", appReview(application("tenant-acme-dev", "dev-cache")));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toEqual(['affinity-class-references: Postgres tenant-acme-dev/dev-cache names no AffinityClass: tenant dev\'s default "dc1" will apply']);
  });

  it("its parent's allowed list", async () => {
    const { response } = await validate("demo", appReview(application("tenant-acme-dev", "trainer", "gpu")));
    expect(response.status?.message).toBe('affinity-class-references: Postgres tenant-acme-dev/trainer: AffinityClass "gpu" is not allowed in tenant dev; allowed: dc1, dc2, soft, quiet, two-zone');
    expect((await validate("demo", appReview(application("tenant-acme-dev", "db", "dc2")))).response.allowed).toBe(true);
  });
});

describe("a two-zone OR-class (nodeAffinity terms zone=dc1 or zone=dc2)", () => {
  it("allows a pod pinned to one zone, by nodeSelector or by nodeAffinity", async () => {
    for (const constraints of [{ nodeSelector: { [ZONE]: "dc1" } }, { affinity: zoneAffinity(["dc2"]) }]) {
      const review = podOf("tenant-acme", "zoned", constraints);
      expect((await validate("demo", review)).response, JSON.stringify(constraints)).toEqual({ uid: review.request.uid, allowed: true });
    }
  });

  it("allows a pod allowed in both zones, as one In or as two terms", async () => {
    for (const affinity of [zoneAffinity(["dc1", "dc2"]), zoneAffinity(["dc1"], ["dc2"])]) {
      const review = podOf("tenant-acme", "zoned", { affinity });
      expect((await validate("demo", review)).response, JSON.stringify(affinity)).toEqual({ uid: review.request.uid, allowed: true });
    }
  });

  it("denies a pod pinned to a third zone, naming its term and the class's terms", async () => {
    const review = podOf("tenant-acme", "zoned", { nodeSelector: { [ZONE]: "dc3" } });
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message: `affinity-class: pod tenant-acme/zoned-0 belongs to application with AffinityClass "two-zone" but may run outside it: its node constraints {${ZONE}=dc3} are not within {${ZONE}=dc1} or {${ZONE}=dc2}`,
      },
    });
  });

  it("denies a pod that may run in the third zone too, and one with no constraint", async () => {
    const { response } = await validate("demo", podOf("tenant-acme", "zoned", { affinity: zoneAffinity(["dc1"], ["dc2", "dc3"]) }));
    expect(response.status?.message).toBe(
      `affinity-class: pod tenant-acme/zoned-0 belongs to application with AffinityClass "two-zone" but may run outside it: its node constraints {${ZONE} in (dc2,dc3)} are not within {${ZONE}=dc1} or {${ZONE}=dc2}`,
    );
    const bare = await validate("demo", podOf("tenant-acme", "zoned"));
    expect(bare.response.status?.message).toBe(
      `affinity-class: pod tenant-acme/zoned-0 belongs to application with AffinityClass "two-zone" but may run outside it: its node constraints {any node} are not within {${ZONE}=dc1} or {${ZONE}=dc2}`,
    );
  });

  it("allows a pod of a nodeSelector class that pins the zone through nodeAffinity instead", async () => {
    const review = podOf("tenant-acme", "main-db", { affinity: zoneAffinity(["dc1"]) });
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
    const wider = await validate("demo", podOf("tenant-acme", "main-db", { affinity: zoneAffinity(["dc1", "dc2"]) }));
    expect(wider.response.status?.message).toBe(`affinity-class: pod tenant-acme/main-db-0 belongs to application with AffinityClass "dc1" but missing required nodeSelector ${ZONE}=dc1`);
  });
});
