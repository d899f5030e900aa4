// The volume facts the hygiene policies read: single-node claims and who mounts them.
import { describe, expect, it } from "vitest";
import { claim, workload } from "../../../test/support/judge.js";
import { buildSnapshot, type KubeObject } from "./index.js";

const build = (objects: KubeObject[]) => buildSnapshot(objects, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
const owner = (kind: string, name: string) => [{ apiVersion: kind === "CronJob" || kind === "Job" ? "batch/v1" : "apps/v1", kind, name, uid: "u", controller: true }];

describe("volumeClaims", () => {
  it("keeps claims that attach to one node only", () => {
    const { snapshot } = build([claim("a"), claim("b", ["ReadWriteOncePod"]), claim("c", ["ReadWriteOnce", "ReadWriteMany"]), claim("d", ["ReadOnlyMany"]), claim("e", ["ReadWriteMany"])]);
    expect(Object.keys(snapshot.volumeClaims).sort()).toEqual(["shop/a", "shop/b"]);
  });

  it("counts each workload a user wrote once: not its ReplicaSets, Jobs or Pods", () => {
    const { snapshot, problems } = build([
      claim("data"),
      workload({ name: "web", claims: ["data"], labels: { app: "web" } }),
      workload({ kind: "ReplicaSet", name: "web-5d8f", claims: ["data"], ownerReferences: owner("Deployment", "web") }),
      workload({ kind: "Pod", name: "web-5d8f-x2", claims: ["data"], ownerReferences: owner("ReplicaSet", "web-5d8f") }),
      workload({ kind: "CronJob", name: "backup", claims: ["data"], labels: {} }),
      workload({ kind: "Job", name: "backup-2901", claims: ["data"], ownerReferences: owner("CronJob", "backup") }),
      workload({ kind: "Pod", name: "debug", claims: ["data"], labels: { run: "debug" } }),
      workload({ kind: "Pod", name: "pg-1", claims: ["data"], labels: { cnpg: "pg" }, ownerReferences: [{ apiVersion: "postgresql.cnpg.io/v1", kind: "Cluster", name: "pg", uid: "u", controller: true }] }),
    ]);
    expect(problems).toEqual([]);
    expect(snapshot.volumeClaims["shop/data"]).toEqual({
      accessModes: ["ReadWriteOnce"],
      pinnedToNode: false,
      mountedBy: [
        { kind: "CronJob", name: "backup" },
        { kind: "Deployment", name: "web", podLabels: { app: "web" } },
        { kind: "Pod", name: "debug", podLabels: { run: "debug" } },
        { kind: "Pod", name: "pg-1", podLabels: { cnpg: "pg" } },
      ],
    });
  });

  it("leaves out StatefulSet claims per pod, other namespaces, unknown claims and kinds of other API groups", () => {
    const elsewhere = workload({ name: "other", claims: ["data"] });
    (elsewhere.metadata as { namespace: string }).namespace = "blog";
    const { snapshot } = build([
      claim("data"),
      workload({ kind: "StatefulSet", name: "db", claims: ["data"], spec: { volumeClaimTemplates: [{ metadata: { name: "data0" } }] } }),
      elsewhere,
      workload({ name: "web", claims: ["not-in-snapshot"] }),
      { ...workload({ name: "fake", claims: ["data"] }), apiVersion: "example.com/v1" },
    ]);
    expect(snapshot.volumeClaims["shop/data"]).toEqual({ accessModes: ["ReadWriteOnce"], pinnedToNode: false });
    expect(Object.keys(snapshot.volumeClaims)).toEqual(["shop/data"]);
  });

  it("reports a workload it cannot read and keeps going", () => {
    const { snapshot, problems } = build([claim("data"), { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "bad", namespace: "shop" }, spec: { template: { spec: { volumes: "data" } } } }]);
    expect(problems).toEqual(["Deployment shop/bad: spec.template.spec.volumes: Invalid input: expected array, received string"]);
    expect(snapshot.volumeClaims["shop/data"]).toEqual({ accessModes: ["ReadWriteOnce"], pinnedToNode: false });
  });

  it("gives the same snapshot whatever order the objects are listed in", () => {
    const objects = [claim("data"), workload({ name: "b", claims: ["data"] }), workload({ name: "a", claims: ["data"] }), workload({ kind: "Job", name: "c", claims: ["data"] })];
    expect(build([...objects].reverse()).snapshot).toEqual(build(objects).snapshot);
  });
});
