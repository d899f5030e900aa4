// Where the inventory lives in a snapshot's storage units (shared/snapshot/units/indexes.ts):
// - objects of namespaced kinds in their namespace's shard, of cluster-scoped kinds in the cluster part;
// - `inventory-kind/<apiVersion>/<kind>`: the namespaces holding objects of a namespaced kind, with counts;
// - `inventory-index/<n>`: one of INDEX_BUCKETS buckets of every index, by kind, field and value,
//   holding the keys of the objects (references: each object is stored once, in its shard).
// A lookup by value reads one bucket and the shards its keys name, whatever the number of objects.
import { fnv1a } from "../digest/index.js";

export const INVENTORY_INDEX_UNIT = "inventory-index/";
export const INVENTORY_KIND_UNIT = "inventory-kind/";
/** Index buckets per snapshot: 100,000 indexed values make buckets of about a hundred objects. */
export const INDEX_BUCKETS = 1024;

/** The bucket that holds the objects whose `field` of kind `kind` has the value keyed `valueKey` (paths.indexKey). */
export const indexBucketOf = (kind: string, field: string, valueKey: string): number => fnv1a(`${kind}\u0000${field}\u0000${valueKey}`) % INDEX_BUCKETS;
export const inventoryIndexUnit = (bucket: number): string => `${INVENTORY_INDEX_UNIT}${bucket}`;
export const inventoryKindUnit = (kind: string): string => `${INVENTORY_KIND_UNIT}${kind}`;
