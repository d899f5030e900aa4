// Lookups over a decoded snapshot. Built once per isolate per generation; every
// lookup is a hash-map lookup, so a review costs the same at any cluster size.
// Nothing is copied up front: an isolate's first sight of a 100,000-application
// snapshot should cost little more than JSON.parse.
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

const lineageKey = (namespace: string, l: Lineage) => `${namespace}\u0000${l.group}\u0000${l.kind}\u0000${l.name}`;

export class SnapshotView {
  /** lineage → `namespace/helmRelease`, built on the first lineage lookup: one pass, no copies. */
  #byLineage: Map<string, string> | undefined;

  constructor(readonly snapshot: Snapshot) {}

  #lineageIndex(): Map<string, string> {
    if (this.#byLineage) return this.#byLineage;
    const index = new Map<string, string>();
    for (const [key, application] of Object.entries(this.snapshot.applications)) {
      if (application.group && application.kind && application.name) {
        index.set(lineageKey(key.slice(0, key.indexOf("/")), application as Lineage), key);
      }
    }
    return (this.#byLineage = index);
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
    const key = this.#lineageIndex().get(lineageKey(namespace, lineage));
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
