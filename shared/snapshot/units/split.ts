// A snapshot in storage units: one cluster-wide part and one shard per
// namespace. The function stores units as rows, an isolate loads the cluster
// part and only the shards a review reads, and a push sends only the units
// whose hash changed. Offline (check, test, audit) splits the whole snapshot
// the same way, so the webhook and the CLI read through one code path.
//
// The cut is generic: NAMESPACED_FIELDS (fields.ts) says which record fields
// are keyed by namespace and how to find the namespace of an entry; every
// other field of the snapshot, present or future, travels in the cluster part
// untouched.
//
// The cluster part never lists namespaces or their hashes, so its size does
// not grow with the applications. Besides, indexes over every namespace are
// derived into units of their own, named with a prefix that holds "/": a
// class's references (`affinityclass/<class>`), and the inventory's index
// buckets and kind directories (indexes.ts).
//
// The rest of the units is beside this file: what each holds (schemas.ts),
// their names (names.ts), their checks (decode.ts), their bytes and a
// snapshot's (encode.ts), and the digests a sync compares (digests.ts);
// index.ts is what the rest of the project imports.
import { snapshotSchema, type Snapshot } from "../schema.js";
import { ENVELOPE, type ClassReferences, type ClusterPart, type InventoryBucketContent, type InventoryDirectory, type Shard } from "./schemas.js";
import { NAMESPACED_FIELDS, NAMESPACED_NAMES, type NamespacedField, type NamespacedFieldName } from "./fields.js";
import { affinityClassReferences, clusterInventory, inventoryUnits, leftOutValuesOf } from "./indexes.js";
import { THIS_RELEASE_WRITES, type WrittenFeature } from "../../version/index.js";

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

/**
 * The snapshot cut into its cluster part and one shard per namespace that
 * holds anything, as a function that reads `features` stores it (this
 * release's: all of them; a sync job gives what the function it pushes to
 * reads, shared/version writableTo).
 */
export function splitSnapshot(snapshot: Snapshot, features: ReadonlySet<WrittenFeature> = THIS_RELEASE_WRITES): SnapshotParts {
  const leftOutValues = features.has("inventoryLeftOutValues");
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
  cluster["inventory"] = clusterInventory(cluster["inventory"] as Snapshot["inventory"], leftOutValues);
  if (!features.has("fleetInventoryAllowance") && snapshot.settings.fleetInventory !== undefined) {
    const { fleetInventory: _allowance, ...settings } = snapshot.settings;
    cluster["settings"] = settings;
  }
  return { cluster: cluster as ClusterPart, shards, classReferences: new Map(Object.entries(affinityClassReferences(snapshot))), inventory: inventoryUnits(snapshot.inventory, leftOutValues) };
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
  const leftOut = leftOutValuesOf(parts.inventory);
  for (const [kind, entry] of Object.entries(snapshot.inventory)) {
    if (!entry.leftOut?.indexed) continue;
    const { indexed: _indexed, ...named } = entry.leftOut;
    entry.leftOut = { ...named, values: Object.fromEntries((entry.index ?? []).map((field) => [field, leftOut.get(kind)?.[field] ?? []])) };
  }
  return snapshot;
}
