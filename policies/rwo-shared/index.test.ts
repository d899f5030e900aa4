import { describe, expect, it } from "vitest";
import { claim, judge, workload, type WorkloadSpec } from "../../test/support/judge.js";
import { rwoSharedPolicy } from "./index.js";

const hostAffinity = (matchLabels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels }, topologyKey: "kubernetes.io/hostname", ...extra }] } },
});
const web: WorkloadSpec = { name: "web", claims: ["data"], labels: { app: "web", "app.kubernetes.io/instance": "shop" } };
const worker: WorkloadSpec = { name: "worker", claims: ["data"], labels: { app: "worker", "app.kubernetes.io/instance": "shop" } };
const run = (w: WorkloadSpec, cluster = [claim("data")], operation?: "UPDATE") => judge(rwoSharedPolicy, workload(w), cluster, operation ? { operation } : {});

describe("rwo-shared", () => {
  it("says nothing of one pod alone on its claim", () => {
    expect(run(web)).toEqual([]);
    expect(run(web, [claim("data"), workload(web)], "UPDATE")).toEqual([]);
  });

  it("says nothing of a workload that runs no pod: scaled to zero, or a Job with no completions", () => {
    const cluster = [claim("data"), workload(worker)];
    expect(run({ ...web, spec: { replicas: 0 } }, cluster)).toEqual([]);
    expect(run({ ...web, kind: "Job", spec: { parallelism: 2, completions: 0 } }, cluster)).toEqual([]);
  });

  it("warns of several replicas of one workload", () => {
    expect(run({ ...web, spec: { replicas: 3 } })).toEqual(["deploy/web: 3 pods on RWO PVC data: Multi-Attach; co-locate or use RWX"]);
    expect(run({ ...web, kind: "StatefulSet", spec: { replicas: 2 } })).toEqual(["sts/web: 2 pods on RWO PVC data: Multi-Attach; co-locate or use RWX"]);
    expect(run({ ...web, kind: "Job", spec: { parallelism: 2 } })).toEqual(["job/web: 2 pods on RWO PVC data: Multi-Attach; co-locate or use RWX"]);
    // A Job never runs more pods than it has completions to reach.
    expect(run({ ...web, kind: "Job", spec: { parallelism: 4, completions: 1 } })).toEqual([]);
  });

  it("warns of a DaemonSet, which cannot be co-located", () => {
    expect(run({ ...web, kind: "DaemonSet", pod: hostAffinity({ app: "web" }) })).toEqual(["ds/web: a pod per node on RWO PVC data: Multi-Attach; use RWX"]);
  });

  it("warns of other workloads on the claim, counting the one being admitted once", () => {
    const cluster = [claim("data"), workload(web), workload(worker), workload({ kind: "CronJob", name: "backup", claims: ["data"] })];
    expect(run(web, cluster, "UPDATE")).toEqual(["deploy/web: RWO PVC data has 3 users: Multi-Attach; co-locate or use RWX"]);
    expect(run({ ...web, kind: "Pod", name: "debug" }, cluster)).toEqual(["pod/debug: RWO PVC data has 4 users: Multi-Attach; co-locate or use RWX"]);
  });

  it("says nothing when a required podAffinity on the node puts its pods with every other user", () => {
    const cluster = [claim("data"), workload(worker)];
    const scoped = hostAffinity({ "app.kubernetes.io/instance": "shop" });
    expect(run({ ...web, spec: { replicas: 2 }, pod: scoped }, cluster)).toEqual([]);
    // The same term on the zone topology does not share a node.
    expect(run({ ...web, pod: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { "app.kubernetes.io/instance": "shop" } }, topologyKey: "topology.kubernetes.io/zone" }] } } } }, cluster)).toEqual([
      "deploy/web: RWO PVC data has 2 users: Multi-Attach; co-locate or use RWX",
    ]);
  });

  it("warns when the affinity co-locates its own pods but not the other users", () => {
    const cluster = [claim("data"), workload(worker)];
    expect(run({ ...web, spec: { replicas: 2 }, pod: hostAffinity({ app: "web" }) }, cluster)).toEqual(["deploy/web: RWO PVC data has 2 users: Multi-Attach; co-locate or use RWX"]);
  });

  it("warns when the affinity selects the other user but not its own replicas", () => {
    expect(run({ ...web, spec: { replicas: 2 }, pod: hostAffinity({ app: "worker" }) }, [claim("data"), workload(worker)])).toEqual([
      "deploy/web: RWO PVC data has 2 users: Multi-Attach; co-locate or use RWX",
    ]);
  });

  it("says nothing when the PV pins the volume to one node", () => {
    const pv = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv-1" },
      spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-a"] }] }] } } },
    };
    expect(run({ ...web, spec: { replicas: 2 } }, [claim("data", ["ReadWriteOnce"], "pv-1"), pv])).toEqual([]);
  });

  it("warns of ReadWriteOncePod shared at all, co-located or not", () => {
    expect(run({ ...web, spec: { replicas: 2 }, pod: hostAffinity({ app: "web" }) }, [claim("data", ["ReadWriteOncePod"])])).toEqual([
      "deploy/web: RWOP PVC data admits one pod but has 2 pods; run one pod or use RWX",
    ]);
  });

  it("says nothing of StatefulSet claims per pod, unknown claims or claims for many nodes", () => {
    expect(run({ ...web, kind: "StatefulSet", spec: { replicas: 3, volumeClaimTemplates: [{ metadata: { name: "data0" } }] } })).toEqual([]);
    expect(run({ ...web, spec: { replicas: 3 } }, [])).toEqual([]);
    expect(run({ ...web, spec: { replicas: 3 } }, [claim("data", ["ReadWriteMany"])])).toEqual([]);
  });

  it("leaves objects a controller made to their owner", () => {
    const owned = { ...web, kind: "ReplicaSet" as const, spec: { replicas: 3 }, ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "u", controller: true }] };
    expect(run(owned)).toEqual([]);
  });
});
