import { describe, expect, it } from "vitest";
import { claim, judge, workload, type WorkloadSpec } from "../../test/support/judge.js";
import { haSpreadPolicy } from "./index.js";

const labels = { app: "web" };
const SPREAD = "deploy/web: 3 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels";
const SPREAD2 = "deploy/web: 2 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels";
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

  it("leaves replicas that cannot share a node alone: a host port (NodePorts), also under hostNetwork", () => {
    const port = (p: Record<string, unknown>) => ({ containers: [{ name: "app", image: "i", ports: [{ containerPort: 8080, ...p }] }] });
    expect(run({ spec: { replicas: 3 }, pod: port({ hostPort: 8080 }) })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, pod: { hostNetwork: true, ...port({}) } })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, pod: port({}) })).toEqual([SPREAD]);
  });

  it("leaves replicas alone that ask for more than half of the biggest node (NodeResourcesFit)", () => {
    const node = (name: string, allocatable: Record<string, string>) => ({ apiVersion: "v1", kind: "Node", metadata: { name }, status: { allocatable } });
    const nodes = [node("a", { cpu: "15800m", memory: "62Gi", "nvidia.com/gpu": "1" }), node("b", { cpu: "7900m", memory: "30Gi" })];
    const requesting = (requests: Record<string, string>) => ({ containers: [{ name: "app", image: "i", resources: { requests } }] });
    expect(run({ spec: { replicas: 2 }, pod: requesting({ "nvidia.com/gpu": "1" }) }, nodes)).toEqual([]);
    expect(run({ spec: { replicas: 2 }, pod: requesting({ cpu: "8" }) }, nodes)).toEqual([]);
    expect(run({ spec: { replicas: 2 }, pod: requesting({ cpu: "7900m" }) }, nodes)).toEqual([SPREAD2]);
    expect(run({ spec: { replicas: 2 }, pod: requesting({ memory: "31Gi" }) }, nodes)).toEqual([SPREAD2]);
    expect(run({ spec: { replicas: 2 }, pod: requesting({ memory: "31.5Gi" }) }, nodes)).toEqual([]);
  });

  it("without node facts in the snapshot, leaves a device request alone and judges cpu and memory", () => {
    const requesting = (requests: Record<string, string>) => ({ containers: [{ name: "app", image: "i", resources: { limits: requests } }] });
    expect(run({ spec: { replicas: 2 }, pod: requesting({ "nvidia.com/gpu": "1" }) })).toEqual([]);
    expect(run({ spec: { replicas: 2 }, pod: requesting({ cpu: "64" }) })).toEqual([SPREAD2]);
  });

  it("leaves pods pinned to one node on purpose alone", () => {
    expect(run({ spec: { replicas: 3 }, pod: { nodeName: "node-a" } })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, pod: { nodeSelector: { "kubernetes.io/hostname": "node-a" } } })).toEqual([]);
    const hostTerm = (host: string) => ({ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [host] }] });
    const pinned = (...hosts: string[]) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: hosts.map(hostTerm) } } } });
    expect(run({ spec: { replicas: 3 }, pod: pinned("node-a") })).toEqual([]);
    expect(run({ spec: { replicas: 3 }, pod: pinned("node-a", "node-b") })).toEqual([SPREAD]);
  });

  it("judges Deployments and StatefulSets only", () => {
    expect(run({ kind: "DaemonSet" })).toBeUndefined();
    expect(run({ kind: "ReplicaSet", spec: { replicas: 3 } })).toBeUndefined();
  });
});
