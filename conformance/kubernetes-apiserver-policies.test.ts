/// <reference types="vite/client" />
// Kubernetes' own tables for ValidatingAdmissionPolicies, run against the
// code the function runs (conformance/data/kubernetes-apiserver, whose
// README says how each kind is judged): `compile` cases through
// shared/vap/compile (plugin/cel compile_test.go), `vap` and `validator`
// cases through shared/vap/validator's Validate (condition_test.go,
// composition_test.go, validator_test.go) and `budget` cases through its
// phase evaluation (condition.go ForInput, activation.go Evaluate). Every
// counted case must hold; `expr` and `cost` cases are the CEL suite's.
import { describe, expect, it } from "vitest";
import type { Value } from "../shared/cel/index.js";
import { compilePolicies, type CompiledPolicy } from "../shared/vap/compile/index.js";
import { evaluatePhase, validate, type Invocation } from "../shared/vap/validator/index.js";

const DATA = import.meta.glob("./data/kubernetes-apiserver/cases.json", { import: "default", eager: true }) as Record<string, { cases: Case[] }>;

interface Input {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  params: unknown;
  namespaceObject: unknown;
}
interface Named {
  name: string;
  expression: string;
}
interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}
interface Common {
  file: string;
  line: number;
  test: string;
  scope?: string;
}
type Case = Common &
  (
    | { kind: "expr" | "cost" }
    | { kind: "compile"; paramKind: boolean; variants: Array<"expression" | "auditAnnotation">; expr: string; expect: { compiles: true } | { compileErrorContains: string } }
    | {
        kind: "vap";
        failurePolicy: "Fail" | "Ignore";
        paramKind: boolean;
        input: Input;
        variables?: Named[];
        perCallLimit?: number;
        validations: Array<{ expression: string; expect: { value: boolean } | { errorContains: string } }>;
      }
    | {
        kind: "validator";
        input: Input;
        spec: { failurePolicy?: "Fail" | "Ignore"; validations?: Validation[]; auditAnnotations?: Array<{ key: string; valueExpression: string }>; matchConditions?: Named[]; variables?: Named[] };
        expect: { decisions: Array<{ action: "Admit" | "Deny"; messageContains?: string; reason?: string }>; annotations?: Array<{ action: string; value?: string }> };
      }
    | {
        kind: "budget";
        failurePolicy?: "Fail" | "Ignore";
        paramKind: boolean;
        input: Input;
        variables: Named[];
        expressions: string[];
        budget: number;
        expect: { exceedBudget: boolean; errorContains?: string; remaining?: number; results?: Value[] };
      }
  );

const CASES = Object.values(DATA)[0]!.cases;
const KINDS = new Set(["compile", "vap", "validator", "budget"]);
const counted = CASES.filter((c) => KINDS.has(c.kind) && c.scope === undefined);

/** The data writes a long list as {"$range": n}: the ints 0..n-1. */
function expand(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expand);
  if (typeof value !== "object" || value === null) return value;
  const range = (value as { $range?: unknown }).$range;
  if (typeof range === "number") return Array.from({ length: range }, (_, i) => i);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)]));
}

/** A policy with one binding, compiled as the function compiles a snapshot's. */
function compiled(spec: Record<string, unknown>, paramKind: boolean, perCallLimit?: number): CompiledPolicy {
  const policy = {
    metadata: { name: "p" },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] },
      ...(paramKind ? { paramKind: { apiVersion: "v1", kind: "ConfigMap" } } : {}),
      ...spec,
    },
  };
  const binding = { metadata: { name: "b" }, spec: { policyName: "p", validationActions: ["Deny"] } };
  const { policies } = compilePolicies({ policies: { p: policy }, bindings: { b: binding } }, perCallLimit === undefined ? undefined : { perCallLimit });
  return policies[0]!;
}

function invocation(policy: CompiledPolicy, input: Input, costBudget?: number): Invocation {
  const { object, oldObject, request, params, namespaceObject } = expand(input) as Record<keyof Input, Value>;
  return { policy, object, oldObject, request, params, namespaceObject, inventory: null, ...(costBudget === undefined ? {} : { costBudget }) };
}

/** What differs from the case's expectation; empty when it holds. */
function judge(c: Case): string[] {
  const problems: string[] = [];
  switch (c.kind) {
    case "compile":
      for (const variant of c.variants) {
        // compile_test.go:206-214: the audit annotation variant casts the expression to a string.
        const policy = compiled(variant === "expression" ? { validations: [{ expression: c.expr }] } : { auditAnnotations: [{ key: "k", valueExpression: `string(${c.expr})` }] }, c.paramKind);
        const error = (variant === "expression" ? policy.validations[0] : policy.auditAnnotations[0])!.error;
        if ("compiles" in c.expect) {
          if (error !== undefined) problems.push(`${variant}: expected to compile, got ${error}`);
        } else if (!error?.includes(c.expect.compileErrorContains)) problems.push(`${variant}: expected an error containing ${JSON.stringify(c.expect.compileErrorContains)}, got ${error ?? "none"}`);
      }
      break;
    case "vap": {
      const policy = compiled({ failurePolicy: c.failurePolicy, variables: c.variables ?? [], validations: c.validations.map(({ expression }) => ({ expression })) }, c.paramKind, c.perCallLimit);
      const { decisions } = validate(invocation(policy, c.input));
      c.validations.forEach((v, i) => {
        const decision = decisions[i];
        const got = decision === undefined ? "no decision" : decision.action === "Admit" ? "true" : decision.message;
        if ("value" in v.expect) {
          const held = v.expect.value ? decision?.action === "Admit" : decision?.action === "Deny" && decision.message === `failed expression: ${v.expression.trim()}`;
          if (!held) problems.push(`${v.expression}: expected ${v.expect.value}, got ${got}`);
        } else if (decision?.action !== "Deny" || !decision.message.includes(v.expect.errorContains)) problems.push(`${v.expression}: expected an error containing ${JSON.stringify(v.expect.errorContains)}, got ${got}`);
      });
      break;
    }
    case "validator": {
      const { decisions, annotations } = validate(invocation(compiled(c.spec, false), c.input));
      const shown = decisions.map((d) => (d.action === "Admit" ? "Admit" : `Deny(${d.reason}: ${d.message.slice(0, 200)})`));
      const held =
        decisions.length === c.expect.decisions.length &&
        c.expect.decisions.every((want, i) => {
          const got = decisions[i]!;
          if (got.action !== want.action) return false;
          if (got.action === "Admit") return true;
          return (want.messageContains === undefined || got.message.includes(want.messageContains)) && (want.reason === undefined || got.reason === want.reason);
        });
      if (!held) problems.push(`decisions: expected ${JSON.stringify(c.expect.decisions)}, got ${JSON.stringify(shown)}`);
      const wanted = c.expect.annotations ?? [];
      const annotationsHeld = annotations.length === wanted.length && wanted.every((want, i) => annotations[i]!.action === want.action && (want.value === undefined || (annotations[i] as { value?: string }).value === want.value));
      if (!annotationsHeld) problems.push(`annotations: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(annotations)}`);
      break;
    }
    case "budget": {
      const policy = compiled({ failurePolicy: c.failurePolicy ?? "Fail", variables: c.variables, validations: c.expressions.map((expression) => ({ expression })) }, c.paramKind);
      const phase = evaluatePhase(invocation(policy, c.input), policy.validations, c.budget);
      if (c.expect.exceedBudget) {
        if (phase.ok) problems.push(`expected to exceed the budget of ${c.budget}, ${phase.remaining} left`);
        else if (c.expect.errorContains !== undefined && !phase.error.includes(c.expect.errorContains)) problems.push(`expected an error containing ${JSON.stringify(c.expect.errorContains)}, got ${phase.error}`);
        break;
      }
      if (!phase.ok) {
        problems.push(`expected to stay within the budget of ${c.budget}, got ${phase.error}`);
        break;
      }
      if (c.expect.remaining !== undefined && phase.remaining !== c.expect.remaining) problems.push(`expected ${c.expect.remaining} left, got ${phase.remaining}`);
      const values = phase.results.map((r) => (r.ok ? r.value : r.error));
      if (c.expect.results !== undefined && JSON.stringify(values) !== JSON.stringify(c.expect.results)) problems.push(`expected results ${JSON.stringify(c.expect.results)}, got ${JSON.stringify(values)}`);
      break;
    }
  }
  return problems;
}

describe("Kubernetes' policy tables through shared/vap", () => {
  const held = new Map<string, { held: number; total: number }>();

  for (const c of counted) {
    it(`${c.kind} ${c.file}:${c.line} ${c.test}`, () => {
      const problems = judge(c);
      const tally = held.get(c.file) ?? { held: 0, total: 0 };
      tally.total++;
      if (problems.length === 0) tally.held++;
      held.set(c.file, tally);
      expect(problems).toEqual([]);
    });
  }

  it("reports each file's pass count", () => {
    for (const [file, { held: n, total }] of [...held].sort()) console.log(`kubernetes-apiserver ${file}: ${n} of ${total} cases hold`);
    // The four kinds of the README: 60 compile, 27 vap, 34 validator, 14 budget cases.
    expect(counted.length).toBe(135);
  });
});
