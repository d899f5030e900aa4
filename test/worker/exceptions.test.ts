// EdgeAdmissionExceptions over HTTP: the function sets aside exactly the named
// policies for exactly the matched objects, says so in an audit annotation
// (no warning: the exception is the cluster's own decision), and enforces
// everything else as before.
import { describe, expect, it } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { claim, workload } from "../support/judge.js";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";

const CLUSTER = "other";
const SURGE = "rwo-rollout: deploy/web: surge pod + RWO PVC data: Multi-Attach; use Recreate or maxSurge 0";

/** The settings ConfigMap with `data`, a flow mapping's entries. */
const settings = (data: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: edgeadmit-settings, namespace: edgeadmit-system}
data: {${data}}`;

/** A policy on Deployment CREATEs with one validation (and, optionally, one audit annotation), bound at the edge with `actions`. */
const deploymentPolicy = (name: string, actions: string, expression: string, message: string, auditAnnotation?: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: ${JSON.stringify(expression)}, message: ${message}}${auditAnnotation ? `\n  auditAnnotations:\n  - ${auditAnnotation}` : ""}
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}, validationActions: [${actions}]}`;

/** The exception "legacy-web": `policies` set aside for deploy/web in shop. */
const legacyWeb = (policies: string) => `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionException
metadata: {name: legacy-web}
spec:
  policies: [${policies}]
  match:
  - {kinds: [Deployment], namespaces: [shop], names: [web]}
  reason: migrating to a StatefulSet`;

const AT_MOST_ONE_REPLICA = "!has(object.spec.replicas) || object.spec.replicas <= 1";

const STRICT_WITH_EXCEPTION = objectsFromYaml(
  [settings("policy.rwo-rollout: Deny"), deploymentPolicy("max-replicas", "Deny", AT_MOST_ONE_REPLICA, "at most 1 replica"), legacyWeb("rwo-rollout, rwo-shared, max-replicas")].join("\n---\n"),
);

// Two Audit-only policies, one of them exempted: the exempted one's findings and annotations are set aside with it.
const AUDIT_WITH_EXCEPTION = objectsFromYaml(
  [
    settings('policy.ha-spread: "Off"'),
    deploymentPolicy("audit-replicas", "Audit", AT_MOST_ONE_REPLICA, "at most 1 replica", '{key: replicas, valueExpression: "string(object.spec.replicas)"}'),
    deploymentPolicy("audit-owner", "Audit", "has(object.metadata.labels) && 'owner' in object.metadata.labels", "an owner label", '{key: name, valueExpression: "object.metadata.name"}'),
    legacyWeb("audit-replicas"),
  ].join("\n---\n"),
);

const review = (object: KubeObject, namespace = "shop") => wrapReview(object, { namespace, operation: "CREATE" });

describe("EdgeAdmissionException", () => {
  it("exempts the named object from the named policies: allowed, recorded in the auditAnnotation 'exceptions', no warning", async () => {
    expect((await push(CLUSTER, snapshotOf([claim("data"), ...STRICT_WITH_EXCEPTION]))).status).toBe(200);
    const exempt = review(workload({ claims: ["data"], spec: { replicas: 3 } }));
    expect((await validate(CLUSTER, exempt)).response).toEqual({
      uid: exempt.request.uid,
      allowed: true,
      auditAnnotations: { exceptions: "rwo-shared by legacy-web; max-replicas by legacy-web" },
    });
  });

  it("sets aside an exempted Audit policy's validation_failure entry and its own audit annotations, keeping the other policy's", async () => {
    expect((await push(CLUSTER, snapshotOf(AUDIT_WITH_EXCEPTION))).status).toBe(200);
    const exempt = review(workload({ spec: { replicas: 3 } }));
    expect((await validate(CLUSTER, exempt)).response).toEqual({
      uid: exempt.request.uid,
      allowed: true,
      auditAnnotations: {
        "audit-owner.name": "web",
        validation_failure: JSON.stringify([{ message: "an owner label", policy: "audit-owner", binding: "audit-owner", expressionIndex: 0, validationActions: ["Audit"] }]),
        exceptions: "audit-replicas by legacy-web",
      },
    });
    const otherName = review(workload({ name: "api", spec: { replicas: 3 } }));
    expect((await validate(CLUSTER, otherName)).response.auditAnnotations).toEqual({
      "audit-owner.name": "api",
      "audit-replicas.replicas": "3",
      validation_failure: JSON.stringify([
        { message: "an owner label", policy: "audit-owner", binding: "audit-owner", expressionIndex: 0, validationActions: ["Audit"] },
        { message: "at most 1 replica", policy: "audit-replicas", binding: "audit-replicas", expressionIndex: 0, validationActions: ["Audit"] },
      ]),
    });
  });

  it("leaves every other object, and every other policy, enforced", async () => {
    const inLab = <T extends KubeObject>(object: T): T => ({ ...object, metadata: { ...(object["metadata"] as object), namespace: "lab" } });
    expect((await push(CLUSTER, snapshotOf([claim("data"), inLab(claim("data")), ...STRICT_WITH_EXCEPTION]))).status).toBe(200);
    const elsewhere = review(inLab(workload({ claims: ["data"] })), "lab");
    expect((await validate(CLUSTER, elsewhere)).response).toMatchObject({ allowed: false, status: { code: 403, message: SURGE } });
    const otherName = review(workload({ name: "api", claims: ["data"], spec: { replicas: 3 } }));
    expect((await validate(CLUSTER, otherName)).response).toMatchObject({
      allowed: false,
      status: { code: 422, message: "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 1 replica" },
    });
  });
});
