// The function's snapshot API, from the Node side: `edgeadmit snapshot push`,
// `edgeadmit sync` and `npm start` talk to the function through this.
import { importPrivateKey, signPush } from "../../shared/signing/index.js";
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

async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new FunctionError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, 0);
  }
}

/** The answer as StoredSnapshot, or a FunctionError saying the endpoint is not an edgeadmit function (or not this version). */
async function storedFrom(url: string, response: Response): Promise<StoredSnapshot> {
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new FunctionError(`${url} answered ${response.status} without JSON: is the endpoint an edgeadmit function?`, response.status);
  }
  const parsed = storedSnapshotSchema.safeParse(json);
  if (!parsed.success) throw new FunctionError(`${url} answered ${response.status} with unexpected JSON: ${describeZodError(parsed.error)}`, response.status);
  return parsed.data;
}

async function errorText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === "string") return body.error;
  } catch {
    // not JSON: show the text as it came
  }
  return text.slice(0, 500) || response.statusText;
}

/** Signs `snapshotJson` with the cluster's private key and PUTs it; returns what the function stored. */
export async function pushSnapshot(endpoint: string, cluster: string, privateKeyPem: string, snapshotJson: string): Promise<StoredSnapshot> {
  const body = new TextEncoder().encode(snapshotJson);
  const headers = await signPush(await importPrivateKey(privateKeyPem), cluster, body, Math.floor(Date.now() / 1000));
  const url = endpointUrl(endpoint, cluster);
  const response = await send(url, { method: "PUT", body, headers: { ...headers, "content-type": "application/json" } });
  if (!response.ok) throw new FunctionError(`the function refused the snapshot (${response.status}): ${await errorText(response)}`, response.status);
  return storedFrom(url, response);
}

/** What the function holds for `cluster`, or undefined when nothing has been pushed yet. */
export async function storedSnapshot(endpoint: string, cluster: string): Promise<StoredSnapshot | undefined> {
  const url = endpointUrl(endpoint, cluster);
  const response = await send(url, { method: "GET" });
  if (response.status === 404) {
    const error = await errorText(response);
    if (error.startsWith("no snapshot")) return undefined;
    throw new FunctionError(error, 404);
  }
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return storedFrom(url, response);
}
