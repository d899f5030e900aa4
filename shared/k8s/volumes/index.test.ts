import { expect, it } from "vitest";
import { workload } from "../../../test/support/judge.js";
import { workloadOf } from "../workload/index.js";
import { sharedClaimNames } from "./index.js";

it("lists each claim the pods mount once, ignoring other volume types", () => {
  const object = workload({ claims: ["data", "data", "logs"] });
  (object.spec as { template: { spec: { volumes: unknown[] } } }).template.spec.volumes.push({ name: "tmp", emptyDir: {} });
  expect(sharedClaimNames(workloadOf("Deployment", object))).toEqual(["data", "logs"]);
});

it("leaves out a StatefulSet volume its volumeClaimTemplates replace with a claim per pod", () => {
  const object = workload({
    kind: "StatefulSet",
    claims: ["shared", "ignored"],
    spec: { volumeClaimTemplates: [{ metadata: { name: "data1" }, spec: { accessModes: ["ReadWriteOnce"] } }] },
  });
  expect(sharedClaimNames(workloadOf("StatefulSet", object))).toEqual(["shared"]);
});

it("keeps a Deployment volume of any name", () => {
  expect(sharedClaimNames(workloadOf("Deployment", workload({ claims: ["x"], spec: { volumeClaimTemplates: [{ metadata: { name: "data0" } }] } })))).toEqual(["x"]);
});
