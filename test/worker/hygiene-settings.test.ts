// The hygiene policies over HTTP: their own endpoints, per-cluster modes from
// the settings ConfigMap, objects made by controllers, and bad input.
import { describe, expect, it } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import recommendedYaml from "../../examples/profiles/recommended.yaml?raw";
import strictYaml from "../../examples/profiles/strict.yaml?raw";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { claim, workload } from "../support/judge.js";
import { bearer, call, objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";

const CLUSTER = "other";
const SURGE = "deploy/web: surge pod + RWO PVC data: Multi-Attach; use Recreate or maxSurge 0";
const SPREAD = "deploy/web: 3 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels";

function settings(data: Record<string, string>): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "edgeadmit-settings", namespace: "edgeadmit-system" }, data };
}

async function pushCluster(modes: Record<string, string> = {}, objects: KubeObject[] = [claim("data")]): Promise<void> {
  expect((await push(CLUSTER, snapshotOf([...objects, settings(modes)]))).status).toBe(200);
}

const review = (object: KubeObject, operation: "CREATE" | "UPDATE" = "CREATE") => wrapReview(object, { namespace: "shop", operation });

describe("the shipped settings profiles", () => {
  const hygiene = (modes: Record<string, string>) => ({
    "pod-affinity-deadlock": modes.deadlock,
    "rwo-rollout": modes.rest,
    "rwo-shared": modes.rest,
    "anti-affinity-drift": modes.rest,
    "ha-spread": modes.spread,
  });
  it.each([
    ["recommended", recommendedYaml, hygiene({ deadlock: "Deny", rest: "Warn", spread: "Audit" })],
    ["strict", strictYaml, hygiene({ deadlock: "Deny", rest: "Deny", spread: "Deny" })],
  ])("%s parses into exactly its modes, with the other settings at their defaults", (_name, yaml, policies) => {
    const { snapshot, problems } = buildSnapshot(objectsFromYaml(yaml), { generation: 1, builtAt: "2026-01-01T00:00:00Z", settingsNamespace: "edgeadmit-system" });
    expect(problems).toEqual([]);
    expect(snapshot.settings).toEqual({ policies, maxAgeSeconds: 3600, onStale: "Warn" });
  });
});

describe("policy endpoints", () => {
  it("serves each hygiene policy at /v1/:cluster/validate/:id", async () => {
    await pushCluster();
    const backend = review(workload({ claims: ["data"] }));
    expect((await validate(CLUSTER, backend, "rwo-rollout")).response).toEqual({ uid: backend.request.uid, allowed: true, warnings: [`rwo-rollout: ${SURGE}`] });
    for (const id of ["rwo-shared", "pod-affinity-deadlock", "anti-affinity-drift", "ha-spread"]) {
      expect((await validate(CLUSTER, backend, id)).response, id).toEqual({ uid: backend.request.uid, allowed: true });
    }
    const replicated = review(workload({ spec: { replicas: 3 } }));
    expect((await validate(CLUSTER, replicated, "ha-spread")).response).toEqual({ uid: replicated.request.uid, allowed: true, auditAnnotations: { "ha-spread": SPREAD } });
  });

  it("lists them when a policy id is unknown", async () => {
    const response = await call(`/v1/${CLUSTER}/validate/rwo`, { method: "POST", body: JSON.stringify(review(workload())), headers: bearer(CLUSTER) });
    expect(response.status).toBe(404);
    const text = await response.text();
    for (const id of ["rwo-rollout", "rwo-shared", "pod-affinity-deadlock", "anti-affinity-drift", "ha-spread"]) expect(text).toContain(id);
  });
});

describe("per-cluster modes from the edgeadmit-settings ConfigMap", () => {
  it("Deny turns a finding into a 403 with the finding as the message", async () => {
    await pushCluster({ "policy.rwo-rollout": "Deny" });
    const backend = review(workload({ claims: ["data"] }));
    expect((await validate(CLUSTER, backend)).response).toEqual({
      uid: backend.request.uid,
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: `rwo-rollout: ${SURGE}` },
    });
  });

  it("Audit records it under the policy id and allows", async () => {
    await pushCluster({ "policy.rwo-rollout": "Audit" });
    const backend = review(workload({ claims: ["data"] }));
    expect((await validate(CLUSTER, backend)).response).toEqual({ uid: backend.request.uid, allowed: true, auditAnnotations: { "rwo-rollout": SURGE } });
  });

  it("Off does not evaluate the policy at all", async () => {
    await pushCluster({ "policy.rwo-rollout": "Off", "policy.ha-spread": "Off" });
    const backend = review(workload({ claims: ["data"], spec: { replicas: 3, strategy: { type: "Recreate" } } }));
    expect((await validate(CLUSTER, backend)).response).toEqual({ uid: backend.request.uid, allowed: true, warnings: ["rwo-shared: deploy/web: 3 pods on RWO PVC data: Multi-Attach; co-locate or use RWX"] });
  });

  it("Warn lifts ha-spread from its default Audit to a warning", async () => {
    await pushCluster({ "policy.ha-spread": "Warn" });
    const replicated = review(workload({ spec: { replicas: 3 } }));
    expect((await validate(CLUSTER, replicated)).response).toEqual({ uid: replicated.request.uid, allowed: true, warnings: [`ha-spread: ${SPREAD}`] });
  });
});

describe("what the policies judge", () => {
  const strict = { "policy.rwo-rollout": "Deny", "policy.rwo-shared": "Deny", "policy.pod-affinity-deadlock": "Deny", "policy.anti-affinity-drift": "Deny", "policy.ha-spread": "Deny" };

  it("leaves a Deployment's ReplicaSet and Pods to the Deployment, so a controller is never blocked mid-rollout", async () => {
    await pushCluster(strict);
    const ownedBy = (kind: string, name: string) => [{ apiVersion: "apps/v1", kind, name, uid: "u", controller: true }];
    const replicaSet = review(workload({ kind: "ReplicaSet", name: "web-5d8f", claims: ["data"], spec: { replicas: 3 }, ownerReferences: ownedBy("Deployment", "web") }));
    const pod = review(workload({ kind: "Pod", name: "web-5d8f-x2", claims: ["data"], ownerReferences: ownedBy("ReplicaSet", "web-5d8f") }));
    for (const r of [replicaSet, pod]) expect((await validate(CLUSTER, r)).response).toEqual({ uid: r.request.uid, allowed: true });
  });

  it("judges a bare Pod on CREATE, naming it by its generateName", async () => {
    await pushCluster(strict);
    const object = workload({ kind: "Pod", labels: { app: "web" }, pod: { nodeSelector: { tier: "low" }, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname" }] } } } });
    const { name: _name, ...metadata } = object.metadata as Record<string, unknown>;
    const generated = review({ ...object, metadata: { ...metadata, generateName: "web-7d4f-" } });
    expect((await validate(CLUSTER, generated)).response.status?.message).toBe(
      "pod-affinity-deadlock: pod/web-7d4f-*: required podAffinity without labelSelector matches no pod: never schedules; add one",
    );
    expect((await validate(CLUSTER, review(object, "UPDATE"))).response.allowed).toBe(true);
  });

  it("answers a malformed rollout field with 400 and the field's path", async () => {
    await pushCluster();
    const response = await call(`/v1/${CLUSTER}/validate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(CLUSTER) },
      body: JSON.stringify(review(workload({ claims: ["data"], spec: { strategy: { rollingUpdate: { maxSurge: "lots" } } } }))),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("spec.strategy.rollingUpdate.maxSurge");
  });
});
