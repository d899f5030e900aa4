// Lookups over a snapshot: its cluster-wide part and the units a review
// reads (units/split.ts). The function builds a view per review from what its
// isolate holds; check, test and audit build one over the whole snapshot,
// split the same way, so both read through this code. Every lookup is a
// hash-map lookup in one unit, so a review costs the same at any cluster size.
// A view that holds only some units throws UnloadedUnitError for any other:
// a unit a review did not load is a bug in reviewUnits, never a silent
// "absent". Only a view made to discover what a review reads (`missing`)
// answers "absent" instead, and names the unit: the inventory's lookups reach
// units only evaluation can name (a host's index bucket), so the function
// loads them and judges the review again.
import type { AdmissionRequest } from "../admission/index.js";
import { parseQuantity, type Quantity } from "../k8s/quantity/index.js";
import { UnloadedUnitError, type InventoryFacts } from "../inventory/facts.js";
import { indexBucketOf, inventoryIndexUnit, inventoryKindUnit } from "../inventory/units.js";
import type { AffinityClass, Application, InventoryKind, Settings, Snapshot, Tenant, VolumeClaim } from "./schema.js";
import {
  classReferencesUnit,
  MAX_UNIT_NAME,
  REFERENCE_SEPARATOR,
  splitSnapshot,
  type ClassReferences,
  type ClusterPart,
  type InventoryBucketContent,
  type InventoryDirectory,
  type Shard,
} from "./units/index.js";

/** Thrown by a view for a unit it was not given; declared with the facts the inventory reads. */
export { UnloadedUnitError };

export const LINEAGE_LABELS = {
  group: "apps.cozystack.io/application.group",
  kind: "apps.cozystack.io/application.kind",
  name: "apps.cozystack.io/application.name",
} as const;
export const AFFINITY_CLASS_LABEL = "apps.cozystack.io/affinity-class";
export const FLUX_HELMRELEASE_NAME_LABEL = "helm.toolkit.fluxcd.io/name";
export const FLUX_HELMRELEASE_NAMESPACE_LABEL = "helm.toolkit.fluxcd.io/namespace";
export const ROOT_TENANT_NAMESPACE = "tenant-root";

/** CozyStack naming: tenant `x` in `tenant-root` owns `tenant-x`; in `tenant-a` it owns `tenant-a-x`. */
export function tenantNamespaceOf(name: string, namespace: string): string {
  return namespace === ROOT_TENANT_NAMESPACE ? `tenant-${name}` : `${namespace}-${name}`;
}

export interface Lineage {
  group: string;
  kind: string;
  name: string;
}

export interface ResolvedApplication extends Application {
  namespace: string;
  helmRelease: string;
}

/** The application an object's lineage labels name, if all three are set. */
export function lineageOf(labels: Readonly<Record<string, string>> | null | undefined): Lineage | undefined {
  const group = labels?.[LINEAGE_LABELS.group];
  const kind = labels?.[LINEAGE_LABELS.kind];
  const name = labels?.[LINEAGE_LABELS.name];
  return group && kind && name ? { group, kind, name } : undefined;
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

const lineageKey = (l: Lineage) => `${l.group}\u0000${l.kind}\u0000${l.name}`;

/**
 * A cluster part and what is computed from it alone (compiled classes, the
 * params' namespaces): one per stored generation in an isolate, one per
 * offline view. Policies' derived() results live here, so they are computed
 * once per generation, not once per review.
 */
/**
 * The cluster's AffinityClasses in a Map: looking up a name a request sends
 * (a Tenant may list 100,000) only hashes it, where the snapshot's record
 * would first look it up in the engine's table of interned strings, several
 * times slower per name.
 */
const classesByName = (view: SnapshotView): ReadonlyMap<string, AffinityClass> => new Map(Object.entries(view.cluster.affinityClasses));

export class ClusterFacts {
  readonly #derived = new Map<(view: SnapshotView) => unknown, unknown>();
  #view: SnapshotView | undefined;

  constructor(readonly part: ClusterPart) {}

  /** `compute` over a view holding no namespace: it can read only cluster-wide facts, so the result is the same for every review. */
  derived<T>(compute: (view: SnapshotView) => T): T {
    if (!this.#derived.has(compute)) this.#derived.set(compute, compute((this.#view ??= new SnapshotView(this, new Map()))));
    return this.#derived.get(compute) as T;
  }
}

/** One namespace's shard, and its lineage index, built on the first lookup and kept with the shard. */
export class NamespaceFacts {
  #byLineage: Map<string, string> | undefined;

  constructor(readonly shard: Shard) {}

  /** Lineage → `namespace/helmRelease` of the namespace's applications; of two claiming one lineage, the later key in code-unit order. */
  lineageIndex(): Map<string, string> {
    if (this.#byLineage) return this.#byLineage;
    const index = new Map<string, string>();
    for (const key of Object.keys(this.shard.applications).sort()) {
      const application = this.shard.applications[key]!;
      if (application.group && application.kind && application.name) index.set(lineageKey(application as Lineage), key);
    }
    return (this.#byLineage = index);
  }
}

/** A loaded unit besides the cluster part: a namespace's shard, a class's references, an index bucket, a kind's directory. */
export type LoadedUnit = NamespaceFacts | ClassReferences | InventoryBucketContent | InventoryDirectory;

/** A stored unit's content (as its schema gave it on push) as a view reads it: a namespace's shard with its facts, any other as it is. */
export function loadedUnit(name: string, content: unknown): LoadedUnit {
  return name.includes("/") ? (content as ClassReferences | InventoryBucketContent | InventoryDirectory) : new NamespaceFacts(content as Shard);
}

/**
 * The units a view may read besides the cluster part, by unit name (units/names.ts).
 * A name mapped to null has no unit (nothing of it is stored); a name not in
 * the map was not loaded, unless the view is `complete` (offline: every unit
 * is there, so a missing one is absent).
 */
export type LoadedShards = ReadonlyMap<string, LoadedUnit | null>;

interface ViewOptions {
  /** Every unit is there (offline): one not in the map is absent. */
  complete?: boolean;
  /** Discovering: a unit not loaded is taken as absent and its name added here (the function loads it and judges again). */
  missing?: Set<string>;
}

export class SnapshotView implements InventoryFacts {
  readonly facts: ClusterFacts;
  readonly #shards: LoadedShards;
  readonly #complete: boolean;
  readonly #missing: Set<string> | undefined;
  #missed = 0;

  /** The whole snapshot (check, test, audit): split as storage splits it, every shard present. */
  constructor(snapshot: Snapshot);
  /** A cluster part and the shards one review loaded (the function). */
  constructor(facts: ClusterFacts, shards: LoadedShards, options?: ViewOptions);
  constructor(source: Snapshot | ClusterFacts, shards?: LoadedShards, options: ViewOptions = {}) {
    if (source instanceof ClusterFacts) {
      this.facts = source;
      this.#shards = shards!;
      this.#complete = options.complete ?? false;
      this.#missing = options.missing;
    } else {
      const parts = splitSnapshot(source);
      this.facts = new ClusterFacts(parts.cluster);
      const units = new Map<string, LoadedUnit>();
      for (const [namespace, shard] of parts.shards) units.set(namespace, new NamespaceFacts(shard));
      for (const [className, references] of parts.classReferences) units.set(classReferencesUnit(className), references);
      for (const [name, content] of parts.inventory) units.set(name, loadedUnit(name, content));
      this.#shards = units;
      this.#complete = true;
      this.#missing = undefined;
    }
  }

  /** How many times this view answered a unit it was not given as absent (discovering): an evaluation that raised it read something it may read otherwise with every unit. */
  get missed(): number {
    return this.#missed;
  }

  /** The cluster-wide part: settings, classes, policies and bindings, and every field that is not cut by namespace. */
  get cluster(): ClusterPart {
    return this.facts.part;
  }

  /** Unit `name`; undefined when there is none. */
  #unit(name: string): LoadedUnit | undefined {
    const loaded = this.#shards.get(name);
    if (loaded === undefined) {
      if (this.#complete) return undefined;
      if (this.#missing) {
        this.#missing.add(name);
        this.#missed++;
        return undefined;
      }
      throw new UnloadedUnitError(name);
    }
    return loaded ?? undefined;
  }

  /** The namespace's shard; undefined when it has none. A name no shard can have (none, too long, or holding "/") has none without being loaded. */
  #namespaceFacts(namespace: string): NamespaceFacts | undefined {
    if (namespace === "" || namespace.length > MAX_UNIT_NAME || namespace.includes("/")) return undefined;
    const unit = this.#unit(namespace);
    return unit instanceof NamespaceFacts ? unit : undefined;
  }

  #shard(namespace: string): Shard | undefined {
    return this.#namespaceFacts(namespace)?.shard;
  }

  /** The entry `key` of a namespaced field, from the shard of `namespace` (the cluster part holds the entries of no namespace). */
  #entry<F extends "applications" | "volumeClaims" | "tenants" | "namespaces">(field: F, namespace: string, key: string): Shard[F][string] | undefined {
    // Entries of no namespace (or of a name no namespace has) stay in the cluster part.
    const clusterWide = namespace === "" || namespace.includes("/");
    const record = (clusterWide ? this.cluster[field] : this.#shard(namespace)?.[field]) as Record<string, Shard[F][string]> | undefined;
    return record ? own(record, key) : undefined;
  }

  /**
   * `compute(view)`, computed on the first call and kept with the cluster
   * part: how a policy keeps an index of the snapshot (a class's compiled
   * terms). `compute` sees only the cluster-wide part.
   */
  derived<T>(compute: (view: SnapshotView) => T): T {
    return this.facts.derived(compute);
  }

  get settings(): Settings {
    return this.cluster.settings;
  }

  affinityClass(name: string): AffinityClass | undefined {
    return this.derived(classesByName).get(name);
  }

  affinityClassNames(): string[] {
    return Object.keys(this.cluster.affinityClasses);
  }

  /** The HelmReleases and Tenants that name class `name`, as precomputed over the whole snapshot; undefined when none does. */
  affinityClassReferences(name: string): ClassReferences | undefined {
    return this.#unit(classReferencesUnit(name)) as ClassReferences | undefined;
  }

  /** The tenant that owns `namespace`. */
  tenant(namespace: string): Tenant | undefined {
    return this.#entry("tenants", namespace, namespace);
  }

  applicationByLineage(namespace: string, lineage: Lineage): ResolvedApplication | undefined {
    const key = this.#namespaceFacts(namespace)?.lineageIndex().get(lineageKey(lineage));
    return key === undefined ? undefined : this.#application(key, namespace);
  }

  applicationByHelmRelease(namespace: string, helmRelease: string): ResolvedApplication | undefined {
    return this.#application(`${namespace}/${helmRelease}`, namespace);
  }

  #application(key: string, namespace: string): ResolvedApplication | undefined {
    const application = this.#entry("applications", namespace, key);
    const slash = key.indexOf("/");
    return application && { ...application, namespace: key.slice(0, slash), helmRelease: key.slice(slash + 1) };
  }

  /** The labels AffinityClasses look at, of a node the snapshot knows. */
  nodeLabels(name: string): Readonly<Record<string, string>> | undefined {
    return own(this.cluster.nodes, name);
  }

  /** Whether the snapshot was built with the cluster's Nodes, so it knows what a node can give a pod. */
  knowsNodeCapacity(): boolean {
    return this.cluster.largestAllocatable !== undefined;
  }

  /** The most of `resource` any node can give a pod; undefined when no node reports it (or no node is known). */
  largestAllocatable(resource: string): Quantity | undefined {
    return this.derived(parsedAllocatable).get(resource);
  }

  volumeClaim(namespace: string, name: string): VolumeClaim | undefined {
    return this.#entry("volumeClaims", namespace, `${namespace}/${name}`);
  }

  namespace(name: string): unknown {
    return this.#entry("namespaces", name, name);
  }

  paramKindNamespaced(kind: string): boolean | undefined {
    return own(this.cluster.policyParams, kind)?.namespaced;
  }

  paramObjects(kind: string, namespace: string | undefined): readonly unknown[] {
    const clusterWide = own(this.cluster.policyParams, kind)?.objects ?? [];
    if (namespace === undefined) return clusterWide;
    if (namespace === "" || namespace.includes("/")) return clusterWide.filter((object) => namespaceOf(object) === namespace);
    const shard = this.#shard(namespace);
    return (shard && own(shard.policyParams, kind)?.objects) ?? [];
  }

  // The inventory, as shared/inventory's library asks for it.

  inventoryKind(key: string): InventoryKind | undefined {
    return own(this.cluster.inventory, key);
  }

  inventoryInNamespace(key: string, namespace: string): Readonly<Record<string, unknown>> {
    const shard = this.#shard(namespace);
    return (shard && own(shard.inventory, key)?.objects) ?? NOTHING;
  }

  inventoryNamespaces(key: string): Readonly<Record<string, number>> {
    return (this.#unit(inventoryKindUnit(key)) as InventoryDirectory | undefined)?.namespaces ?? NOTHING;
  }

  inventoryLeftOut(key: string, field: string, valueKey: string): boolean {
    const bucket = this.#unit(inventoryIndexUnit(indexBucketOf(key, field, valueKey))) as InventoryBucketContent | undefined;
    const values: unknown = bucket?.leftOut && own(bucket.leftOut, key) && own(bucket.leftOut[key]!, field);
    return Array.isArray(values) && sortedIndexOf(values as readonly string[], valueKey, 1) >= 0;
  }

  inventoryLookup(key: string, field: string, valueKey: string): readonly string[] {
    const bucket = this.#unit(inventoryIndexUnit(indexBucketOf(key, field, valueKey))) as InventoryBucketContent | undefined;
    const pairs: unknown = bucket && own(bucket.index, key) && own(bucket.index[key]!, field);
    // A bucket stored by an earlier version maps values to the objects themselves: no keys, until the next sync replaces it.
    if (!Array.isArray(pairs)) return [];
    // Values at even places, in code-unit order (checked at push): a binary search.
    const at = sortedIndexOf(pairs as readonly string[], valueKey, 2);
    return at < 0 ? [] : (pairs[at + 1] as string).split(REFERENCE_SEPARATOR);
  }
}

/** Where `value` is in `list`, whose every `step`th element from the first is in code-unit order (a binary search), or -1. */
function sortedIndexOf(list: readonly string[], value: string, step: number): number {
  let low = 0;
  let high = Math.ceil(list.length / step);
  while (low < high) {
    const middle = (low + high) >>> 1;
    const found = list[middle * step]!;
    if (found === value) return middle * step;
    if (found < value) low = middle + 1;
    else high = middle;
  }
  return -1;
}

const NOTHING: Readonly<Record<string, never>> = Object.freeze({});

function namespaceOf(object: unknown): unknown {
  const metadata = typeof object === "object" && object !== null ? (object as Record<string, unknown>)["metadata"] : undefined;
  return typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)["namespace"] : undefined;
}

/** The snapshot's largest allocatable per resource, parsed once per cluster part (the builder wrote canonical quantities). */
function parsedAllocatable(view: SnapshotView): ReadonlyMap<string, Quantity> {
  return new Map(Object.entries(view.cluster.largestAllocatable ?? {}).map(([resource, text]) => [resource, parseQuantity(text)]));
}

// --- Which namespaces a review reads ---

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), value);

/** Where an object carries pod template labels: workloads' spec.template, a CronJob's spec.jobTemplate.spec.template. */
const LABEL_PATHS = [
  ["metadata", "labels"],
  ["spec", "template", "metadata", "labels"],
  ["spec", "jobTemplate", "spec", "template", "metadata", "labels"],
] as const;

/** The namespaces bindings take params from by name (paramRef.namespace), once per cluster part. */
function paramRefNamespaces(view: SnapshotView): readonly string[] {
  const namespaces = new Set<string>();
  for (const binding of Object.values(view.cluster.policyBindings)) {
    const namespace = at(binding, "spec", "paramRef", "namespace");
    if (typeof namespace === "string" && namespace !== "") namespaces.add(namespace);
  }
  return [...namespaces];
}

/**
 * The units a review of `request` may read besides the cluster part, decided
 * in one place. Namespaces' shards:
 * - the request's namespace, and the namespace in its object's and old object's metadata;
 * - the namespace named by helm.toolkit.fluxcd.io/namespace on the object or
 *   its pod template (affinity-class finds the application's HelmRelease there);
 * - every namespace a binding names in paramRef.namespace (its params live there).
 * Tenants need no more: a tenant record is keyed by the namespace it owns and
 * carries its resolved chain, and a Tenant object lives in its parent's
 * namespace, which is the request's. Nothing else reads another namespace.
 * And for an AffinityClass (its DELETE lists who still names it), the
 * class's references, by the request's name and the objects' names.
 */
export function reviewUnits(request: AdmissionRequest, facts: ClusterFacts): string[] {
  const units = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string" && value !== "") units.add(value);
  };
  add(request.namespace);
  for (const object of [request.object, request.oldObject]) {
    add(at(object, "metadata", "namespace"));
    for (const path of LABEL_PATHS) add(at(object, ...path, FLUX_HELMRELEASE_NAMESPACE_LABEL));
  }
  for (const namespace of facts.derived(paramRefNamespaces)) units.add(namespace);
  if (request.kind.group === "cozystack.io" && request.kind.kind === "AffinityClass")
    for (const name of [request.name, at(request.object, "metadata", "name"), at(request.oldObject, "metadata", "name")])
      if (typeof name === "string" && name !== "") units.add(classReferencesUnit(name));
  return [...units];
}
