// The builder fed as a cluster's lists come in (infra/objects/cluster/snapshot.ts):
// several lists at once, each through its own lane, and a caller that keeps
// only what the policies need.
import { describe, expect, it } from "vitest";
import { claim, workload } from "../../../test/support/judge.js";
import { buildSnapshot, SnapshotBuilder, type KubeObject } from "./index.js";

const OPTIONS = { generation: 1, builtAt: "2026-01-01T00:00:00Z" };
const tenant = (name: string, spec: unknown): KubeObject => ({ apiVersion: "apps.cozystack.io/v1alpha1", kind: "Tenant", metadata: { name, namespace: "tenant-root" }, spec });
const brokenClaim = (name: string): KubeObject => ({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name, namespace: "shop" }, spec: { accessModes: "ReadWriteOnce" } });

describe("lanes", () => {
  it("list each lane's problems after add()'s, lane by lane, however the objects interleaved", () => {
    const tenants = [tenant("a", { allowedAffinityClasses: "gold" }), tenant("b", { defaultAffinityClass: 7 })];
    const claims = [brokenClaim("x"), brokenClaim("y")];
    const builder = new SnapshotBuilder(OPTIONS);
    const [first, second] = [builder.lane(), builder.lane()];
    second.add(claims[0]!);
    first.add(tenants[0]!);
    second.add(claims[1]!);
    builder.add(workload({ name: "web", pod: { containers: "oops" } }));
    first.add(tenants[1]!);
    const { problems } = builder.build();
    // As if the lists had come one after the other, after what came through add().
    expect(problems).toEqual(buildSnapshot([workload({ name: "web", pod: { containers: "oops" } }), ...tenants, ...claims], OPTIONS).problems);
    expect(problems).toHaveLength(5);
  });
});

describe("a caller that keeps only what the policies need", () => {
  const policy: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "claims" },
    spec: { paramKind: { apiVersion: "v1", kind: "PersistentVolumeClaim" }, validations: [{ expression: "true" }] },
  };
  const binding: KubeObject = { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name: "claims" }, spec: { policyName: "claims", validationActions: ["Deny"] } };

  it("hands over a paramKind's objects with keep(), even of a kind the facts read", () => {
    const objects = [policy, binding, claim("data")];
    const builder = new SnapshotBuilder({ ...OPTIONS, retain: (object) => object.kind !== "PersistentVolumeClaim" });
    for (const object of objects) builder.add(object);
    builder.keep(claim("data"));
    const streamed = builder.build();
    const whole = buildSnapshot(objects, OPTIONS);
    expect(streamed.snapshot).toEqual(whole.snapshot);
    expect(streamed.snapshot.policyParams["v1/PersistentVolumeClaim"]?.objects).toEqual([claim("data")]);
    expect(streamed.snapshot.volumeClaims["shop/data"]).toEqual({ accessModes: ["ReadWriteOnce"], pinnedToNode: false });
  });

  it("builds what one build of every object builds, from the facts alone", () => {
    const volume = (name: string, host: string | undefined): KubeObject => ({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name },
      spec: host ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [host] }] }] } } } : {},
    });
    // Claims before and after their volumes; a volume named twice counts as the last one says.
    const objects = [claim("a", ["ReadWriteOnce"], "pv-a"), volume("pv-a", "n1"), volume("pv-b", "n1"), volume("pv-b", undefined), claim("b", ["ReadWriteOnce"], "pv-b"), claim("c", ["ReadWriteMany"]), workload({ name: "web", claims: ["a"] })];
    const builder = new SnapshotBuilder({ ...OPTIONS, retain: () => false });
    for (const object of objects) builder.add(object);
    expect(builder.build()).toEqual({ ...buildSnapshot(objects, OPTIONS), ignored: [] });
    expect(buildSnapshot(objects, OPTIONS).snapshot.volumeClaims).toEqual({
      "shop/a": { accessModes: ["ReadWriteOnce"], pinnedToNode: true, mountedBy: [{ kind: "Deployment", name: "web", podLabels: { "app.kubernetes.io/name": "web" } }] },
      "shop/b": { accessModes: ["ReadWriteOnce"], pinnedToNode: false },
    });
  });
});
