// What each storage unit holds, as zod schemas: the cluster part, a
// namespace's shard, and the units derived over every namespace (a class's
// references, the inventory's index buckets and kind directories).
import * as z from "zod/mini";
import { snapshotSchema } from "../schema.js";

/** Envelope fields: push metadata, kept with the generation in storage, never in a unit (so an unchanged cluster hashes the same). */
export const ENVELOPE = { apiVersion: true, kind: true, generation: true, builtAt: true } as const;

/** Who names an AffinityClass: the first few, as a message lists them, and how many in all. */
export const classReferencesSchema = z.object({ shown: z.array(z.string()), total: z.number().check(z.int(), z.minimum(1)) });
export type ClassReferences = z.infer<typeof classReferencesSchema>;

/** A namespace's shard: the namespaced fields' entries in that namespace (each field present, possibly empty). */
export const shardSchema = z.pick(snapshotSchema, { applications: true, volumeClaims: true, tenants: true, namespaces: true, policyParams: true, inventory: true });
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
export const inventoryBucketSchema = z.object({
  index: z.record(z.string(), z.record(z.string(), z.array(z.string()))),
  /**
   * Kind → field → the values of this bucket that objects left out of the
   * snapshot hold (the kind's cluster-part `leftOut.indexed`), in code-unit
   * order, each once: a lookup of one is an evaluation error, of any other
   * an answer. Values only, not keys: they grow with the left-out objects'
   * values, never with values × key length.
   */
  leftOut: z.optional(z.record(z.string(), z.record(z.string(), z.array(z.string())))),
});
/** Between two keys of one value: no Kubernetes name holds a newline. */
export const REFERENCE_SEPARATOR = "\n";
export type InventoryBucketContent = z.infer<typeof inventoryBucketSchema>;

/** Where a namespaced inventory kind has objects: namespace → how many. */
export const inventoryDirectorySchema = z.object({ namespaces: z.record(z.string(), z.number().check(z.int(), z.minimum(1))) });
export type InventoryDirectory = z.infer<typeof inventoryDirectorySchema>;

/** What a unit holds. */
export type UnitContent = ClusterPart | Shard | ClassReferences | InventoryBucketContent | InventoryDirectory;
