// A cluster's own ValidatingAdmissionPolicies, bound at the edge, evaluated
// as the apiserver evaluates them (k8s.io/apiserver policy/validating:
// dispatcher, validator, matching; plugin/cel: filter, composition): match
// (matchConstraints, then each binding's matchResources) → params →
// matchConditions → validations → the binding's validationActions. A
// policy's own failures (a configuration error, an expression that does not
// compile or fails) follow its failurePolicy inside the decision.
//
// Compiled once per snapshot and indexed by the resources the policies can
// select, so a request reaches only the policies that may match it.
import type { AdmissionRequest } from "../admission/index.js";
import {
  compile,
  createBudget,
  createEnv,
  EvalError,
  LazyMap,
  RUNTIME_COST_BUDGET,
  typeOf,
  type Activation,
  type Budget,
  type Program,
  type Value,
} from "../cel/index.js";
import { kubernetesLibraries } from "../cel/lib/index.js";
import { selectorMatches, type Labels } from "../k8s/labels/index.js";
import { compileRegex } from "../re2/index.js";
import { describeZodError } from "../zod/index.js";
import { matchResources, requestKeys, ruleKeys, type NamespaceLabels } from "./match/index.js";
import {
  bindingObjectSchema,
  policyObjectSchema,
  type BindingSpec,
  type FailurePolicy,
  type NamedRule,
  type PolicySpec,
  type ValidationAction,
} from "./schema/index.js";

export * from "./schema/index.js";

/** What a policy set is compiled from: the cluster's policies and bindings (cluster-wide, in the snapshot). */
export interface AdmissionPolicySources {
  /** ValidatingAdmissionPolicy objects by name. */
  policies: Readonly<Record<string, unknown>>;
  /** EdgeAdmissionPolicyBinding (and, offline, ValidatingAdmissionPolicyBinding) objects by name. */
  bindings: Readonly<Record<string, unknown>>;
}

/**
 * What evaluating needs to know of the cluster beyond the policies, looked up
 * per review: a snapshot view answers it, whether it holds the whole snapshot
 * or only the parts a review loaded.
 */
export interface PolicyFacts {
  /** The Namespace object named `name` as the snapshot holds it (labels for namespaceSelector, the object for namespaceObject), or undefined. */
  namespace(name: string): unknown;
  /** Whether objects of a paramKind (`<apiVersion>/<kind>`) are namespaced; undefined when the snapshot does not know the kind (not listed). */
  paramKindNamespaced(kind: string): boolean | undefined;
  /** The param objects of a known kind: those in `namespace` for a namespaced kind, all of them (namespace undefined) for a cluster-scoped one. */
  paramObjects(kind: string, namespace: string | undefined): readonly unknown[];
}

/** One evaluation's outcome: per-policy results, as for built-in policies, and the audit annotations the apiserver would add. */
export interface PolicyOutcome {
  policy: string;
  binding?: string;
  action: ValidationAction;
  message: string;
  /** A denial's status: the validation's reason (default Invalid) and its HTTP code. */
  status?: { code: number; reason: string };
}

export interface PolicySetOutcome {
  outcomes: PolicyOutcome[];
  /** Audit annotations, keyed as a webhook may key them (no "/"): `validation_failure` and the policies' own (see auditKey). */
  auditAnnotations: Record<string, string>;
}

/** The variables a policy's expressions may use; `authorizer` is not available at the edge, so naming it does not compile. */
export const VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables"] as const;

const env = createEnv({ variables: VARIABLES, libraries: kubernetesLibraries(compileRegex), regex: compileRegex });

/** apiserver's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;
/** apiserver's maxAuditAnnotationValueLength. */
const MAX_AUDIT_VALUE_LENGTH = 10 * 1024;

const REASON_CODES: Readonly<Record<string, number>> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };
const codeOf = (reason: string) => REASON_CODES[reason] ?? 422;

/** An expression and what compiling it gave. */
interface Expression {
  source: string;
  program?: Program;
  error?: string;
}

function compiled(source: string): Expression {
  const result = compile(source, env);
  return result.ok ? { source, program: result.program } : { source, error: result.error };
}

interface CompiledPolicy {
  name: string;
  spec: PolicySpec;
  failurePolicy: FailurePolicy;
  matchConditions: Array<Expression & { name: string }>;
  variables: Array<Expression & { name: string }>;
  validations: Array<Expression & { message?: string; messageExpression?: Expression; reason: string }>;
  auditAnnotations: Array<Expression & { key: string }>;
  /** Whether any expression reads namespaceObject: only then must the snapshot know the namespace. */
  readsNamespace: boolean;
  bindings: Array<{ name: string; spec: BindingSpec }>;
}

/** A cluster's bound policies, compiled, with what could not be used. */
export interface CompiledPolicySet {
  /** One line per problem: a policy or binding that is malformed, or an expression that does not compile. */
  problems: string[];
  /** How many policies are bound at the edge. */
  bound: number;
  /** Each bound policy's matchConstraints.resourceRules: what the webhook configuration must send the function. */
  readonly rules: ReadonlyArray<{ policy: string; rule: NamedRule }>;
  /** Whether some bound policy's rules name the request's resource: a cheap test before any matching. */
  mayMatch(request: AdmissionRequest): boolean;
  evaluate(request: AdmissionRequest, facts: PolicyFacts): PolicySetOutcome;
}

const compiledSets = new WeakMap<object, CompiledPolicySet>();

/** The snapshot's policy set, compiled on first use and kept as long as the snapshot (or its cluster-wide part) is. */
export function policySetOf(snapshot: AdmissionPolicySnapshot): CompiledPolicySet {
  let set = compiledSets.get(snapshot);
  if (!set) {
    set = compilePolicySet({ policies: snapshot.validatingAdmissionPolicies, bindings: snapshot.policyBindings });
    compiledSets.set(snapshot, set);
  }
  return set;
}

/** The snapshot fields a policy set is compiled from. */
export interface AdmissionPolicySnapshot {
  validatingAdmissionPolicies: Readonly<Record<string, unknown>>;
  policyBindings: Readonly<Record<string, unknown>>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function compilePolicy(name: string, spec: PolicySpec, problems: string[]): CompiledPolicy {
  const subject = `ValidatingAdmissionPolicy '${name}'`;
  const expression = (source: string, where: string) => {
    const result = compiled(source);
    if (result.error) problems.push(`${subject}: ${where}: compilation error: ${result.error.split("\n")[0]}`);
    return result;
  };
  const policy: CompiledPolicy = {
    name,
    spec,
    failurePolicy: spec.failurePolicy ?? "Fail",
    matchConditions: spec.matchConditions.map((c, i) => ({ name: c.name, ...expression(c.expression, `matchConditions[${i}]`) })),
    variables: spec.variables.map((v, i) => ({ name: v.name, ...expression(v.expression, `variables[${i}]`) })),
    validations: spec.validations.map((v, i) => ({
      ...expression(v.expression, `validations[${i}].expression`),
      ...(v.message ? { message: v.message } : {}),
      ...(v.messageExpression ? { messageExpression: expression(v.messageExpression, `validations[${i}].messageExpression`) } : {}),
      reason: v.reason || "Invalid",
    })),
    auditAnnotations: spec.auditAnnotations.map((a, i) => ({ key: a.key, ...expression(a.valueExpression, `auditAnnotations[${i}].valueExpression`) })),
    readsNamespace: false,
    bindings: [],
  };
  const sources = [...policy.matchConditions, ...policy.variables, ...policy.validations, ...policy.validations.flatMap((v) => v.messageExpression ?? []), ...policy.auditAnnotations];
  policy.readsNamespace = sources.some((e) => /\bnamespaceObject\b/.test(e.source));
  if (spec.matchConstraints.resourceRules.length === 0) problems.push(`${subject}: spec.matchConstraints.resourceRules is required; the policy matches nothing`);
  return policy;
}

/** Compiles the policies that have at least one binding; reports every problem found on the way. */
export function compilePolicySet(set: AdmissionPolicySources): CompiledPolicySet {
  const problems: string[] = [];
  const policies = new Map<string, CompiledPolicy>();
  const bindingsByPolicy = new Map<string, Array<{ name: string; spec: BindingSpec }>>();
  for (const name of Object.keys(set.bindings).sort()) {
    const parsed = bindingObjectSchema.safeParse(set.bindings[name]);
    if (!parsed.success) {
      problems.push(`binding '${name}': ${describeZodError(parsed.error)}`);
      continue;
    }
    const list = bindingsByPolicy.get(parsed.data.spec.policyName) ?? [];
    list.push({ name, spec: parsed.data.spec });
    bindingsByPolicy.set(parsed.data.spec.policyName, list);
  }
  for (const [policyName, bindings] of bindingsByPolicy) {
    const object = Object.hasOwn(set.policies, policyName) ? set.policies[policyName] : undefined;
    if (object === undefined) {
      problems.push(`binding${bindings.length > 1 ? "s" : ""} ${bindings.map((b) => `'${b.name}'`).join(", ")}: ValidatingAdmissionPolicy '${policyName}' not found; not enforced`);
      continue;
    }
    const parsed = policyObjectSchema.safeParse(object);
    if (!parsed.success) {
      problems.push(`ValidatingAdmissionPolicy '${policyName}': ${describeZodError(parsed.error)}; not enforced`);
      continue;
    }
    const policy = compilePolicy(policyName, parsed.data.spec, problems);
    policy.bindings = bindings;
    policies.set(policyName, policy);
  }
  return new PolicySet([...policies.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), problems);
}

/** A decision of one validation, as the apiserver's validator makes it. */
type Decision = { action: "Admit" } | { action: "Deny"; message: string; reason: string; expressionIndex: number };
type AnnotationResult = { action: "Publish"; key: string; value: string } | { action: "Error"; message: string } | { action: "Exclude" };

interface Invocation {
  policy: CompiledPolicy;
  activation: Record<string, Value>;
}

class PolicySet implements CompiledPolicySet {
  readonly bound: number;
  readonly rules: ReadonlyArray<{ policy: string; rule: NamedRule }>;
  /** Policies by the `group/resource` their rules name; those with wildcard rules are tried for every request. */
  readonly #byResource = new Map<string, CompiledPolicy[]>();
  readonly #anyResource: CompiledPolicy[] = [];

  constructor(
    policies: readonly CompiledPolicy[],
    readonly problems: string[],
  ) {
    this.bound = policies.length;
    this.rules = policies.flatMap((policy) => policy.spec.matchConstraints.resourceRules.map((rule) => ({ policy: policy.name, rule })));
    for (const policy of policies) {
      const keys = ruleKeys(policy.spec.matchConstraints.resourceRules);
      if (keys === undefined) this.#anyResource.push(policy);
      else for (const key of new Set(keys)) this.#byResource.set(key, [...(this.#byResource.get(key) ?? []), policy]);
    }
  }

  mayMatch(request: AdmissionRequest): boolean {
    return !isPolicyResource(request) && (this.#anyResource.length > 0 || requestKeys(request).some((key) => this.#byResource.has(key)));
  }

  /** The bound policies whose rules can select the request, in name order. */
  #candidates(request: AdmissionRequest): CompiledPolicy[] {
    const found = new Set<CompiledPolicy>(this.#anyResource);
    for (const key of requestKeys(request)) for (const policy of this.#byResource.get(key) ?? []) found.add(policy);
    return [...found].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  evaluate(request: AdmissionRequest, facts: PolicyFacts): PolicySetOutcome {
    const outcomes: PolicyOutcome[] = [];
    const failures: Array<{ message: string; policy: string; binding: string; expressionIndex: number; validationActions: ValidationAction[] }> = [];
    const annotations: Record<string, string> = {};
    // The policies and their bindings are never judged themselves (as in the apiserver), so a bad policy cannot lock itself in.
    if (isPolicyResource(request)) return { outcomes, auditAnnotations: annotations };

    const namespaceOf = (name: string) => {
      const namespace = facts.namespace(name);
      return isRecord(namespace) ? namespace : undefined;
    };
    const namespaceLabels: NamespaceLabels = (name) => {
      const metadata = namespaceOf(name)?.["metadata"];
      if (!isRecord(metadata)) return undefined;
      return (isRecord(metadata["labels"]) ? metadata["labels"] : {}) as Labels;
    };
    // The `request` variable is the same for every policy, binding and param: made once.
    let requestValue: Value | undefined;
    for (const policy of this.#candidates(request)) {
      const configError = (message: string, binding?: string) => {
        if (policy.failurePolicy === "Ignore") return;
        outcomes.push({ policy: policy.name, ...(binding ? { binding } : {}), action: "Deny", message, status: { code: 422, reason: "Invalid" } });
      };
      const matched = matchResources(policy.spec.matchConstraints, request, namespaceLabels);
      if (matched.error !== undefined) {
        configError(`failed to configure policy: ${matched.error}`);
        continue;
      }
      if (!matched.matches) continue;

      const collected = new Map<string, string[]>();
      for (const binding of policy.bindings) {
        const bindingMatched = binding.spec.matchResources ? matchResources(binding.spec.matchResources, request, namespaceLabels) : { matches: true };
        if (bindingMatched.error !== undefined) {
          configError(`failed to configure binding: ${bindingMatched.error}`, binding.name);
          continue;
        }
        if (!bindingMatched.matches) continue;
        const params = collectParams(policy, binding.spec, request.namespace ?? "", facts);
        if (typeof params === "string") {
          configError(`failed to configure binding: ${params}`, binding.name);
          continue;
        }
        const namespaceObject = namespaceObjectOf(policy, request, namespaceOf);
        if (typeof namespaceObject === "string") {
          configError(`failed to configure binding: ${namespaceObject}`, binding.name);
          continue;
        }
        for (const param of params) {
          const invocation: Invocation = {
            policy,
            activation: {
              object: (request.object ?? null) as Value,
              oldObject: (request.oldObject ?? null) as Value,
              request: (requestValue ??= requestVariable(request)),
              params: param as Value,
              namespaceObject,
            },
          };
          const { decisions, annotations: annotationResults } = validate(invocation);
          for (const decision of decisions) {
            if (decision.action !== "Deny") continue;
            for (const action of binding.spec.validationActions) {
              if (action === "Audit")
                failures.push({ message: decision.message, policy: binding.spec.policyName, binding: binding.name, expressionIndex: decision.expressionIndex, validationActions: binding.spec.validationActions });
              const status = { code: codeOf(decision.reason), reason: decision.reason };
              outcomes.push({ policy: policy.name, binding: binding.name, action, message: decision.message, ...(action === "Deny" ? { status } : {}) });
            }
          }
          for (const annotation of annotationResults) {
            if (annotation.action === "Publish") {
              const values = collected.get(annotation.key) ?? [];
              if (!values.includes(annotation.value)) values.push(annotation.value);
              collected.set(annotation.key, values);
            } else if (annotation.action === "Error")
              outcomes.push({ policy: policy.name, binding: binding.name, action: "Deny", message: annotation.message, status: { code: 422, reason: "Invalid" } });
          }
        }
      }
      for (const [key, values] of collected) annotations[auditKey(policy.name, key)] = values.join(", ");
    }
    if (failures.length > 0) annotations[VALIDATION_FAILURE_KEY] = JSON.stringify(failures);
    return { outcomes, auditAnnotations: annotations };
  }
}

/** CollectParams: the params a binding evaluates its policy with ([null] without paramKind or paramRef), or why none can be had. */
function collectParams(policy: CompiledPolicy, binding: BindingSpec, requestNamespace: string, facts: PolicyFacts): unknown[] | string {
  const paramKind = policy.spec.paramKind;
  const ref = binding.paramRef;
  if (!paramKind || !ref) return [null];
  const kind = `${paramKind.apiVersion}/${paramKind.kind}`;
  const namespaced = facts.paramKindNamespaced(kind);
  if (namespaced === undefined) return `paramKind kind \`${paramKind.apiVersion}, Kind=${paramKind.kind}\` not known`;
  let namespace: string | undefined;
  if (namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) return "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources";
  } else if (ref.namespace) return "paramRef.namespace must not be provided for a cluster-scoped `paramKind`";
  const inScope = facts.paramObjects(kind, namespace);
  let params: unknown[];
  if (ref.name) {
    if (ref.selector) return "paramRef.name and paramRef.selector are mutually exclusive";
    params = inScope.filter((object) => isRecord(object) && isRecord(object["metadata"]) && object["metadata"]["name"] === ref.name).slice(0, 1);
  } else if (ref.selector) {
    const selector = ref.selector;
    params = inScope.filter((object) => {
      const labels = isRecord(object) && isRecord(object["metadata"]) && isRecord(object["metadata"]["labels"]) ? (object["metadata"]["labels"] as Labels) : {};
      return selectorMatches(selector, labels);
    });
  } else return "one of name or selector must be provided";
  if (params.length === 0 && ref.parameterNotFoundAction === "Deny") return "no params found for policy binding with `Deny` parameterNotFoundAction";
  return params;
}

/**
 * namespaceObject: null for cluster-scoped objects and for Namespaces;
 * else the namespace as the snapshot holds it. A namespace the snapshot
 * does not know (yet) is a configuration error, but only for a policy that reads it.
 */
function namespaceObjectOf(policy: CompiledPolicy, request: AdmissionRequest, namespaceOf: (name: string) => Record<string, unknown> | undefined): Value | string {
  const name = request.kind.group === "" && request.kind.version === "v1" && request.kind.kind === "Namespace" ? "" : (request.namespace ?? "");
  if (name === "") return null;
  const namespace = namespaceOf(name);
  if (namespace) return namespace as Value;
  return policy.readsNamespace ? `namespaces "${name.slice(0, 253)}" not found in the snapshot (created after the sync job last ran?)` : null;
}

/** The audit annotation key of `validation_failure` results, as the apiserver's, less its prefix (a webhook's keys carry none). */
export const VALIDATION_FAILURE_KEY = "validation_failure";

/**
 * A policy's own audit annotation, `<policy>/<key>` in the apiserver. A
 * webhook's keys may not hold "/", so the edge joins them with ".", which
 * keeps them qualified names.
 */
export function auditKey(policy: string, key: string): string {
  return `${policy}.${key}`;
}

const POLICY_RESOURCES: ReadonlySet<string> = new Set([
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "admissionregistration.k8s.io/validatingadmissionpolicybindings",
  "edgeadmit.io/edgeadmissionpolicybindings",
]);

function isPolicyResource(request: AdmissionRequest): boolean {
  return POLICY_RESOURCES.has(`${request.resource?.group ?? request.kind.group}/${request.resource?.resource ?? ""}`);
}

/** `request`: the AdmissionRequest without its objects, as the apiserver hands it to CEL. */
function requestVariable(request: AdmissionRequest): Value {
  const { object: _object, oldObject: _oldObject, ...rest } = request as AdmissionRequest & Record<string, unknown>;
  return rest as Value;
}

const failureAction = (policy: CompiledPolicy): Decision["action"] => (policy.failurePolicy === "Ignore" ? "Admit" : "Deny");

/** The error of an expression, in the apiserver's words: a compile error, a runtime error naming the expression. */
function evaluationError(expression: Expression, error: string): string {
  return expression.error !== undefined ? `compilation error: ${expression.error}` : `expression '${expression.source}' resulted in error: ${error}`;
}

type Evaluated = { ok: true; value: Value } | { ok: false; error: string; outOfBudget?: boolean };

/**
 * Evaluates `expression` with the invocation's variables, whose `variables`
 * are computed on first use and kept for the rest of the invocation; a
 * variable sees only those declared before it, as in the apiserver.
 */
function run(expression: Expression, activation: Activation, budget: Budget): Evaluated {
  if (!expression.program) return { ok: false, error: evaluationError(expression, "") };
  const result = expression.program.evaluate(activation, budget);
  if (result.ok) return { ok: true, value: result.value };
  return { ok: false, error: evaluationError(expression, result.error), ...(result.exhausted === "budget" ? { outOfBudget: true } : {}) };
}

/** The variables of one phase of an invocation (matchConditions, validations, annotations), `variables` computed on first use against `budget`. */
function activationOf(invocation: Invocation, budget: Budget): Activation {
  return { ...invocation.activation, variables: variablesOf(invocation, budget) };
}

/** The lazily computed `variables` of one invocation: entry i sees entries before i only. */
function variablesOf(invocation: Invocation, budget: Budget): LazyMap {
  const { variables } = invocation.policy;
  const values = new Map<number, Value>();
  const views: LazyMap[] = [];
  const view = (visible: number): LazyMap => {
    views[visible] ??= new LazyMap(
      (name) => {
        const index = variables.findIndex((v) => v.name === name);
        if (index < 0 || index >= visible) return undefined;
        if (values.has(index)) return values.get(index);
        const variable = variables[index]!;
        if (!variable.program) throw new EvalError(`composited variable "${name}" fails to compile: ${variable.error}`);
        const result = variable.program.evaluate({ ...invocation.activation, variables: view(index) }, budget);
        if (!result.ok) throw new EvalError(`composited variable "${name}" fails to evaluate: ${result.error}`);
        values.set(index, result.value);
        return result.value;
      },
      variables.slice(0, visible).map((v) => v.name),
    );
    return views[visible]!;
  };
  return view(variables.length);
}

/** validator.Validate: matchConditions, then the validations' decisions, then the audit annotations. */
function validate(invocation: Invocation): { decisions: Decision[]; annotations: AnnotationResult[] } {
  const { policy } = invocation;
  const failed = (message: string) => ({ decisions: [failureAction(policy) === "Deny" ? { action: "Deny" as const, message, reason: "Invalid", expressionIndex: 0 } : { action: "Admit" as const }], annotations: [] });

  if (policy.matchConditions.length > 0) {
    const budget = createBudget(RUNTIME_COST_BUDGET);
    const activation = activationOf(invocation, budget);
    const errors: string[] = [];
    for (const condition of policy.matchConditions) {
      const result = run(condition, activation, budget);
      if (!result.ok) errors.push(result.error);
      else if (result.value === false) return { decisions: [], annotations: [] };
    }
    if (errors.length > 0) return failed(errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);
  }

  const budget = createBudget(RUNTIME_COST_BUDGET);
  const activation = activationOf(invocation, budget);
  const decisions: Decision[] = [];
  for (const [index, validation] of policy.validations.entries()) {
    const result = run(validation, activation, budget);
    if (!result.ok) {
      if (result.outOfBudget) return failed("validation failed due to running out of cost budget, no further validation rules will be run");
      decisions.push(failureAction(policy) === "Deny" ? { action: "Deny", message: result.error, reason: "Invalid", expressionIndex: index } : { action: "Admit" });
      continue;
    }
    if (result.value === true) {
      decisions.push({ action: "Admit" });
      continue;
    }
    decisions.push({ action: "Deny", message: failureMessage(validation, activation, budget), reason: validation.reason, expressionIndex: index });
  }

  if (policy.auditAnnotations.length === 0) return { decisions, annotations: [] };
  const annotationBudget = createBudget(RUNTIME_COST_BUDGET);
  const annotationActivation = activationOf(invocation, annotationBudget);
  const annotations = policy.auditAnnotations.map((annotation): AnnotationResult => {
    const result = run(annotation, annotationActivation, annotationBudget);
    const error = (message: string): AnnotationResult => (policy.failurePolicy === "Ignore" ? { action: "Exclude" } : { action: "Error", message });
    if (!result.ok) return error(result.error);
    if (result.value === null) return { action: "Exclude" };
    if (typeof result.value !== "string")
      return error(`valueExpression '${annotation.source}' resulted in unsupported return type: ${typeOf(result.value).name}. Return type must be either string or null.`);
    const value = result.value.trim();
    return value === "" ? { action: "Exclude" } : { action: "Publish", key: annotation.key, value: value.slice(0, MAX_AUDIT_VALUE_LENGTH) };
  });
  return { decisions, annotations };
}

/** The message of a failed validation: its messageExpression's string, else its message, else the expression. */
function failureMessage(validation: CompiledPolicy["validations"][number], activation: Activation, budget: Budget): string {
  if (validation.messageExpression) {
    const result = run(validation.messageExpression, activation, budget);
    if (result.ok && typeof result.value === "string") {
      const message = result.value.trim();
      if (message !== "" && new TextEncoder().encode(message).length <= MAX_MESSAGE_EXPRESSION_BYTES && !message.includes("\n")) return message;
    }
  }
  if (validation.message && validation.message.trim() !== "") return validation.message.trim();
  return `failed expression: ${validation.source.trim()}`;
}
