// A unit's content checked as a push is held to it, before anything is
// stored: its name, its schema (strict), every entry of a shard in its
// namespace, every value of an index bucket in its bucket, nothing that never
// leaves the cluster (leaks.ts).
import * as z from "zod/mini";
import { describeZodError } from "../../zod/index.js";
import { capped } from "../../text/index.js";
import { indexBucketOf, INDEX_BUCKETS, INVENTORY_INDEX_UNIT, inventoryIndexUnit } from "../../inventory/units.js";
import { unitLeak } from "../leaks.js";
import { NAMESPACED_FIELDS, NAMESPACED_NAMES, type NamespacedField } from "./fields.js";
import { CLUSTER_UNIT, familyOf, unitNameProblem } from "./names.js";
import { clusterPartSchema, shardSchema, type ClusterPart, type InventoryBucketContent, type Shard, type UnitContent } from "./schemas.js";

/** Whether every entry of `shard` belongs to `namespace` (so a lookup of that namespace is the only one that can reach it). */
function shardStrayEntry(namespace: string, shard: Shard): string | undefined {
  for (const field of NAMESPACED_NAMES) {
    const cut = (NAMESPACED_FIELDS[field] as NamespacedField<unknown>).cut(shard[field]);
    for (const other of cut.byNamespace.keys()) if (other !== namespace) return `${field} holds an entry of namespace "${other.slice(0, 63)}"`;
    if ((NAMESPACED_FIELDS[field] as NamespacedField<unknown>).holdsEntries(cut.cluster)) return `${field} holds an entry of no namespace`;
  }
  return undefined;
}

/** Every value of an index bucket (and of its left-out values) is in that bucket, in order, so a lookup of it finds it there. */
function bucketStrayEntry(name: string, content: InventoryBucketContent): string | undefined {
  const bucket = Number(name.slice(INVENTORY_INDEX_UNIT.length));
  if (name !== inventoryIndexUnit(bucket) || !(bucket < INDEX_BUCKETS)) return `an index bucket is a number from 0 to ${INDEX_BUCKETS - 1}`;
  const stray = (where: string, kind: string, field: string, values: readonly string[], step: number) => {
    for (let at = 0; at < values.length; at += step) {
      const valueKey = values[at]!;
      if (at > 0 && !(values[at - step]! < valueKey)) return `${where}${kind} ${field}: values in code-unit order, each once`;
      if (indexBucketOf(kind, field, valueKey) !== bucket) return `${where}${kind} ${field}: a value that is not in this bucket`;
    }
    return undefined;
  };
  for (const [kind, fields] of Object.entries(content.index))
    for (const [field, pairs] of Object.entries(fields)) {
      if (pairs.length % 2 !== 0) return `${kind} ${field}: a list of value and keys pairs has an even length`;
      const problem = stray("", kind, field, pairs, 2);
      if (problem) return problem;
    }
  for (const [kind, fields] of Object.entries(content.leftOut ?? {}))
    for (const [field, values] of Object.entries(fields)) {
      const problem = stray("leftOut ", kind, field, values, 1);
      if (problem) return problem;
    }
  return undefined;
}

/** The cluster part says that left-out values are indexed; the values themselves travel in their buckets. */
function leftOutValuesInPart(part: ClusterPart): string | undefined {
  const kind = Object.keys(part.inventory).find((key) => part.inventory[key]!.leftOut?.values !== undefined);
  return kind === undefined ? undefined : `inventory ${capped(kind, 127)}: leftOut.values travel in their index buckets, not in the cluster part`;
}

/**
 * A binding or exception of the cluster's own named with a "/": the
 * apiserver stores no such name (a DNS subdomain), and `fleet/<name>` is how
 * the fleet's bindings and exceptions read in verdicts and reports
 * (shared/fleet fleetBindingName), which a cluster's must never pass for.
 */
function slashedName(part: ClusterPart): string | undefined {
  for (const [field, what] of [["policyBindings", "a binding"], ["exceptions", "an exception"]] as const) {
    const name = Object.keys(part[field]).find((key) => key.includes("/"));
    if (name !== undefined) return `${field}: ${what.split(" ")[1]} "${capped(name, 63)}" holds a "/": ${what}'s name is a DNS subdomain, as the apiserver stores it ("fleet/<name>" names the fleet's)`;
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
    name === CLUSTER_UNIT ? (slashedName(parsed.data as ClusterPart) ?? leftOutValuesInPart(parsed.data as ClusterPart) ?? unitLeak(parsed.data as ClusterPart))
    : family === undefined ? (shardStrayEntry(name, parsed.data as Shard) ?? unitLeak(parsed.data as Shard))
    : family.prefix === INVENTORY_INDEX_UNIT ? bucketStrayEntry(name, parsed.data as InventoryBucketContent)
    : undefined;
  return stray ? { ok: false, error: stray } : { ok: true, value: parsed.data as UnitContent };
}
