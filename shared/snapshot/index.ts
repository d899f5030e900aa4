import { decodeJson } from "../zod/index.js";
import { snapshotSchema, type Snapshot } from "./schema.js";
import { encodeSnapshot } from "./units/index.js";

export * from "./push.js";
export * from "./schema.js";
export * from "./units/index.js";
export * from "./view.js";

type SnapshotDecodeResult = { ok: true; snapshot: Snapshot } | { ok: false; error: string };

/** Far above what a snapshot holds (its own fields, and objects like params inside); the schema recurses no deeper. */
export const MAX_SNAPSHOT_DEPTH = 100;

export function decodeSnapshot(text: string): SnapshotDecodeResult {
  const decoded = decodeJson(text, snapshotSchema, "snapshot", "does not match the schema", MAX_SNAPSHOT_DEPTH);
  return decoded.ok ? { ok: true, snapshot: decoded.value } : decoded;
}

/**
 * Hash of what the cluster looks like, leaving out when and in which
 * generation it was built: the digest of its storage units (units/digests.ts), which
 * the function reports for what it holds and `edgeadmit sync` compares.
 */
export async function contentHash(snapshot: Snapshot): Promise<string> {
  return (await encodeSnapshot(snapshot)).digest;
}
