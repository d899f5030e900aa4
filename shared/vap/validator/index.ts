// validator.Validate (k8s.io/apiserver policy/validating): one policy with
// one binding's param against one request. matchConditions first, then the
// validations, then every messageExpression on the budget the validations
// left, then the audit annotations. Each phase is one ForInput of the
// apiserver (plugin/cel condition.go, activation.go): its own composition of
// lazily computed `variables`, whose cost is charged to the expression that
// first reads them, and a cost budget the phase's expressions draw from in
// order.
import { EvalError, LazyMap, RUNTIME_COST_BUDGET, typeOf, type Activation, type EvalResult, type Program, type Value } from "../../cel/index.js";
import type { CompiledPolicy, Expression } from "../compile/index.js";
import { phaseLimit, type ReviewBudget } from "../budget/index.js";
import { utf8Length } from "../../text/index.js";
import { INVENTORY_VARIABLE } from "../../inventory/library.js";

/** apiserver's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;
/** apiserver's maxAuditAnnotationValueLength. */
const MAX_AUDIT_VALUE_LENGTH = 10 * 1024;
/** apiserver's RuntimeCELCostBudgetMatchConditions (pkg/apis/cel/config.go): matchConditions have a smaller budget of their own. */
const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;
/** activation.go's error when a phase's budget runs out, ending the phase. */
export const OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run";

/** A decision of one validation, as the apiserver's validator makes it. */
type Decision = { action: "Admit" } | { action: "Deny"; message: string; reason: string; expressionIndex: number };
type AnnotationResult = { action: "Publish"; key: string; value: string } | { action: "Error"; message: string } | { action: "Exclude" };

/** One policy, one param: the values its expressions see besides `variables`. */
export interface Invocation {
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
  /** The budget of each phase; RuntimeCELCostBudget unless a test of the budget's arithmetic sets a smaller one (as Validate's runtimeCELCostBudget). */
  costBudget?: number;
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
 * its cost, which their composition charges as computing it would have. One
 * that reads the inventory is each policy's own: what it may read is the
 * policy's declaration, and what it read may be a unit the review had not
 * loaded yet (shared/vap/budget ReviewSession).
 */
function sharedVariable(program: Program, activation: () => Activation, shared: RequestVariables | undefined, review: ReviewBudget | undefined): EvalResult {
  const known = shared?.get(program);
  if (known !== undefined) return known;
  const result = evaluateMetered(program, activation(), review);
  if (shared !== undefined && result.ok && !program.variables.has("params") && !program.variables.has("variables") && !program.variables.has(INVENTORY_VARIABLE)) shared.set(program, result);
  return result;
}

/**
 * An evaluation with the review's budget as the edge's meter: it takes the
 * units the edge charges beyond the apiserver's cost, and stops an
 * expression that would take more than it has left. Stopped so, the review
 * is cut, whatever an expression reading a variable so stopped makes of its
 * error.
 */
function evaluateMetered(program: Program, activation: Activation, review: ReviewBudget | undefined): EvalResult {
  const result = program.evaluate(activation, undefined, review);
  if (!result.ok && result.exhausted === "edge" && review !== undefined) review.cut = true;
  return result;
}

const ADMIT: Decision = { action: "Admit" };

const failureAction = (policy: CompiledPolicy): Decision["action"] => (policy.failurePolicy === "Ignore" ? "Admit" : "Deny");

/** An expression's result within a phase: its value, or its error in the apiserver's words. */
export type Evaluated = { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly error: string };

/** A phase's results and the budget left (condition.go ForInput), or the error that ended it. */
export type PhaseResult = { readonly ok: true; readonly results: Evaluated[]; readonly remaining: number } | { readonly ok: false; readonly error: string };

/** The activation of an invocation with the given `variables` (always the same shape, so lookups stay monomorphic). */
const activationOf = (invocation: Invocation, namespaceObject: Value, variables: Value): Activation => ({
  object: invocation.object,
  oldObject: invocation.oldObject,
  request: invocation.request,
  params: invocation.params,
  namespaceObject,
  inventory: invocation.inventory,
  variables,
});

const NO_VARIABLES = new LazyMap(() => undefined, []);

/**
 * composition.go's compositionContext: one phase's `variables`, each computed
 * on first use with its own per-call limit and kept for the phase (its error
 * too, as lazy.MapValue keeps it); what computing them cost accumulates
 * until the phase charges it (GetAndResetCost). Variable i sees only those
 * declared before it, as it was compiled.
 */
class Composition {
  cost = 0;
  readonly activation: Activation;

  constructor(invocation: Invocation, namespaceObject: Value) {
    const { variables, variableIndex, variableNames } = invocation.policy;
    if (variables.length === 0) {
      this.activation = activationOf(invocation, namespaceObject, NO_VARIABLES);
      return;
    }
    const values: Array<{ value: Value } | { error: string } | undefined> = new Array(variables.length);
    const views: LazyMap[] = new Array(variables.length + 1);
    const view = (visible: number): LazyMap =>
      (views[visible] ??= new LazyMap(
        (name) => {
          const index = variableIndex.get(name);
          if (index === undefined || index >= visible) return undefined;
          const known = (values[index] ??= this.#compute(invocation, index, () => activationOf(invocation, namespaceObject, view(index))));
          if ("error" in known) throw new EvalError(known.error);
          return known.value;
        },
        variableNames[visible]!,
      ));
    this.activation = activationOf(invocation, namespaceObject, view(variables.length));
  }

  #compute(invocation: Invocation, index: number, activation: () => Activation): { value: Value } | { error: string } {
    const variable = invocation.policy.variables[index]!;
    if (!variable.program) return { error: `composited variable "${variable.name}" fails to compile: ${variable.error}` };
    const result = sharedVariable(variable.program, activation, invocation.requestVariables, invocation.reviewBudget);
    this.cost += result.cost;
    return result.ok ? { value: result.value } : { error: `composited variable "${variable.name}" fails to evaluate: ${result.error}` };
  }

  /** The variables' cost since the last call. */
  takeCost(): number {
    const cost = this.cost;
    this.cost = 0;
    return cost;
  }
}

/**
 * condition.go ForInput with activation.go Evaluate: the expressions in
 * order, each with its per-call limit; then what the variables it read cost,
 * then its own cost, are taken from the budget, and either exceeding what is
 * left ends the phase. An absent expression (a validation without
 * messageExpression) is a placeholder with no result.
 */
export function evaluatePhase(invocation: Invocation, expressions: ReadonlyArray<Expression | undefined>, budget: number, namespaceObject: Value = invocation.namespaceObject): PhaseResult {
  const results: Evaluated[] = new Array(expressions.length);
  if (expressions.length === 0) return { ok: true, results, remaining: budget };
  const composition = new Composition(invocation, namespaceObject);
  const review = invocation.reviewBudget;
  const limit = phaseLimit(review, budget);
  let remaining = limit;
  // Takes `cost` from the phase and the review; false once it is more than the phase has left (a cut of the review's when its budget, not the apiserver's, was the smaller).
  const spend = (cost: number): boolean => {
    if (review !== undefined) review.spent += cost;
    if (cost <= remaining) {
      remaining -= cost;
      return true;
    }
    if (review !== undefined && limit < budget) review.cut = true;
    return false;
  };
  for (let i = 0; i < expressions.length; i++) {
    const expression = expressions[i];
    if (expression === undefined) continue;
    if (!expression.program) {
      results[i] = { ok: false, error: `compilation error: ${expression.error}` };
      continue;
    }
    const result = evaluateMetered(expression.program, composition.activation, review);
    if (!spend(composition.takeCost()) || !spend(result.cost)) return { ok: false, error: OUT_OF_BUDGET };
    if (review?.cut) return { ok: false, error: OUT_OF_BUDGET };
    results[i] = result.ok ? result : { ok: false, error: `expression '${expression.source}' resulted in error: ${result.error}` };
  }
  return { ok: true, results, remaining };
}

/** matchConditions, then the validations' decisions, then the audit annotations. */
export function validate(invocation: Invocation): { decisions: Decision[]; annotations: AnnotationResult[] } {
  const { policy } = invocation;
  const budget = invocation.costBudget ?? RUNTIME_COST_BUDGET;
  const failed = (message: string) => ({ decisions: [failureAction(policy) === "Deny" ? { action: "Deny" as const, message, reason: "Invalid", expressionIndex: 0 } : ADMIT], annotations: [] });

  if (policy.matchConditions.length > 0) {
    // matchconditions/matcher.go: their own budget, and no namespaceObject.
    const phase = evaluatePhase(invocation, policy.matchConditions, Math.min(budget, MATCH_CONDITIONS_COST_BUDGET), null);
    if (!phase.ok) return failed(phase.error);
    const errors: string[] = [];
    for (const result of phase.results) {
      if (!result.ok) errors.push(result.error);
      else if (result.value === false) return { decisions: [], annotations: [] };
    }
    if (errors.length > 0) return failed(errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);
  }

  const validations = evaluatePhase(invocation, policy.validations, budget);
  if (!validations.ok) return failed(validations.error);
  // validator.go: every messageExpression, failed validation or not, on what the validations left.
  const messages = policy.validations.some((v) => v.messageExpression) ? evaluatePhase(invocation, policy.validations.map((v) => v.messageExpression), validations.remaining) : undefined;
  const decisions = validations.results.map((result, index): Decision => {
    const validation = policy.validations[index]!;
    if (!result.ok) return failureAction(policy) === "Deny" ? { action: "Deny", message: result.error, reason: "Invalid", expressionIndex: index } : ADMIT;
    // An out-of-budget messageExpression phase turns every decision into the failurePolicy's.
    if (messages?.ok === false) return failureAction(policy) === "Deny" ? { action: "Deny", message: `failed messageExpression: ${messages.error}`, reason: "Invalid", expressionIndex: index } : ADMIT;
    if (result.value === true) return ADMIT;
    return { action: "Deny", message: failureMessage(validation, messages?.ok ? messages.results[index] : undefined), reason: validation.reason, expressionIndex: index };
  });

  if (policy.auditAnnotations.length === 0) return { decisions, annotations: [] };
  const annotationPhase = evaluatePhase(invocation, policy.auditAnnotations, budget);
  if (!annotationPhase.ok) return failed(annotationPhase.error);
  const annotations = annotationPhase.results.map((result, i): AnnotationResult => {
    const annotation = policy.auditAnnotations[i]!;
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
function failureMessage(validation: CompiledPolicy["validations"][number], message: Evaluated | undefined): string {
  if (message?.ok && typeof message.value === "string") {
    const text = message.value.trim();
    if (text !== "" && utf8Length(text) <= MAX_MESSAGE_EXPRESSION_BYTES && !text.includes("\n")) return text;
  }
  if (validation.message && validation.message.trim() !== "") return validation.message.trim();
  return `failed expression: ${validation.source.trim()}`;
}
