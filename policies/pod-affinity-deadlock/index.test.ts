import { describe, expect, it } from "vitest";
import { judge, workload } from "../../test/support/judge.js";
import { podAffinityDeadlockPolicy } from "./index.js";

const labels = { "app.kubernetes.io/name": "web", "volume-group": "workspaces", tier: "front" };
const required = (...terms: Array<Record<string, unknown>>) => ({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } });
const onHost = (labelSelector: unknown, extra: Record<string, unknown> = {}) => ({ labelSelector, topologyKey: "kubernetes.io/hostname", ...extra });
const run = (affinity: Record<string, unknown>, pod: Record<string, unknown> = {}, kind: "Deployment" | "Pod" | "CronJob" = "Deployment") =>
  judge(podAffinityDeadlockPolicy, workload({ kind, labels, pod: { ...pod, affinity: { ...affinity, ...((pod.affinity as object) ?? {}) } } }));
const shared = { matchExpressions: [{ key: "volume-group", operator: "In", values: ["workspaces"] }] };
const tier = { nodeSelector: { "openms.de/memory-tier": "low" } };
const tierAffinity = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "tier", operator: "In", values: ["low"] }] }] } } } };

describe("pod-affinity-deadlock", () => {
  it("(b) denies a shared label with a node tier: case A", () => {
    expect(run(required(onHost(shared)), tier)).toEqual(["deploy/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app"]);
    expect(run(required(onHost(shared)), tierAffinity)).toEqual(["deploy/web: required podAffinity on shared volume-group + node affinity: deadlock; select the app"]);
  });

  it("(b) needs the node constraint: without one the first pod may still go anywhere", () => {
    expect(run(required(onHost(shared)))).toEqual([]);
    expect(run(required(onHost(shared)), { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }] } } })).toEqual([]);
  });

  it("(b) accepts a selector scoped to the application", () => {
    expect(run(required(onHost({ matchLabels: { "app.kubernetes.io/name": "web", "volume-group": "workspaces" } })), tier)).toEqual([]);
    expect(run(required(onHost(shared, { matchLabelKeys: ["app.kubernetes.io/name"] })), tier)).toEqual([]);
  });

  it("(a) warns when the selector matches none of its own pods", () => {
    expect(run(required(onHost({ matchLabels: { app: "redis" } })))).toEqual(["deploy/web: required podAffinity app=redis matches none of its pods: 1st pod waits; fix selector"]);
    expect(run(required(onHost({ matchLabels: { tier: "front" } }, { mismatchLabelKeys: ["tier"] })))).toEqual([
      "deploy/web: required podAffinity tier=front matches none of its pods: 1st pod waits; fix selector",
    ]);
  });

  it("(a) counts the term's namespaces: another namespace's pods only", () => {
    expect(run(required(onHost({ matchLabels: { tier: "front" } }, { namespaces: ["db"] })))).toEqual([
      "deploy/web: required podAffinity tier=front matches none of its pods: 1st pod waits; fix selector",
    ]);
    // A namespaceSelector on other labels may include the own namespace: no claim.
    expect(run(required(onHost({ matchLabels: { tier: "front" } }, { namespaceSelector: { matchLabels: { team: "a" } } })))).toEqual([]);
  });

  it("(c) a missing selector matches no pod; an empty one matches every pod", () => {
    expect(run(required({ topologyKey: "kubernetes.io/hostname" }))).toEqual(["deploy/web: required podAffinity without labelSelector matches no pod: never schedules; add one"]);
    expect(run(required(onHost({})))).toEqual(["deploy/web: required podAffinity labelSelector {} matches every pod; select the pods to join"]);
    expect(run(required(onHost({}, { matchLabelKeys: ["app.kubernetes.io/name"] })), tier)).toEqual([]);
  });

  it("reports each term", () => {
    expect(run(required(onHost(shared), onHost({ matchLabels: { app: "redis" } })), tier)).toEqual([
      "deploy/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app",
      "deploy/web: required podAffinity app=redis matches none of its pods: 1st pod waits; fix selector",
    ]);
  });

  it("ignores preferred podAffinity and anti-affinity", () => {
    expect(run({ podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: onHost({ matchLabels: { app: "redis" } }) }] } }, tier)).toEqual([]);
    expect(run({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [onHost(shared)] } }, tier)).toEqual([]);
  });

  it("judges bare Pods and CronJob templates too", () => {
    expect(run(required(onHost(shared)), tier, "Pod")).toEqual(["pod/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app"]);
    expect(run(required(onHost(shared)), tier, "CronJob")).toEqual(["cj/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app"]);
  });
});
