// The snapshot's namespaced fields and how each is cut by namespace
// (splitSnapshot) and joined again (joinSnapshot): which record fields are
// keyed by namespace and how to find the namespace of an entry. Every other
// field of the snapshot, present or future, travels in the cluster part
// untouched.
import type { Snapshot } from "../schema.js";

type ParamRecord = Snapshot["policyParams"];

/** How one namespaced field is cut: each entry's namespace, or undefined for an entry that stays cluster-wide. */
export interface NamespacedField<T> {
  cut(value: T): { cluster: T; byNamespace: Map<string, T> };
  join(into: T, part: T): void;
  empty(): T;
  /** Whether the cluster side of a cut holds an entry (what a shard must not). */
  holdsEntries(cluster: T): boolean;
}

function keyedRecord<V>(namespaceOfKey: (key: string) => string | undefined): NamespacedField<Record<string, V>> {
  return {
    cut(record) {
      const cluster: Record<string, V> = {};
      const byNamespace = new Map<string, Record<string, V>>();
      for (const [key, value] of Object.entries(record)) {
        const namespace = namespaceOfKey(key);
        if (namespace === undefined) {
          cluster[key] = value;
          continue;
        }
        let part = byNamespace.get(namespace);
        if (!part) byNamespace.set(namespace, (part = {}));
        part[key] = value;
      }
      return { cluster, byNamespace };
    },
    join(into, part) {
      Object.assign(into, part);
    },
    empty: () => ({}),
    holdsEntries: (cluster) => Object.keys(cluster).length > 0,
  };
}

/** `namespace/name` keys: the namespace is before the first slash. */
export const prefixNamespace = (key: string) => {
  const slash = key.indexOf("/");
  return slash > 0 ? key.slice(0, slash) : undefined;
};
/** Keys that are namespaces themselves (a tenant is keyed by the namespace it owns); a namespace name never holds "/". */
const ownNamespace = (key: string) => (key === "" || key.includes("/") ? undefined : key);

function namespaceOfObject(object: unknown): string | undefined {
  const metadata = typeof object === "object" && object !== null ? (object as Record<string, unknown>)["metadata"] : undefined;
  const namespace = typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)["namespace"] : undefined;
  return typeof namespace === "string" && namespace !== "" && !namespace.includes("/") ? namespace : undefined;
}

/**
 * Params of namespaced kinds go to the shard of their namespace; the cluster
 * part keeps every kind (so whether a kind is namespaced, and that it was
 * listed at all, is known without a shard) with the objects of cluster-scoped kinds.
 */
const policyParamsField: NamespacedField<ParamRecord> = {
  cut(params) {
    const cluster: ParamRecord = {};
    const byNamespace = new Map<string, ParamRecord>();
    for (const [kind, { namespaced, objects }] of Object.entries(params)) {
      const kept: unknown[] = [];
      cluster[kind] = { namespaced, objects: kept };
      for (const object of objects) {
        const namespace = namespaced ? namespaceOfObject(object) : undefined;
        if (namespace === undefined) {
          kept.push(object);
          continue;
        }
        let part = byNamespace.get(namespace);
        if (!part) byNamespace.set(namespace, (part = {}));
        (part[kind] ??= { namespaced: true, objects: [] }).objects.push(object);
      }
    }
    return { cluster, byNamespace };
  },
  join(into, part) {
    for (const [kind, { namespaced, objects }] of Object.entries(part)) (into[kind] ??= { namespaced, objects: [] }).objects.push(...objects);
  },
  empty: () => ({}),
  holdsEntries: (cluster) => Object.values(cluster).some((param) => param.objects.length > 0),
};

type InventoryRecord = Snapshot["inventory"];

/**
 * Inventory objects of namespaced kinds go to the shard of their namespace
 * (keys `namespace/name`); the cluster part keeps every kind, with its fields
 * and index and the objects of cluster-scoped kinds.
 */
const inventoryField: NamespacedField<InventoryRecord> = {
  cut(inventory) {
    const cluster: InventoryRecord = {};
    const byNamespace = new Map<string, InventoryRecord>();
    for (const [kind, entry] of Object.entries(inventory)) {
      if (!entry.namespaced) {
        cluster[kind] = entry;
        continue;
      }
      const kept: Record<string, unknown> = {};
      cluster[kind] = { ...entry, objects: kept };
      for (const [key, object] of Object.entries(entry.objects)) {
        const namespace = prefixNamespace(key);
        if (namespace === undefined) {
          kept[key] = object;
          continue;
        }
        let part = byNamespace.get(namespace);
        if (!part) byNamespace.set(namespace, (part = {}));
        (part[kind] ??= { namespaced: true, objects: {} }).objects[key] = object;
      }
    }
    return { cluster, byNamespace };
  },
  join(into, part) {
    for (const [kind, { namespaced, objects }] of Object.entries(part)) Object.assign((into[kind] ??= { namespaced, objects: {} }).objects, objects);
  },
  empty: () => ({}),
  holdsEntries: (cluster) => Object.values(cluster).some((entry) => !entry.namespaced || Object.keys(entry.objects).length > 0),
};

/** The fields cut by namespace. Every field not named here is cluster-wide. */
export const NAMESPACED_FIELDS = {
  applications: keyedRecord<Snapshot["applications"][string]>(prefixNamespace),
  volumeClaims: keyedRecord<Snapshot["volumeClaims"][string]>(prefixNamespace),
  tenants: keyedRecord<Snapshot["tenants"][string]>(ownNamespace),
  namespaces: keyedRecord<unknown>(ownNamespace),
  policyParams: policyParamsField,
  inventory: inventoryField,
} satisfies { [K in keyof Snapshot]?: NamespacedField<Snapshot[K]> };

export type NamespacedFieldName = keyof typeof NAMESPACED_FIELDS;
export const NAMESPACED_NAMES = Object.keys(NAMESPACED_FIELDS) as NamespacedFieldName[];
