// The function's snapshot API, from the Node side: `edgeadmit snapshot push`,
// `edgeadmit sync` and `npm start` talk to the function through this.
import { importPrivateKey, signPush } from "../../shared/signing/index.js";

export interface StoredSnapshot {
  cluster: string;
  generation: number;
  contentHash: string;
  builtAt: string;
  pushedAt: string;
  ageSeconds: number;
  bytes: number;
}

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
  return (await response.json()) as StoredSnapshot;
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
  return (await response.json()) as StoredSnapshot;
}
