// Shift-left: a workload whose pod template would be denied is itself judged,
// for every workload kind, with nodeSelector and nodeAffinity (OR) classes,
// the application found by Flux's HelmRelease label or by lineage labels.
import { beforeAll, describe, expect, it } from "vitest";
import { toWarning } from "../../shared/admission/index.js";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";
import { lineage, reviewOf } from "../support/reviews.js";

const ZONE = "topology.kubernetes.io/zone";

const objects = objectsFromYaml(`
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: dc1}
spec: {nodeSelector: {topology.kubernetes.io/zone: dc1}}
---
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: two-zone}
spec:
  enforcement: Deny
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [dc1]}]
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [dc2]}]
---
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: soft}
spec: {nodeSelector: {topology.kubernetes.io/zone: dc1}, enforcement: Warn}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: tenant-acme, labels: {apps.cozystack.io/affinity-class: dc1}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: lax, namespace: tenant-acme, labels: {apps.cozystack.io/affinity-class: soft}}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: zoned
  namespace: tenant-acme
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Kafka
    apps.cozystack.io/application.name: zoned
    apps.cozystack.io/affinity-class: two-zone
`);

const FLUX = (name: string) => ({ "helm.toolkit.fluxcd.io/name": name, "helm.toolkit.fluxcd.io/namespace": "tenant-acme" });
const LINEAGE = lineage("Kafka", "zoned");

const KINDS = {
  Deployment: ["apps/v1", "spec.template.spec"],
  StatefulSet: ["apps/v1", "spec.template.spec"],
  DaemonSet: ["apps/v1", "spec.template.spec"],
  ReplicaSet: ["apps/v1", "spec.template.spec"],
  Job: ["batch/v1", "spec.template.spec"],
  CronJob: ["batch/v1", "spec.jobTemplate.spec.template.spec"],
} as const;
type Kind = keyof typeof KINDS;

/** A workload of `kind` whose pod template has `podSpec`; labels on the object or on the template. */
function workload(kind: Kind, name: string, podSpec: Record<string, unknown>, labels: { object?: Record<string, string>; template?: Record<string, string> }) {
  const template = { metadata: { labels: { app: name, ...labels.template } }, spec: { containers: [{ name: "app", image: "registry.example/app:1" }], ...podSpec } };
  const spec = kind === "CronJob" ? { schedule: "0 * * * *", jobTemplate: { spec: { template } } } : { selector: { matchLabels: { app: name } }, template };
  return { apiVersion: KINDS[kind][0], kind, metadata: { name, namespace: "tenant-acme", labels: { ...labels.object } }, spec };
}

const zoneAffinity = (...terms: string[][]) => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((values) => ({ matchExpressions: [{ key: ZONE, operator: "In", values }] })) },
    },
  },
});

/** Through the per-policy route: other policies judge workloads too, and are not what this file is about. */
const judge = (review: unknown) => validate("demo", review, "affinity-class");

beforeAll(async () => {
  expect((await push("demo", snapshotOf(objects))).status).toBe(200);
});

describe.each(Object.keys(KINDS) as Kind[])("%s", (kind) => {
  const path = KINDS[kind][1];
  const subject = `${kind.toLowerCase()} tenant-acme`;

  it("found by Flux's HelmRelease label: denied without the class's nodeSelector, naming the field to set, on CREATE and UPDATE", async () => {
    const object = workload(kind, "web", {}, { object: FLUX("web") });
    for (const review of [reviewOf(object), reviewOf(object, { operation: "UPDATE", oldObject: object })]) {
      expect((await judge(review)).response).toEqual({
        uid: review.request.uid,
        allowed: false,
        status: {
          code: 403,
          reason: "Forbidden",
          message: `affinity-class: ${subject}/web belongs to application with AffinityClass "dc1" but missing required nodeSelector ${ZONE}=dc1: set ${path}.nodeSelector`,
        },
      });
    }
  });

  it("found by Flux's HelmRelease label: allowed with the nodeSelector", async () => {
    const review = reviewOf(workload(kind, "web", { nodeSelector: { [ZONE]: "dc1" } }, { object: FLUX("web") }));
    expect((await judge(review)).response).toEqual({ uid: review.request.uid, allowed: true });
  });

  it("found by lineage labels on the template: an OR-class admits one zone or both, denies a third naming nodeAffinity", async () => {
    for (const podSpec of [{ nodeSelector: { [ZONE]: "dc2" } }, zoneAffinity(["dc1", "dc2"])]) {
      const review = reviewOf(workload(kind, "zoned", podSpec, { template: LINEAGE }));
      expect((await judge(review)).response, JSON.stringify(podSpec)).toEqual({ uid: review.request.uid, allowed: true });
    }
    const { response } = await judge(reviewOf(workload(kind, "zoned", zoneAffinity(["dc3"]), { template: LINEAGE })));
    expect(response.status?.message).toBe(
      `affinity-class: ${subject}/zoned belongs to application with AffinityClass "two-zone" but may run outside it: its node constraints {${ZONE}=dc3} are not within {${ZONE}=dc1} or {${ZONE}=dc2}: set ${path}.affinity.nodeAffinity`,
    );
  });

  it("found by lineage labels on the object itself", async () => {
    const { response } = await judge(reviewOf(workload(kind, "zoned", {}, { object: LINEAGE })));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toMatch(/its node constraints \{any node\} are not within/);
  });

  it("warns instead for a class in Warn mode", async () => {
    const review = reviewOf(workload(kind, "lax", {}, { template: FLUX("lax") }));
    const message = `affinity-class: ${subject}/lax belongs to application with AffinityClass "soft" but missing required nodeSelector ${ZONE}=dc1: set ${path}.nodeSelector`;
    expect((await judge(review)).response).toEqual({ uid: review.request.uid, allowed: true, warnings: [toWarning(message)] });
  });
});

describe("resolving the application", () => {
  it("falls back to Flux's label when the lineage labels name no application the snapshot knows", async () => {
    const unknownLineage = { ...LINEAGE, "apps.cozystack.io/application.name": "not-there" };
    const { response } = await judge(reviewOf(workload("Deployment", "web", {}, { object: FLUX("web"), template: unknownLineage })));
    expect(response.status?.message).toBe(
      `affinity-class: deployment tenant-acme/web belongs to application with AffinityClass "dc1" but missing required nodeSelector ${ZONE}=dc1: set spec.template.spec.nodeSelector`,
    );
  });
});

describe("workloads edgeadmit cannot tie to an application", () => {
  it("are allowed: no labels, or a HelmRelease the snapshot does not know", async () => {
    for (const labels of [{}, { object: FLUX("unknown") }]) {
      const review = reviewOf(workload("Deployment", "other", {}, labels));
      expect((await judge(review)).response).toEqual({ uid: review.request.uid, allowed: true });
    }
  });
});
