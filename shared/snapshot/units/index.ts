// A snapshot in storage units (split.ts says how it is cut): what the rest of the project imports.
export { decodeUnit } from "./decode.js";
export { BUCKETS, bucketDigest, bucketDigests, bucketOf, rootDigest } from "./digests.js";
export { encodeCheckedUnit, encodeSnapshot, encodeUnit, type EncodedSnapshot, type EncodedUnit } from "./encode.js";
export { affinityClassReferences, ClassReferenceIndex, inventoryUnits } from "./indexes.js";
export { classReferencesUnit, CLUSTER_UNIT, describeUnit, MAX_UNIT_NAME, unitNameProblem } from "./names.js";
export { clusterPartSchema, REFERENCE_SEPARATOR, type ClassReferences, type ClusterPart, type InventoryBucketContent, type InventoryDirectory, type Shard } from "./schemas.js";
export { clusterPartFor, cutSnapshot, emptyShard, joinSnapshot, splitSnapshot } from "./split.js";
