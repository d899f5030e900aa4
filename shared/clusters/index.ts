// Registrations: which clusters may talk to the function and how each proves
// it. One schema serves CLUSTERS (functions/config), the cluster registry
// (functions/registry) and `edgeadmit clusters check|add|import`, so a value
// that passes the check loads in the function. A broken entry disables that
// cluster only; the others keep working.
import * as z from "zod/mini";
import { describeZodError } from "../zod/index.js";
import { fromHex } from "../digest/index.js";
import { importRawPublicKey, PUBLIC_KEY_PREFIX, publicKeyBytes, toBase64 } from "../signing/index.js";
import { TOKEN_HASH_PATTERN, TOKEN_HASH_PREFIX } from "../tokens/index.js";
import { labelKeyError, labelValueError, type Labels } from "../k8s/labels/index.js";

/** A path segment, printed by the apiserver in errors: an identifier, never a secret. */
export const CLUSTER_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const MAX_CLUSTER_ID_LENGTH = 63;

/** Why `id` cannot name a cluster, or undefined. */
export function clusterIdError(id: string): string | undefined {
  if (id.length <= MAX_CLUSTER_ID_LENGTH && CLUSTER_ID.test(id)) return undefined;
  return `cluster id ${JSON.stringify(id.slice(0, 80))} must be 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit`;
}

export const WITHOUT_SNAPSHOT = ["FailOpen", "FailClosed"] as const;
export type WithoutSnapshot = (typeof WITHOUT_SNAPSHOT)[number];

/**
 * Keys and token hashes one registration may list: two while one rotates,
 * room to spare, and a bound on what an isolate holds per cluster.
 */
export const MAX_CREDENTIALS = 8;

/**
 * How old a stored snapshot may be before it stops counting and the cluster
 * falls back to its withoutSnapshot stance: the operator's limit, set in the
 * registration. A pushed snapshot's own settings.maxAgeSeconds may only be
 * tighter (docs/operations.md, What a leaked key can do).
 */
export const DEFAULT_MAX_SNAPSHOT_AGE_SECONDS = 86_400;
export const MIN_MAX_SNAPSHOT_AGE_SECONDS = 60;
export const MAX_MAX_SNAPSHOT_AGE_SECONDS = 604_800;
export const maxAgeSecondsSchema = z.int().check(
  z.minimum(MIN_MAX_SNAPSHOT_AGE_SECONDS, `must be at least ${MIN_MAX_SNAPSHOT_AGE_SECONDS} seconds`),
  z.maximum(MAX_MAX_SNAPSHOT_AGE_SECONDS, `must be at most ${MAX_MAX_SNAPSHOT_AGE_SECONDS} seconds (7 days)`),
);

export const tokenHashSchema = z.string().check(z.regex(TOKEN_HASH_PATTERN, `must be "${TOKEN_HASH_PREFIX}" and 64 lowercase hex digits (edgeadmit token prints it)`));

/** Labels one registration may carry: enough to place a cluster (env, region, tier, ring, tenant…), bounded per isolate. */
export const MAX_CLUSTER_LABELS = 32;

/** Why `labels` cannot label a cluster, or undefined: the keys and values a Kubernetes object's labels may have. */
export function clusterLabelsError(labels: Readonly<Record<string, string>>): string | undefined {
  const entries = Object.entries(labels);
  if (entries.length > MAX_CLUSTER_LABELS) return `at most ${MAX_CLUSTER_LABELS} labels, not ${entries.length}`;
  for (const [key, value] of entries) {
    const error = labelKeyError(key) ?? labelValueError(value);
    if (error) return error;
  }
  return undefined;
}

export const clusterLabelsSchema = z.record(z.string(), z.string()).check(
  z.refine((labels) => clusterLabelsError(labels) === undefined, { error: (issue) => clusterLabelsError(issue.input as Record<string, string>) ?? "invalid labels" }),
);

export const registrationSchema = z.strictObject({
  /** Verifies the sync job's signed pushes and reads; a list while a key is rotated. */
  publicKey: z.union([z.string(), z.array(z.string()).check(z.minLength(1), z.maxLength(MAX_CREDENTIALS))]),
  /** SHA-256 of each bearer token the cluster's apiserver may present; a list so tokens rotate without a window. */
  tokenHashes: z.optional(z.array(tokenHashSchema).check(z.maxLength(MAX_CREDENTIALS))),
  /** Admit reviews without a token: only for a function nobody else can reach (the local demo). */
  anonymous: z.optional(z.boolean()),
  withoutSnapshot: z._default(z.enum(WITHOUT_SNAPSHOT), "FailOpen"),
  /** Seconds after its push that a stored snapshot stops counting (DEFAULT_MAX_SNAPSHOT_AGE_SECONDS unless set). */
  maxAgeSeconds: z._default(maxAgeSecondsSchema, DEFAULT_MAX_SNAPSHOT_AGE_SECONDS),
  /** What fleet policy sets select the cluster by (`env: prod`, `ring: canary`): Kubernetes label syntax. */
  labels: z.optional(clusterLabelsSchema),
});
/** One cluster's entry in CLUSTERS or the registry, as written (defaults not yet applied). */
export type Registration = z.input<typeof registrationSchema>;

/**
 * A registration as the registry stores it: a field a later release added
 * is ignored here (and kept when this release rewrites the row:
 * shared/clusters/changes.ts), so a rollback serves every cluster the later
 * release registered or changed. What an operator writes (CLUSTERS, a
 * change) stays strict: a misspelt field is refused, not ignored.
 */
export const storedRegistrationSchema = z.object(registrationSchema.shape);

/** A registration in one form: every list a list, every default applied; what the registry stores and lists. */
export interface NormalRegistration {
  publicKey: string[];
  tokenHashes: string[];
  anonymous?: true;
  withoutSnapshot: WithoutSnapshot;
  maxAgeSeconds: number;
  /** Absent when the cluster has none, so registrations stored before labels existed read the same. */
  labels?: Record<string, string>;
}

export function normalRegistration(entry: z.output<typeof registrationSchema>): NormalRegistration {
  return {
    publicKey: typeof entry.publicKey === "string" ? [entry.publicKey] : [...entry.publicKey],
    tokenHashes: [...(entry.tokenHashes ?? [])],
    ...(entry.anonymous === true ? { anonymous: true as const } : {}),
    withoutSnapshot: entry.withoutSnapshot,
    maxAgeSeconds: entry.maxAgeSeconds,
    ...(entry.labels && Object.keys(entry.labels).length > 0 ? { labels: { ...entry.labels } } : {}),
  };
}

/** Why a registration that fits the schema still cannot admit anyone, or undefined. */
export function credentialProblem(entry: { tokenHashes?: readonly string[] | undefined; anonymous?: boolean | undefined }): string | undefined {
  if ((entry.tokenHashes ?? []).length === 0 && entry.anonymous !== true)
    return "no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach";
  return undefined;
}

/** The size of an Ed25519 public key and of a SHA-256 digest. */
const CREDENTIAL_BYTES = 32;

export interface Cluster {
  id: string;
  /**
   * The raw Ed25519 keys that verify the sync job's signatures, then the
   * SHA-256 digests of the accepted bearer tokens, 32 bytes each, in one
   * array: an isolate holds thousands of clusters, and each typed array costs
   * about 300 bytes of its own, each imported CryptoKey about 400. Keys are
   * imported when a signed request comes (once a minute per cluster).
   */
  credentials: Uint8Array;
  keyCount: number;
  anonymous: boolean;
  withoutSnapshot: WithoutSnapshot;
  maxAgeSeconds: number;
  /** The registration's labels (NO_LABELS when none): fleet policy sets select by them. */
  labels: Labels;
}

/** One frozen empty object for every cluster without labels: thousands of clusters, no object each. */
export const NO_LABELS: Labels = Object.freeze({});

function slices(bytes: Uint8Array, from: number, to: number): Uint8Array[] {
  const result: Uint8Array[] = [];
  for (let index = from; index < to; index++) result.push(bytes.subarray(index * CREDENTIAL_BYTES, (index + 1) * CREDENTIAL_BYTES));
  return result;
}

/** The cluster's Ed25519 public keys, 32 raw bytes each. */
export function publicKeysOf(cluster: Cluster): Uint8Array[] {
  return slices(cluster.credentials, 0, cluster.keyCount);
}

/** The cluster's public keys as registrations write them (`ed25519:` and base64): what a stored generation records of its signer. */
export function publicKeyTextsOf(cluster: Cluster): string[] {
  return publicKeysOf(cluster).map((raw) => `${PUBLIC_KEY_PREFIX}${toBase64(raw)}`);
}

/** SHA-256 digests of the bearer tokens the cluster's apiserver may present. */
export function tokenDigestsOf(cluster: Cluster): Uint8Array[] {
  return slices(cluster.credentials, cluster.keyCount, cluster.credentials.length / CREDENTIAL_BYTES);
}

/** One reason a registration is unusable; `cluster` is absent when the whole value is. */
interface ClusterProblem {
  cluster?: string;
  reason: string;
}

export interface LoadedClusters {
  clusters: Map<string, Cluster>;
  problems: ClusterProblem[];
  /** Every id the value names, usable or not: CLUSTERS owns these ids, the registry never serves them. */
  named: Set<string>;
}

/** One registration → the cluster the function serves, or why it cannot serve it; `stored` reads a registry row (storedRegistrationSchema). */
export async function loadRegistration(id: string, value: unknown, stored = false): Promise<Cluster | string> {
  const idError = clusterIdError(id);
  if (idError) return idError;
  const parsed = (stored ? storedRegistrationSchema : registrationSchema).safeParse(value);
  if (!parsed.success) return describeZodError(parsed.error);
  const entry = parsed.data;
  const noCredential = credentialProblem(entry);
  if (noCredential) return noCredential;
  const keys = typeof entry.publicKey === "string" ? [entry.publicKey] : entry.publicKey;
  const hashes = entry.tokenHashes ?? [];
  const credentials = new Uint8Array((keys.length + hashes.length) * CREDENTIAL_BYTES);
  for (const [index, text] of keys.entries()) {
    const raw = publicKeyBytes(text);
    if (typeof raw === "string") return `publicKey${typeof entry.publicKey === "string" ? "" : `[${index}]`}: ${raw}`;
    // Imported once here so a key WebCrypto refuses disables the registration now, not at the first push.
    await importRawPublicKey(raw);
    credentials.set(raw, index * CREDENTIAL_BYTES);
  }
  for (const [index, hash] of hashes.entries()) credentials.set(fromHex(hash.slice(TOKEN_HASH_PREFIX.length))!, (keys.length + index) * CREDENTIAL_BYTES);
  const labels = entry.labels && Object.keys(entry.labels).length > 0 ? Object.freeze({ ...entry.labels }) : NO_LABELS;
  return { id, credentials, keyCount: keys.length, anonymous: entry.anonymous === true, withoutSnapshot: entry.withoutSnapshot, maxAgeSeconds: entry.maxAgeSeconds, labels };
}

/** Parses a CLUSTERS value: every usable registration, and why each other one is not. */
export async function loadClusters(source: string): Promise<LoadedClusters> {
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (e) {
    return { clusters: new Map(), problems: [{ reason: `CLUSTERS is not JSON: ${(e as Error).message}` }], named: new Set() };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return { clusters: new Map(), problems: [{ reason: 'CLUSTERS must be a JSON object: {"<cluster>": {"publicKey": …, "tokenHashes": […]}}' }], named: new Set() };
  const clusters = new Map<string, Cluster>();
  const problems: ClusterProblem[] = [];
  for (const [id, value] of Object.entries(json)) {
    const loaded = await loadRegistration(id, value);
    if (typeof loaded === "string") problems.push({ cluster: id.slice(0, 80), reason: loaded });
    else clusters.set(id, loaded);
  }
  return { clusters, problems, named: new Set(Object.keys(json)) };
}
