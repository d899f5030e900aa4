// Compiling a cluster's bound policies, once per snapshot: each binding
// checked against its schema and grouped under its policy, each policy's
// expressions compiled with the apiserver's base environment (less the
// authorizer, which needs a live apiserver). Every problem is one line; a
// policy whose expression does not compile is still enforced, and that
// expression's error follows its failurePolicy when it runs.
import { compile, createEnv, type Env, type Program } from "../../cel/index.js";
import { KUBERNETES_LIBRARIES } from "../../cel/kubernetes/index.js";
import { ANNOTATION_FIELD, declarationOf, NO_DECLARATION, type InventoryDeclaration } from "../../inventory/declaration.js";
import { INVENTORY_VARIABLE, inventoryLibrary } from "../../inventory/library.js";
import { describeZodError } from "../../zod/index.js";
import { bindingObjectSchema, policyObjectSchema, type BindingSpec, type FailurePolicy, type PolicySpec } from "../schema/index.js";

/** What a policy set is compiled from: the cluster's policies and bindings (cluster-wide, in the snapshot). */
export interface AdmissionPolicySources {
  /** ValidatingAdmissionPolicy objects by name. */
  policies: Readonly<Record<string, unknown>>;
  /** EdgeAdmissionPolicyBinding (and, offline, ValidatingAdmissionPolicyBinding) objects by name. */
  bindings: Readonly<Record<string, unknown>>;
}

/** The variables of the apiserver's environment a policy's expressions may use; `authorizer` is not available at the edge, so naming it does not compile. */
export const VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables"] as const;

/**
 * The edge's environment for a policy's inventory declaration: the
 * apiserver's variables and libraries, and `inventory` (shared/inventory),
 * whose calls are checked against the declaration.
 */
const envOf = (declaration: InventoryDeclaration): Env =>
  createEnv({ variables: [...VARIABLES, INVENTORY_VARIABLE], libraries: [...KUBERNETES_LIBRARIES, inventoryLibrary(declaration)] });

/** The environment of every policy without the annotation. */
const env = envOf(NO_DECLARATION);

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
  /** What the policy declares of the inventory (edgeadmit.io/inventory). */
  inventory: InventoryDeclaration;
  /** Whether any expression reads `inventory`: only then does an invocation get one. */
  readsInventory: boolean;
  bindings: Array<{ name: string; spec: BindingSpec }>;
}

/** `; did you mean "x"?` for the declared name one or two edits from `name` (a typo), else nothing. */
function closest(name: string, names: readonly string[]): string {
  const near = names.find((candidate) => editDistanceAtMost(name, candidate, 2));
  return near === undefined ? "" : `; did you mean "${near}"?`;
}

/** Whether `a` becomes `b` in at most `limit` single-character insertions, deletions or substitutions (names are short: capped at 63). */
function editDistanceAtMost(a: string, b: string, limit: number): boolean {
  if (Math.abs(a.length - b.length) > limit || a.length > 63 || b.length > 63) return false;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]! <= limit;
}

/** Compile results by source within one policy set, per environment: policies of one library repeat expressions, and a program is stateless. */
type Compiled = Map<Env, Map<string, ReturnType<typeof compile>>>;

function compilePolicy(name: string, object: unknown, spec: PolicySpec, bindings: CompiledPolicy["bindings"], problems: string[], compiled: Compiled): CompiledPolicy {
  const subject = `ValidatingAdmissionPolicy '${name}'`;
  // A declaration that cannot be used is a compile error of every expression: the policy then follows its failurePolicy.
  // So is an annotation variable that names no spec.variables entry: the stand-in the apiserver compiles (often `[]`)
  // would otherwise run at the edge and let through what the author meant to deny.
  const declared = declarationOf(object);
  const inventory = typeof declared === "string" ? NO_DECLARATION : declared;
  const stray = [...inventory.variables.keys()].find((variable) => !spec.variables.some((v) => v.name === variable));
  const declarationError =
    typeof declared === "string"
      ? declared
      : stray !== undefined
        ? `${ANNOTATION_FIELD}: variables.${stray}: spec.variables declares no variable of that name (the annotation replaces a declared variable's expression at the edge${closest(stray, spec.variables.map((v) => v.name))})`
        : undefined;
  if (declarationError !== undefined) problems.push(`${subject}: ${declarationError}`);
  const policyEnv = inventory === NO_DECLARATION ? env : envOf(inventory);
  const results = compiled.get(policyEnv) ?? compiled.set(policyEnv, new Map()).get(policyEnv)!;
  const expression = (source: string, where: string): Expression => {
    if (declarationError !== undefined) return { source, error: declarationError };
    let result = results.get(source);
    if (result === undefined) results.set(source, (result = compile(source, policyEnv)));
    if (result.ok) return { source, program: result.program };
    problems.push(`${subject}: ${where}: compilation error: ${result.error.split("\n")[0]}`);
    return { source, error: result.error };
  };
  const variables = spec.variables.map((v, i) => {
    const edge = inventory.variables.get(v.name);
    return { name: v.name, ...(edge === undefined ? expression(v.expression, `variables[${i}]`) : expression(edge, `${ANNOTATION_FIELD}: variables.${v.name}`)) };
  });
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
    inventory,
    readsInventory: false,
    bindings,
  };
  const expressions = [...policy.matchConditions, ...policy.variables, ...policy.validations, ...policy.validations.flatMap((v) => v.messageExpression ?? []), ...policy.auditAnnotations];
  policy.readsNamespace = expressions.some((e) => e.program?.variables.has("namespaceObject"));
  policy.readsInventory = expressions.some((e) => e.program?.variables.has(INVENTORY_VARIABLE));
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
    policies.push(compilePolicy(policyName, object, parsed.data.spec, bindings, problems, compiled));
  }
  return { policies: policies.sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}
