// The validator's budget arithmetic against the apiserver's code
// (kubernetes/apiserver at 24a394e516bf): what each phase charges, in which
// order, and what an exhausted budget decides under each failurePolicy.
import { describe, expect, it } from "vitest";
import type { Value } from "../../cel/index.js";
import { compilePolicies } from "../compile/index.js";
import { evaluatePhase, OUT_OF_BUDGET, validate } from "./index.js";

function policyOf(spec: Record<string, unknown>) {
  const policy = { metadata: { name: "p" }, spec: { matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] }, ...spec } };
  const { policies, problems } = compilePolicies({ policies: { p: policy }, bindings: { b: { metadata: { name: "b" }, spec: { policyName: "p", validationActions: ["Deny"] } } } });
  expect(problems).toEqual([]);
  return policies[0]!;
}

const invocation = (spec: Record<string, unknown>, object: Value, costBudget?: number) => ({
  policy: policyOf(spec),
  object,
  oldObject: null,
  request: { operation: "CREATE" },
  params: null,
  namespaceObject: null,
  inventory: null,
  ...(costBudget === undefined ? {} : { costBudget }),
});

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** Walks a list of n ints: 3n+2 units in cel-go's model (each step: x, x >= 0, &&), a little under the per-call limit for n = 199799. */
const WALK_A = "object.a.all(x, x >= 0)";
const WALK_B = "object.b.all(x, x >= 0)";
const big = { a: range(199_799), b: range(120_000) };

describe("the cost budget, charged as the apiserver charges it", () => {
  it("charges a variable within the expression that first reads it, and only once (composition_test.go:99, :114; activation.go:164-201)", () => {
    const endpoints = { metadata: { name: "endpoints1" } };
    const variables = [{ name: "name", expression: "object.metadata.name" }];
    const once = { variables, validations: [{ expression: "variables.name == 'endpoints1'" }] };
    expect(evaluatePhase(invocation(once, endpoints), policyOf(once).validations, 4)).toEqual({ ok: false, error: OUT_OF_BUDGET });
    const twice = { variables, validations: [{ expression: "variables.name == 'endpoints1' && variables.name == 'endpoints1' " }] };
    const phase = evaluatePhase(invocation(twice, endpoints), policyOf(twice).validations, 10);
    expect(phase.ok && phase.results.map((r) => r.ok && r.value)).toEqual([true]);
  });

  it("denies when variables push the running total past 10M, though each expression stays under its own limit (activation.go:166-174)", () => {
    const spec = { variables: [{ name: "v", expression: WALK_B }], validations: [...Array<{ expression: string }>(9).fill({ expression: WALK_A }), { expression: `variables.v && ${WALK_B}` }] };
    expect(validate(invocation(spec, big))).toEqual({ decisions: [{ action: "Deny", message: OUT_OF_BUDGET, reason: "Invalid", expressionIndex: 0 }], annotations: [] });
    // Without the variable, the same walks fit.
    const without = { validations: [...spec.validations.slice(0, 9), { expression: WALK_B }] };
    expect(validate(invocation(without, big)).decisions).toEqual(Array(10).fill({ action: "Admit" }));
  });

  const tenWalks = (failurePolicy: "Fail" | "Ignore") => ({
    failurePolicy,
    validations: [
      ...Array<{ expression: string }>(9).fill({ expression: WALK_A }),
      { expression: WALK_B },
      { expression: "object.b.size() == 0", message: "static message", messageExpression: `${WALK_B} ? 'dynamic message' : 'x'` },
    ],
  });

  it("runs messageExpressions after every validation on what they left, and an exhausted budget there decides every validation by failurePolicy (validator.go:128-166)", () => {
    expect(validate(invocation(tenWalks("Fail"), big)).decisions).toEqual(
      range(11).map((expressionIndex) => ({ action: "Deny", message: `failed messageExpression: ${OUT_OF_BUDGET}`, reason: "Invalid", expressionIndex })),
    );
    // failurePolicy Ignore: the apiserver admits, so the edge must too, though the last validation is false.
    expect(validate(invocation(tenWalks("Ignore"), big)).decisions).toEqual(Array(11).fill({ action: "Admit" }));
  });

  it("gives the messageExpressions the budget the validations left, not a fresh one (validator.go:141)", () => {
    const spec = { validations: [{ expression: "object.b.size() == 0", messageExpression: "'has ' + string(size(object.b))" }] };
    expect(validate(invocation(spec, big)).decisions).toEqual([{ action: "Deny", message: "has 120000", reason: "Invalid", expressionIndex: 0 }]);
    // The validation costs 3 of 5; the message needs 4 (object.b, size, string, +): the phase runs out.
    expect(validate(invocation(spec, big, 5)).decisions).toEqual([{ action: "Deny", message: `failed messageExpression: ${OUT_OF_BUDGET}`, reason: "Invalid", expressionIndex: 0 }]);
  });

  it("computes the variables again for the messageExpressions: each phase is its own composition (composition.go:210-213)", () => {
    const spec = { variables: [{ name: "v", expression: WALK_A }], validations: [{ expression: "variables.v && false", messageExpression: "variables.v ? 'walked' : 'x'" }] };
    const walk = evaluatePhase(invocation({ validations: [{ expression: WALK_A }] }, big), policyOf({ validations: [{ expression: WALK_A }] }).validations, 10_000_000);
    if (!walk.ok) throw new Error(walk.error);
    const cost = 10_000_000 - walk.remaining;
    // Enough for the variable once and both expressions, not for the variable twice.
    expect(validate(invocation(spec, big, cost + 10)).decisions).toEqual([{ action: "Deny", message: `failed messageExpression: ${OUT_OF_BUDGET}`, reason: "Invalid", expressionIndex: 0 }]);
    expect(validate(invocation(spec, big, 2 * cost + 10)).decisions).toEqual([{ action: "Deny", message: "walked", reason: "Invalid", expressionIndex: 0 }]);
  });

  it("gives matchConditions their own 2.5M budget and no namespaceObject (matchconditions/matcher.go:82-85)", () => {
    const spec = { matchConditions: [1, 2, 3].map((i) => ({ name: `m${i}`, expression: WALK_A })), validations: [{ expression: "true" }] };
    expect(validate(invocation(spec, big)).decisions).toEqual([{ action: "Deny", message: OUT_OF_BUDGET, reason: "Invalid", expressionIndex: 0 }]);
    const ns = { ...invocation({ matchConditions: [{ name: "m", expression: "namespaceObject == null" }], validations: [{ expression: "namespaceObject != null" }] }, {}), namespaceObject: { metadata: { name: "shop" } } };
    expect(validate(ns).decisions).toEqual([{ action: "Admit" }]);
  });
});
