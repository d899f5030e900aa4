// The function's configuration: the clusters in CLUSTERS (shared/clusters: one
// schema for the function and `edgeadmit clusters check`). A broken entry
// disables that cluster only, logged once per isolate; /readyz reports it.
import { loadClusters, type Cluster, type LoadedClusters } from "../../shared/clusters/index.js";
import { log } from "../log/index.js";
import type { SnapshotStore } from "../store/index.js";

export type { Cluster };

export interface Env {
  /**
   * JSON: `{"<cluster>": {"publicKey": "ed25519:…", "tokenHashes": ["sha256:…"], "withoutSnapshot": "FailOpen"}}`
   * (docs/operations.md). `publicKey` and `tokenHashes` may list several while one is rotated.
   */
  CLUSTERS?: string;
  SNAPSHOTS: DurableObjectNamespace<SnapshotStore>;
  /** "all": log every review, not only denied, warned and failed ones (npm start sets it). */
  LOG_REVIEWS?: string;
  /** Whole MiB of estimated heap an isolate keeps of snapshots, all clusters together (functions/store/cache.ts; default 32). */
  SNAPSHOT_CACHE_MB?: string;
}

// Parsed once per isolate per CLUSTERS value; a new deploy brings a new isolate.
let loaded: { source: string; clusters: Promise<LoadedClusters> } | undefined;

export function clustersOf(env: Env): Promise<LoadedClusters> {
  const source = env.CLUSTERS ?? "{}";
  if (loaded?.source !== source) {
    const clusters = loadClusters(source).then((result) => {
      for (const problem of result.problems) log({ event: "config", ...(problem.cluster ? { cluster: problem.cluster } : {}), reason: `registration disabled: ${problem.reason}` });
      return result;
    });
    loaded = { source, clusters };
  }
  return loaded.clusters;
}

export async function clusterOf(env: Env, id: string): Promise<Cluster | undefined> {
  return (await clustersOf(env)).clusters.get(id);
}
