import { describe, expect, it } from "vitest";
import { decodeAdmissionReview } from "../../admission/index.js";
import { wrapReview, type WrapOptions } from "../../admission/wrap.js";
import { workloadOf } from "../workload/index.js";
import { workload } from "../../../test/support/judge.js";
import { controllerOf, isWorkloadWrite, madeByWorkloadController, podsAtOnce, userWorkload, workloadRef } from "./index.js";

const requestOf = (object: Record<string, unknown>, options: WrapOptions = {}) => {
  const decoded = decodeAdmissionReview(JSON.stringify(wrapReview(object, options)));
  if (!decoded.ok) throw new Error(decoded.error);
  return decoded.review.request;
};
const owner = (kind: string, name: string, controller = true) => [{ apiVersion: "apps/v1", kind, name, uid: "u", controller }];

describe("ownership", () => {
  it("names the controller among the owners", () => {
    expect(controllerOf({ ownerReferences: [...owner("Deployment", "a", false), ...owner("ReplicaSet", "web-5d8f")] })).toEqual({ kind: "ReplicaSet", name: "web-5d8f" });
    expect(controllerOf({})).toBeUndefined();
  });
  it("counts objects made by workload controllers, not by operators' own kinds", () => {
    expect(madeByWorkloadController({ ownerReferences: owner("ReplicaSet", "web-5d8f") })).toBe(true);
    expect(madeByWorkloadController({ ownerReferences: owner("CronJob", "cleanup") })).toBe(true);
    expect(madeByWorkloadController({ ownerReferences: owner("Cluster", "pg") })).toBe(false);
    expect(madeByWorkloadController({ ownerReferences: owner("Deployment", "web", false) })).toBe(false);
  });
  it("judges what users write: not a Deployment's ReplicaSet or a ReplicaSet's Pod", () => {
    expect(userWorkload(requestOf(workload({ kind: "ReplicaSet", ownerReferences: owner("Deployment", "web") })))).toBeUndefined();
    expect(userWorkload(requestOf(workload({ kind: "Pod", ownerReferences: owner("Cluster", "pg") })))?.kind).toBe("Pod");
    expect(userWorkload(requestOf(workload({ kind: "ReplicaSet" })))?.kind).toBe("ReplicaSet");
  });
});

describe("isWorkloadWrite", () => {
  it("is CREATE and UPDATE of workloads, CREATE of Pods, never DELETE or other kinds", () => {
    expect(isWorkloadWrite(requestOf(workload(), { operation: "UPDATE" }))).toBe(true);
    expect(isWorkloadWrite(requestOf(workload({ kind: "Pod" }), { operation: "UPDATE" }))).toBe(false);
    expect(isWorkloadWrite(requestOf(workload({ kind: "Pod" })))).toBe(true);
    expect(isWorkloadWrite(requestOf(workload(), { operation: "DELETE" }))).toBe(false);
    expect(isWorkloadWrite(requestOf({ apiVersion: "v1", kind: "Service", metadata: { name: "web" } }))).toBe(false);
  });
});

describe("podsAtOnce", () => {
  const of = (w: Parameters<typeof workload>[0]) => {
    const object = workload(w);
    return podsAtOnce(workloadOf(object.kind as "Deployment", object));
  };
  it("reads replicas and parallelism with their defaults of 1", () => {
    expect(of({})).toBe(1);
    expect(of({ spec: { replicas: 3 } })).toBe(3);
    expect(of({ kind: "StatefulSet", spec: { replicas: 0 } })).toBe(0);
    expect(of({ kind: "Job", spec: { parallelism: 4 } })).toBe(4);
    expect(of({ kind: "Job", spec: { parallelism: 4, completions: 2 } })).toBe(2);
    expect(of({ kind: "Job", spec: { completions: 5 } })).toBe(1);
    expect(of({ kind: "CronJob" })).toBe(1);
    expect(of({ kind: "Pod" })).toBe(1);
  });
  it("counts a DaemonSet as a pod on every node", () => {
    expect(of({ kind: "DaemonSet" })).toBe(Number.POSITIVE_INFINITY);
  });
  it("reads a CronJob's Job parallelism", () => {
    const object = workload({ kind: "CronJob" });
    (object.spec as { jobTemplate: { spec: Record<string, unknown> } }).jobTemplate.spec.parallelism = 2;
    expect(podsAtOnce(workloadOf("CronJob", object))).toBe(2);
  });
});

it("workloadRef uses kubectl's short names and marks a generateName", () => {
  expect(workloadRef("Deployment", { name: "web" })).toBe("deploy/web");
  expect(workloadRef("CronJob", { name: "cleanup" })).toBe("cj/cleanup");
  expect(workloadRef("Pod", { generateName: "web-7d4f-" })).toBe("pod/web-7d4f-*");
  expect(workloadRef("StatefulSet", {})).toBe("sts/(unnamed)");
});
