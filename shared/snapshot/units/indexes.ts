// Indexes over every namespace, derived from the snapshot into units of their
// own: a class's references (affinityclass/<class>), and the inventory's
// index buckets and kind directories (shared/inventory/units.ts). A change in
// one namespace rewrites a few of them, never one unit that grows with the
// cluster.
import { MAX_LISTED } from "../../text/index.js";
import { parseFieldPath, indexedValues, type FieldPath } from "../../inventory/paths.js";
import { indexBucketOf, inventoryIndexUnit, inventoryKindUnit } from "../../inventory/units.js";
import type { Snapshot } from "../schema.js";
import { prefixNamespace } from "./fields.js";
import { REFERENCE_SEPARATOR, type ClassReferences, type InventoryBucketContent, type InventoryDirectory } from "./schemas.js";

/** Code-unit order, as the store and the digests sort names. */
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Who names each class, in the order affinity-class-definitions lists them:
 * HelmReleases by their affinity-class label, then Tenants that set the class
 * themselves (not those inheriting it), each group sorted. Only the first
 * MAX_LISTED of each are kept, with the count, which is all a message shows.
 */
export function affinityClassReferences(snapshot: Pick<Snapshot, "applications" | "tenants">): Record<string, ClassReferences> {
  const helmReleases = new Map<string, string[]>();
  for (const [key, application] of Object.entries(snapshot.applications)) {
    if (!application.affinityClass) continue;
    const list = helmReleases.get(application.affinityClass) ?? [];
    list.push(`HelmRelease ${key}`);
    helmReleases.set(application.affinityClass, list);
  }
  const tenants = new Map<string, string[]>();
  for (const tenant of Object.values(snapshot.tenants)) {
    const parentNamespace = tenant.chain.at(-2);
    const parent = parentNamespace === undefined || !Object.hasOwn(snapshot.tenants, parentNamespace) ? undefined : snapshot.tenants[parentNamespace];
    const roles = new Map<string, string[]>();
    const ownList = tenant.allowedAffinityClasses && tenant.allowedAffinityClasses.join("\u0000") !== parent?.allowedAffinityClasses?.join("\u0000");
    if (ownList) for (const className of tenant.allowedAffinityClasses!) roles.set(className, ["allowed"]);
    const ownDefault = tenant.defaultAffinityClass !== parent?.defaultAffinityClass ? tenant.defaultAffinityClass : undefined;
    if (ownDefault) roles.set(ownDefault, [...(roles.get(ownDefault) ?? []), "default"]);
    for (const [className, list] of roles) {
      const named = tenants.get(className) ?? [];
      named.push(`Tenant ${tenant.namespace}/${tenant.name} (${list.join(", ")})`);
      tenants.set(className, named);
    }
  }
  const index: Record<string, ClassReferences> = {};
  for (const className of new Set([...helmReleases.keys(), ...tenants.keys()])) {
    const all = [...(helmReleases.get(className) ?? []).sort(byCode), ...(tenants.get(className) ?? []).sort(byCode)];
    index[className] = { shown: all.slice(0, MAX_LISTED), total: all.length };
  }
  return index;
}

/**
 * The units derived from the inventory: per namespaced kind, where its
 * objects are; per indexed value, the keys of the objects having it, in its
 * bucket. A change to one object rewrites its shard, the buckets of the
 * values it gained or lost (each holds its key), and its kind's directory
 * when its namespace gains or loses one.
 */
export function inventoryUnits(inventory: Snapshot["inventory"], leftOutValues: boolean): Map<string, InventoryBucketContent | InventoryDirectory> {
  const units = new Map<string, InventoryBucketContent | InventoryDirectory>();
  const buckets = new Map<number, Record<string, Record<string, Record<string, string[]>>>>();
  /** Bucket → kind → field → the values left-out objects hold there (written only when the function reads them). */
  const leftOut = new Map<number, Record<string, Record<string, string[]>>>();
  for (const [kind, entry] of Object.entries(inventory)) {
    const keys = Object.keys(entry.objects).sort(byCode);
    if (entry.namespaced && keys.length > 0) {
      const namespaces: Record<string, number> = {};
      for (const key of keys) {
        const namespace = prefixNamespace(key);
        if (namespace !== undefined) namespaces[namespace] = (namespaces[namespace] ?? 0) + 1;
      }
      if (Object.keys(namespaces).length > 0) units.set(inventoryKindUnit(kind), { namespaces });
    }
    if (leftOutValues)
      for (const [field, values] of Object.entries(entry.leftOut?.values ?? {}))
        for (const valueKey of values) {
          const bucket = indexBucketOf(kind, field, valueKey);
          const byKind = leftOut.get(bucket) ?? leftOut.set(bucket, {}).get(bucket)!;
          ((byKind[kind] ??= {})[field] ??= []).push(valueKey);
        }
    const index = (entry.index ?? []).map(parseFieldPath).filter((path): path is FieldPath => typeof path !== "string");
    for (const path of index) {
      for (const key of keys) {
        const object = entry.objects[key];
        for (const valueKey of indexedValues(object, path)) {
          const bucket = indexBucketOf(kind, path.text, valueKey);
          const byKind = buckets.get(bucket) ?? buckets.set(bucket, {}).get(bucket)!;
          ((byKind[kind] ??= {})[path.text] ??= {})[valueKey] ??= [];
          byKind[kind]![path.text]![valueKey]!.push(key);
        }
      }
    }
  }
  // Keys in code-unit order at every level, so a bucket's bytes depend on its content alone.
  const sorted = <T, U>(record: Record<string, T>, each: (value: T) => U): Record<string, U> =>
    Object.fromEntries(Object.keys(record).sort(byCode).map((key) => [key, each(record[key]!)]));
  for (const bucket of [...new Set([...buckets.keys(), ...leftOut.keys()])].sort((a, b) => a - b)) {
    const left = leftOut.get(bucket);
    units.set(inventoryIndexUnit(bucket), {
      index: sorted(buckets.get(bucket) ?? {}, (fields) =>
        sorted(fields, (values) =>
          Object.keys(values)
            .sort(byCode)
            .flatMap((value) => [value, values[value]!.join(REFERENCE_SEPARATOR)]),
        ),
      ),
      ...(left ? { leftOut: sorted(left, (fields) => sorted(fields, (values) => [...new Set(values)].sort(byCode))) } : {}),
    });
  }
  return units;
}

/**
 * The kinds as the cluster part holds them: a kind's left-out values go to
 * their index buckets (inventoryUnits), and `indexed` says so; to a function
 * that does not read them (shared/version WRITTEN_FEATURES), the kind says
 * only how many were left out and which, as 0.1.0 wrote it.
 */
export function clusterInventory(inventory: Snapshot["inventory"], leftOutValues: boolean): Snapshot["inventory"] {
  const kinds: Snapshot["inventory"] = {};
  for (const [kind, entry] of Object.entries(inventory)) {
    if (!entry.leftOut) {
      kinds[kind] = entry;
      continue;
    }
    const { values, indexed: _indexed, crowded, ...named } = entry.leftOut;
    kinds[kind] = { ...entry, leftOut: leftOutValues && values ? { ...named, indexed: true, ...(crowded ? { crowded } : {}) } : named };
  }
  return kinds;
}

/** The left-out values of each indexed kind, by field, gathered from the buckets again (joinSnapshot). */
export function leftOutValuesOf(units: ReadonlyMap<string, InventoryBucketContent | InventoryDirectory>): Map<string, Record<string, string[]>> {
  const values = new Map<string, Record<string, string[]>>();
  for (const content of units.values())
    for (const [kind, fields] of Object.entries("leftOut" in content ? (content.leftOut ?? {}) : {})) {
      const byField = values.get(kind) ?? values.set(kind, {}).get(kind)!;
      for (const [field, list] of Object.entries(fields)) (byField[field] ??= []).push(...list);
    }
  for (const byField of values.values()) for (const field of Object.keys(byField)) byField[field]!.sort(byCode);
  return values;
}
