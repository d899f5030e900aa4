import { describe, expect, it } from "vitest";
import { judge, workload } from "../../test/support/judge.js";
import { podAffinityDeadlockPolicy } from "./index.js";

const labels = { "app.kubernetes.io/name": "web", "volume-group": "workspaces", tier: "front" };
const required = (...terms: Array<Record<string, unknown>>) => ({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } });
const onHost = (labelSelector: unknown, extra: Record<string, unknown> = {}) => ({ labelSelector, topologyKey: "kubernetes.io/hostname", ...extra });
const run = (affinity: Record<string, unknown>, pod: Record<string, unknown> = {}, kind: "Deployment" | "Pod" | "CronJob" = "Deployment", podLabels: Record<string, string> = labels) =>
  judge(podAffinityDeadlockPolicy, workload({ kind, labels: podLabels, pod: { ...pod, affinity: { ...affinity, ...((pod.affinity as object) ?? {}) } } }));
const shared = { matchExpressions: [{ key: "volume-group", operator: "In", values: ["workspaces"] }] };
const tier = { nodeSelector: { "openms.de/memory-tier": "low" } };
const tierAffinity = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "tier", operator: "In", values: ["low"] }] }] } } } };
const DEADLOCK = "deploy/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app";

describe("pod-affinity-deadlock", () => {
  it("finds a label shared beyond the application, carried by the pod, with a node tier: incident A", () => {
    expect(run(required(onHost(shared)), tier)).toEqual([DEADLOCK]);
    expect(run(required(onHost(shared)), tierAffinity)).toEqual(["deploy/web: required podAffinity on shared volume-group + node affinity: deadlock; select the app"]);
  });

  it("needs the node constraint: without one the first pod may still go anywhere", () => {
    expect(run(required(onHost(shared)))).toEqual([]);
    expect(run(required(onHost(shared)), { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }] } } })).toEqual([]);
  });

  it("accepts a selector scoped to the application", () => {
    expect(run(required(onHost({ matchLabels: { "app.kubernetes.io/name": "web", "volume-group": "workspaces" } })), tier)).toEqual([]);
    expect(run(required(onHost(shared, { matchLabelKeys: ["app.kubernetes.io/name"] })), tier)).toEqual([]);
  });

  it("raises nothing for required affinity to another workload's pods: an ordering dependency, not a deadlock", () => {
    // The Kubernetes docs' web-server joins the store; mysql-router joins the database its tutorial deploys.
    expect(run(required(onHost({ matchExpressions: [{ key: "app", operator: "In", values: ["store"] }] })), {}, "Deployment", { app: "web-store" })).toEqual([]);
    expect(run(required(onHost({ matchLabels: { app: "mysql" } })), tier, "Deployment", { app: "mysql-router" })).toEqual([]);
    // Pods of another namespace, or a label the pod does not carry, even with a node tier.
    expect(run(required(onHost({ matchLabels: { tier: "front" } }, { namespaces: ["db"] })), tier)).toEqual([]);
    expect(run(required(onHost({ matchLabels: { "volume-group": "logs" } })), tier)).toEqual([]);
    // A namespaceSelector on other labels may or may not include the pod's own namespace: no claim.
    expect(run(required(onHost(shared, { namespaceSelector: { matchLabels: { team: "a" } } })), tier)).toEqual([]);
  });

  it("finds a term on its own application's pods beside one on other pods: the first pod must match every term to use the exception", () => {
    expect(run(required(onHost({ matchLabels: { "app.kubernetes.io/name": "web" } }), onHost({ matchLabels: { app: "redis" } })))).toEqual([
      "deploy/web: required podAffinity app.kubernetes.io/name=web (own pods) + app=redis: 1st pod never schedules; drop one",
    ]);
  });

  it("a missing selector matches no pod; an empty one matches every pod", () => {
    expect(run(required({ topologyKey: "kubernetes.io/hostname" }))).toEqual(["deploy/web: required podAffinity without labelSelector matches no pod: never schedules; add one"]);
    expect(run(required(onHost({})))).toEqual(["deploy/web: required podAffinity labelSelector {} matches every pod; select the pods to join"]);
    expect(run(required(onHost({}, { matchLabelKeys: ["app.kubernetes.io/name"] })), tier)).toEqual([]);
  });

  it("reports a few terms and counts the rest, whatever their number", () => {
    expect(run(required(...Array(20_000).fill(onHost(shared))), { nodeSelector: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, "v"])) })).toEqual([
      ...Array(5).fill("deploy/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app"),
      "deploy/web: and 19995 more required podAffinity terms like these",
    ]);
  });

  it("ignores preferred podAffinity and anti-affinity", () => {
    expect(run({ podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: onHost(shared) }] } }, tier)).toEqual([]);
    expect(run({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [onHost(shared)] } }, tier)).toEqual([]);
  });

  it("judges bare Pods and CronJob templates too", () => {
    expect(run(required(onHost(shared)), tier, "Pod")).toEqual(["pod/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app"]);
    expect(run(required(onHost(shared)), tier, "CronJob")).toEqual(["cj/web: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app"]);
  });
});
