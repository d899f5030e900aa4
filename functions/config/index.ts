// The function's configuration: which clusters it serves, from two sources.
// CLUSTERS (shared/clusters: one schema for the function and `edgeadmit
// clusters check`) is read once per isolate; it suits a few clusters and
// takes precedence for every id it names, usable or not. The cluster registry
// (functions/registry) holds the fleet, changed at run time by the operator.
// A broken entry disables that cluster only, logged; /readyz reports it.
import { clusterIdError, loadClusters, type Cluster, type LoadedClusters } from "../../shared/clusters/index.js";
import { importPublicKey } from "../../shared/signing/index.js";
import { MAX_OPERATOR_KEYS, thresholdOf } from "../../shared/governance/index.js";
import { log } from "../log/index.js";
import { DEFAULT_CACHE_ENTRIES, RegistryCache, type Defer, type RegistryReader } from "../registry/cache.js";
import type { ClusterRegistry, GovernanceStub } from "../registry/index.js";
import type { StoreEnv } from "../store/cache.js";

export type { Cluster };

/** The function's bindings and vars; the snapshot store's own (SNAPSHOTS, SNAPSHOT_CACHE_MB) are declared with it, in functions/store/cache.ts. */
export interface Env extends StoreEnv {
  /**
   * JSON: `{"<cluster>": {"publicKey": "ed25519:…", "tokenHashes": ["sha256:…"], "withoutSnapshot": "FailOpen"}}`
   * (docs/operations.md). `publicKey` and `tokenHashes` may list several while one is rotated.
   */
  CLUSTERS?: string;
  /** The cluster registry; without the binding, only CLUSTERS registers clusters. */
  REGISTRY?: DurableObjectNamespace<ClusterRegistry>;
  /** The operator's public keys, `ed25519:…`, separated by spaces or commas (two while one rotates): who may change the registry. */
  OPERATOR_KEYS?: string;
  /** Registrations each isolate keeps (default DEFAULT_CACHE_ENTRIES). */
  REGISTRY_CACHE_ENTRIES?: string;
  /** "all": log every review, not only denied, warned and failed ones (npm start sets it). */
  LOG_REVIEWS?: string;
  /** Distinct operator keys a change that widens access or changes enforcement needs (default 1; docs recommend 2 or more). */
  OPERATOR_THRESHOLD?: string;
}

/** Parsed once per isolate per value of its variable; a new deploy brings a new isolate. */
function perValue<T>(parse: (source: string) => Promise<T>): (source: string) => Promise<T> {
  let loaded: { source: string; value: Promise<T> } | undefined;
  return (source) => {
    if (loaded?.source !== source) loaded = { source, value: parse(source) };
    return loaded.value;
  };
}

const parsedClusters = perValue((source) =>
  loadClusters(source).then((result) => {
    for (const problem of result.problems) log({ event: "config", ...(problem.cluster ? { cluster: problem.cluster } : {}), reason: `registration disabled: ${problem.reason}` });
    return result;
  }),
);

export function clustersOf(env: Env): Promise<LoadedClusters> {
  return parsedClusters(env.CLUSTERS ?? "{}");
}

interface OperatorKeys {
  /** The usable entries, as written (`ed25519:…`), and imported. */
  texts: string[];
  keys: CryptoKey[];
  /** One line per entry that is not a key; that entry is ignored. */
  problems: string[];
}

const parsedOperatorKeys = perValue(async (source): Promise<OperatorKeys> => {
  const texts: string[] = [];
  const keys: CryptoKey[] = [];
  const problems: string[] = [];
  for (const [index, text] of source.split(/[\s,]+/).filter((entry) => entry !== "").entries()) {
    const key = await importPublicKey(text);
    if (typeof key === "string") problems.push(`OPERATOR_KEYS entry ${index + 1}: ${key}`);
    else if (!texts.includes(text)) (texts.push(text), keys.push(key));
  }
  for (const problem of problems) log({ event: "config", reason: `operator key ignored: ${problem}` });
  return { texts, keys, problems };
});

/** OPERATOR_KEYS: the root set of operator keys, which the registry's own keys add to (shared/governance). */
export function operatorKeysOf(env: Env): Promise<OperatorKeys> {
  return parsedOperatorKeys(env.OPERATOR_KEYS ?? "");
}

/** OPERATOR_THRESHOLD: distinct operator keys a widening change needs (default 1); a wrong value is 1, logged, and /readyz says so. */
export function operatorThresholdOf(env: Env): { threshold: number; problem?: string } {
  const parsed = thresholdOf(env.OPERATOR_THRESHOLD);
  if (parsed.problem && loggedThreshold !== env.OPERATOR_THRESHOLD) {
    loggedThreshold = env.OPERATOR_THRESHOLD;
    log({ event: "config", reason: `${parsed.problem}: using 1` });
  }
  return parsed;
}
let loggedThreshold: string | undefined;

/** Imported operator keys of the registry's, by text: bounded by the keys it holds (MAX_OPERATOR_KEYS). */
const importedKeys = new Map<string, Promise<CryptoKey | string>>();

/**
 * The operator keys that may sign now, as texts and imported keys: the root
 * set and the registry's own, less every revoked one (root ones included).
 * Read from the registry on every operator request (they are rare), so a
 * revocation stops a key at once in every isolate.
 */
export async function trustedOperatorKeys(env: Env): Promise<{ texts: string[]; keys: CryptoKey[]; root: string[] }> {
  const root = await operatorKeysOf(env);
  const registry = registryOf(env);
  const state = registry ? await registry.governance().operatorKeys() : { added: [], revoked: [] };
  const revoked = new Set(state.revoked);
  const texts: string[] = [];
  const keys: CryptoKey[] = [];
  root.texts.forEach((text, index) => {
    if (!revoked.has(text)) (texts.push(text), keys.push(root.keys[index]!));
  });
  if (importedKeys.size > MAX_OPERATOR_KEYS * 2) importedKeys.clear();
  for (const text of state.added) {
    if (revoked.has(text) || texts.includes(text)) continue;
    let imported = importedKeys.get(text);
    if (!imported) importedKeys.set(text, (imported = importPublicKey(text)));
    const key = await imported;
    if (typeof key !== "string") (texts.push(text), keys.push(key));
  }
  return { texts, keys, root: root.texts };
}

// One cache per registry binding: Cloudflare hands every request of an isolate
// the same env (so the isolate has one), and the benchmarks bind several.
const registries = new WeakMap<object, Registry>();

function cacheCapacity(env: Env): number {
  const text = env.REGISTRY_CACHE_ENTRIES;
  if (text === undefined || text === "") return DEFAULT_CACHE_ENTRIES;
  const value = /^\d{1,9}$/.test(text) ? Number(text) : 0;
  if (value >= 1) return value;
  log({ event: "config", reason: `REGISTRY_CACHE_ENTRIES must be a whole number of registrations, at least 1, not ${JSON.stringify(text.slice(0, 20))}: using ${DEFAULT_CACHE_ENTRIES}` });
  return DEFAULT_CACHE_ENTRIES;
}

/** The registry's one instance. */
export const REGISTRY_NAME = "registry";

/** What this isolate keeps of the registry `env` binds, and the way to its one instance. */
interface Registry {
  cache: RegistryCache;
  stub: () => DurableObjectStub<ClusterRegistry>;
  /** The stub, as the operator's governed routes call it. */
  governance: () => GovernanceStub;
  /** The stub, as the cache reads it. */
  reader: () => RegistryReader;
}

/** The registry `env` binds, or undefined without the binding. */
export function registryOf(env: Env): Registry | undefined {
  const binding = env.REGISTRY;
  if (binding === undefined) return undefined;
  let registry = registries.get(binding);
  if (registry === undefined) {
    const stub = () => binding.get(binding.idFromName(REGISTRY_NAME));
    // The stub's methods answer what the Durable Object's return, through RPC.
    registry = { cache: new RegistryCache(cacheCapacity(env)), stub, reader: stub as unknown as () => RegistryReader, governance: stub as unknown as () => GovernanceStub };
    registries.set(binding, registry);
  }
  return registry;
}

/**
 * The cluster `id` names, or undefined when neither source registers it (or
 * its registration is unusable). Throws RegistryUnavailable when only the
 * registry could say and it cannot be read.
 */
export async function clusterOf(env: Env, id: string, defer?: Defer): Promise<Cluster | undefined> {
  const statics = await clustersOf(env);
  if (statics.named.has(id)) return statics.clusters.get(id);
  const registry = registryOf(env);
  if (registry === undefined || clusterIdError(id) !== undefined) return undefined;
  return registry.cache.lookup(registry.reader, id, Date.now(), defer);
}

/** Whether the registry answers and how many clusters it holds; undefined without the binding. */
export async function registryStatus(env: Env) {
  const registry = registryOf(env);
  return registry && registry.cache.status(registry.reader, Date.now());
}
