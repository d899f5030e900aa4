// judgeObjects: every object's verdict as the webhook would give it, built-in
// policies and the cluster's own ValidatingAdmissionPolicies alike, with an
// unreadable object recorded rather than ending the run.
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import type { Finding, Policy } from "../policy/index.js";
import { buildSnapshot, type KubeObject } from "../snapshot/builder/index.js";
import { InvalidObjectError } from "../k8s/workload/index.js";
import { judgeObjects } from "./index.js";

const yaml = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as KubeObject);

/** Built a day ago: the judge's clock is the snapshot's, so it is never stale. */
const snapshotOf = (objects: readonly KubeObject[]) =>
  buildSnapshot(objects, { generation: 1, builtAt: new Date(Date.now() - 86_400_000).toISOString() }).snapshot;

const deployment = (name: string, replicas: number, namespace?: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "nginx" }] } } },
});

/** A policy on Deployments that finds what `findingsFor` says for the object's name. */
const deploymentPolicy = (id: string, defaultMode: Policy["defaultMode"], findingsFor: (name: string) => Finding[]): Policy => ({
  id,
  description: "a policy for tests",
  defaultMode,
  matches: (request) => request.kind.kind === "Deployment",
  evaluate: (request) => findingsFor(request.name ?? ""),
});

const everyOne = deploymentPolicy("replicas", "Warn", (name) => [{ message: `deploy ${name} looked at`, field: "spec.replicas" }]);
const unreadable = deploymentPolicy("picky", "Deny", (name) => {
  if (name === "broken") throw new InvalidObjectError("request.object is not a valid Deployment: spec.template: expected object");
  return [];
});

describe("judgeObjects", () => {
  it("gives each object its results and the webhook's decision, in input order, with the mode the snapshot's settings give", () => {
    const settings: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "edgeadmit-settings", namespace: "edgeadmit-system" }, data: { "policy.replicas": "Audit" } };
    const judged = judgeObjects([deployment("web", 1, "shop"), deployment("api", 2, "shop")], snapshotOf([]), { policies: [everyOne] });
    expect(judged.map(({ ref, results, decision }) => ({ ref, results, decision }))).toEqual([
      {
        ref: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" },
        results: [{ policy: "replicas", mode: "Warn", message: "deploy web looked at", field: "spec.replicas" }],
        decision: { allowed: true, warnings: ["replicas: deploy web looked at"], auditAnnotations: {} },
      },
      {
        ref: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "api" },
        results: [{ policy: "replicas", mode: "Warn", message: "deploy api looked at", field: "spec.replicas" }],
        decision: { allowed: true, warnings: ["replicas: deploy api looked at"], auditAnnotations: {} },
      },
    ]);
    const audited = judgeObjects([deployment("web", 1, "shop")], snapshotOf([settings]), { policies: [everyOne] });
    expect(audited[0]!.decision).toEqual({ allowed: true, warnings: [], auditAnnotations: { replicas: "deploy web looked at" } });
  });

  it("records an object no policy can read as its error and judges the others", () => {
    const judged = judgeObjects([deployment("broken", 1, "shop"), deployment("fine", 1, "shop")], snapshotOf([]), { policies: [unreadable, everyOne] });
    expect(judged.map(({ ref, error, decision }) => ({ name: ref.name, error, allowed: decision?.allowed }))).toEqual([
      { name: "broken", error: "request.object is not a valid Deployment: spec.template: expected object", allowed: undefined },
      { name: "fine", error: undefined, allowed: true },
    ]);
    expect(judged[0]!.results).toEqual([]);
  });

  it("gives objects no policy looks at no results, and takes the namespace from the object only", () => {
    const configMap: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "app-config" }, data: {} };
    const [judged] = judgeObjects([configMap], snapshotOf([]), { policies: [everyOne] });
    expect(judged).toEqual({ object: configMap, ref: { apiVersion: "v1", kind: "ConfigMap", name: "app-config" }, results: [], skipped: [], decision: { allowed: true, warnings: [], auditAnnotations: {} } });
  });

  it("judges with the snapshot's ValidatingAdmissionPolicies when no policy is passed, a ValidatingAdmissionPolicyBinding counting offline", () => {
    const cluster = yaml(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
    message: at most 5 replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-warn}
spec:
  policyName: max-replicas
  validationActions: [Warn]
`);
    const judged = judgeObjects([deployment("big", 10, "shop"), deployment("small", 2, "shop")], snapshotOf(cluster));
    expect(judged.map(({ results }) => results)).toEqual([
      [{ policy: "max-replicas", origin: "ValidatingAdmissionPolicy", binding: "max-replicas-warn", mode: "Warn", message: "at most 5 replicas" }],
      [],
    ]);
    expect(judged[0]!.decision?.warnings).toEqual(["Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-warn': at most 5 replicas"]);
  });

  it("hands policies the object as the apiserver serves it: quantities canonical, numbers read as the apiserver reads them", () => {
    const cluster = yaml(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: requests}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: "object.spec.template.spec.containers.all(c, c.resources.requests.cpu == '500m' && c.resources.requests.memory == '1G' && c.resources.limits['google.com/tpu'] == '8')"
    messageExpression: "'got ' + object.spec.template.spec.containers.map(c, c.resources.requests.cpu + '/' + c.resources.requests.memory).join(', ')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: requests}
spec: {policyName: requests, validationActions: [Deny]}
`);
    const withRequests = (requests: Record<string, unknown>): KubeObject => {
      const object = deployment("web", 1, "shop");
      (object as { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } }).spec.template.spec.containers[0]!.resources = { requests, limits: { "google.com/tpu": 8 } };
      return object;
    };
    const asWritten = withRequests({ cpu: 0.5, memory: 1e9 });
    const judged = judgeObjects([asWritten, withRequests({ cpu: "0.5", memory: "1000M" }), withRequests({ cpu: "1", memory: 1e9 })], snapshotOf(cluster));
    expect(judged.map(({ results }) => results.map((result) => result.message))).toEqual([[], [], ["got 1/1G"]]);
    // The caller's object is left as written.
    expect((asWritten as { spec: { template: { spec: { containers: Array<{ resources: unknown }> } } } }).spec.template.spec.containers[0]!.resources).toEqual({ requests: { cpu: 0.5, memory: 1e9 }, limits: { "google.com/tpu": 8 } });
  });
});
