// The dispatcher (k8s.io/apiserver policy/generic and validating): for one
// request, the bound policies whose rules can select it; for each, matching
// (matchConstraints, then each binding's matchResources) → params →
// validator → the binding's validationActions. A policy's configuration
// errors (a selector that does not parse, params that cannot be found)
// follow its failurePolicy.
import type { AdmissionRequest } from "../../admission/index.js";
import type { Labels } from "../../k8s/labels/index.js";
import type { CompiledPolicy } from "../compile/index.js";
import type { InventoryFacts } from "../../inventory/facts.js";
import { namespaceValue } from "../compile/types.js";
import { InventoryValue, type Reviewed } from "../../inventory/library.js";
import { MatchCriteria, RequestMatcher, requestKeys, ruleKeys, type NamespaceLabels, type PreparedMatch } from "../match/index.js";
import { collectParams, type ParamFacts } from "../params/index.js";
import type { NamedRule, ValidationAction } from "../schema/index.js";
import { validate, type RequestVariables } from "../validator/index.js";
import type { EvalResult, Program, Value } from "../../cel/index.js";
import { REVIEW_COST_BUDGET, ReviewSession, reviewExhausted } from "../budget/index.js";

/**
 * A policy the review's budget cut off (shared/vap/budget), decided by its
 * failurePolicy as an expression error would be: Fail denies with this
 * message, Ignore admits. Policies after it are not run at all.
 */
const CUT_BY_REVIEW_BUDGET = `edgeadmit: this review reached the edge's cost limit of ${REVIEW_COST_BUDGET.toLocaleString("en")} units across all policies before this policy finished; failurePolicy Fail denies it`;


/**
 * What evaluating needs to know of the cluster beyond the policies, looked up
 * per review: a snapshot view answers it, whether it holds the whole snapshot
 * or only the parts a review loaded.
 */
export interface PolicyFacts extends ParamFacts, InventoryFacts {
  /** The Namespace object named `name` as the snapshot holds it (labels for namespaceSelector, the object for namespaceObject), or undefined. */
  namespace(name: string): unknown;
}

/** One evaluation's outcome: per-policy results, as for built-in policies, and the audit annotations the apiserver would add. */
export interface PolicyOutcome {
  policy: string;
  binding?: string;
  action: ValidationAction;
  message: string;
  /** The status a denial answers with: the validation's reason (default Invalid) and its HTTP code; on every validation's outcome, so a fleet policy made stricter by the cluster (Warn to Deny) denies with it. */
  status?: { code: number; reason: string };
}

export interface PolicySetOutcome {
  outcomes: PolicyOutcome[];
  /** Audit annotations, keyed as a webhook may key them (no "/"): `validation_failure` and the policies' own (see auditKey). */
  auditAnnotations: Record<string, string>;
}

/** The audit annotation key of `validation_failure` results, as the apiserver's, less its prefix (a webhook's keys carry none). */
const VALIDATION_FAILURE_KEY = "validation_failure";

/**
 * A policy's own audit annotation, `<policy>/<key>` in the apiserver. A
 * webhook's keys may not hold "/", so the edge joins them with ".", which
 * keeps them qualified names.
 */
function auditKey(policy: string, key: string): string {
  return `${policy}.${key}`;
}

const REASON_CODES: Readonly<Record<string, number>> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };
const codeOf = (reason: string) => REASON_CODES[reason] ?? 422;

const POLICY_RESOURCES: ReadonlySet<string> = new Set([
  "admissionregistration.k8s.io/validatingadmissionpolicies",
  "admissionregistration.k8s.io/validatingadmissionpolicybindings",
  "edgeadmit.io/edgeadmissionpolicybindings",
]);

function isPolicyResource(request: AdmissionRequest): boolean {
  return POLICY_RESOURCES.has(`${request.resource?.group ?? request.kind.group}/${request.resource?.resource ?? ""}`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Who is under review, so the inventory leaves it out; undefined for an object with no name yet (generateName). */
function reviewedOf(request: AdmissionRequest): Reviewed | undefined {
  const metadata = [request.object, request.oldObject].map((o) => (isRecord(o) && isRecord(o["metadata"]) ? o["metadata"] : undefined)).find((m) => m !== undefined);
  const name = request.name || (typeof metadata?.["name"] === "string" ? metadata["name"] : "");
  return name === "" ? undefined : { group: request.kind.group, kind: request.kind.kind, namespace: request.namespace ?? "", name };
}

/** `request`: the AdmissionRequest without its objects, as the apiserver hands it to CEL. */
function requestVariable(request: AdmissionRequest): Value {
  const { object: _object, oldObject: _oldObject, ...rest } = request as AdmissionRequest & Record<string, unknown>;
  return rest as Value;
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
  if (namespace) return namespaceValue(namespace);
  return policy.readsNamespace ? `namespaces "${name.slice(0, 253)}" not found in the snapshot (created after the sync job last ran?)` : null;
}

type Failure = { message: string; policy: string; binding: string; expressionIndex: number; validationActions: ValidationAction[] };

/** A cluster's bound policies, compiled, with what could not be used. */
export interface CompiledPolicySet {
  /** One line per problem: a policy or binding that is malformed, or an expression that does not compile. */
  readonly problems: string[];
  /** How many policies are bound at the edge. */
  readonly bound: number;
  /** Each bound policy's matchConstraints.resourceRules: what the webhook configuration must send the function. */
  readonly rules: ReadonlyArray<{ policy: string; rule: NamedRule }>;
  /** Whether a policy of this name is bound at the edge. */
  has(name: string): boolean;
  /** Whether some bound policy's rules (`only`'s, when given) name the request's resource: a cheap test before any matching. */
  mayMatch(request: AdmissionRequest, only?: string): boolean;
  /**
   * `exempted`: the policies an exception sets aside for this request; their
   * findings are still returned, but they add nothing to the audit
   * annotations. `only`: the bound policy of that name alone (the per-policy
   * route, /validate/<name>). `session`: the review's budget and final
   * evaluations, shared with the review's other set and rounds (a new one: this evaluation alone).
   */
  evaluate(request: AdmissionRequest, facts: PolicyFacts, exempted?: (policy: string) => boolean, only?: string, session?: ReviewSession): PolicySetOutcome;
}

/** An evaluation a later round of the review takes as it is: it met no unit its round lacked. */
interface KeptEvaluation {
  /** The param it ran with: the same object again (the loaded units are kept across rounds), or it runs again. */
  param: unknown;
  validated: ReturnType<typeof validate>;
  /** The request's variables it evaluated first (RequestVariables), given to the round's later evaluations as a single judgement would. */
  shared: Array<[Program, EvalResult & { ok: true }]>;
}

/** A bound policy, its matchConstraints and its bindings' matchResources prepared for matching. */
interface Candidate {
  policy: CompiledPolicy;
  match: PreparedMatch;
  bindings: ReadonlyArray<CompiledPolicy["bindings"][number] & { match: PreparedMatch | undefined }>;
}

const byName = (candidates: Iterable<Candidate>): Candidate[] => [...candidates].sort((a, b) => (a.policy.name < b.policy.name ? -1 : 1));

/** A cluster's compiled policies, indexed by the resources their rules name. */
export class PolicyDispatcher implements CompiledPolicySet {
  readonly bound: number;
  readonly rules: ReadonlyArray<{ policy: string; rule: NamedRule }>;
  /** Policies by the `group/resource` their rules name; those with wildcard rules are tried for every request. */
  readonly #byResource = new Map<string, Candidate[]>();
  #anyResource: Candidate[] = [];
  /** Per key of #byResource, its policies and those with wildcard rules, in name order. */
  readonly #sorted = new Map<string, Candidate[]>();

  constructor(
    policies: readonly CompiledPolicy[],
    readonly problems: string[],
  ) {
    this.bound = policies.length;
    this.rules = policies.flatMap((policy) => policy.spec.matchConstraints.resourceRules.map((rule) => ({ policy: policy.name, rule })));
    const criteria = new MatchCriteria();
    for (const policy of policies) {
      const candidate: Candidate = {
        policy,
        match: criteria.prepare(policy.spec.matchConstraints),
        bindings: policy.bindings.map((binding) => ({ ...binding, match: binding.spec.matchResources ? criteria.prepare(binding.spec.matchResources) : undefined })),
      };
      const keys = ruleKeys(policy.spec.matchConstraints.resourceRules);
      if (keys === undefined) this.#anyResource.push(candidate);
      else for (const key of new Set(keys)) this.#byResource.set(key, [...(this.#byResource.get(key) ?? []), candidate]);
    }
    this.#anyResource = byName(this.#anyResource);
    for (const [key, named] of this.#byResource) this.#sorted.set(key, byName(new Set([...this.#anyResource, ...named])));
  }

  has(name: string): boolean {
    return this.rules.some((entry) => entry.policy === name);
  }

  mayMatch(request: AdmissionRequest, only?: string): boolean {
    if (only !== undefined) return !isPolicyResource(request) && this.#candidates(request).some((candidate) => candidate.policy.name === only);
    return !isPolicyResource(request) && (this.#anyResource.length > 0 || requestKeys(request).some((key) => this.#byResource.has(key)));
  }

  /** The bound policies whose rules can select the request (`only` among them, when given), in name order. */
  #candidates(request: AdmissionRequest, only?: string): readonly Candidate[] {
    if (only !== undefined) return this.#candidates(request).filter((candidate) => candidate.policy.name === only);
    const keys = requestKeys(request);
    // Most requests name one key: its candidates were sorted when the set was compiled.
    if (keys.length === 1) return this.#sorted.get(keys[0]!) ?? this.#anyResource;
    return byName(new Set([...this.#anyResource, ...keys.flatMap((key) => this.#byResource.get(key) ?? [])]));
  }

  evaluate(request: AdmissionRequest, facts: PolicyFacts, exempted?: (policy: string) => boolean, only?: string, session: ReviewSession = new ReviewSession()): PolicySetOutcome {
    const outcomes: PolicyOutcome[] = [];
    const failures: Failure[] = [];
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
    const matcher = new RequestMatcher(request, namespaceLabels);
    // What every policy, binding and param of this review sees alike: made once.
    const object = (request.object ?? null) as Value;
    const oldObject = (request.oldObject ?? null) as Value;
    let requestValue: Value | undefined;
    let reviewed: Reviewed | undefined | null = null;
    const requestVariables: RequestVariables = new Map();
    const reviewBudget = session.budget;
    const kept = (session.kept.get(this) ?? session.kept.set(this, new Map()).get(this)!) as Map<string, KeptEvaluation>;
    for (const { policy, match, bindings } of this.#candidates(request, only)) {
      const configError = (message: string, binding?: string) => {
        if (policy.failurePolicy === "Ignore") return;
        outcomes.push({ policy: policy.name, ...(binding ? { binding } : {}), action: "Deny", message, status: { code: 422, reason: "Invalid" } });
      };
      const matched = matcher.matches(match);
      if (matched.error !== undefined) {
        configError(`failed to configure policy: ${matched.error}`);
        continue;
      }
      if (!matched.matches) continue;

      const exempt = exempted?.(policy.name) === true;
      // Audit annotation values by key, for a policy that has any and is not set aside.
      const collected = policy.auditAnnotations.length > 0 && !exempt ? new Map<string, string[]>() : undefined;
      for (const binding of bindings) {
        const bindingMatched = binding.match ? matcher.matches(binding.match) : { matches: true };
        if (bindingMatched.error !== undefined) {
          configError(`failed to configure binding: ${bindingMatched.error}`, binding.name);
          continue;
        }
        if (!bindingMatched.matches) continue;
        // Params and the namespace read from a unit the round lacked: nothing of this binding is final yet.
        const missedBefore = session.missed();
        const params = collectParams(policy.spec.paramKind, binding.spec, request.namespace ?? "", facts);
        if (typeof params === "string") {
          configError(`failed to configure binding: ${params}`, binding.name);
          continue;
        }
        const namespaceObject = namespaceObjectOf(policy, request, namespaceOf);
        if (typeof namespaceObject === "string") {
          configError(`failed to configure binding: ${namespaceObject}`, binding.name);
          continue;
        }
        const inputsFinal = session.missed() === missedBefore;
        for (const [index, param] of params.entries()) {
          const id = `${policy.name}\u0000${binding.name}\u0000${index}`;
          const earlier = kept.get(id);
          let validated: KeptEvaluation["validated"] | undefined;
          if (reviewExhausted(reviewBudget)) validated = undefined;
          else if (earlier !== undefined && earlier.param === param && inputsFinal) {
            validated = earlier.validated;
            for (const [program, result] of earlier.shared) if (!requestVariables.has(program)) requestVariables.set(program, result);
          } else {
            const before = { missed: session.missed(), shared: requestVariables.size };
            validated = validate({
              policy,
              object,
              oldObject,
              request: (requestValue ??= requestVariable(request)),
              params: param as Value,
              namespaceObject,
              inventory: policy.readsInventory ? new InventoryValue(facts, policy.inventory, reviewed === null ? (reviewed = reviewedOf(request)) : reviewed) : null,
              requestVariables,
              reviewBudget,
            });
            if (inputsFinal && !reviewBudget.cut && session.missed() === before.missed) kept.set(id, { param, validated, shared: [...requestVariables].slice(before.shared) });
          }
          const { decisions, annotations: annotationResults } =
            validated === undefined || reviewBudget.cut
              ? { decisions: policy.failurePolicy === "Ignore" ? [] : [{ action: "Deny" as const, message: CUT_BY_REVIEW_BUDGET, reason: "Invalid", expressionIndex: 0 }], annotations: [] }
              : validated;
          for (const decision of decisions) {
            if (decision.action !== "Deny") continue;
            for (const action of binding.spec.validationActions) {
              if (action === "Audit" && !exempt)
                failures.push({ message: decision.message, policy: binding.spec.policyName, binding: binding.name, expressionIndex: decision.expressionIndex, validationActions: binding.spec.validationActions });
              const status = { code: codeOf(decision.reason), reason: decision.reason };
              outcomes.push({ policy: policy.name, binding: binding.name, action, message: decision.message, status });
            }
          }
          for (const annotation of annotationResults) {
            if (annotation.action === "Publish" && collected) {
              const values = collected.get(annotation.key) ?? [];
              if (!values.includes(annotation.value)) values.push(annotation.value);
              collected.set(annotation.key, values);
            } else if (annotation.action === "Error")
              outcomes.push({ policy: policy.name, binding: binding.name, action: "Deny", message: annotation.message, status: { code: 422, reason: "Invalid" } });
          }
        }
      }
      if (collected) for (const [key, values] of collected) annotations[auditKey(policy.name, key)] = values.join(", ");
    }
    if (failures.length > 0) annotations[VALIDATION_FAILURE_KEY] = JSON.stringify(failures);
    return { outcomes, auditAnnotations: annotations };
  }
}
