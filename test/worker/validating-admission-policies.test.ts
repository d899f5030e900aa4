// A cluster's own ValidatingAdmissionPolicies over HTTP in workerd, where
// the edge once differed from the apiserver (kubernetes/apiserver
// 24a394e516bf): `request` is typed, so an unknown field is a compile error
// that follows failurePolicy; variables are charged within the expression
// that reads them (pkg/admission/plugin/cel/activation.go:164-201) and
// messageExpressions run after every validation on what the validations
// left (pkg/admission/plugin/policy/validating/validator.go:128-166).
import { describe, expect, it } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { push, snapshotOf, validate } from "../support/worker.js";

const CLUSTER = "other";

const policy = (name: string, spec: Record<string, unknown>): KubeObject[] => [
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }] }, ...spec },
  },
  { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name, validationActions: ["Deny"] } },
];

async function pushed(objects: KubeObject[]) {
  const response = await push(CLUSTER, snapshotOf(objects));
  expect(response.status).toBe(200);
  return (await response.json()) as { boundPolicies: number; policyProblems: string[] };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const deployment = (spec: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec });

async function verdict(object: KubeObject) {
  const { response } = await validate(CLUSTER, wrapReview(object));
  return { allowed: response.allowed, message: response.status?.message };
}

describe("request typed as the apiserver declares it (compile.go:48-89)", () => {
  it("reports an unknown request field as a compile error, which denies under failurePolicy Fail", async () => {
    const answer = await pushed(policy("typed", { validations: [{ expression: "request.foo1 == 'nope'" }] }));
    expect(answer.policyProblems).toEqual(["ValidatingAdmissionPolicy 'typed': validations[0].expression: compilation error: ERROR: <input>:1:8: undefined field 'foo1'"]);
    expect(await verdict(deployment())).toEqual({
      allowed: false,
      message: "ValidatingAdmissionPolicy 'typed' with binding 'typed' denied request: compilation error: ERROR: <input>:1:8: undefined field 'foo1'\n | request.foo1 == 'nope'\n | .......^",
    });
  });
});

describe("the cost budget in the apiserver's order", { timeout: 60_000 }, () => {
  // Each walk costs a little under the per-expression limit (1M): 446 elements cost 996,813 units, 346 elements 600,313.
  const WALK_A = "object.spec.a.all(x, object.spec.a.all(y, y >= 0))";
  const WALK_B = "object.spec.b.all(x, object.spec.b.all(y, y >= 0))";
  const walked = deployment({ a: range(446), b: range(346) });

  it("denies when a variable read by the tenth validation takes the running total past 10M (activation.go:166-174)", async () => {
    await pushed(
      policy("lazy", {
        variables: [{ name: "v", expression: WALK_B }],
        validations: [...Array(9).fill({ expression: WALK_A }), { expression: `variables.v && ${WALK_B}` }],
      }),
    );
    expect(await verdict(walked)).toEqual({
      allowed: false,
      message: "ValidatingAdmissionPolicy 'lazy' with binding 'lazy' denied request: validation failed due to running out of cost budget, no further validation rules will be run",
    });
  });

  const messageAfterAll = (failurePolicy: "Fail" | "Ignore") =>
    policy(`message-${failurePolicy.toLowerCase()}`, {
      failurePolicy,
      validations: [...Array(10).fill({ expression: WALK_A }), { expression: "object.spec.b.size() == 0", message: "static message", messageExpression: `${WALK_B} ? 'dynamic message' : 'x'` }],
    });

  it("admits under failurePolicy Ignore when the messageExpressions run out of what the validations left (validator.go:141, 163-166)", async () => {
    await pushed(messageAfterAll("Ignore"));
    expect(await verdict(walked)).toEqual({ allowed: true, message: undefined });
  });

  it("denies under failurePolicy Fail, every validation with the messageExpression's error", async () => {
    await pushed(messageAfterAll("Fail"));
    expect(await verdict(walked)).toEqual({
      allowed: false,
      message:
        "ValidatingAdmissionPolicy 'message-fail' with binding 'message-fail' denied request: failed messageExpression: validation failed due to running out of cost budget, no further validation rules will be run",
    });
  });
});
