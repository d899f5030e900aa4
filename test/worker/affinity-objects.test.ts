// Tenants and AffinityClasses through the HTTP function: a Tenant names
// classes that exist and that it may use; an AffinityClass is well-formed and
// is not deleted while something in the snapshot names it.
import { beforeAll, describe, expect, it } from "vitest";
import { bearer, call, objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";
import { reviewOf } from "../support/reviews.js";
import { ACME_TENANT, DRAFT_CLASSES, ROOT_TENANT } from "../support/draft.js";

const objects = [
  ...DRAFT_CLASSES,
  ...ROOT_TENANT,
  ...ACME_TENANT,
  ...objectsFromYaml(`
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: dev, namespace: tenant-acme}
spec: {allowedAffinityClasses: [dc2], defaultAffinityClass: dc2}
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: ops, namespace: tenant-acme}
spec: {}
`),
];

const releases = Array.from({ length: 7 }, (_, i) => ({
  apiVersion: "helm.toolkit.fluxcd.io/v2",
  kind: "HelmRelease",
  metadata: { name: `app-${i + 1}`, namespace: "tenant-acme", labels: { "apps.cozystack.io/affinity-class": "dc1" } },
}));

beforeAll(async () => {
  expect((await push("demo", snapshotOf([...objects, ...releases]))).status).toBe(200);
});

const tenant = (namespace: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: "apps.cozystack.io/v1alpha1",
  kind: "Tenant",
  metadata: { name, namespace },
  spec,
});
const affinityClass = (name: string, spec: Record<string, unknown>) => ({ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name }, spec });

async function denial(review: unknown): Promise<string | undefined> {
  const { response } = await validate("demo", review);
  return response.allowed ? undefined : response.status?.message;
}

describe("Tenant CREATE and UPDATE", () => {
  it("allows a tenant whose default is among its allowed, existing classes", async () => {
    const review = reviewOf(tenant("tenant-root", "beta", { allowedAffinityClasses: ["dc1", "gpu"], defaultAffinityClass: "gpu" }));
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });

  it("denies a default that is not among the allowed classes, on CREATE and UPDATE", async () => {
    const object = tenant("tenant-root", "beta", { allowedAffinityClasses: ["dc1", "dc2"], defaultAffinityClass: "gpu" });
    for (const review of [reviewOf(object), reviewOf(object, { operation: "UPDATE", oldObject: object })]) {
      expect(await denial(review)).toBe('affinity-class-references: Tenant tenant-root/beta: spec.defaultAffinityClass "gpu" is not among its allowed classes: dc1, dc2');
    }
  });

  it("denies classes that do not exist, in the allowed list and as the default", async () => {
    expect(await denial(reviewOf(tenant("tenant-root", "beta", { allowedAffinityClasses: ["dc1", "gpu2", "dc9"], defaultAffinityClass: "gpu3" })))).toBe(
      'affinity-class-references: Tenant tenant-root/beta: spec.allowedAffinityClasses names "gpu2", "dc9", which do not exist; existing classes: dc1, dc2, gpu; ' +
        'affinity-class-references: Tenant tenant-root/beta: spec.defaultAffinityClass "gpu3" does not exist; existing classes: dc1, dc2, gpu',
    );
  });

  it("names each listed class once, however often the list repeats it", async () => {
    expect(await denial(reviewOf(tenant("tenant-root", "beta", { allowedAffinityClasses: ["dc1", "gpu2", "dc1", "gpu2"], defaultAffinityClass: "gpu" })))).toBe(
      'affinity-class-references: Tenant tenant-root/beta: spec.allowedAffinityClasses names "gpu2", which does not exist; existing classes: dc1, dc2, gpu; ' +
        'affinity-class-references: Tenant tenant-root/beta: spec.defaultAffinityClass "gpu" is not among its allowed classes: dc1, gpu2',
    );
    // Past five distinct names the rest are counted as listed (docs/affinity-class.md): 7 entries, 5 shown, 2 more.
    const many = ["m1", "m2", "m3", "m4", "m5", "m6", "m6"];
    expect(await denial(reviewOf(tenant("tenant-root", "beta", { allowedAffinityClasses: many })))).toBe(
      'affinity-class-references: Tenant tenant-root/beta: spec.allowedAffinityClasses names "m1", "m2", "m3", "m4", "m5" and 2 more, which do not exist; existing classes: dc1, dc2, gpu',
    );
  });

  it("judges a child without a list against the list it inherits", async () => {
    expect(await denial(reviewOf(tenant("tenant-acme", "qa", { defaultAffinityClass: "gpu" })))).toBe(
      'affinity-class-references: Tenant tenant-acme/qa: spec.defaultAffinityClass "gpu" is not among parent tenant acme\'s allowed classes: dc1, dc2',
    );
    expect(await denial(reviewOf(tenant("tenant-acme", "qa", { defaultAffinityClass: "dc2" })))).toBeUndefined();
  });

  it("denies a child that allows a class its parent does not", async () => {
    expect(await denial(reviewOf(tenant("tenant-acme", "qa", { allowedAffinityClasses: ["dc1", "gpu"] })))).toBe(
      'affinity-class-references: Tenant tenant-acme/qa: spec.allowedAffinityClasses names "gpu", which parent tenant acme does not allow; it allows: dc1, dc2',
    );
  });

  it("denies a child whose own list excludes the default it would inherit", async () => {
    expect(await denial(reviewOf(tenant("tenant-acme", "qa", { allowedAffinityClasses: ["dc2"] })))).toBe(
      'affinity-class-references: Tenant tenant-acme/qa: would inherit default "dc1" from parent tenant acme, which is not among its allowed classes dc2: set spec.defaultAffinityClass',
    );
  });

  it("treats the root tenant as having no parent", async () => {
    expect(await denial(reviewOf(tenant("tenant-root", "root", { allowedAffinityClasses: ["dc1"], defaultAffinityClass: "dc2" })))).toBe(
      'affinity-class-references: Tenant tenant-root/root: spec.defaultAffinityClass "dc2" is not among its allowed classes: dc1',
    );
  });
});

describe("AffinityClass CREATE and UPDATE", () => {
  it("allows a nodeSelector class and a nodeAffinity class", async () => {
    const classes = [
      affinityClass("dc3", { nodeSelector: { "topology.kubernetes.io/zone": "dc3" }, enforcement: "Warn" }),
      affinityClass("big", {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: "cpu-count", operator: "Gt", values: ["32"] }, { key: "spot", operator: "DoesNotExist" }] },
              { matchFields: [{ key: "metadata.name", operator: "In", values: ["bignode"] }] },
            ],
          },
        },
      }),
    ];
    for (const object of classes) {
      for (const review of [reviewOf(object), reviewOf(object, { operation: "UPDATE", oldObject: object })]) {
        expect((await validate("demo", review)).response, object.metadata.name).toEqual({ uid: review.request.uid, allowed: true });
      }
    }
  });

  it("denies a class with neither nodeSelector nor nodeAffinity", async () => {
    const message =
      'affinity-class-definitions: AffinityClass "loose": sets neither spec.nodeSelector nor spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, so it constrains nothing';
    expect(await denial(reviewOf(affinityClass("loose", {})))).toBe(message);
    expect(await denial(reviewOf(affinityClass("loose", { nodeSelector: {}, nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } })))).toBe(message);
  });

  it("denies keys and values that break label syntax", async () => {
    expect(await denial(reviewOf(affinityClass("bad", { nodeSelector: { "zone name": "dc1", "example.com/zone": "-dc1" } })))).toBe(
      'affinity-class-definitions: AffinityClass "bad": spec.nodeSelector: label key "zone name": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric; ' +
        'affinity-class-definitions: AffinityClass "bad": spec.nodeSelector: label value "-dc1": must be at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric',
    );
  });

  it("describes ten bad nodeSelector pairs and counts every one after them, keys and values alike", async () => {
    const nodeSelector = {
      ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`-k${i}`, `-v${i}`])),
      "zone name": "dc1",
      zone: "-dc1",
      "topology.kubernetes.io/zone": "dc1",
    };
    const key = (k: string) => `spec.nodeSelector: label key "${k}": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
    const value = (v: string) => `spec.nodeSelector: label value "${v}": must be at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
    // 8 pairs with both wrong, one key, one value: 18 problems, the first ten (five pairs) described.
    expect(await denial(reviewOf(affinityClass("bad", { nodeSelector })))).toBe(
      [...[0, 1, 2, 3, 4].flatMap((i) => [key(`-k${i}`), value(`-v${i}`)]), "and 8 more problems"].map((problem) => `affinity-class-definitions: AffinityClass "bad": ${problem}`).join("; "),
    );
  });

  it("refuses a nodeSelector of thousands of pairs whose last value is not a string, as a map of strings", async () => {
    const nodeSelector: Record<string, unknown> = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`-bad-${i}-`, "v"]));
    nodeSelector["zone"] = 7;
    expect(await denial(reviewOf(affinityClass("bad", { nodeSelector })))).toBe(
      'affinity-class-definitions: AffinityClass "bad": spec.nodeSelector: zone: Invalid input: expected string, received number',
    );
  });

  it("denies malformed nodeAffinity the scheduler cannot use", async () => {
    const path = "spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    const review = reviewOf(
      affinityClass("broken", {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: "zone", operator: "In" },
                  { key: "cpu", operator: "Gt", values: ["ten"] },
                  { key: "spot", operator: "Exists", values: ["true"] },
                  { key: "Zone_", operator: "NotIn", values: ["a b"] },
                ],
              },
              {},
              { matchFields: [{ key: "metadata.labels", operator: "In", values: ["x"] }] },
            ],
          },
        },
      }),
    );
    expect(await denial(review)).toBe(
      [
        `${path}[0].matchExpressions[0]: zone In needs at least one value`,
        `${path}[0].matchExpressions[1]: cpu Gt needs exactly one integer value`,
        `${path}[0].matchExpressions[2]: spot Exists must have no values`,
        `${path}[0].matchExpressions[3]: label key "Zone_": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`,
        `${path}[0].matchExpressions[3]: label value "a b": must be at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`,
        `${path}[1]: an empty term matches no node`,
        `${path}[2].matchFields[0]: matchFields supports only the key metadata.name, not "metadata.labels"`,
      ]
        .map((problem) => `affinity-class-definitions: AffinityClass "broken": ${problem}`)
        .join("; "),
    );
  });

  it("denies an operator or an enforcement that does not exist", async () => {
    const review = reviewOf(
      affinityClass("odd", {
        nodeSelector: { zone: "dc1" },
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "Like" }] }] } },
        enforcement: "Block",
      }),
    );
    expect(await denial(review)).toMatch(
      /^affinity-class-definitions: AffinityClass "odd": spec\.nodeAffinity: requiredDuringSchedulingIgnoredDuringExecution\.nodeSelectorTerms\.0\.matchExpressions\.0\.operator: .*; affinity-class-definitions: AffinityClass "odd": spec\.enforcement: "Block" is not one of Deny, Warn, Audit$/,
    );
  });
});

describe("AffinityClass DELETE", () => {
  it("denies deleting a class HelmReleases and tenants still name, capping the list", async () => {
    const review = reviewOf(affinityClass("dc1", { nodeSelector: { "topology.kubernetes.io/zone": "dc1" } }), { operation: "DELETE" });
    expect((await validate("demo", review)).response).toEqual({
      uid: review.request.uid,
      allowed: false,
      status: {
        code: 403,
        reason: "Forbidden",
        message:
          'affinity-class-definitions: AffinityClass "dc1" is still referenced by HelmRelease tenant-acme/app-1, HelmRelease tenant-acme/app-2, HelmRelease tenant-acme/app-3, HelmRelease tenant-acme/app-4, HelmRelease tenant-acme/app-5 and 3 more: move them to another class first',
      },
    });
  });

  it("names the tenants that set the class themselves, not those that inherit it", async () => {
    expect(await denial(reviewOf(affinityClass("dc2", {}), { operation: "DELETE" }))).toBe(
      'affinity-class-definitions: AffinityClass "dc2" is still referenced by Tenant tenant-acme/dev (allowed, default), Tenant tenant-root/acme (allowed): move them to another class first',
    );
  });

  it("allows deleting a class nothing names", async () => {
    const review = reviewOf(affinityClass("gpu", {}), { operation: "DELETE" });
    expect((await validate("demo", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });
});

describe("an object that is not the shape of its kind", () => {
  it("answers 400 naming the field, as for workloads", async () => {
    const object = { apiVersion: "apps.cozystack.io/v1alpha1", kind: "Postgres", metadata: { name: "db", namespace: "tenant-acme" }, spec: { affinityClass: 5 } };
    const response = await call("/v1/demo/validate", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer("demo") },
      body: JSON.stringify(reviewOf(object, { group: "apps.cozystack.io", version: "v1alpha1" })),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "request.object is not a valid Postgres: spec.affinityClass: Invalid input: expected string, received number" });
  });
});

describe("a cluster that sets the new policies' modes in edgeadmit-settings", () => {
  beforeAll(async () => {
    const settings = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "edgeadmit-settings", namespace: "edgeadmit" },
      data: { "policy.affinity-class-definitions": "Audit", "policy.affinity-class-references": "Off" },
    };
    expect((await push("other", snapshotOf([...objects, ...releases, settings]))).status).toBe(200);
  });

  it("audits a referenced class's DELETE instead of denying it", async () => {
    const review = reviewOf(affinityClass("dc2", {}), { operation: "DELETE" });
    expect((await validate("other", review)).response).toEqual({
      uid: review.request.uid,
      allowed: true,
      auditAnnotations: {
        "affinity-class-definitions": 'AffinityClass "dc2" is still referenced by Tenant tenant-acme/dev (allowed, default), Tenant tenant-root/acme (allowed): move them to another class first',
      },
    });
  });

  it("does not evaluate a policy that is Off", async () => {
    const review = reviewOf(tenant("tenant-root", "beta", { defaultAffinityClass: "nope" }));
    expect((await validate("other", review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });
});
