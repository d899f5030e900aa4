// The cluster facts each scope of `edgeadmit check` is judged against: a
// snapshot built from its own objects and the global ones (policies, their
// params and inventory), or the one given; and what the facts lack that a
// namespaceSelector would read.
import { ClusterObjects, gatesFor } from "../../../shared/apiserver/index.js";
import { DEFAULT_VERSION, parseVersion, versionText } from "../../../shared/cel/kubernetes/environment.js";
import { listed } from "../../../shared/text/index.js";
import { objectJudge, type JudgedObject } from "../../../shared/judge/index.js";
import { NAMESPACE_NAME_LABEL, selectorKeys } from "../../../shared/k8s/labels/index.js";
import type { LabelSelector } from "../../../shared/k8s/schemas/index.js";
import type { Snapshot } from "../../../shared/snapshot/index.js";
import { SnapshotView } from "../../../shared/snapshot/view.js";
import { SnapshotBuilder, type BuildOptions, type KubeObject } from "../../../shared/snapshot/builder/index.js";
import { boundNeeds } from "../../../shared/snapshot/builder/policies.js";
import { bindingObjectSchema, policyObjectSchema, policySetOf } from "../../../shared/vap/index.js";
import { POLICIES } from "../../../policies/index.js";
import type { CliIo } from "../../base/io.js";
import { groupKindOf } from "../../objects/identity.js";
import { noteServed, servedAs } from "../../objects/served.js";
import type { NamespaceDefaults } from "../../objects/namespaces.js";
import type { Source } from "../../objects/yaml.js";
import type { CheckReport } from "../output/index.js";
import { refuseLeaks } from "../snapshot.js";
import type { PendingObjects } from "./pending.js";

export interface ScopeFacts {
  builder: SnapshotBuilder | undefined;
  /** Identity (group, kind, namespace, name) → where the first object with it was read. */
  identities: Map<string, Source>;
  /** The namespaces the scope's resources are in. */
  namespaces: Set<string>;
  /** The objects the apiserver's admission plugins would read (LimitRanges, PriorityClasses, default classes, CRDs), or none under --no-defaults. */
  cluster: ClusterObjects | undefined;
}

/** A scope's facts before its first object: built from the input unless the facts are given (--snapshot, --from-cluster). */
export function newScopeFacts(buildOptions: BuildOptions | undefined, defaults: boolean): ScopeFacts {
  return {
    builder: buildOptions ? new SnapshotBuilder({ ...buildOptions, retain: mayServePolicies }) : undefined,
    identities: new Map(),
    namespaces: new Set(),
    cluster: defaults ? new ClusterObjects() : undefined,
  };
}

/** Objects kept for the policies when building from a stream: the policies and bindings, what could be a param (a ConfigMap, a custom resource), Namespaces, CRDs; never the workloads. */
function mayServePolicies(object: KubeObject): boolean {
  const groupKind = groupKindOf(object);
  const group = groupKind.slice(0, groupKind.indexOf("/"));
  return (
    groupKind === "/Namespace" ||
    groupKind === "/ConfigMap" ||
    group === "apiextensions.k8s.io" ||
    group === "admissionregistration.k8s.io" ||
    (group.includes(".") && !group.endsWith(".k8s.io"))
  );
}

/** The label keys other than the namespace's name that the namespaceSelectors of a snapshot's bound policies and their bindings read, by policy. */
function selectorNeeds(snapshot: Snapshot): Map<string, Set<string>> {
  const needs = new Map<string, Set<string>>();
  const take = (policy: string, selector: LabelSelector | undefined) => {
    for (const key of selector ? selectorKeys(selector) : []) if (key !== NAMESPACE_NAME_LABEL) needs.set(policy, (needs.get(policy) ?? new Set()).add(key));
  };
  for (const object of Object.values(snapshot.validatingAdmissionPolicies)) {
    const policy = policyObjectSchema.safeParse(object);
    if (policy.success) take(policy.data.metadata.name, policy.data.spec.matchConstraints.namespaceSelector);
  }
  for (const object of Object.values(snapshot.policyBindings)) {
    const binding = bindingObjectSchema.safeParse(object);
    if (binding.success && Object.hasOwn(snapshot.validatingAdmissionPolicies, binding.data.spec.policyName)) take(binding.data.spec.policyName, binding.data.spec.matchResources?.namespaceSelector);
  }
  return needs;
}

/**
 * What the scopes share, known only once every policy is read: a bound
 * policy's param objects (the policy, from -f or --policies, judges every
 * scope, so its params are every scope's facts too) and, for the kinds bound
 * policies declare, each scope's inventory: its own objects and the cluster
 * objects given with --policies (docs/inventory.md).
 */
export function shareFacts(scopes: ReadonlyMap<string, ScopeFacts>, globals: readonly KubeObject[], pending: PendingObjects, defaults: NamespaceDefaults, io: CliIo): void {
  const { inventoryKinds: declared, paramKinds } = boundNeeds(globals);
  if (paramKinds.size > 0)
    for (const { object, scope } of pending.drain({ keep: true })) {
      if (!paramKinds.has(`${String(object.apiVersion)}/${String(object.kind)}`)) continue;
      defaults.apply(object);
      for (const [other, facts] of scopes) if (other !== scope) facts.builder?.add(object);
    }
  if (declared.size === 0) return;
  const inventoryOf = servedAs(declared);
  for (const { object, scope } of pending.drain({ keep: true })) {
    defaults.apply(object);
    const inventory = inventoryOf(object);
    if (inventory) scopes.get(scope)?.builder?.addInventory(inventory);
  }
  const globalInventory = globals.map(inventoryOf).filter((object): object is KubeObject => object !== undefined);
  for (const facts of scopes.values()) for (const object of globalInventory) facts.builder?.addInventory(object);
  noteServed(inventoryOf, io);
}

/**
 * Each problem of the snapshot's bound policies (what the function's push
 * answer lists as policyProblems: a declaration that does not hold, an
 * expression that does not compile), warned once: such a policy follows its
 * failurePolicy, here as in the function.
 */
export function warnPolicyProblems(snapshot: Snapshot, io: CliIo, warned: Set<string>): void {
  for (const problem of policySetOf(snapshot).problems) {
    if (warned.has(problem)) continue;
    warned.add(problem);
    io.err(`warning: ${problem}\n`);
  }
}

/**
 * Each scope's judge: the given snapshot's, or one of the snapshot built from
 * the scope's facts and every global one; and the namespaces the facts know
 * by name only, when a namespaceSelector would read their labels. Unless
 * --no-defaults, a judge sees each object as the apiserver would hand it to
 * validation, with the scope's cluster objects, the global ones and the
 * `liveObjects` listed from the live cluster; each object judged is parsed
 * for its judging alone, so it is defaulted in place.
 */
export function scopeJudges(
  scopes: ReadonlyMap<string, ScopeFacts>,
  globals: readonly KubeObject[],
  given: Snapshot | undefined,
  io: CliIo,
  liveObjects: readonly KubeObject[] = [],
): { judges: Map<string, (object: KubeObject) => JudgedObject>; missingFacts: CheckReport["missingFacts"] } {
  const warned = new Set<string>();
  const judges = new Map<string, (object: KubeObject) => JudgedObject>();
  // What a namespaceSelector would need to know of namespaces the facts lack (known by name only).
  const unknownNamespaces = new Set<string>();
  const needs = new Map<string, Set<string>>();
  const addNeeds = (snapshot: Snapshot) => {
    for (const [policy, keys] of selectorNeeds(snapshot)) for (const key of keys) needs.set(policy, (needs.get(policy) ?? new Set()).add(key));
  };
  if (given) addNeeds(given);
  // A given snapshot is every scope's: one view, so what policies derive from it is derived once.
  const givenView = given ? new SnapshotView(given) : undefined;
  for (const [scope, facts] of scopes) {
    let snapshot = given;
    if (!snapshot) {
      for (const object of globals) facts.builder!.add(object);
      const built = facts.builder!.build();
      refuseLeaks("check", built.refused, io);
      // The global objects' problems would repeat once per scope: each is said once.
      for (const problem of built.problems.filter((problem) => !warned.has(problem))) {
        warned.add(problem);
        io.err(`warning: ${problem}\n`);
      }
      snapshot = built.snapshot;
      addNeeds(snapshot);
    }
    warnPolicyProblems(snapshot, io, warned);
    const cluster = facts.cluster;
    if (cluster) for (const object of [...globals, ...liveObjects]) cluster.add(object);
    const mutating = cluster?.mutatingPolicies() ?? [];
    const version = snapshot.kubernetesVersion === undefined ? DEFAULT_VERSION : (parseVersion(snapshot.kubernetesVersion) ?? DEFAULT_VERSION);
    const unapplied = `warning: MutatingAdmissionPolicy ${listed(mutating)} is not applied offline (Kubernetes ${versionText(version)} runs it before validation): objects are judged without its mutations`;
    if (mutating.length > 0 && gatesFor(version).MutatingAdmissionPolicy && !warned.has(unapplied)) {
      warned.add(unapplied);
      io.err(`${unapplied}\n`);
    }
    judges.set(scope, objectJudge(snapshot, { policies: POLICIES, ...(givenView ? { view: givenView } : {}), ...(cluster ? { apiserver: { cluster, inPlace: true } } : {}) }));
    for (const name of facts.namespaces) if (!Object.hasOwn(snapshot.namespaces, name)) unknownNamespaces.add(name);
  }
  const missing = [...unknownNamespaces].sort();
  const missingFacts =
    missing.length > 0 && needs.size > 0 ? { namespaces: missing, labels: [...needs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([policy, keys]) => ({ policy, labels: [...keys] })) } : undefined;
  return { judges, missingFacts };
}
