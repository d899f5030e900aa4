import { describe, expect, it } from "vitest";
import { claim, judge, workload, type WorkloadSpec } from "../../test/support/judge.js";
import { haSpreadPolicy } from "./index.js";

const labels = { app: "web" };
const run = (w: WorkloadSpec, cluster = [claim("data")]) => judge(haSpreadPolicy, workload({ labels, ...w }), cluster);
const antiAffinity = (matchLabels: Record<string, string>, required = false) => ({
  affinity: {
    podAntiAffinity: required
      ? { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels }, topologyKey: "kubernetes.io/hostname" }] }
      : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels }, topologyKey: "kubernetes.io/hostname" } }] },
  },
});

describe("ha-spread", () => {
  it("audits a replicated Deployment or StatefulSet that nothing spreads", () => {
    expect(run({ spec: { replicas: 3 } })).toEqual(["deploy/web: 3 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels"]);
    expect(run({ kind: "StatefulSet", spec: { replicas: 2 } })).toEqual(["sts/web: 2 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels"]);
  });

  it("says nothing of one replica, the default", () => {
    expect(run({})).toEqual([]);
    expect(run({ spec: { replicas: 1 } })).toEqual([]);
  });

  it("accepts anti-affinity on its own pods, required or preferred", () => {
    expect(run({ spec: { replicas: 3 }, pod: antiAffinity({ app: "web" }) })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, pod: antiAffinity({ app: "web" }, true) })).toEqual([]);
  });

  it("does not count anti-affinity on other pods", () => {
    expect(run({ spec: { replicas: 3 }, pod: antiAffinity({ app: "db" }) })).toEqual(["deploy/web: 3 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels"]);
  });

  it("accepts a topologySpreadConstraint whose selector counts its pods, not one that counts others or nothing", () => {
    const spread = (labelSelector?: unknown) => ({ topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", ...(labelSelector ? { labelSelector } : {}) }] });
    expect(run({ spec: { replicas: 3 }, pod: spread({ matchLabels: { app: "web" } }) })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, pod: spread({ matchLabels: { app: "db" } }) })).toHaveLength(1);
    expect(run({ spec: { replicas: 3 }, pod: spread() })).toHaveLength(1);
  });

  it("leaves pods kept on one node on purpose, or on a single-node volume, alone", () => {
    const together = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "web" } }, topologyKey: "kubernetes.io/hostname" }] } } };
    expect(run({ spec: { replicas: 3 }, pod: together })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, claims: ["data"] })).toEqual([]);
  });

  it("judges Deployments and StatefulSets only", () => {
    expect(run({ kind: "DaemonSet" })).toBeUndefined();
    expect(run({ kind: "ReplicaSet", spec: { replicas: 3 } })).toBeUndefined();
  });
});
