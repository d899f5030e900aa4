// Lookups over a decoded snapshot. Built once per isolate per generation; every
// lookup is a hash-map lookup, so a review costs the same at any cluster size.
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
  readonly #byLineage = new Map<string, ResolvedApplication>();

  constructor(readonly snapshot: Snapshot) {
    for (const [key, application] of Object.entries(snapshot.applications)) {
      const slash = key.indexOf("/");
      const resolved = { ...application, namespace: key.slice(0, slash), helmRelease: key.slice(slash + 1) };
      if (application.group && application.kind && application.name) {
        this.#byLineage.set(lineageKey(resolved.namespace, application as Lineage), resolved);
      }
    }
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
    return this.#byLineage.get(lineageKey(namespace, lineage));
  }

  applicationByHelmRelease(namespace: string, helmRelease: string): ResolvedApplication | undefined {
    const application = own(this.snapshot.applications, `${namespace}/${helmRelease}`);
    return application && { ...application, namespace, helmRelease };
  }

  applications(): ResolvedApplication[] {
    return Object.keys(this.snapshot.applications).map((key) => {
      const slash = key.indexOf("/");
      return this.applicationByHelmRelease(key.slice(0, slash), key.slice(slash + 1))!;
    });
  }

  /** The labels AffinityClasses look at, of a node the snapshot knows. */
  nodeLabels(name: string): Readonly<Record<string, string>> | undefined {
    return own(this.snapshot.nodes, name);
  }

  volumeClaim(namespace: string, name: string): VolumeClaim | undefined {
    return own(this.snapshot.volumeClaims, `${namespace}/${name}`);
  }
}
