import { describe, expect, it } from "vitest";
import { claim, judge, workload } from "../../test/support/judge.js";
import { InvalidObjectError } from "../../shared/k8s/workload/index.js";
import { rwoRolloutPolicy } from "./index.js";

const SURGE = "deploy/web: surge pod + RWO PVC data: Multi-Attach; use Recreate or maxSurge 0";
const rolling = (rollingUpdate: Record<string, unknown>, replicas?: number) => ({ ...(replicas === undefined ? {} : { replicas }), strategy: { type: "RollingUpdate", rollingUpdate } });
const run = (spec: Record<string, unknown>, cluster = [claim("data")], extra: Parameters<typeof workload>[0] = {}) =>
  judge(rwoRolloutPolicy, workload({ claims: ["data"], spec, ...extra }), cluster);

describe("rwo-rollout", () => {
  it("warns of the default RollingUpdate: 25% of 1 replica rounds up to one surge pod", () => {
    expect(run({})).toEqual([SURGE]);
    expect(run({ replicas: 1 })).toEqual([SURGE]);
  });

  it.each([
    ["maxSurge 1", rolling({ maxSurge: 1 }), [SURGE]],
    ["maxSurge 10% of 1 (rounds up to 1)", rolling({ maxSurge: "10%" }), [SURGE]],
    ["maxSurge 1 with maxUnavailable 1: the old pod goes as the new one comes", rolling({ maxSurge: 1, maxUnavailable: 1 }), []],
    ["maxUnavailable 100%", rolling({ maxUnavailable: "100%" }), []],
    ["3 replicas: several pods on one claim are rwo-shared's concern", rolling({ maxSurge: "10%" }, 3), []],
    ["maxSurge 0", rolling({ maxSurge: 0, maxUnavailable: 1 }), []],
    ["maxSurge 0%", rolling({ maxSurge: "0%" }), []],
    ["Recreate", { strategy: { type: "Recreate" } }, []],
    ["25% of 0 replicas", { replicas: 0 }, []],
  ])("%s", (_name, spec, expected) => {
    expect(run(spec)).toEqual(expected);
  });

  it("says nothing of a claim the snapshot does not know, or one that may attach to many nodes", () => {
    expect(run({}, [])).toEqual([]);
    expect(run({}, [claim("data", ["ReadWriteOnce", "ReadWriteMany"])])).toEqual([]);
  });

  it("says nothing when the PV pins every pod to the node that has the volume", () => {
    const pv = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv-1" },
      spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-a"] }] }] } } },
    };
    expect(run({}, [claim("data", ["ReadWriteOnce"], "pv-1"), pv])).toEqual([]);
  });

  it("says nothing when a required podAffinity on its own pods holds them on one node", () => {
    const pod = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { "app.kubernetes.io/name": "web" } }, topologyKey: "kubernetes.io/hostname" }] } } };
    expect(run({}, [claim("data")], { pod })).toEqual([]);
  });

  it("warns when that affinity is keyed on the revision: the surge pod is the first of its revision and goes anywhere", () => {
    const term = { labelSelector: { matchLabels: { "app.kubernetes.io/name": "web" } }, matchLabelKeys: ["pod-template-hash"], topologyKey: "kubernetes.io/hostname" };
    expect(run({}, [claim("data")], { pod: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } } } })).toEqual([SURGE]);
  });

  it("says nothing when a required podAffinity holds it beside another user of the claim", () => {
    const pod = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: "streamlit" } }, topologyKey: "kubernetes.io/hostname" }] } } };
    const streamlit = workload({ name: "streamlit", claims: ["data"], labels: { app: "streamlit" } });
    expect(run({}, [claim("data"), streamlit], { pod })).toEqual([]);
    expect(run({}, [claim("data")], { pod })).toEqual([SURGE]);
  });

  it("warns of ReadWriteOncePod even on one node: the surge pod never starts", () => {
    expect(run({}, [claim("data", ["ReadWriteOncePod"])])).toEqual(["deploy/web: surge pod + RWOP PVC data: rollout hangs; use Recreate or maxSurge 0"]);
  });

  it("names each single-node claim", () => {
    expect(judge(rwoRolloutPolicy, workload({ claims: ["data", "cache", "logs"] }), [claim("data"), claim("logs")])).toEqual([
      SURGE,
      "deploy/web: surge pod + RWO PVC logs: Multi-Attach; use Recreate or maxSurge 0",
    ]);
  });

  it("judges Deployments only: other kinds have no surge", () => {
    expect(judge(rwoRolloutPolicy, workload({ kind: "StatefulSet", claims: ["data"] }), [claim("data")])).toBeUndefined();
    expect(judge(rwoRolloutPolicy, workload({ kind: "Pod", claims: ["data"] }), [claim("data")])).toBeUndefined();
  });

  it("judges UPDATE as well as CREATE", () => {
    expect(judge(rwoRolloutPolicy, workload({ claims: ["data"] }), [claim("data")], { operation: "UPDATE" })).toEqual([SURGE]);
  });

  it("answers a malformed maxSurge as an invalid object (HTTP 400)", () => {
    expect(() => run(rolling({ maxSurge: "lots" }))).toThrow(InvalidObjectError);
  });
});
