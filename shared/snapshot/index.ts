import { decodeJson } from "../zod/index.js";
import { snapshotSchema, type Snapshot } from "./schema.js";

export * from "./schema.js";
export * from "./view.js";

export type SnapshotDecodeResult = { ok: true; snapshot: Snapshot } | { ok: false; error: string };

export function decodeSnapshot(text: string): SnapshotDecodeResult {
  const decoded = decodeJson(text, snapshotSchema, "snapshot", "does not match the schema");
  return decoded.ok ? { ok: true, snapshot: decoded.value } : decoded;
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

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Hash of what the cluster looks like, leaving out when and in which
 * generation it was built: `edgeadmit sync` compares it to skip unchanged pushes.
 */
export function contentHash(snapshot: Snapshot): Promise<string> {
  const { generation: _generation, builtAt: _builtAt, ...content } = snapshot;
  return sha256Hex(canonicalJson(content));
}
