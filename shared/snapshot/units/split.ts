// A snapshot in storage units: one cluster-wide part and one shard per
// namespace. The function stores units as rows, an isolate loads the cluster
// part and only the shards a review reads, and a push sends only the units
// whose hash changed. Offline (check, test, audit) splits the whole snapshot
// the same way, so the webhook and the CLI read through one code path.
//
// The cut is generic: NAMESPACED_FIELDS says which record fields are keyed by
// namespace and how to find the namespace of an entry; every other field of
// the snapshot, present or future, travels in the cluster part untouched.
// The cluster part never lists namespaces or their hashes, so its size does
// not grow with the applications. Besides, indexes over every namespace are
// derived into units of their own, named with a prefix that holds "/": a
// class's references (`affinityclass/<class>`), and the inventory's index
// buckets and kind directories (shared/inventory/units.ts).
import * as z from "zod/mini";
import { fnv1a, sha256Hex, sha256HexSync } from "../../digest/index.js";
import { MAX_LISTED } from "../../text/index.js";
import { describeZodError } from "../../zod/index.js";
import { parseFieldPath, indexedValues, type FieldPath } from "../../inventory/paths.js";
import { indexBucketOf, INDEX_BUCKETS, INVENTORY_INDEX_UNIT, INVENTORY_KIND_UNIT, inventoryIndexUnit, inventoryKindUnit } from "../../inventory/units.js";
import { isNamespaceName, isSubdomainName, MAX_LABEL_NAME, MAX_SUBDOMAIN_NAME } from "../../k8s/names/index.js";
import { snapshotSchema, type Snapshot } from "../schema.js";
import { unitLeak } from "../leaks.js";

/** Envelope fields: push metadata, kept with the generation in storage, never in a unit (so an unchanged cluster hashes the same). */
const ENVELOPE = { apiVersion: true, kind: true, generation: true, builtAt: true } as const;

type ParamRecord = Snapshot["policyParams"];

/** How one namespaced field is cut: each entry's namespace, or undefined for an entry that stays cluster-wide. */
interface NamespacedField<T> {
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
const prefixNamespace = (key: string) => {
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
const NAMESPACED_FIELDS = {
  applications: keyedRecord<Snapshot["applications"][string]>(prefixNamespace),
  volumeClaims: keyedRecord<Snapshot["volumeClaims"][string]>(prefixNamespace),
  tenants: keyedRecord<Snapshot["tenants"][string]>(ownNamespace),
  namespaces: keyedRecord<unknown>(ownNamespace),
  policyParams: policyParamsField,
  inventory: inventoryField,
} satisfies { [K in keyof Snapshot]?: NamespacedField<Snapshot[K]> };

type NamespacedFieldName = keyof typeof NAMESPACED_FIELDS;
const NAMESPACED_NAMES = Object.keys(NAMESPACED_FIELDS) as NamespacedFieldName[];

/** Who names an AffinityClass: the first few, as a message lists them, and how many in all. */
const classReferencesSchema = z.object({ shown: z.array(z.string()), total: z.number().check(z.int(), z.minimum(1)) });
export type ClassReferences = z.infer<typeof classReferencesSchema>;

/** A namespace's shard: the namespaced fields' entries in that namespace (each field present, possibly empty). */
const shardSchema = z.pick(snapshotSchema, { applications: true, volumeClaims: true, tenants: true, namespaces: true, policyParams: true, inventory: true });
export type Shard = z.infer<typeof shardSchema>;

/** The cluster-wide part: every field but the envelope, the namespaced ones holding only entries without a namespace. */
export const clusterPartSchema = z.omit(snapshotSchema, ENVELOPE);
export type ClusterPart = z.infer<typeof clusterPartSchema>;

/**
 * One bucket of the inventory's indexes: kind → field → a list of pairs,
 * each value (keyed as inventory/paths indexKey does) followed by the keys
 * (`namespace/name`, or `name`) of the objects having it joined by
 * REFERENCE_SEPARATOR, in code-unit order of the values (a lookup is a binary
 * search). References, not the objects: an object with many indexed values
 * is stored once, in its shard (or the cluster part), so the index grows
 * with the number of values, not with values × object size. A flat list of
 * strings, not a map of them: decoded, a bucket takes about two bytes of heap
 * per stored byte, where a map of unique keys takes three (V8 gives each such
 * object its own hidden class), above the cache's estimate
 * (functions/store/cache.ts HEAP_PER_STORED_BYTE).
 */
const inventoryBucketSchema = z.object({
  index: z.record(z.string(), z.record(z.string(), z.array(z.string()))),
});
/** Between two keys of one value: no Kubernetes name holds a newline. */
export const REFERENCE_SEPARATOR = "\n";
export type InventoryBucketContent = z.infer<typeof inventoryBucketSchema>;

/** Where a namespaced inventory kind has objects: namespace → how many. */
const inventoryDirectorySchema = z.object({ namespaces: z.record(z.string(), z.number().check(z.int(), z.minimum(1))) });
export type InventoryDirectory = z.infer<typeof inventoryDirectorySchema>;

interface SnapshotParts {
  cluster: ClusterPart;
  shards: Map<string, Shard>;
  /**
   * AffinityClass name → the HelmReleases and Tenants naming it: an index
   * over every namespace (affinity-class-definitions' DELETE check), one unit
   * per class, so a change in one namespace rewrites a few hundred bytes of
   * it, not a cluster-wide part that grows with the classes.
   */
  classReferences: Map<string, ClassReferences>;
  /** The inventory's index buckets (`inventory-index/<n>`) and namespaced kinds' directories (`inventory-kind/<key>`), by unit name: only non-empty ones. */
  inventory: Map<string, InventoryBucketContent | InventoryDirectory>;
}

/** The unit name of the cluster part; a namespace's shard is named by the namespace, never empty and never holding "/". */
export const CLUSTER_UNIT = "";
/** Units of the class reference index are named `affinityclass/<class>`: a "/" no namespace name has. */
const CLASS_REFERENCES_UNIT = "affinityclass/";
export const classReferencesUnit = (className: string) => `${CLASS_REFERENCES_UNIT}${className}`;
/** Longest unit (namespace) name the function stores: a DNS subdomain's limit, above a namespace's 63. */
export const MAX_UNIT_NAME = 253;

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

/** The snapshot cut into its cluster part and one shard per namespace that holds anything. */
export function splitSnapshot(snapshot: Snapshot): SnapshotParts {
  const cluster: Record<string, unknown> = {};
  const shards = new Map<string, Shard>();
  for (const [field, value] of Object.entries(snapshot)) {
    if (Object.hasOwn(ENVELOPE, field) || value === undefined) continue;
    if (!Object.hasOwn(NAMESPACED_FIELDS, field)) {
      cluster[field] = value;
      continue;
    }
    const namespaced = NAMESPACED_FIELDS[field as NamespacedFieldName] as NamespacedField<unknown>;
    const cut = namespaced.cut(value);
    cluster[field] = cut.cluster;
    for (const [namespace, part] of cut.byNamespace) {
      let shard = shards.get(namespace);
      if (!shard) shards.set(namespace, (shard = emptyShard()));
      (shard as Record<string, unknown>)[field] = part;
    }
  }
  return { cluster: cluster as ClusterPart, shards, classReferences: new Map(Object.entries(affinityClassReferences(snapshot))), inventory: inventoryUnits(snapshot.inventory) };
}

/**
 * The units derived from the inventory: per namespaced kind, where its
 * objects are; per indexed value, the keys of the objects having it, in its
 * bucket. A change to one object rewrites its shard, the buckets of the
 * values it gained or lost (each holds its key), and its kind's directory
 * when its namespace gains or loses one.
 */
function inventoryUnits(inventory: Snapshot["inventory"]): Map<string, InventoryBucketContent | InventoryDirectory> {
  const units = new Map<string, InventoryBucketContent | InventoryDirectory>();
  const buckets = new Map<number, Record<string, Record<string, Record<string, string[]>>>>();
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
  for (const bucket of [...buckets.keys()].sort((a, b) => a - b))
    units.set(inventoryIndexUnit(bucket), {
      index: sorted(buckets.get(bucket)!, (fields) =>
        sorted(fields, (values) =>
          Object.keys(values)
            .sort(byCode)
            .flatMap((value) => [value, values[value]!.join(REFERENCE_SEPARATOR)]),
        ),
      ),
    });
  return units;
}

export function emptyShard(): Shard {
  return Object.fromEntries(NAMESPACED_NAMES.map((field) => [field, NAMESPACED_FIELDS[field].empty()])) as Shard;
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The whole snapshot again (what splitSnapshot cut), with `envelope` for the fields no unit holds. */
export function joinSnapshot(parts: SnapshotParts, envelope: Pick<Snapshot, "generation" | "builtAt">): Snapshot {
  const snapshot = { apiVersion: snapshotSchema.shape.apiVersion.def.values[0], kind: "Snapshot", ...envelope, ...copy(parts.cluster) } as Snapshot;
  for (const shard of parts.shards.values())
    for (const field of NAMESPACED_NAMES) (NAMESPACED_FIELDS[field] as NamespacedField<unknown>).join(snapshot[field], copy(shard[field]));
  return snapshot;
}

/** Whether every entry of `shard` belongs to `namespace` (so a lookup of that namespace is the only one that can reach it). */
function shardStrayEntry(namespace: string, shard: Shard): string | undefined {
  for (const field of NAMESPACED_NAMES) {
    const cut = (NAMESPACED_FIELDS[field] as NamespacedField<unknown>).cut(shard[field]);
    for (const other of cut.byNamespace.keys()) if (other !== namespace) return `${field} holds an entry of namespace "${other.slice(0, 63)}"`;
    if ((NAMESPACED_FIELDS[field] as NamespacedField<unknown>).holdsEntries(cut.cluster)) return `${field} holds an entry of no namespace`;
  }
  return undefined;
}

// --- Units: what storage holds and a push compares ---

/**
 * A unit as stored: the UTF-8 bytes of its schema output as JSON, and their
 * SHA-256. Keys keep their order (a class's nodeSelector pairs are listed in
 * messages as written), and the schema gives the same order on both sides:
 * its own fields in its order, records as the input had them.
 */
export interface EncodedUnit {
  name: string;
  bytes: Uint8Array;
  sha256: string;
}

/** What a unit holds. */
type UnitContent = ClusterPart | Shard | ClassReferences | InventoryBucketContent | InventoryDirectory;

export async function encodeUnit(name: string, value: UnitContent): Promise<EncodedUnit> {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return { name, bytes, sha256: await sha256Hex(bytes) };
}

/**
 * Units are grouped into this many buckets by their name, so a sync compares
 * 1,024 bucket digests first and lists the units of the buckets that differ,
 * never every unit of a large cluster.
 */
export const BUCKETS = 1024;

/** The bucket of a unit name: the same on both sides. */
export function bucketOf(name: string): number {
  return fnv1a(name) % BUCKETS;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A bucket's digest (synchronous: the Durable Object computes it inside a transaction): SHA-256 over its units' `name\tsha256\n` lines, by name. */
export function bucketDigest(units: ReadonlyArray<{ name: string; sha256: string }>): string {
  return sha256HexSync([...units].sort(byName).map((unit) => `${JSON.stringify(unit.name)}\t${unit.sha256}\n`).join(""));
}

/** Digest per non-empty bucket. */
export function bucketDigests(units: Iterable<{ name: string; sha256: string }>): Map<number, string> {
  const grouped = new Map<number, Array<{ name: string; sha256: string }>>();
  for (const unit of units) {
    const bucket = bucketOf(unit.name);
    const list = grouped.get(bucket) ?? [];
    list.push(unit);
    grouped.set(bucket, list);
  }
  const digests = new Map<number, string>();
  for (const [bucket, list] of grouped) digests.set(bucket, bucketDigest(list));
  return digests;
}

/** The digest of a whole snapshot: SHA-256 over `bucket\tdigest\n` of its non-empty buckets in order. What `sync` compares as the content hash. */
export function rootDigest(buckets: ReadonlyMap<number, string>): string {
  return sha256HexSync(
    [...buckets]
      .sort(([a], [b]) => a - b)
      .map(([bucket, digest]) => `${bucket}\t${digest}\n`)
      .join(""),
  );
}

export interface EncodedSnapshot {
  units: EncodedUnit[];
  buckets: Map<number, string>;
  digest: string;
}

/**
 * A snapshot's units, ready to push or compare: the cluster part first. Each
 * goes through its schema first, as the function does before it stores it,
 * so both sides hash the same bytes.
 */
export async function encodeSnapshot(snapshot: Snapshot): Promise<EncodedSnapshot> {
  const { cluster, shards, classReferences, inventory } = splitSnapshot(snapshot);
  const encode = (name: string, value: UnitContent) => {
    const unit = decodeUnit(name, value);
    if (!unit.ok) throw new Error(`${describeUnit(name)}: ${unit.error}`);
    return encodeUnit(name, unit.value);
  };
  const units = [await encode(CLUSTER_UNIT, cluster)];
  for (const [namespace, shard] of shards) units.push(await encode(namespace, shard));
  for (const [className, references] of classReferences) units.push(await encode(classReferencesUnit(className), references));
  for (const [name, content] of inventory) units.push(await encode(name, content));
  const buckets = bucketDigests(units);
  return { units, buckets, digest: rootDigest(buckets) };
}

/** `<group>/<version>/<Kind>` or `<version>/<Kind>`: a DNS subdomain, a DNS label, and a kind (a CRD's kind lowercased is a DNS-1035 label: apiextensions validation). */
function isKindKey(key: string): boolean {
  const parts = key.split("/");
  if (parts.length < 2 || parts.length > 3) return false;
  const kind = parts.at(-1)!;
  const version = parts.at(-2)!;
  return (parts.length === 2 || isSubdomainName(parts[0]!)) && isNamespaceName(version) && kind.length <= MAX_LABEL_NAME && /^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/.test(kind);
}

/**
 * The units besides the cluster part and the namespaces' shards, each named
 * with a prefix that holds "/", which no namespace's name has; what follows
 * the prefix is a Kubernetes name of its kind.
 */
const FAMILIES = [
  {
    prefix: CLASS_REFERENCES_UNIT,
    valid: isSubdomainName,
    expected: `an AffinityClass's name: a lowercase RFC 1123 subdomain of at most ${MAX_SUBDOMAIN_NAME} characters`,
    schema: classReferencesSchema,
    describe: (rest: string) => `the references of AffinityClass ${rest}`,
  },
  {
    prefix: INVENTORY_INDEX_UNIT,
    valid: (rest: string) => rest.length <= String(INDEX_BUCKETS - 1).length && /^\d+$/.test(rest),
    expected: `a bucket number from 0 to ${INDEX_BUCKETS - 1}`,
    schema: inventoryBucketSchema,
    describe: (rest: string) => `bucket ${rest} of the inventory's indexes`,
  },
  {
    prefix: INVENTORY_KIND_UNIT,
    valid: isKindKey,
    expected: "<group>/<version>/<Kind> or <version>/<Kind>, as Kubernetes names them",
    schema: inventoryDirectorySchema,
    describe: (rest: string) => `the namespaces of inventory kind ${rest}`,
  },
] as const;

const familyOf = (name: string) => FAMILIES.find((family) => name.startsWith(family.prefix));

/**
 * Why no stored unit can have this name, or undefined: a namespace's shard is
 * named by a Namespace's name (a DNS label, ValidateNamespaceName), the other
 * families by their prefix and a name of their kind. Names are checked before
 * anything is stored under them, so storage holds no name a cluster cannot have.
 */
export function unitNameProblem(name: string): string | undefined {
  if (name === CLUSTER_UNIT) return undefined;
  const family = familyOf(name);
  if (family) return family.valid(name.slice(family.prefix.length)) ? undefined : `unit name must be ${JSON.stringify(family.prefix)} and ${family.expected}`;
  return isNamespaceName(name)
    ? undefined
    : `a namespace's shard is named by the namespace: a lowercase RFC 1123 label of at most ${MAX_LABEL_NAME} characters (lowercase letters, digits and '-', starting and ending with a letter or digit)`;
}

/** A unit as messages name it. */
export function describeUnit(name: string): string {
  if (name === CLUSTER_UNIT) return "the cluster-wide part";
  const family = familyOf(name);
  return family ? family.describe(name.slice(family.prefix.length)) : `the shard of namespace ${name}`;
}

/** Every value of an index bucket is in that bucket, so a lookup of it finds it there. */
function bucketStrayEntry(name: string, content: InventoryBucketContent): string | undefined {
  const bucket = Number(name.slice(INVENTORY_INDEX_UNIT.length));
  if (name !== inventoryIndexUnit(bucket) || !(bucket < INDEX_BUCKETS)) return `an index bucket is a number from 0 to ${INDEX_BUCKETS - 1}`;
  for (const [kind, fields] of Object.entries(content.index))
    for (const [field, pairs] of Object.entries(fields)) {
      if (pairs.length % 2 !== 0) return `${kind} ${field}: a list of value and keys pairs has an even length`;
      for (let at = 0; at < pairs.length; at += 2) {
        const valueKey = pairs[at]!;
        if (at > 0 && !(pairs[at - 2]! < valueKey)) return `${kind} ${field}: values in code-unit order, each once`;
        if (indexBucketOf(kind, field, valueKey) !== bucket) return `${kind} ${field}: a value that is not in this bucket`;
      }
    }
  return undefined;
}

/**
 * A unit's schema as a push is held to it: a field the unit does not have is
 * refused, not dropped, at the unit's top level, as the push body's own are
 * (push.ts). Reading stored units back stays lenient (functions/store/cache.ts).
 */
const strictUnitSchemas = new Map<z.ZodMiniObject, z.ZodMiniType<unknown>>();
function strict(schema: z.ZodMiniObject): z.ZodMiniType<unknown> {
  let strictSchema = strictUnitSchemas.get(schema);
  if (!strictSchema) strictUnitSchemas.set(schema, (strictSchema = z.strictObject(schema.shape)));
  return strictSchema;
}

/**
 * The unit's content through its schema: the cluster part, a shard whose
 * every entry is in its namespace, or a unit of a named family; the cluster
 * part and a shard carrying nothing that never leaves the cluster (leaks.ts).
 */
export function decodeUnit(name: string, value: unknown): { ok: true; value: UnitContent } | { ok: false; error: string } {
  const problem = unitNameProblem(name);
  if (problem) return { ok: false, error: problem };
  const family = familyOf(name);
  const parsed = strict(name === CLUSTER_UNIT ? clusterPartSchema : family ? family.schema : shardSchema).safeParse(value);
  if (!parsed.success) return { ok: false, error: describeZodError(parsed.error) };
  const stray =
    name === CLUSTER_UNIT ? unitLeak(parsed.data as ClusterPart)
    : family === undefined ? (shardStrayEntry(name, parsed.data as Shard) ?? unitLeak(parsed.data as Shard))
    : family.prefix === INVENTORY_INDEX_UNIT ? bucketStrayEntry(name, parsed.data as InventoryBucketContent)
    : undefined;
  return stray ? { ok: false, error: stray } : { ok: true, value: parsed.data as UnitContent };
}
