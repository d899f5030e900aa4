// The function's snapshot API, from the Node side: `edgeadmit snapshot push`,
// `edgeadmit sync` and `npm start` talk to the function through this. A push
// sends the snapshot's units (shared/snapshot/push.ts): all of them, or, given
// what the function holds, only those whose hash differs.
import { importPrivateKey, publicKeyOf, signRequest } from "../../shared/signing/index.js";
import { BUCKETS, bucketOf, encodeSnapshot, MAX_REMOVED, pushBatches, pushBody, type EncodedSnapshot, type EncodedUnit, type PushCommit, type Snapshot } from "../../shared/snapshot/index.js";
import * as z from "zod/mini";
import { fleetSetSchema } from "../../shared/fleet/index.js";
import { describeZodError } from "../../shared/zod/index.js";
import { RELEASE, USER_AGENT_HEADER, userAgent } from "../../shared/version/index.js";

/** What the function answers to a push and to GET …/snapshot: metadata only. */
const storedSnapshotSchema = z.object({
  cluster: z.string(),
  generation: z.number(),
  contentHash: z.string(),
  builtAt: z.string(),
  pushedAt: z.string(),
  ageSeconds: z.number(),
  /** Bytes the function stores for this generation, all units. */
  bytes: z.number(),
  /** Units stored: the cluster part and one per namespace. */
  units: z._default(z.number(), 0),
  /** Set when the function found the stored bytes no longer match their hash. */
  corrupt: z.optional(z.string()),
  /** The cluster's ValidatingAdmissionPolicies bound at the edge, and what could not be used among them. */
  boundPolicies: z._default(z.number(), 0),
  policyProblems: z._default(z.array(z.string()), []),
  /** The public key that signed the stored generation; null for one stored before keys were recorded. */
  signedBy: z._default(z.nullable(z.string()), null),
  /** The registration's limit on a snapshot's age (GET …/snapshot says it; a push's answer does not). */
  maxAgeSeconds: z.optional(z.number()),
});
export type StoredSnapshot = z.infer<typeof storedSnapshotSchema>;

/** A refusal or failure, carrying the function's own error text. */
export class FunctionError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "FunctionError";
  }
}

function endpointUrl(endpoint: string, cluster: string, path = "", resource = "snapshot"): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/${encodeURIComponent(cluster)}/${resource}${path}`;
}

/** What failing to reach an https:// URL most often means: the port speaks plain http (npm start does). */
const TLS_FAILURES = new Set(["EPROTO", "ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG", "UND_ERR_CONNECT_TIMEOUT", "ECONNRESET", "UND_ERR_SOCKET"]);

/** What every call names itself as (shared/version userAgent): the verb running, set by the CLI's main. */
let agent = userAgent(RELEASE, "edgeadmit", undefined);

/** Names this process's calls from now on: the verb and the commit the CLI runs. */
export function identifyAs(verb: string, commit: string | undefined): void {
  agent = userAgent(RELEASE, verb, commit);
}

export async function send(url: string, init: Omit<RequestInit, "headers"> & { headers?: Record<string, string> }): Promise<Response> {
  try {
    return await fetch(url, { ...init, headers: { ...init.headers, [USER_AGENT_HEADER]: agent } });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? cause?.message ?? (e as Error).message;
    const plain = url.startsWith("https:") && cause?.code !== undefined && TLS_FAILURES.has(cause.code) ? `; if that port serves plain http (npm start does), use ${url.replace(/^https:/, "http:").replace(/(:\/\/[^/]+).*$/, "$1")}` : "";
    throw new FunctionError(`cannot reach ${url}: ${code}${plain}`, 0);
  }
}

/** The answer as `schema` says, or a FunctionError saying the endpoint is not an edgeadmit function (or not this version). */
export async function answerOf<T>(url: string, response: Response, schema: z.ZodMiniType<T>): Promise<T> {
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new FunctionError(`${url} answered ${response.status} without JSON: is the endpoint an edgeadmit function?`, response.status);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new FunctionError(`${url} answered ${response.status} with unexpected JSON: ${describeZodError(parsed.error)}`, response.status);
  return parsed.data;
}

const storedFrom = (url: string, response: Response) => answerOf(url, response, storedSnapshotSchema);

/**
 * The function's own error text (its `{"error": …}`); any other answer is
 * not an edgeadmit function's, and is named as such rather than quoted.
 */
export async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {
    // not JSON: not the function's answer
  }
  const type = response.headers.get("content-type")?.split(";")[0]?.trim();
  throw new FunctionError(
    `${response.url || "the endpoint"} answered ${response.status}${type ? ` with ${type.slice(0, 60)}` : ""}, not an edgeadmit answer: is --endpoint the function's base URL (https://HOST, without /v1)?`,
    response.status,
  );
}

/** What a 401 means to someone holding the cluster's key: the function does not know this key for this cluster. */
function refusedKey(cluster: string): string {
  return `the function does not accept this key for cluster "${cluster}": is the cluster registered (edgeadmit clusters list, or the function's CLUSTERS) with this key's public key (edgeadmit key public --key FILE)?`;
}

/** What a push sent: how many bodies, bytes and units, of how many units in all. */
export interface PushReport {
  stored: StoredSnapshot;
  /** Whether every unit went (no base), and why when an incremental push was possible. */
  full: boolean;
  fullBecause?: string;
  /** The generation an incremental push sent the differences from. */
  base?: number;
  bodies: number;
  /** Bytes of the bodies as sent on the wire (what the stored size is not). */
  bytes: number;
  units: number;
  removed: number;
  /** Units of the snapshot in all. */
  totalUnits: number;
}

interface Signer {
  endpoint: string;
  cluster: string;
  key: CryptoKey;
}

async function signedGet(signer: Signer, path: string, resource?: string): Promise<Response> {
  const url = endpointUrl(signer.endpoint, signer.cluster, path, resource);
  const headers = await signRequest(signer.key, "GET", signer.cluster, new Uint8Array(), Math.floor(Date.now() / 1000));
  const response = await send(url, { method: "GET", headers });
  if (response.status === 401) throw new FunctionError(`GET ${url} was refused (401): ${refusedKey(signer.cluster)}`, 401);
  return response;
}

const bucketsSchema = z.object({ generation: z.number(), buckets: z.record(z.string(), z.string()) });
const bucketUnitsSchema = z.object({ generation: z.number(), units: z.record(z.string(), z.string()) });

async function jsonOf<T>(signer: Signer, path: string, schema: z.ZodMiniType<T>, resource?: string): Promise<T> {
  const response = await signedGet(signer, path, resource);
  const url = endpointUrl(signer.endpoint, signer.cluster, path, resource);
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  const parsed = schema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new FunctionError(`GET ${url} answered with unexpected JSON: ${describeZodError(parsed.error)}`, response.status);
  return parsed.data;
}

/** A refusal a push can recover from by sending every unit: the base is not the stored generation. */
class BaseRefused extends Error {}

/**
 * PUTs the units in their batches (shared/snapshot/push.ts), each body made
 * only when it is sent: a push holds the units' bytes and one body, not a
 * second copy of the snapshot as text.
 */
async function sendBatches(signer: Signer, generation: number, units: readonly EncodedUnit[], commit: PushCommit): Promise<{ stored: StoredSnapshot; bodies: number; bytes: number }> {
  const url = endpointUrl(signer.endpoint, signer.cluster);
  const batches = pushBatches(units, commit);
  let bytes = 0;
  let last: Response | undefined;
  for (const [index, batch] of batches.entries()) {
    const final = index === batches.length - 1;
    const body = new TextEncoder().encode(pushBody(generation, batch, final ? commit : undefined));
    bytes += body.length;
    const headers = await signRequest(signer.key, "PUT", signer.cluster, body, Math.floor(Date.now() / 1000));
    last = await send(url, { method: "PUT", body, headers: { ...headers, "content-type": "application/json" } });
    if (last.status === 401) throw new FunctionError(`the function refused the snapshot (401): ${refusedKey(signer.cluster)}`, 401);
    if (!last.ok) {
      const error = await errorText(last);
      if (last.status === 409 && error.startsWith("base generation")) throw new BaseRefused(error);
      throw new FunctionError(`the function refused the snapshot (${last.status}): ${error}`, last.status);
    }
    if (!final) await last.body?.cancel();
  }
  return { stored: await storedFrom(url, last!), bodies: batches.length, bytes };
}

/**
 * The units that differ from what the function holds, and the names it holds
 * that the snapshot no longer has: bucket digests first, then the units of
 * the buckets that differ. Undefined when a full push is the better choice
 * (more than half the buckets differ) or the listings moved under it.
 */
async function difference(signer: Signer, units: readonly EncodedUnit[], buckets: ReadonlyMap<number, string>) {
  const remote = await jsonOf(signer, "/buckets", bucketsSchema);
  const differing = new Set<number>();
  for (let bucket = 0; bucket < BUCKETS; bucket++) if ((remote.buckets[String(bucket)] ?? "") !== (buckets.get(bucket) ?? "")) differing.add(bucket);
  if (differing.size > BUCKETS / 2) return { full: `${differing.size} of ${BUCKETS} buckets differ` };
  const byBucket = new Map<number, EncodedUnit[]>();
  for (const unit of units) {
    const bucket = bucketOf(unit.name);
    if (!differing.has(bucket)) continue;
    const inBucket = byBucket.get(bucket);
    if (inBucket) inBucket.push(unit);
    else byBucket.set(bucket, [unit]);
  }
  const changed: EncodedUnit[] = [];
  const removed: string[] = [];
  for (const bucket of differing) {
    const listed = await jsonOf(signer, `/buckets/${bucket}`, bucketUnitsSchema);
    if (listed.generation !== remote.generation) return { full: "the function's snapshot changed while it was compared" };
    const local = byBucket.get(bucket) ?? [];
    for (const unit of local) if (listed.units[unit.name] !== unit.sha256) changed.push(unit);
    const names = new Set(local.map((unit) => unit.name));
    for (const name of Object.keys(listed.units)) if (!names.has(name)) removed.push(name);
  }
  if (removed.length > MAX_REMOVED) return { full: `${removed.length} units to remove, more than the ${MAX_REMOVED} one push may name` };
  return { base: remote.generation, changed, removed };
}

/**
 * A snapshot already cut into its units, with the fields no unit holds: all a
 * push needs, so a caller can let the snapshot's objects go once it has this.
 */
interface EncodedPush {
  generation: number;
  builtAt: string;
  encoded: EncodedSnapshot;
}

/**
 * Signs and pushes `snapshot` (as the schema gives it, or its units) for
 * `cluster`. Given `against`, what the function reported it holds, only the
 * units that differ go, against that generation; if the function holds
 * another by the time the push commits (409), every unit goes, as a
 * generation above it.
 */
export async function pushSnapshot(
  endpoint: string,
  cluster: string,
  privateKeyPem: string,
  snapshot: Snapshot | EncodedPush,
  { against }: { against?: StoredSnapshot } = {},
): Promise<PushReport> {
  const signer: Signer = { endpoint, cluster, key: await importPrivateKey(privateKeyPem) };
  const encoded = "encoded" in snapshot ? snapshot.encoded : await encodeSnapshot(snapshot);
  const commit = (base: number | null, removed: string[]) => ({ base, builtAt: snapshot.builtAt, removed, digest: encoded.digest });
  const full = async (generation: number, because: string | undefined): Promise<PushReport> => {
    const { stored, bodies, bytes } = await sendBatches(signer, generation, encoded.units, commit(null, []));
    return { stored, full: true, ...(because ? { fullBecause: because } : {}), bodies, bytes, units: encoded.units.length, removed: 0, totalUnits: encoded.units.length };
  };
  if (!against) return full(snapshot.generation, undefined);
  if (against.corrupt) return full(snapshot.generation, "the function's stored copy failed its integrity check");
  // A copy another key pushed is dropped by the function when that key is no longer registered: it cannot be a base.
  if (against.signedBy !== (await publicKeyOf(privateKeyPem))) return full(snapshot.generation, "another key pushed the function's stored copy");
  const diff = await difference(signer, encoded.units, encoded.buckets);
  if (diff.full !== undefined) return full(snapshot.generation, diff.full);
  try {
    const { stored, bodies, bytes } = await sendBatches(signer, snapshot.generation, diff.changed, commit(diff.base, diff.removed));
    return { stored, full: false, base: diff.base, bodies, bytes, units: diff.changed.length, removed: diff.removed.length, totalUnits: encoded.units.length };
  } catch (e) {
    if (!(e instanceof BaseRefused)) throw e;
    const current = /stored generation (\d+)/.exec(e.message);
    return full(Math.max(snapshot.generation, current ? Number(current[1]) : 0) + 1, e.message);
  }
}

/**
 * What the function holds for `cluster`, or undefined when nothing has been
 * pushed yet. The read is signed with the cluster's key like a push, so a
 * wrong key fails here, loudly, before anything is compared.
 */
export async function storedSnapshot(endpoint: string, cluster: string, privateKeyPem: string): Promise<StoredSnapshot | undefined> {
  const url = endpointUrl(endpoint, cluster);
  const response = await signedGet({ endpoint, cluster, key: await importPrivateKey(privateKeyPem) }, "");
  if (response.status === 404) {
    const error = await errorText(response);
    if (error.startsWith("no snapshot")) return undefined;
    throw new FunctionError(error, 404);
  }
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return storedFrom(url, response);
}

const clusterFleetSchema = z.object({ cluster: z.string(), revision: z.number(), set: fleetSetSchema });
export type ClusterFleetSelection = z.infer<typeof clusterFleetSchema>;

/**
 * What the fleet binds on `cluster` (GET /v1/<cluster>/fleet), read with the
 * cluster's own key: the audit judges with it, and never holds the operator's.
 */
export async function clusterFleetSelection(endpoint: string, cluster: string, privateKeyPem: string): Promise<ClusterFleetSelection> {
  return jsonOf({ endpoint, cluster, key: await importPrivateKey(privateKeyPem) }, "", clusterFleetSchema, "fleet");
}
