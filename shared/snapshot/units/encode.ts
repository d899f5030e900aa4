// Units as storage holds them and a push sends them: the UTF-8 bytes of
// their schema output as JSON, with their SHA-256; and a whole snapshot's
// units with its digests.
import { sha256Hex } from "../../digest/index.js";
import type { Snapshot } from "../schema.js";
import type { WrittenFeature } from "../../version/index.js";
import { decodeUnit } from "./decode.js";
import { bucketDigests, rootDigest } from "./digests.js";
import { classReferencesUnit, CLUSTER_UNIT, describeUnit } from "./names.js";
import type { UnitContent } from "./schemas.js";
import { splitSnapshot } from "./split.js";

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

export async function encodeUnit(name: string, value: UnitContent): Promise<EncodedUnit> {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return { name, bytes, sha256: await sha256Hex(bytes) };
}

export interface EncodedSnapshot {
  units: EncodedUnit[];
  buckets: Map<number, string>;
  digest: string;
}

/**
 * A snapshot's units, ready to push or compare: the cluster part first. Each
 * goes through its schema first, as the function does before it stores it,
 * so both sides hash the same bytes. `features`: what the function they go
 * to reads (splitSnapshot).
 */
export async function encodeSnapshot(snapshot: Snapshot, features?: ReadonlySet<WrittenFeature>): Promise<EncodedSnapshot> {
  const { cluster, shards, classReferences, inventory } = splitSnapshot(snapshot, features);
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
