// The function's snapshot API, from the Node side: `edgeadmit snapshot push`,
// `edgeadmit sync` and `npm start` talk to the function through this.
import { importPrivateKey, signRequest } from "../../shared/signing/index.js";
import * as z from "zod/mini";
import { describeZodError } from "../../shared/zod/index.js";

/** What the function answers to a push and to GET …/snapshot: metadata only. */
const storedSnapshotSchema = z.object({
  cluster: z.string(),
  generation: z.number(),
  contentHash: z.string(),
  builtAt: z.string(),
  pushedAt: z.string(),
  ageSeconds: z.number(),
  bytes: z.number(),
  /** Set when the function found the stored bytes no longer match their hash. */
  corrupt: z.optional(z.string()),
  /** The cluster's ValidatingAdmissionPolicies bound at the edge, and what could not be used among them. */
  boundPolicies: z._default(z.number(), 0),
  policyProblems: z._default(z.array(z.string()), []),
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

function endpointUrl(endpoint: string, cluster: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/${encodeURIComponent(cluster)}/snapshot`;
}

export async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new FunctionError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, 0);
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

export async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {
    // not JSON: show the text as it came
  }
  return text.slice(0, 500) || response.statusText;
}

/** What a 401 means to someone holding the cluster's key: the function does not know this key for this cluster. */
function refusedKey(cluster: string): string {
  return `the function does not accept this key for cluster "${cluster}": is the cluster registered in its CLUSTERS, with this key's public key (edgeadmit key public --key FILE)?`;
}

/** Signs `snapshotJson` with the cluster's private key and PUTs it; returns what the function stored. */
export async function pushSnapshot(endpoint: string, cluster: string, privateKeyPem: string, snapshotJson: string): Promise<StoredSnapshot> {
  const body = new TextEncoder().encode(snapshotJson);
  const headers = await signRequest(await importPrivateKey(privateKeyPem), "PUT", cluster, body, Math.floor(Date.now() / 1000));
  const url = endpointUrl(endpoint, cluster);
  const response = await send(url, { method: "PUT", body, headers: { ...headers, "content-type": "application/json" } });
  if (response.status === 401) throw new FunctionError(`the function refused the snapshot (401): ${refusedKey(cluster)}`, 401);
  if (!response.ok) throw new FunctionError(`the function refused the snapshot (${response.status}): ${await errorText(response)}`, response.status);
  return storedFrom(url, response);
}

/**
 * What the function holds for `cluster`, or undefined when nothing has been
 * pushed yet. The read is signed with the cluster's key like a push, so a
 * wrong key fails here, loudly, before anything is compared.
 */
export async function storedSnapshot(endpoint: string, cluster: string, privateKeyPem: string): Promise<StoredSnapshot | undefined> {
  const url = endpointUrl(endpoint, cluster);
  const headers = await signRequest(await importPrivateKey(privateKeyPem), "GET", cluster, new Uint8Array(), Math.floor(Date.now() / 1000));
  const response = await send(url, { method: "GET", headers });
  if (response.status === 401) throw new FunctionError(`GET ${url} was refused (401): ${refusedKey(cluster)}`, 401);
  if (response.status === 404) {
    const error = await errorText(response);
    if (error.startsWith("no snapshot")) return undefined;
    throw new FunctionError(error, 404);
  }
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return storedFrom(url, response);
}
