import { sha256Hex } from "../digest/index.js";
import { decodeJson } from "../zod/index.js";
import { SNAPSHOT_API_VERSION, snapshotSchema, type Snapshot } from "./schema.js";

export * from "./schema.js";
export * from "./view.js";

export type SnapshotDecodeResult = { ok: true; snapshot: Snapshot } | { ok: false; error: string };

/** Far above what a snapshot holds (its own fields, and objects like params inside); canonicalJson and the schema recurse no deeper. */
export const MAX_SNAPSHOT_DEPTH = 100;

export function decodeSnapshot(text: string): SnapshotDecodeResult {
  const decoded = decodeJson(text, snapshotSchema, "snapshot", "does not match the schema", MAX_SNAPSHOT_DEPTH);
  return decoded.ok ? { ok: true, snapshot: decoded.value } : decoded;
}

const RECORDS = ["affinityClasses", "tenants", "applications", "volumeClaims", "nodes"] as const;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A snapshot the function stored itself. The push route validated it with the
 * schema and stored the schema's output, so reading it back is JSON.parse and
 * a check of the top level: a full schema pass costs ~5 µs per application on
 * every isolate start. Anything else (another version, a form stored before
 * defaults existed) goes through the schema.
 */
export function decodeStoredSnapshot(text: string): SnapshotDecodeResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return decodeSnapshot(text);
  }
  const normalized =
    isRecord(json) &&
    json.apiVersion === SNAPSHOT_API_VERSION &&
    json.kind === "Snapshot" &&
    typeof json.generation === "number" &&
    isRecord(json.settings) &&
    RECORDS.every((key) => isRecord(json[key]));
  return normalized ? { ok: true, snapshot: json as Snapshot } : decodeSnapshot(text);
}

/** JSON with object keys sorted, so equal content always has equal bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Hash of what the cluster looks like, leaving out when and in which
 * generation it was built: `edgeadmit sync` compares it to skip unchanged pushes.
 */
export function contentHash(snapshot: Snapshot): Promise<string> {
  const { generation: _generation, builtAt: _builtAt, ...content } = snapshot;
  return sha256Hex(canonicalJson(content));
}
