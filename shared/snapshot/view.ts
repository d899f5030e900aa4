// Lookups over a decoded snapshot. Built once per isolate per generation; every
// lookup is a hash-map lookup, so a review costs the same at any cluster size.
// Nothing is copied or indexed up front: an isolate's first sight of a
// 100,000-application snapshot costs little more than JSON.parse, and the
// lineage index grows one namespace at a time as reviews ask for it.
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

export class SnapshotView {
  /** `namespace/helmRelease` keys in sorted order, so one namespace's applications are one contiguous run. */
  #sortedKeys: string[] | undefined;
  /** Per namespace, built on its first lookup: lineage → `namespace/helmRelease`. */
  readonly #byLineage = new Map<string, Map<string, string>>();

  constructor(readonly snapshot: Snapshot) {}

  #namespaceIndex(namespace: string): Map<string, string> {
    const known = this.#byLineage.get(namespace);
    if (known) return known;
    const keys = (this.#sortedKeys ??= sorted(Object.keys(this.snapshot.applications)));
    const prefix = `${namespace}/`;
    const index = new Map<string, string>();
    for (let i = lowerBound(keys, prefix); i < keys.length && keys[i]!.startsWith(prefix); i++) {
      const application = this.snapshot.applications[keys[i]!]!;
      if (application.group && application.kind && application.name) index.set(lineageKey(application as Lineage), keys[i]!);
    }
    this.#byLineage.set(namespace, index);
    return index;
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
    const key = this.#namespaceIndex(namespace).get(lineageKey(lineage));
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

  volumeClaim(namespace: string, name: string): VolumeClaim | undefined {
    return own(this.snapshot.volumeClaims, `${namespace}/${name}`);
  }
}
