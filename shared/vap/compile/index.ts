// Compiling a cluster's bound policies, once per snapshot: each binding
// checked against its schema and grouped under its policy, each policy's
// expressions compiled with the apiserver's base environment of the cluster's
// Kubernetes version (shared/cel/kubernetes/environment.ts; less the
// authorizer, which needs a live apiserver). Every problem is one line; a
// policy whose expression does not compile is still enforced, and that
// expression's error follows its failurePolicy when it runs.
import { compile, createEnv, declareVariables, type Env, type Program, type TypeName } from "../../cel/index.js";
import { DEFAULT_VERSION, environmentFor, parseVersion, type KubernetesEnvironment } from "../../cel/kubernetes/environment.js";
import { ANNOTATION_FIELD, declarationOf, NO_DECLARATION, type InventoryDeclaration } from "../../inventory/declaration.js";
import { INVENTORY_VARIABLE, inventoryLibrary } from "../../inventory/library.js";
import { describeZodError } from "../../zod/index.js";
import { onlyCredentialsProblem } from "../../admission/credentials.js";
import { bindingObjectSchema, policyObjectSchema, type BindingSpec, type FailurePolicy, type PolicySpec } from "../schema/index.js";
import { policyDeclarations, variableType } from "./types.js";

/** What a policy set is compiled from: the cluster's policies and bindings (cluster-wide, in the snapshot). */
export interface AdmissionPolicySources {
  /** ValidatingAdmissionPolicy objects by name. */
  policies: Readonly<Record<string, unknown>>;
  /** EdgeAdmissionPolicyBinding (and, offline, ValidatingAdmissionPolicyBinding) objects by name. */
  bindings: Readonly<Record<string, unknown>>;
  /** The cluster's Kubernetes version, "major.minor"; DEFAULT_VERSION when absent. */
  kubernetesVersion?: string | undefined;
}

/**
 * The variables of the apiserver's environment a policy's expressions may
 * use (`params` only with a paramKind; `request`, `namespaceObject` and
 * `variables` typed, see types.ts); `authorizer` is not available at the
 * edge, so naming it does not compile.
 */
export const VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables"] as const;

/**
 * The edge's environment for a policy's inventory declaration: the
 * apiserver's variables and the libraries of its version's StoredExpressions
 * environment (the cluster stored the policy; its options, cel.bind off
 * included, come from environmentFor), and `inventory`
 * (shared/inventory), whose calls are checked against the declaration.
 */
const envOf = (declaration: InventoryDeclaration, version: KubernetesEnvironment, costLimit?: number): Env =>
  createEnv({
    ...version.options,
    variables: [...VARIABLES, INVENTORY_VARIABLE],
    libraries: [...version.options.libraries, inventoryLibrary(declaration)],
    ...(costLimit === undefined ? {} : { costLimit }),
  });

/** The environment of every policy without the annotation, per Kubernetes version (a fixed set: environmentFor clamps). */
const plainEnvs = new Map<KubernetesEnvironment, Env>();
const plainEnvOf = (version: KubernetesEnvironment): Env => plainEnvs.get(version) ?? plainEnvs.set(version, envOf(NO_DECLARATION, version)).get(version)!;

/** The environment a cluster's apiserver compiles its stored policies with. */
const clusterEnvironment = (kubernetesVersion: string | undefined): KubernetesEnvironment =>
  environmentFor((kubernetesVersion === undefined ? undefined : parseVersion(kubernetesVersion)) ?? DEFAULT_VERSION, "stored");

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

/** An environment under one policy's declarations, and its compile results by source. */
interface Scope {
  env: Env;
  results: Map<string, ReturnType<typeof compile>>;
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

/** Scopes within one policy set, per environment and declarations' key: policies of one library repeat expressions, and a program is stateless. */
type Compiled = Map<Env, Map<string, Scope>>;

/** The scope of a policy's expressions when `earlier` are the variables they may read, with their types. */
function scopeOf(compiled: Compiled, env: Env, hasParams: boolean, earlier: ReadonlyArray<readonly [string, TypeName]>): Scope {
  const declarations = policyDeclarations([...VARIABLES, INVENTORY_VARIABLE], hasParams, earlier);
  const scopes = compiled.get(env) ?? compiled.set(env, new Map()).get(env)!;
  let scope = scopes.get(declarations.key);
  if (scope === undefined) scopes.set(declarations.key, (scope = { env: declareVariables(env, declarations.variables, declarations.objectTypes), results: new Map() }));
  return scope;
}

/** How a policy set is compiled beyond its sources. */
export interface CompileOptions {
  /** The cost limit of one evaluation, PerCallLimit unless a test of the limit sets a smaller one (as CompileCELExpression's tests do). */
  perCallLimit?: number;
}

function compilePolicy(name: string, object: unknown, spec: PolicySpec, bindings: CompiledPolicy["bindings"], problems: string[], compiled: Compiled, version: KubernetesEnvironment, options: CompileOptions): CompiledPolicy {
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
  const policyEnv = inventory === NO_DECLARATION && options.perCallLimit === undefined ? plainEnvOf(version) : envOf(inventory, version, options.perCallLimit);
  const hasParams = !!spec.paramKind;
  const expression = (source: string, where: string, scope: Scope): Expression => {
    if (declarationError !== undefined) return { source, error: declarationError };
    let result = scope.results.get(source);
    if (result === undefined) scope.results.set(source, (result = compile(source, scope.env)));
    if (result.ok) return { source, program: result.program };
    problems.push(`${subject}: ${where}: compilation error: ${result.error.split("\n")[0]}`);
    return { source, error: result.error };
  };
  // Each variable reads those before it, typed as their expressions (composition.go CompileAndStoreVariable).
  const earlier: Array<[string, TypeName]> = [];
  const variables = spec.variables.map((v, i) => {
    const edge = inventory.variables.get(v.name);
    const scope = scopeOf(compiled, policyEnv, hasParams, earlier);
    const variable = { name: v.name, ...(edge === undefined ? expression(v.expression, `variables[${i}]`, scope) : expression(edge, `${ANNOTATION_FIELD}: variables.${v.name}`, scope)) };
    earlier.push([v.name, variable.program ? variableType(variable.program.type) : "dyn"]);
    return variable;
  });
  const scope = scopeOf(compiled, policyEnv, hasParams, earlier);
  const policy: CompiledPolicy = {
    name,
    spec,
    failurePolicy: spec.failurePolicy ?? "Fail",
    matchConditions: spec.matchConditions.map((c, i) => ({ name: c.name, ...expression(c.expression, `matchConditions[${i}]`, scope) })),
    variables,
    // The first of two variables of one name wins, as a lookup from the front would find it.
    variableIndex: new Map(variables.map((v, i) => [v.name, i] as const).reverse()),
    variableNames: Array.from({ length: variables.length + 1 }, (_, i) => variables.slice(0, i).map((v) => v.name)),
    validations: spec.validations.map((v, i) => ({
      ...expression(v.expression, `validations[${i}].expression`, scope),
      ...(v.message ? { message: v.message } : {}),
      ...(v.messageExpression ? { messageExpression: expression(v.messageExpression, `validations[${i}].messageExpression`, scope) } : {}),
      reason: v.reason || "Invalid",
    })),
    auditAnnotations: spec.auditAnnotations.map((a, i) => ({ key: a.key, ...expression(a.valueExpression, `auditAnnotations[${i}].valueExpression`, scope) })),
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

/** The policies that have at least one binding, compiled in name order, and every problem found on the way; a policy that can only match credentials is not bound. */
export function compilePolicies(sources: AdmissionPolicySources, options: CompileOptions = {}): { policies: CompiledPolicy[]; problems: string[] } {
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
  const version = clusterEnvironment(sources.kubernetesVersion);
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
    const credentialsOnly = onlyCredentialsProblem(parsed.data.spec.matchConstraints.resourceRules);
    if (credentialsOnly !== undefined) {
      problems.push(`ValidatingAdmissionPolicy '${policyName}': ${credentialsOnly}; not enforced`);
      continue;
    }
    policies.push(compilePolicy(policyName, object, parsed.data.spec, bindings, problems, compiled, version, options));
  }
  return { policies: policies.sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}
