// The function's configuration: which clusters may talk to it, with each
// cluster's public key and its stance when it has no snapshot yet.
import * as z from "zod/mini";
import { describeZodError } from "../../shared/zod/index.js";
import { importPublicKey } from "../../shared/signing/index.js";
import type { WithoutSnapshot } from "../../shared/dispatcher/index.js";
import type { SnapshotStore } from "../store/index.js";

export interface Env {
  /**
   * JSON: `{"<cluster>": {"publicKey": "ed25519:…", "withoutSnapshot": "FailOpen"}}`.
   * `publicKey` may be a list while a key is rotated: a push signed by any of them is accepted.
   */
  CLUSTERS?: string;
  SNAPSHOTS: DurableObjectNamespace<SnapshotStore>;
}

/** A path segment, printed by the apiserver in errors: an identifier, never a secret. */
export const CLUSTER_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const clustersSchema = z.record(
  z.string().check(z.regex(CLUSTER_ID), z.maxLength(63)),
  z.object({
    publicKey: z.union([z.string(), z.array(z.string()).check(z.minLength(1))]),
    withoutSnapshot: z._default(z.enum(["FailOpen", "FailClosed"]), "FailOpen"),
  }),
);

export interface Cluster {
  id: string;
  publicKeys: CryptoKey[];
  withoutSnapshot: WithoutSnapshot;
}

export class ConfigurationError extends Error {
  override name = "ConfigurationError";
}

// Parsed once per isolate per CLUSTERS value.
let parsed: { source: string; clusters: Promise<Map<string, Cluster>> } | undefined;

async function parseClusters(source: string): Promise<Map<string, Cluster>> {
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (e) {
    throw new ConfigurationError(`CLUSTERS is not JSON: ${(e as Error).message}`);
  }
  const result = clustersSchema.safeParse(json);
  if (!result.success) throw new ConfigurationError(`CLUSTERS is invalid: ${describeZodError(result.error)}`);
  const clusters = new Map<string, Cluster>();
  for (const [id, entry] of Object.entries(result.data)) {
    const publicKeys: CryptoKey[] = [];
    for (const text of typeof entry.publicKey === "string" ? [entry.publicKey] : entry.publicKey) {
      const publicKey = await importPublicKey(text);
      if (typeof publicKey === "string") throw new ConfigurationError(`CLUSTERS.${id}.publicKey: ${publicKey}`);
      publicKeys.push(publicKey);
    }
    clusters.set(id, { id, publicKeys, withoutSnapshot: entry.withoutSnapshot });
  }
  return clusters;
}

export async function clusterOf(env: Env, id: string): Promise<Cluster | undefined> {
  const source = env.CLUSTERS ?? "{}";
  if (parsed?.source !== source) parsed = { source, clusters: parseClusters(source) };
  return (await parsed.clusters).get(id);
}
