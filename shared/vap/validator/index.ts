// validator.Validate (k8s.io/apiserver policy/validating): one policy with
// one binding's param against one request. matchConditions first, then the
// validations' decisions (a failed one's message from its messageExpression,
// message or expression), then the audit annotations; each phase with its
// own cost budget and its own lazily computed `variables`, as the apiserver
// runs them as separate compositions.
import { EvalError, LazyMap, typeOf, type Activation, type Budget, type EvalResult, type Program, type Value } from "../../cel/index.js";
import type { CompiledPolicy, Expression } from "../compile/index.js";
import { phaseBudget, type ReviewBudget } from "../budget/index.js";

/** apiserver's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;
/** apiserver's maxAuditAnnotationValueLength. */
const MAX_AUDIT_VALUE_LENGTH = 10 * 1024;

/** A decision of one validation, as the apiserver's validator makes it. */
type Decision = { action: "Admit" } | { action: "Deny"; message: string; reason: string; expressionIndex: number };
type AnnotationResult = { action: "Publish"; key: string; value: string } | { action: "Error"; message: string } | { action: "Exclude" };

/** One policy, one param: the values its expressions see besides `variables`. */
interface Invocation {
  policy: CompiledPolicy;
  object: Value;
  oldObject: Value;
  request: Value;
  params: Value;
  namespaceObject: Value;
  /** The policy's view of the inventory (shared/inventory), or null for a policy that does not read it. */
  inventory: Value;
  /** The request's variables that no policy's params or variables change, as evaluated by the first policy that used them (see sharedVariable). */
  requestVariables?: RequestVariables;
  /** The edge's budget for the whole review (shared/vap/budget), which each phase's budget draws from too. */
  reviewBudget?: ReviewBudget;
}

/** Per request: the successful evaluations of variables that read neither params nor other variables, by program. */
export type RequestVariables = Map<Program, EvalResult & { ok: true }>;

/**
 * A variable that reads neither params nor other variables has one value per
 * request, whichever policy asks (programs are shared by source within a
 * policy set; object, oldObject, request and namespaceObject are the
 * request's). The first policy evaluates it; the others take its value and
 * are charged its cost, as computing it would have charged them. A policy
 * whose budget has less left computes it, and runs out as the apiserver's would.
 */
function sharedVariable(program: Program, activation: () => Activation, budget: Budget, shared: RequestVariables | undefined): EvalResult {
  const known = shared?.get(program);
  if (known !== undefined && known.cost <= budget.limit - budget.spent) {
    budget.spent += known.cost;
    return known;
  }
  const result = program.evaluate(activation(), budget);
  if (shared !== undefined && result.ok && !program.variables.has("params") && !program.variables.has("variables")) shared.set(program, result);
  return result;
}

const ADMIT: Decision = { action: "Admit" };

const failureAction = (policy: CompiledPolicy): Decision["action"] => (policy.failurePolicy === "Ignore" ? "Admit" : "Deny");

/** The error of an expression, in the apiserver's words: a compile error, a runtime error naming the expression. */
function evaluationError(expression: Expression, error: string): string {
  return expression.error !== undefined ? `compilation error: ${expression.error}` : `expression '${expression.source}' resulted in error: ${error}`;
}

type Evaluated = { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly error: string; readonly outOfBudget?: boolean };

/** The expression's value, or its error in the apiserver's words (a success is the program's own result, not a copy). */
function run(expression: Expression, activation: Activation, budget: Budget): Evaluated {
  if (!expression.program) return { ok: false, error: evaluationError(expression, "") };
  const result = expression.program.evaluate(activation, budget);
  if (result.ok) return result;
  return { ok: false, error: evaluationError(expression, result.error), ...(result.exhausted === "budget" ? { outOfBudget: true } : {}) };
}

/** The activation of an invocation with the given `variables` (always the same shape, so lookups stay monomorphic). */
const activationOf = (invocation: Invocation, variables: Value): Activation => ({
  object: invocation.object,
  oldObject: invocation.oldObject,
  request: invocation.request,
  params: invocation.params,
  namespaceObject: invocation.namespaceObject,
  inventory: invocation.inventory,
  variables,
});

const NO_VARIABLES = new LazyMap(() => undefined, []);

/**
 * One phase's activation: its `variables` are computed on first use against
 * `budget` and kept for the phase; variable i sees only those declared
 * before it, as in the apiserver.
 */
function phaseActivation(invocation: Invocation, budget: Budget): Activation {
  const { variables, variableIndex, variableNames } = invocation.policy;
  if (variables.length === 0) return activationOf(invocation, NO_VARIABLES);
  const values: Array<Value | undefined> = new Array(variables.length);
  const views: LazyMap[] = new Array(variables.length + 1);
  const view = (visible: number): LazyMap =>
    (views[visible] ??= new LazyMap(
      (name) => {
        const index = variableIndex.get(name);
        if (index === undefined || index >= visible) return undefined;
        const known = values[index];
        if (known !== undefined) return known;
        const variable = variables[index]!;
        if (!variable.program) throw new EvalError(`composited variable "${name}" fails to compile: ${variable.error}`);
        const result = sharedVariable(variable.program, () => activationOf(invocation, view(index)), budget, invocation.requestVariables);
        if (!result.ok) throw new EvalError(`composited variable "${name}" fails to evaluate: ${result.error}`);
        return (values[index] = result.value);
      },
      variableNames[visible]!,
    ));
  return activationOf(invocation, view(variables.length));
}

/** matchConditions, then the validations' decisions, then the audit annotations. */
export function validate(invocation: Invocation): { decisions: Decision[]; annotations: AnnotationResult[] } {
  const { policy } = invocation;
  const failed = (message: string) => ({ decisions: [failureAction(policy) === "Deny" ? { action: "Deny" as const, message, reason: "Invalid", expressionIndex: 0 } : { action: "Admit" as const }], annotations: [] });

  if (policy.matchConditions.length > 0) {
    const budget = phaseBudget(invocation.reviewBudget);
    const activation = phaseActivation(invocation, budget);
    const errors: string[] = [];
    for (const condition of policy.matchConditions) {
      const result = run(condition, activation, budget);
      if (!result.ok) errors.push(result.error);
      else if (result.value === false) return { decisions: [], annotations: [] };
    }
    if (errors.length > 0) return failed(errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);
  }

  const budget = phaseBudget(invocation.reviewBudget);
  const activation = phaseActivation(invocation, budget);
  const decisions: Decision[] = [];
  for (let index = 0; index < policy.validations.length; index++) {
    const validation = policy.validations[index]!;
    const result = run(validation, activation, budget);
    if (!result.ok) {
      if (result.outOfBudget) return failed("validation failed due to running out of cost budget, no further validation rules will be run");
      decisions.push(failureAction(policy) === "Deny" ? { action: "Deny", message: result.error, reason: "Invalid", expressionIndex: index } : ADMIT);
      continue;
    }
    if (result.value === true) {
      decisions.push(ADMIT);
      continue;
    }
    decisions.push({ action: "Deny", message: failureMessage(validation, activation, budget), reason: validation.reason, expressionIndex: index });
  }

  if (policy.auditAnnotations.length === 0) return { decisions, annotations: [] };
  const annotationBudget = phaseBudget(invocation.reviewBudget);
  const annotationActivation = phaseActivation(invocation, annotationBudget);
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
