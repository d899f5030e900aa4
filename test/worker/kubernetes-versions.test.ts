// One Kubernetes version per cluster, over HTTP in workerd: two clusters
// whose snapshots carry different versions (as the sync job reads them from
// /version) get their own version's answer for the same policies.
//   containsCIDR: cidr.go:232 compares by overlap since Kubernetes 1.33
//     (kubernetes/apiserver 64791740a; cidr_test.go:156), by the other CIDR's
//     unmasked address before;
//   sort(): ext.Lists v3 is in the environment from 1.34 (base.go:179), an
//     undeclared reference before, so the policy fails by its failurePolicy.
import { describe, expect, it } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";

const POLICIES = objectsFromYaml(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: subnet-inside}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.data.subnet) || cidr('10.0.0.0/8').containsCIDR(object.data.subnet)"
    messageExpression: "'subnet ' + object.data.subnet + ' is outside 10.0.0.0/8'"
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: subnet-inside}
spec:
  policyName: subnet-inside
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: sorted-ports}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.data.ports) || object.data.ports.split(',').map(p, int(p)).sort()[0] >= 1024"
    message: ports below 1024 are reserved
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: sorted-ports}
spec:
  policyName: sorted-ports
  validationActions: [Deny]
`);

const configMap = (data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "net", namespace: "apps" }, data });

/** The policy and binding named `name`. */
const policy = (name: string) => POLICIES.filter((o) => (o.metadata as { name: string }).name === name);

/** Pushes `objects` to `cluster` as a cluster of `version` reports them; the push answer's problems. */
async function pushAs(cluster: "demo" | "other", version: string | undefined, objects = POLICIES) {
  const response = await push(cluster, snapshotOf(objects, version === undefined ? {} : { kubernetesVersion: version }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { policyProblems: string[] }).policyProblems;
}

async function verdict(cluster: "demo" | "other", data: Record<string, string>) {
  const { response } = await validate(cluster, wrapReview(configMap(data), { namespace: "apps" }));
  return { allowed: response.allowed, message: response.status?.message };
}

const SORT_ERROR =
  "ValidatingAdmissionPolicy 'sorted-ports' with binding 'sorted-ports' denied request: compilation error: ERROR: <input>:1:76: undeclared reference to 'sort' (in container '')\n" +
  " | !has(object.data.ports) || object.data.ports.split(',').map(p, int(p)).sort()[0] >= 1024\n" +
  " | ...........................................................................^";

describe("each cluster's Kubernetes version decides its CEL environment", () => {
  it("containsCIDR: false on a 1.32 cluster, true on a 1.35 one, for the same policy and object", async () => {
    expect(await pushAs("demo", "1.32", policy("subnet-inside"))).toEqual([]);
    expect(await pushAs("other", "1.35", policy("subnet-inside"))).toEqual([]);
    expect(await verdict("demo", { subnet: "10.1.0.0/16" })).toEqual({
      allowed: false,
      message: "ValidatingAdmissionPolicy 'subnet-inside' with binding 'subnet-inside' denied request: subnet 10.1.0.0/16 is outside 10.0.0.0/8",
    });
    expect(await verdict("other", { subnet: "10.1.0.0/16" })).toEqual({ allowed: true, message: undefined });
    // Both agree where the versions do: an address with no bits past the prefix, and one outside.
    expect((await verdict("demo", { subnet: "10.0.0.0/16" })).allowed).toBe(true);
    expect((await verdict("other", { subnet: "11.0.0.0/16" })).message).toContain("subnet 11.0.0.0/16 is outside 10.0.0.0/8");
  });

  it("sort(): refused on a 1.33 cluster (its failurePolicy denies), run on 1.34 and later", async () => {
    expect(await pushAs("demo", "1.33")).toEqual([
      "ValidatingAdmissionPolicy 'sorted-ports': validations[0].expression: compilation error: ERROR: <input>:1:76: undeclared reference to 'sort' (in container '')",
    ]);
    expect(await verdict("demo", { ports: "8080,443" })).toEqual({ allowed: false, message: SORT_ERROR });
    expect(await verdict("demo", { ports: "8080,9090" })).toEqual({ allowed: false, message: SORT_ERROR });
    for (const version of ["1.34", "1.37"]) {
      expect(await pushAs("other", version)).toEqual([]);
      expect(await verdict("other", { ports: "8080,443" })).toEqual({ allowed: false, message: "ValidatingAdmissionPolicy 'sorted-ports' with binding 'sorted-ports' denied request: ports below 1024 are reserved" });
      expect(await verdict("other", { ports: "8080,9090" })).toEqual({ allowed: true, message: undefined });
    }
  });

  it("a snapshot without a version (written before it was carried) gets the default, 1.34", async () => {
    expect(await pushAs("demo", undefined)).toEqual([]);
    expect((await verdict("demo", { ports: "8080,9090" })).allowed).toBe(true);
    expect((await verdict("demo", { subnet: "10.1.0.0/16" })).allowed).toBe(true);
  });
});
