// Compiling a cluster's bound policies, once per snapshot: each binding
// checked against its schema and grouped under its policy, each policy's
// expressions compiled with the apiserver's base environment (less the
// authorizer, which needs a live apiserver). Every problem is one line; a
// policy whose expression does not compile is still enforced, and that
// expression's error follows its failurePolicy when it runs.
import { compile, createEnv, type Program } from "../../cel/index.js";
import { KUBERNETES_LIBRARIES } from "../../cel/kubernetes/index.js";
import { describeZodError } from "../../zod/index.js";
import { bindingObjectSchema, policyObjectSchema, type BindingSpec, type FailurePolicy, type PolicySpec } from "../schema/index.js";

/** What a policy set is compiled from: the cluster's policies and bindings (cluster-wide, in the snapshot). */
export interface AdmissionPolicySources {
  /** ValidatingAdmissionPolicy objects by name. */
  policies: Readonly<Record<string, unknown>>;
  /** EdgeAdmissionPolicyBinding (and, offline, ValidatingAdmissionPolicyBinding) objects by name. */
  bindings: Readonly<Record<string, unknown>>;
}

/** The variables a policy's expressions may use; `authorizer` is not available at the edge, so naming it does not compile. */
export const VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables"] as const;

const env = createEnv({ variables: VARIABLES, libraries: KUBERNETES_LIBRARIES });

/** An expression and what compiling it gave. */
export interface Expression {
  source: string;
  program?: Program;
  error?: string;
}

export interface CompiledPolicy {
  name: string;
  spec: PolicySpec;
  failurePolicy: FailurePolicy;
  matchConditions: Array<Expression & { name: string }>;
  variables: Array<Expression & { name: string }>;
  /** Each variable's position in `variables`, by name. */
  variableIndex: ReadonlyMap<string, number>;
  /** variableNames[i]: the names of the first i variables, those variable i may read. */
  variableNames: ReadonlyArray<readonly string[]>;
  validations: Array<Expression & { message?: string; messageExpression?: Expression; reason: string }>;
  auditAnnotations: Array<Expression & { key: string }>;
  /** Whether any expression reads namespaceObject: only then must the snapshot know the namespace. */
  readsNamespace: boolean;
  bindings: Array<{ name: string; spec: BindingSpec }>;
}

/** Compile results by source within one policy set: policies of one library repeat expressions, and a program is stateless. */
type Compiled = Map<string, ReturnType<typeof compile>>;

function compilePolicy(name: string, spec: PolicySpec, bindings: CompiledPolicy["bindings"], problems: string[], compiled: Compiled): CompiledPolicy {
  const subject = `ValidatingAdmissionPolicy '${name}'`;
  const expression = (source: string, where: string): Expression => {
    let result = compiled.get(source);
    if (result === undefined) compiled.set(source, (result = compile(source, env)));
    if (result.ok) return { source, program: result.program };
    problems.push(`${subject}: ${where}: compilation error: ${result.error.split("\n")[0]}`);
    return { source, error: result.error };
  };
  const variables = spec.variables.map((v, i) => ({ name: v.name, ...expression(v.expression, `variables[${i}]`) }));
  const policy: CompiledPolicy = {
    name,
    spec,
    failurePolicy: spec.failurePolicy ?? "Fail",
    matchConditions: spec.matchConditions.map((c, i) => ({ name: c.name, ...expression(c.expression, `matchConditions[${i}]`) })),
    variables,
    // The first of two variables of one name wins, as a lookup from the front would find it.
    variableIndex: new Map(variables.map((v, i) => [v.name, i] as const).reverse()),
    variableNames: Array.from({ length: variables.length + 1 }, (_, i) => variables.slice(0, i).map((v) => v.name)),
    validations: spec.validations.map((v, i) => ({
      ...expression(v.expression, `validations[${i}].expression`),
      ...(v.message ? { message: v.message } : {}),
      ...(v.messageExpression ? { messageExpression: expression(v.messageExpression, `validations[${i}].messageExpression`) } : {}),
      reason: v.reason || "Invalid",
    })),
    auditAnnotations: spec.auditAnnotations.map((a, i) => ({ key: a.key, ...expression(a.valueExpression, `auditAnnotations[${i}].valueExpression`) })),
    readsNamespace: false,
    bindings,
  };
  const expressions = [...policy.matchConditions, ...policy.variables, ...policy.validations, ...policy.validations.flatMap((v) => v.messageExpression ?? []), ...policy.auditAnnotations];
  policy.readsNamespace = expressions.some((e) => e.program?.variables.has("namespaceObject"));
  if (spec.matchConstraints.resourceRules.length === 0) problems.push(`${subject}: spec.matchConstraints.resourceRules is required; the policy matches nothing`);
  return policy;
}

/** The policies that have at least one binding, compiled in name order, and every problem found on the way. */
export function compilePolicies(sources: AdmissionPolicySources): { policies: CompiledPolicy[]; problems: string[] } {
  const problems: string[] = [];
  const bindingsByPolicy = new Map<string, CompiledPolicy["bindings"]>();
  for (const name of Object.keys(sources.bindings).sort()) {
    const parsed = bindingObjectSchema.safeParse(sources.bindings[name]);
    if (!parsed.success) {
      problems.push(`binding '${name}': ${describeZodError(parsed.error)}`);
      continue;
    }
    const list = bindingsByPolicy.get(parsed.data.spec.policyName) ?? [];
    list.push({ name, spec: parsed.data.spec });
    bindingsByPolicy.set(parsed.data.spec.policyName, list);
  }
  const policies: CompiledPolicy[] = [];
  const compiled: Compiled = new Map();
  for (const [policyName, bindings] of bindingsByPolicy) {
    const object = Object.hasOwn(sources.policies, policyName) ? sources.policies[policyName] : undefined;
    if (object === undefined) {
      problems.push(`binding${bindings.length > 1 ? "s" : ""} ${bindings.map((b) => `'${b.name}'`).join(", ")}: ValidatingAdmissionPolicy '${policyName}' not found; not enforced`);
      continue;
    }
    const parsed = policyObjectSchema.safeParse(object);
    if (!parsed.success) {
      problems.push(`ValidatingAdmissionPolicy '${policyName}': ${describeZodError(parsed.error)}; not enforced`);
      continue;
    }
    policies.push(compilePolicy(policyName, parsed.data.spec, bindings, problems, compiled));
  }
  return { policies: policies.sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}
