// The function's cluster registry, from the operator's side: `edgeadmit
// clusters add|rotate|remove|list|import` sign their requests with the
// operator's key (shared/signing, domain "operator") and send them here.
import * as z from "zod/mini";
import { newRequestId, type Change } from "../../shared/clusters/changes.js";
import { CLUSTER_ID, DEFAULT_MAX_SNAPSHOT_AGE_SECONDS, MAX_CLUSTER_ID_LENGTH, WITHOUT_SNAPSHOT } from "../../shared/clusters/index.js";
import { importPrivateKey, signRequest, type OperatorMethod } from "../../shared/signing/index.js";
import { answerOf, errorText, FunctionError, send } from "./index.js";

export const REGISTRY_PATH = "/v1/registry/clusters";

const changeAnswerSchema = z.object({
  revision: z.number(),
  applied: z.array(z.object({ op: z.enum(["add", "rotate", "remove", "label"]), cluster: z.string(), revision: z.number(), absentLabels: z.optional(z.array(z.string())) })),
  notes: z._default(z.array(z.string()), []),
});
export type ChangeAnswer = z.infer<typeof changeAnswerSchema>;

const listedSchema = z.object({
  cluster: z.string(),
  revision: z.number(),
  updatedAt: z.string(),
  publicKey: z.array(z.string()),
  tokenHashes: z.array(z.string()),
  anonymous: z.optional(z.boolean()),
  withoutSnapshot: z.enum(WITHOUT_SNAPSHOT),
  /** Absent from a function older than the limit: what it applied, the default. */
  maxAgeSeconds: z._default(z.number(), DEFAULT_MAX_SNAPSHOT_AGE_SECONDS),
  labels: z.optional(z.record(z.string(), z.string())),
  shadowedByClusters: z.optional(z.boolean()),
  /** The cluster's sync job as it last called (release null: it named none); absent when none was seen, or from a function of 0.1.0. */
  lastSync: z.optional(z.object({ release: z.nullable(z.string()), verb: z.nullable(z.string()), commit: z.nullable(z.string()), at: z.string() })),
});
export type ListedCluster = z.infer<typeof listedSchema>;

const pageSchema = z.object({
  revision: z.number(),
  clusters: z.array(listedSchema),
  next: z.optional(z.string()),
  clustersVariable: z.optional(z.array(z.string())),
});

export interface RegistryListing {
  /** The registry's revision when the last page was read. */
  revision: number;
  clusters: ListedCluster[];
  /** The ids the function's CLUSTERS variable registers: served from there, whatever the registry says. */
  clustersVariable: string[];
}

/** What a 401 means to the holder of an operator key: the function does not list it. */
export const REFUSED_KEY =
  "the function does not accept this operator key: is its public key (edgeadmit key public --key FILE) in the function's OPERATOR_KEYS, and is the endpoint the function's?";

/** The URL of one of the function's routes under its base URL (which may have a path of its own). */
export const routeUrl = (endpoint: string, pathAndQuery: string) => `${endpoint.replace(/\/+$/, "")}${pathAndQuery}`;

export async function signed(endpoint: string, privateKeyPem: string, method: OperatorMethod, pathAndQuery: string, body: Uint8Array): Promise<{ url: string; response: Response }> {
  const url = routeUrl(endpoint, pathAndQuery);
  // The subject is the path as the function sees it: the endpoint's own path prefix included.
  const subject = new URL(url).pathname + new URL(url).search;
  const headers = await signRequest(await importPrivateKey(privateKeyPem), method, subject, body, Math.floor(Date.now() / 1000), "operator");
  const init = method === "POST" ? { method, body, headers: { ...headers, "content-type": "application/json" } } : { method, headers };
  return { url, response: await send(url, init) };
}

export const proposalSchema = z.object({
  id: z.string(),
  change: z.unknown(),
  widens: z.array(z.string()),
  proposer: z.string(),
  approvals: z.array(z.string()),
  threshold: z.number(),
  needs: z.number(),
  createdAt: z.string(),
  expiresAt: z.string(),
  state: z.string(),
  outcome: z.optional(z.string()),
});
export type ProposalAnswer = z.infer<typeof proposalSchema>;

const proposedSchema = z.object({ proposal: proposalSchema, message: z.string() });
export type Proposed = z.infer<typeof proposedSchema>;

/** A change the function applied, or one it keeps as a proposal until more operator keys approve it (202). */
export type Outcome<T> = { applied: T } | { proposed: Proposed };

/** A signed change sent: what it applied, the proposal it made, or a FunctionError saying why not. */
export async function sendChange<T>(endpoint: string, privateKeyPem: string, path: string, body: Record<string, unknown>, schema: z.ZodMiniType<T>, what = "change"): Promise<Outcome<T>> {
  const bytes = new TextEncoder().encode(JSON.stringify({ requestId: newRequestId(), ...body }));
  const { url, response } = await signed(endpoint, privateKeyPem, "POST", path, bytes);
  if (response.status === 401) throw new FunctionError(`the function refused the ${what} (401): ${REFUSED_KEY}`, 401);
  if (!response.ok) throw new FunctionError(`the function refused the ${what} (${response.status}): ${await errorText(response)}`, response.status);
  if (response.status === 202) return { proposed: await answerOf(url, response, proposedSchema) };
  return { applied: await answerOf(url, response, schema) };
}

/** Signs `changes` with the operator's key and sends them; all are applied (or proposed, for other keys to approve), or none (a FunctionError says why). */
export function changeRegistry(endpoint: string, privateKeyPem: string, changes: Change[]): Promise<Outcome<ChangeAnswer>> {
  return sendChange(endpoint, privateKeyPem, REGISTRY_PATH, { changes }, changeAnswerSchema);
}

/** The path of the operator's reset of `cluster`'s stored snapshot. */
export const resetSnapshotPath = (cluster: string) => `${REGISTRY_PATH}/${encodeURIComponent(cluster)}/reset-snapshot`;

const resetAnswerSchema = z.object({ cluster: z.string(), dropped: z.nullable(z.number()) });

/** Drops every generation the function stores for `cluster`: the generation that was stored, or null for none. */
export async function resetSnapshot(endpoint: string, privateKeyPem: string, cluster: string): Promise<z.infer<typeof resetAnswerSchema>> {
  const body = new TextEncoder().encode(JSON.stringify({ requestId: newRequestId() }));
  const { url, response } = await signed(endpoint, privateKeyPem, "POST", resetSnapshotPath(cluster), body);
  if (response.status === 401) throw new FunctionError(`the function refused the reset (401): ${REFUSED_KEY}`, 401);
  if (!response.ok) throw new FunctionError(`the function refused the reset (${response.status}): ${await errorText(response)}`, response.status);
  return answerOf(url, response, resetAnswerSchema);
}

async function listingPage(endpoint: string, privateKeyPem: string, query: { after?: string; limit?: number }): Promise<z.infer<typeof pageSchema>> {
  const params = new URLSearchParams();
  if (query.after !== undefined) params.set("after", query.after);
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  const { url, response } = await signed(endpoint, privateKeyPem, "GET", params.size > 0 ? `${REGISTRY_PATH}?${params}` : REGISTRY_PATH, new Uint8Array());
  if (response.status === 401) throw new FunctionError(`GET ${url} was refused (401): ${REFUSED_KEY}`, 401);
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return answerOf(url, response, pageSchema);
}

/** Every registration the registry holds, page by page. */
export async function listRegistry(endpoint: string, privateKeyPem: string): Promise<RegistryListing> {
  const listing: RegistryListing = { revision: 0, clusters: [], clustersVariable: [] };
  let after: string | undefined;
  do {
    const page = await listingPage(endpoint, privateKeyPem, { after });
    listing.revision = page.revision;
    listing.clusters.push(...page.clusters);
    if (page.clustersVariable) listing.clustersVariable = page.clustersVariable;
    after = page.next;
  } while (after !== undefined);
  return listing;
}

/** A cluster id's characters in the order the registry sorts ids (bytewise, as SQLite compares text). */
const ID_CHARACTERS = "-0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * The greatest cluster id sorting before `id`, or undefined when none does
 * ("0"): the listing's page `?after=` it starts with `id` if registered. For
 * each position from the last, the id with a smaller character there and the
 * greatest tail after it ("prod-et" + "z"… for "prod-eu"), else the prefix itself.
 */
export function idBefore(id: string): string | undefined {
  const valid = (candidate: string) => candidate.length > 0 && candidate.length <= MAX_CLUSTER_ID_LENGTH && CLUSTER_ID.test(candidate);
  for (let length = id.length; length >= 1; length--) {
    const head = id.slice(0, length - 1);
    const lower = ID_CHARACTERS[ID_CHARACTERS.indexOf(id[length - 1]!) - 1];
    if (lower !== undefined) {
      const candidate = `${head}${lower}${"z".repeat(MAX_CLUSTER_ID_LENGTH - length)}`;
      if (valid(candidate)) return candidate;
    }
    if (valid(head)) return head;
  }
  return undefined;
}

/**
 * One registration, or whether CLUSTERS names the id: the page of one that
 * starts right after the id before it (the listing has no route of its own
 * for one; two signed reads at most, whatever the registry holds).
 */
export async function getRegistration(endpoint: string, privateKeyPem: string, cluster: string): Promise<{ registration?: ListedCluster; inClustersVariable: boolean; revision: number }> {
  const before = idBefore(cluster);
  const page = await listingPage(endpoint, privateKeyPem, { ...(before !== undefined ? { after: before } : {}), limit: 1 });
  const registration = page.clusters[0]?.cluster === cluster ? page.clusters[0] : undefined;
  if (registration) return { registration, inClustersVariable: registration.shadowedByClusters === true, revision: page.revision };
  // CLUSTERS' ids come with the first page only.
  const variable = page.clustersVariable ?? (await listingPage(endpoint, privateKeyPem, { limit: 1 })).clustersVariable ?? [];
  return { inClustersVariable: variable.includes(cluster), revision: page.revision };
}
