// Fleet policy sets: one set of policies written once by the platform team,
// signed with the operator key, stored by the function and selected onto
// registered clusters by their labels (docs/fleet.md). A set holds unchanged
// ValidatingAdmissionPolicies, EdgeAdmissionPolicyBindings that add a
// clusterSelector (and optionally waves), the params those bindings name,
// EdgeAdmissionPolicyModes (built-in policies' modes per cluster selector)
// and EdgeAdmissionExceptions. What a cluster gets is decided here, once per
// fleet revision and distinct selection; shared/review judges it beside
// the cluster's own policies.
import * as z from "zod/mini";
import { describeZodError } from "../zod/index.js";
import { onlyCredentialsProblem } from "../admission/credentials.js";
import { selectorMatches, type Labels } from "../k8s/labels/index.js";
import { labelSelectorSchema } from "../k8s/schemas/index.js";
import { exceptionObjectSchema, indexExceptions, type Exception, type ExceptionIndex } from "../exceptions/index.js";
import { ENFORCEMENT_MODES, type EnforcementMode } from "../snapshot/modes.js";
import { compilePolicySet, policyObjectSchema, type CompiledPolicySet, type NamedRule } from "../vap/index.js";
import type { ParamFacts } from "../vap/params/index.js";
import type { PolicyFacts } from "../vap/index.js";
import { EvalError } from "../cel/index.js";
import { describeKind } from "../inventory/index.js";

export const FLEET_API_VERSION = "edgeadmit.io/v1alpha1";
export const FLEET_BINDING_KIND = "EdgeAdmissionPolicyBinding";
export const FLEET_MODES_KIND = "EdgeAdmissionPolicyModes";
export const FLEET_EXCEPTION_KIND = "EdgeAdmissionException";
export const POLICY_KIND = "ValidatingAdmissionPolicy";

/** Objects one set holds: a platform baseline is tens of policies, not thousands, and every isolate holds the set. */
export const MAX_FLEET_OBJECTS = 2_000;
/** The signed request's size: the set travels whole, every apply (a SQLite row holds 2 MB). */
export const MAX_FLEET_BYTES = 1024 * 1024;
/** Waves one binding may roll out in. */
export const MAX_WAVES = 8;
/** Revisions `fleet history` and `fleet rollback` reach back to: older ones are dropped as new ones are stored. */
export const KEPT_REVISIONS = 100;

/** Why a rollback to, or a read of, `revision` finds nothing. */
export const revisionNotKept = (revision: number) => `the fleet keeps no revision ${revision} (it keeps the last ${KEPT_REVISIONS}; edgeadmit fleet history lists them)`;

/** How a fleet binding's name reads where the apiserver names a binding: no cluster binding can be named so (a '/' is not in a DNS name). */
export const fleetBindingName = (name: string) => `fleet/${name}`;

const nameSchema = z.string().check(z.minLength(1), z.maxLength(253), z.regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS subdomain name"));
const metadataSchema = z.looseObject({ name: nameSchema });
const actionsSchema = z.array(z.enum(ENFORCEMENT_MODES)).check(z.minLength(1), z.maxLength(3));

/** `promoteAfter`: a whole number of seconds, minutes, hours or days. */
const DURATION = /^([1-9]\d{0,5})(s|m|h|d)$/;
const DURATION_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A checked `promoteAfter` in milliseconds. */
export function durationMs(text: string): number {
  const [, amount, unit] = DURATION.exec(text)!;
  return Number(amount) * DURATION_MS[unit!]!;
}

const waveSchema = z.strictObject({
  validationActions: actionsSchema,
  /** The clusters of this wave, among those the binding's clusterSelector selects; absent: all of them. */
  clusterSelector: z.optional(labelSelectorSchema),
  /** Promote to the next wave by itself once this wave has been in effect this long with no finding of the policy on its clusters (docs/fleet.md). */
  promoteAfter: z.optional(z.string().check(z.regex(DURATION, "must be a duration: a whole number and s, m, h or d (90s, 30m, 24h, 7d)"))),
});

/** An EdgeAdmissionPolicyBinding's spec (a ValidatingAdmissionPolicyBindingSpec) plus which clusters it binds on and how it rolls out. */
const fleetBindingSpecSchema = z.looseObject({
  policyName: nameSchema,
  /** Which registered clusters (by their registration's labels); `{}` selects every cluster. */
  clusterSelector: labelSelectorSchema,
  validationActions: z.optional(actionsSchema),
  /** Staged rollout: wave 0 first; `edgeadmit fleet promote` activates the next. Instead of validationActions. */
  waves: z.optional(z.array(waveSchema).check(z.minLength(1), z.maxLength(MAX_WAVES))),
});

const fleetBindingSchema = z.looseObject({ apiVersion: z.literal(FLEET_API_VERSION), kind: z.literal(FLEET_BINDING_KIND), metadata: metadataSchema, spec: fleetBindingSpecSchema });
export type FleetBinding = z.infer<typeof fleetBindingSchema>;

/** Built-in policies' modes on the clusters selected: a floor the cluster's settings may raise, never lower. */
const fleetModesSchema = z.looseObject({
  apiVersion: z.literal(FLEET_API_VERSION),
  kind: z.literal(FLEET_MODES_KIND),
  metadata: metadataSchema,
  spec: z.strictObject({ clusterSelector: labelSelectorSchema, policies: z.record(z.string().check(z.minLength(1), z.maxLength(63)), z.enum(ENFORCEMENT_MODES)) }),
});

const fleetExceptionSchema = z.looseObject({ apiVersion: z.literal(FLEET_API_VERSION), kind: z.literal(FLEET_EXCEPTION_KIND), metadata: metadataSchema, spec: exceptionObjectSchema.shape.spec });

/** A param object: any kind a fleet policy's paramKind names, cluster-scoped or with a namespace. */
const paramSchema = z.looseObject({
  apiVersion: z.string().check(z.minLength(1)),
  kind: z.string().check(z.minLength(1)),
  metadata: z.looseObject({ name: nameSchema, namespace: z.optional(z.string()) }),
});

/** The set as `edgeadmit fleet apply` sends it and the function stores it: each kind in its own list. */
export const fleetSetSchema = z.strictObject({
  policies: z.array(z.unknown()),
  bindings: z.array(fleetBindingSchema),
  params: z._default(z.array(paramSchema), []),
  modes: z._default(z.array(fleetModesSchema), []),
  exceptions: z._default(z.array(fleetExceptionSchema), []),
});
export type FleetSet = z.output<typeof fleetSetSchema>;

/** What is stored per revision: the set, how far each binding's waves are promoted, and how the revision came to be. */
export interface FleetRevision {
  revision: number;
  set: FleetSet;
  /** Per binding with waves: the last active wave (0 first). */
  stages: Record<string, number>;
  /** Per binding with waves: when its wave in `stages` took effect (ms); absent in revisions stored before promoteAfter, read as appliedAt. */
  stagedAt?: Record<string, number>;
  /** Milliseconds since the epoch. */
  appliedAt: number;
  /** `apply`, `promote <binding> to wave N`, `rollback to N`. */
  change: string;
}

/** The signed change requests of POST /v1/fleet; `ifRevision` refuses the change if the fleet moved on since. */
const requestIdSchema = z.string().check(z.regex(/^[A-Za-z0-9-]{16,64}$/, "must be 16-64 letters, digits and '-', new for every request"));
const ifRevisionSchema = z.optional(z.int().check(z.minimum(0)));
export const fleetChangeSchema = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("apply"),
    requestId: requestIdSchema,
    ifRevision: ifRevisionSchema,
    set: fleetSetSchema,
    /** An empty set removes every fleet policy from every cluster: only when asked for, by name (fleet apply --allow-empty). */
    allowEmpty: z.optional(z.boolean()),
  }),
  z.strictObject({ op: z.literal("promote"), requestId: requestIdSchema, ifRevision: ifRevisionSchema, binding: nameSchema, toWave: z.optional(z.int().check(z.minimum(0))) }),
  z.strictObject({ op: z.literal("rollback"), requestId: requestIdSchema, ifRevision: ifRevisionSchema, toRevision: z.int().check(z.minimum(1)) }),
]);
export type FleetChange = z.infer<typeof fleetChangeSchema>;

const kindOf = (object: unknown): string => (typeof object === "object" && object !== null && typeof (object as { kind?: unknown }).kind === "string" ? (object as { kind: string }).kind : "");
const nameOf = (object: unknown): string => {
  const metadata = typeof object === "object" && object !== null ? (object as { metadata?: { name?: unknown } }).metadata : undefined;
  return typeof metadata?.name === "string" ? metadata.name : "";
};

/**
 * Kubernetes objects (a directory of YAML, as `edgeadmit fleet apply -f`
 * reads it) sorted into a set: policies, bindings, modes and exceptions by
 * kind; any other object is taken for a param, which fleetSetProblems holds
 * to the policies' paramKinds.
 */
export function fleetSetOf(objects: readonly unknown[]): unknown {
  const set = { policies: [] as unknown[], bindings: [] as unknown[], params: [] as unknown[], modes: [] as unknown[], exceptions: [] as unknown[] };
  for (const object of objects) {
    const kind = kindOf(object);
    (kind === POLICY_KIND ? set.policies : kind === FLEET_BINDING_KIND ? set.bindings : kind === FLEET_MODES_KIND ? set.modes : kind === FLEET_EXCEPTION_KIND ? set.exceptions : set.params).push(object);
  }
  return set;
}

/** Whether a set binds, floors and exempts nothing: applied, it removes every fleet policy from every cluster, so it is applied only when asked for by name (allowEmpty). */
export const emptyFleetSet = (set: FleetSet): boolean => set.policies.length + set.bindings.length + set.modes.length + set.exceptions.length === 0;

/** Every problem that keeps a set from being applied, one line each: nothing is stored while there is one. */
export function fleetSetProblems(set: FleetSet): string[] {
  const problems: string[] = [];
  const count = set.policies.length + set.bindings.length + set.params.length + set.modes.length + set.exceptions.length;
  if (count > MAX_FLEET_OBJECTS) problems.push(`a fleet set holds at most ${MAX_FLEET_OBJECTS} objects, not ${count}`);
  const names = new Set<string>();
  const unique = (kind: string, objects: readonly unknown[]) => {
    const seen = new Set<string>();
    for (const object of objects) {
      const name = nameOf(object);
      if (seen.has(name)) problems.push(`${kind} '${name}' appears twice`);
      seen.add(name);
    }
    return seen;
  };
  // A fleet policy reads what the fleet gives it (a paramKind the set holds no object of would read each cluster's own), and a param is an object of some policy's paramKind.
  const paramKinds = new Set<string>();
  const heldKinds = new Set(set.params.map((param) => `${param.apiVersion}/${param.kind}`));
  for (const [index, policy] of set.policies.entries()) {
    const parsed = policyObjectSchema.safeParse(policy);
    if (!parsed.success) {
      problems.push(`${POLICY_KIND} ${index + 1} (${nameOf(policy).slice(0, 63) || "unnamed"}): ${describeZodError(parsed.error)}`);
      continue;
    }
    names.add(parsed.data.metadata.name);
    const credentialsOnly = onlyCredentialsProblem(parsed.data.spec.matchConstraints.resourceRules);
    if (credentialsOnly !== undefined) problems.push(`${POLICY_KIND} '${parsed.data.metadata.name}': ${credentialsOnly}`);
    const kind = parsed.data.spec.paramKind;
    if (!kind) continue;
    paramKinds.add(`${kind.apiVersion}/${kind.kind}`);
    if (!heldKinds.has(`${kind.apiVersion}/${kind.kind}`))
      problems.push(`${POLICY_KIND} '${parsed.data.metadata.name}': its paramKind ${kind.apiVersion} ${kind.kind} has no object in the set: a fleet policy reads its params from the fleet set only, never a cluster's`);
  }
  // A param is an object of some policy's paramKind: anything else (cluster objects, a HelmRelease) would be stored and sent to every isolate for nothing.
  for (const param of set.params)
    if (!paramKinds.has(`${param.apiVersion}/${param.kind}`))
      problems.push(
        `${param.apiVersion} ${param.kind} '${`${param.metadata.namespace ? `${param.metadata.namespace}/` : ""}${param.metadata.name}`.slice(0, 120)}': no policy of the set takes it as params (its paramKind): a fleet set holds ValidatingAdmissionPolicies, their ${FLEET_BINDING_KIND}s and params, ${FLEET_MODES_KIND} and ${FLEET_EXCEPTION_KIND}s`,
      );
  unique(POLICY_KIND, set.policies);
  unique(FLEET_BINDING_KIND, set.bindings);
  unique(FLEET_MODES_KIND, set.modes);
  unique(FLEET_EXCEPTION_KIND, set.exceptions);
  for (const binding of set.bindings) {
    const { name } = binding.metadata;
    const spec = binding.spec;
    if (!names.has(spec.policyName)) problems.push(`${FLEET_BINDING_KIND} '${name}': policy '${spec.policyName}' is not in the set (a fleet binding binds the fleet's own policies)`);
    if ((spec.validationActions === undefined) === (spec.waves === undefined)) problems.push(`${FLEET_BINDING_KIND} '${name}': give validationActions or waves, one of them`);
    if (spec.waves?.at(-1)?.promoteAfter !== undefined) problems.push(`${FLEET_BINDING_KIND} '${name}': its last wave has promoteAfter, but there is no wave to promote to`);
  }
  if (problems.length === 0) {
    // Every binding bound on every cluster at once: any compile problem shows, whatever the selection.
    const compiled = compileSelection(set, set.bindings.map((binding) => ({ binding, actions: binding.spec.validationActions ?? binding.spec.waves![0]!.validationActions })));
    problems.push(...compiled.problems);
  }
  return problems;
}

/** The first stages of a new revision: a binding keeps how far it was promoted while its waves are the same, else starts at wave 0. */
export function stagesAfterApply(previous: Pick<FleetRevision, "set" | "stages"> | undefined, set: FleetSet): Record<string, number> {
  const stages: Record<string, number> = {};
  for (const binding of set.bindings) {
    const waves = binding.spec.waves;
    if (!waves) continue;
    const before = previous?.set.bindings.find((b) => b.metadata.name === binding.metadata.name);
    const same = before !== undefined && JSON.stringify(before.spec.waves) === JSON.stringify(waves);
    stages[binding.metadata.name] = same ? Math.min(previous!.stages[binding.metadata.name] ?? 0, waves.length - 1) : 0;
  }
  return stages;
}

/**
 * The wave a promotion of `name` to `toWave` (by default the next) moves it
 * to in `current`, or why the function refuses it and with which status:
 * promotion moves forward only, within the binding's waves.
 */
export function promotedWave(current: Pick<FleetRevision, "set" | "stages"> | undefined, name: string, toWave: number | undefined): { wave: number } | { status: 404 | 409; error: string } {
  if (!current) return { status: 404, error: "no fleet set is applied yet" };
  const binding = current.set.bindings.find((b) => b.metadata.name === name);
  if (!binding) return { status: 404, error: `the fleet set has no binding ${name}` };
  const waves = binding.spec.waves;
  if (!waves) return { status: 409, error: `binding ${name} has no waves: its validationActions apply everywhere it selects` };
  const stage = current.stages[name] ?? 0;
  const wave = toWave ?? stage + 1;
  if (wave >= waves.length) return { status: 409, error: `binding ${name} has ${waves.length} waves (0-${waves.length - 1}) and is at wave ${stage}: nothing to promote to` };
  if (wave <= stage) return { status: 409, error: `binding ${name} is at wave ${stage} already: promote moves forward (edgeadmit fleet rollback moves back)` };
  return { wave };
}

/** A binding's validationActions on a cluster: its own, or those of the last active wave that selects the cluster; undefined when none does. */
export function actionsFor(binding: FleetBinding, stage: number, labels: Labels): EnforcementMode[] | undefined {
  if (!selectorMatches(binding.spec.clusterSelector, labels)) return undefined;
  const waves = binding.spec.waves;
  if (!waves) return binding.spec.validationActions;
  for (let index = Math.min(stage, waves.length - 1); index >= 0; index--) {
    const wave = waves[index]!;
    if (wave.clusterSelector === undefined || selectorMatches(wave.clusterSelector, labels)) return wave.validationActions;
  }
  return undefined;
}

/** Whether `binding` binds on a cluster labelled `labels` in some wave, active or not: a promotion can make it active there with no render in between. */
export function reachesCluster(binding: FleetBinding, labels: Labels): boolean {
  if (!selectorMatches(binding.spec.clusterSelector, labels)) return false;
  const waves = binding.spec.waves;
  return waves === undefined || waves.some((wave) => wave.clusterSelector === undefined || selectorMatches(wave.clusterSelector, labels));
}

/** The resource rules of `policies` among the set's (by name): what a webhook must send the function for them to see a request. */
export function rulesOf(set: FleetSet, policies: ReadonlySet<string>): Array<{ policy: string; rule: NamedRule }> {
  return set.policies.flatMap((object) => {
    const parsed = policyObjectSchema.safeParse(object);
    if (!parsed.success || !policies.has(parsed.data.metadata.name)) return [];
    return parsed.data.spec.matchConstraints.resourceRules.map((rule) => ({ policy: parsed.data.metadata.name, rule }));
  });
}

/**
 * The resource rules of every fleet policy a binding can bind on a cluster
 * labelled `labels`, in any wave, whether active yet or not: what its
 * ValidatingWebhookConfiguration must send the function (edgeadmit
 * webhook-config), so that a promotion, by hand or automatic, needs no new
 * render. Only an apply that binds new policies or resources does.
 */
export function fleetRulesFor(set: FleetSet, labels: Labels): Array<{ policy: string; rule: NamedRule }> {
  return rulesOf(set, new Set(set.bindings.filter((binding) => reachesCluster(binding, labels)).map((binding) => binding.spec.policyName)));
}

/**
 * The resource rules of the fleet policies a binding can bind on a cluster
 * labelled `labels` only in a wave not active yet: what a promotion would
 * start enforcing there (the coverage a promotion needs).
 */
export function upcomingFleetRulesFor(set: FleetSet, stages: Readonly<Record<string, number>>, labels: Labels): Array<{ policy: string; rule: NamedRule }> {
  const active = new Set(set.bindings.filter((binding) => actionsFor(binding, stages[binding.metadata.name] ?? 0, labels) !== undefined).map((binding) => binding.spec.policyName));
  const later = set.bindings.filter((binding) => reachesCluster(binding, labels) && !active.has(binding.spec.policyName)).map((binding) => binding.spec.policyName);
  return rulesOf(set, new Set(later));
}

/**
 * What the fleet binds on one cluster labelled `labels`, as a set of its own:
 * the bound policies, each binding with the actions of the wave the cluster is
 * in (waves dropped, clusterSelector `{}`), the params of those policies'
 * paramKinds, the modes that select the cluster and the exceptions naming a
 * policy it gets. FleetPolicies of it selects the same on any labels, so the
 * audit (GET /v1/:cluster/fleet) judges with exactly what the webhook does,
 * and a cluster never sees other clusters' bindings or labels.
 */
export function selectionFor(set: FleetSet, stages: Readonly<Record<string, number>>, labels: Labels): FleetSet {
  const bindings: FleetBinding[] = [];
  for (const binding of set.bindings) {
    const actions = actionsFor(binding, stages[binding.metadata.name] ?? 0, labels);
    if (!actions) continue;
    const { waves: _waves, ...spec } = binding.spec;
    bindings.push({ ...binding, spec: { ...spec, clusterSelector: {}, validationActions: actions } });
  }
  const bound = new Set(bindings.map((binding) => binding.spec.policyName));
  const policies = set.policies.filter((policy) => bound.has(nameOf(policy)));
  const paramKinds = new Set<string>();
  for (const policy of policies) {
    const parsed = policyObjectSchema.safeParse(policy);
    const kind = parsed.success ? parsed.data.spec.paramKind : undefined;
    if (kind) paramKinds.add(`${kind.apiVersion}/${kind.kind}`);
  }
  const modes = set.modes.filter((object) => selectorMatches(object.spec.clusterSelector, labels)).map((object) => ({ ...object, spec: { ...object.spec, clusterSelector: {} } }));
  const named = new Set([...bound, ...modes.flatMap((object) => Object.keys(object.spec.policies))]);
  return {
    policies,
    bindings,
    params: set.params.filter((param) => paramKinds.has(`${param.apiVersion}/${param.kind}`)),
    modes,
    exceptions: set.exceptions.filter((exception) => exception.spec.policies.some((policy) => named.has(policy))),
  };
}

interface Selected {
  binding: FleetBinding;
  actions: EnforcementMode[];
}

function compileSelection(set: FleetSet, selected: readonly Selected[]): CompiledPolicySet {
  const used = new Set(selected.map(({ binding }) => binding.spec.policyName));
  const policies: Record<string, unknown> = {};
  for (const policy of set.policies) if (used.has(nameOf(policy))) policies[nameOf(policy)] = policy;
  const bindings: Record<string, unknown> = {};
  for (const { binding, actions } of selected) {
    const { clusterSelector: _selector, waves: _waves, ...spec } = binding.spec;
    const name = fleetBindingName(binding.metadata.name);
    bindings[name] = { metadata: { name }, spec: { ...spec, validationActions: actions } };
  }
  return compilePolicySet({ policies, bindings });
}

/** What the fleet binds on one cluster: judged beside the cluster's own policies (shared/review). */
export interface ClusterFleet {
  revision: number;
  /** The fleet policies bound on the cluster, with the actions of the wave it is in. */
  set: CompiledPolicySet;
  /** Built-in policies' floors on this cluster, the strictest any selecting EdgeAdmissionPolicyModes names. */
  modes: Readonly<Record<string, EnforcementMode>>;
  /** The fleet's exceptions: the only ones that exempt from a fleet policy. */
  exceptions: ExceptionIndex;
  /** The fleet's params: the only ones a fleet policy reads (fleetFacts). */
  params: FleetParams;
  /** The fleet bindings this cluster gets, `name: actions`: what `fleet status` shows. */
  bindings: readonly string[];
}

const STRICTNESS: Readonly<Record<EnforcementMode, number>> = { Audit: 0, Warn: 1, Deny: 2 };
/** The stricter of two modes. */
export const stricter = (a: EnforcementMode, b: EnforcementMode): EnforcementMode => (STRICTNESS[a] >= STRICTNESS[b] ? a : b);

/** The fleet's params by kind (`<apiVersion>/<kind>`). */
export class FleetParams implements ParamFacts {
  readonly #byKind = new Map<string, { namespaced: boolean; objects: Array<{ namespace: string | undefined; object: unknown }> }>();
  constructor(params: FleetSet["params"]) {
    for (const object of params) {
      const kind = `${object.apiVersion}/${object.kind}`;
      const entry = this.#byKind.get(kind) ?? { namespaced: false, objects: [] };
      entry.namespaced ||= object.metadata.namespace !== undefined;
      entry.objects.push({ namespace: object.metadata.namespace, object });
      this.#byKind.set(kind, entry);
    }
  }
  paramKindNamespaced(kind: string): boolean | undefined {
    return this.#byKind.get(kind)?.namespaced;
  }
  paramObjects(kind: string, namespace: string | undefined): readonly unknown[] {
    const entry = this.#byKind.get(kind);
    if (!entry) return [];
    return entry.objects.filter((o) => namespace === undefined || o.namespace === namespace).map((o) => o.object);
  }
}

/** Distinct selections kept per revision: clusters with the same labels share one; a bound on memory whatever the labels. */
const MAX_SELECTIONS = 1_024;

/**
 * One stored revision, ready for reviews: the selection of each cluster,
 * compiled once per distinct selection (the fleet's bindings and waves, not
 * the caller, decide how many there are; MAX_SELECTIONS bounds them anyway).
 */
export class FleetPolicies {
  readonly #exceptions: ExceptionIndex;
  readonly #params: FleetParams;
  readonly #selections = new Map<string, ClusterFleet>();
  /** Per labels object (a registration's, kept while the isolate holds it): a review finds its cluster's selection in one lookup. */
  readonly #byLabels = new WeakMap<Labels, ClusterFleet | null>();
  readonly #bindings: readonly FleetBinding[];

  constructor(readonly stored: FleetRevision) {
    this.#bindings = [...stored.set.bindings].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    this.#exceptions = indexExceptions(Object.fromEntries(stored.set.exceptions.map((e): [string, Exception] => [e.metadata.name, e.spec])));
    this.#params = new FleetParams(stored.set.params);
  }

  /** What the fleet binds on a cluster labelled `labels`; undefined when it binds nothing there. */
  forCluster(labels: Labels): ClusterFleet | undefined {
    const known = this.#byLabels.get(labels);
    if (known !== undefined) return known ?? undefined;
    const fleet = this.#select(labels);
    this.#byLabels.set(labels, fleet ?? null);
    return fleet;
  }

  #select(labels: Labels): ClusterFleet | undefined {
    const selected: Selected[] = [];
    for (const binding of this.#bindings) {
      const actions = actionsFor(binding, this.stored.stages[binding.metadata.name] ?? 0, labels);
      if (actions) selected.push({ binding, actions });
    }
    const modes: Record<string, EnforcementMode> = {};
    for (const object of this.stored.set.modes)
      if (selectorMatches(object.spec.clusterSelector, labels))
        for (const [policy, mode] of Object.entries(object.spec.policies)) modes[policy] = modes[policy] === undefined ? mode : stricter(modes[policy], mode);
    if (selected.length === 0 && Object.keys(modes).length === 0) return undefined;
    const bindings = selected.map(({ binding, actions }) => `${binding.metadata.name}: ${actions.join(",")}`);
    const key = `${bindings.join(";")}|${Object.entries(modes).sort().join(";")}`;
    let fleet = this.#selections.get(key);
    if (fleet === undefined) {
      if (this.#selections.size >= MAX_SELECTIONS) this.#selections.clear();
      fleet = { revision: this.stored.revision, set: compileSelection(this.stored.set, selected), modes, exceptions: this.#exceptions, params: this.#params, bindings };
      this.#selections.set(key, fleet);
    }
    return fleet;
  }
}

/**
 * What a fleet policy reads on a cluster: params from the fleet set only
 * (never the cluster's, which its owner did not give the fleet: a set that
 * would is refused at apply, and one stored by 0.1.0 finds none); the
 * inventory kinds the cluster's owner allowed, and no other (an evaluation
 * error, and the policy's failurePolicy decides); Namespaces as the cluster's.
 */
class FleetFacts implements PolicyFacts {
  constructor(
    private readonly fleet: FleetParams,
    private readonly cluster: PolicyFacts,
    /** The inventory kinds the cluster's owner lets fleet policies read (its settings' fleetInventory). */
    private readonly allowed: ReadonlySet<string>,
  ) {}
  namespace(name: string): unknown {
    return this.cluster.namespace(name);
  }
  paramKindNamespaced(kind: string): boolean | undefined {
    return this.fleet.paramKindNamespaced(kind);
  }
  paramObjects(kind: string, namespace: string | undefined): readonly unknown[] {
    return this.fleet.paramObjects(kind, namespace);
  }
  inventoryKind(key: string) {
    if (!this.allowed.has(key))
      throw new EvalError(
        `inventory: the cluster's owner has not let fleet policies read ${describeKind(key)}: its settings' fleetInventory does not list ${key} (docs/fleet.md, "What a fleet policy reads")`,
      );
    return this.cluster.inventoryKind(key);
  }
  inventoryInNamespace(key: string, namespace: string) {
    return this.cluster.inventoryInNamespace(key, namespace);
  }
  inventoryNamespaces(key: string) {
    return this.cluster.inventoryNamespaces(key);
  }
  inventoryLookup(key: string, field: string, valueKey: string) {
    return this.cluster.inventoryLookup(key, field, valueKey);
  }
  inventoryLeftOut(key: string, field: string, valueKey: string) {
    return this.cluster.inventoryLeftOut(key, field, valueKey);
  }
}

/** The facts a fleet policy is judged with on a cluster whose owner lets it read the inventory kinds `allowed`. */
export const fleetFacts = (fleet: ClusterFleet, cluster: PolicyFacts, allowed: readonly string[] = []): PolicyFacts => new FleetFacts(fleet.params, cluster, new Set(allowed));
