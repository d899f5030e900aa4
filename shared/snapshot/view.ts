// Lookups over a decoded snapshot. Built once per isolate per generation; every
// lookup is a hash-map lookup, so a review costs the same at any cluster size.
// Nothing is copied or indexed up front: an isolate's first sight of a
// 100,000-application snapshot costs little more than JSON.parse, and the
// lineage index grows one namespace at a time as reviews ask for it. Every
// index holds only what the snapshot holds: a review naming a namespace the
// snapshot does not know leaves nothing behind.
import { parseQuantity, type Quantity } from "../k8s/quantity/index.js";
import type { PolicyFacts } from "../vap/index.js";
import type { AffinityClass, Application, Settings, Snapshot, Tenant, VolumeClaim } from "./schema.js";

export const LINEAGE_LABELS = {
  group: "apps.cozystack.io/application.group",
  kind: "apps.cozystack.io/application.kind",
  name: "apps.cozystack.io/application.name",
} as const;
export const AFFINITY_CLASS_LABEL = "apps.cozystack.io/affinity-class";
export const FLUX_HELMRELEASE_NAME_LABEL = "helm.toolkit.fluxcd.io/name";
export const FLUX_HELMRELEASE_NAMESPACE_LABEL = "helm.toolkit.fluxcd.io/namespace";

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

/** `keys` in code-unit order; the builder's output usually is already, which costs one pass to see. */
function sorted(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return keys.sort();
  return keys;
}

/** The first position in sorted `keys` not before `prefix`. */
function lowerBound(keys: readonly string[], prefix: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < prefix) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class SnapshotView implements PolicyFacts {
  /** `namespace/helmRelease` keys in sorted order, so one namespace's applications are one contiguous run. */
  #sortedKeys: string[] | undefined;
  /** Per namespace with applications, built on its first lookup: lineage → `namespace/helmRelease`. */
  readonly #byLineage = new Map<string, Map<string, string>>();
  /** What policies compute from the snapshot alone, once per view, keyed by the function that computes it. */
  readonly #derived = new Map<(view: SnapshotView) => unknown, unknown>();

  constructor(readonly snapshot: Snapshot) {}

  /** The lineage index of a namespace that has applications; undefined (and nothing kept) for any other. */
  #namespaceIndex(namespace: string): Map<string, string> | undefined {
    const known = this.#byLineage.get(namespace);
    if (known) return known;
    const keys = (this.#sortedKeys ??= sorted(Object.keys(this.snapshot.applications)));
    const prefix = `${namespace}/`;
    const first = lowerBound(keys, prefix);
    if (first >= keys.length || !keys[first]!.startsWith(prefix)) return undefined;
    const index = new Map<string, string>();
    for (let i = first; i < keys.length && keys[i]!.startsWith(prefix); i++) {
      const application = this.snapshot.applications[keys[i]!]!;
      if (application.group && application.kind && application.name) index.set(lineageKey(application as Lineage), keys[i]!);
    }
    // Keyed by the snapshot's own copy of the name, not the caller's string.
    this.#byLineage.set(keys[first]!.slice(0, namespace.length), index);
    return index;
  }

  /**
   * `compute(view)`, computed on the first call and kept with the view: how a
   * policy keeps an index of the snapshot (which class each HelmRelease names,
   * a class's compiled terms). `compute` must read only the snapshot, never a
   * request, so what is kept is bounded by the snapshot.
   */
  derived<T>(compute: (view: SnapshotView) => T): T {
    if (!this.#derived.has(compute)) this.#derived.set(compute, compute(this));
    return this.#derived.get(compute) as T;
  }

  get settings(): Settings {
    return this.snapshot.settings;
  }

  affinityClass(name: string): AffinityClass | undefined {
    return own(this.snapshot.affinityClasses, name);
  }

  affinityClassNames(): string[] {
    return Object.keys(this.snapshot.affinityClasses);
  }

  /** The tenant that owns `namespace`. */
  tenant(namespace: string): Tenant | undefined {
    return own(this.snapshot.tenants, namespace);
  }

  tenants(): Array<[ownedNamespace: string, tenant: Tenant]> {
    return Object.entries(this.snapshot.tenants);
  }

  applicationByLineage(namespace: string, lineage: Lineage): ResolvedApplication | undefined {
    const key = this.#namespaceIndex(namespace)?.get(lineageKey(lineage));
    return key === undefined ? undefined : this.#resolved(key);
  }

  applicationByHelmRelease(namespace: string, helmRelease: string): ResolvedApplication | undefined {
    return this.#resolved(`${namespace}/${helmRelease}`);
  }

  applications(): ResolvedApplication[] {
    return Object.keys(this.snapshot.applications).map((key) => this.#resolved(key)!);
  }

  #resolved(key: string): ResolvedApplication | undefined {
    const application = own(this.snapshot.applications, key);
    const slash = key.indexOf("/");
    return application && { ...application, namespace: key.slice(0, slash), helmRelease: key.slice(slash + 1) };
  }

  /** The labels AffinityClasses look at, of a node the snapshot knows. */
  nodeLabels(name: string): Readonly<Record<string, string>> | undefined {
    return own(this.snapshot.nodes, name);
  }

  /** Whether the snapshot was built with the cluster's Nodes, so it knows what a node can give a pod. */
  knowsNodeCapacity(): boolean {
    return this.snapshot.largestAllocatable !== undefined;
  }

  /** The most of `resource` any node can give a pod; undefined when no node reports it (or no node is known). */
  largestAllocatable(resource: string): Quantity | undefined {
    return this.derived(parsedAllocatable).get(resource);
  }

  volumeClaim(namespace: string, name: string): VolumeClaim | undefined {
    return own(this.snapshot.volumeClaims, `${namespace}/${name}`);
  }

  namespace(name: string): unknown {
    return own(this.snapshot.namespaces, name);
  }

  paramKindNamespaced(kind: string): boolean | undefined {
    return own(this.snapshot.policyParams, kind)?.namespaced;
  }

  paramObjects(kind: string, namespace: string | undefined): readonly unknown[] {
    const objects = own(this.snapshot.policyParams, kind)?.objects ?? [];
    return namespace === undefined ? objects : objects.filter((object) => namespaceOf(object) === namespace);
  }
}

function namespaceOf(object: unknown): unknown {
  const metadata = typeof object === "object" && object !== null ? (object as Record<string, unknown>)["metadata"] : undefined;
  return typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)["namespace"] : undefined;
}

/** The snapshot's largest allocatable per resource, parsed once per view (the builder wrote canonical quantities). */
function parsedAllocatable(view: SnapshotView): ReadonlyMap<string, Quantity> {
  return new Map(Object.entries(view.snapshot.largestAllocatable ?? {}).map(([resource, text]) => [resource, parseQuantity(text)]));
}
