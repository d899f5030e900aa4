// The operator's side of the cluster registry in the workerd tests: signed
// changes and listings, and a cluster's own credentials made on the spot.
import { env } from "cloudflare:workers";
import { generateKeyPair, importPrivateKey, publicKeyOf, signRequest, type OperatorMethod, type SigningDomain } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { dispatch } from "./worker.js";
import { RELEASE, USER_AGENT_HEADER, userAgent } from "../../shared/version/index.js";

export const REGISTRY_PATH = "/v1/registry/clusters";

/** The private halves of the three keys OPERATOR_KEYS lists (test/support/clusters.ts). */
export function operatorKeys(): [string, string, string] {
  return JSON.parse(env.TEST_OPERATOR_KEYS) as [string, string, string];
}

/** The public key of OPERATOR_KEYS' first key (the one the tests sign with unless said): what a change records as its signer. */
export function operatorPublicKey(index = 0): Promise<string> {
  return publicKeyOf(operatorKeys()[index]!);
}

interface SignOptions {
  /** PEM of the signing key: the first operator key unless said. */
  key?: string;
  timestamp?: number;
  domain?: SigningDomain;
  /** The subject signed, when it is not the request's own path (a forgery). */
  subject?: string;
}

export async function operatorHeaders(method: OperatorMethod, pathAndQuery: string, bytes: Uint8Array, options: SignOptions = {}): Promise<Record<string, string>> {
  const key = await importPrivateKey(options.key ?? operatorKeys()[0]);
  const signed = await signRequest(key, method, options.subject ?? pathAndQuery, bytes, options.timestamp ?? Math.floor(Date.now() / 1000), options.domain ?? "operator");
  return { ...signed, [USER_AGENT_HEADER]: userAgent(RELEASE, "clusters", undefined) };
}

/** A signed change request, ready to send (and to send again). */
export async function signedChange(changes: unknown, options: SignOptions = {}): Promise<{ body: Uint8Array; headers: Record<string, string> }> {
  const body = new TextEncoder().encode(JSON.stringify({ requestId: crypto.randomUUID(), changes }));
  return { body, headers: { ...(await operatorHeaders("POST", REGISTRY_PATH, body, options)), "content-type": "application/json" } };
}

export function send(request: { body: Uint8Array; headers: Record<string, string> }): Promise<Response> {
  return dispatch(REGISTRY_PATH, { method: "POST", body: request.body, headers: request.headers });
}

export async function change(changes: unknown, options: SignOptions = {}): Promise<Response> {
  return send(await signedChange(changes, options));
}

/** `change`, expecting it applied: its JSON answer. */
export async function applied(changes: unknown): Promise<{ revision: number; applied: unknown[]; change: number; signers: string[]; notes?: string[] }> {
  const response = await change(changes);
  if (response.status !== 200) throw new Error(`the change answered ${response.status}: ${await response.text()}`);
  return response.json();
}

interface Listing {
  revision: number;
  clusters: Array<{ cluster: string; revision: number; publicKey: string[]; tokenHashes: string[]; withoutSnapshot: string; shadowedByClusters?: boolean }>;
  next?: string;
  clustersVariable?: string[];
}

export async function list(query = ""): Promise<Listing> {
  const path = `${REGISTRY_PATH}${query}`;
  const response = await dispatch(path, { headers: await operatorHeaders("GET", path, new Uint8Array()) });
  if (response.status !== 200) throw new Error(`the listing answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** One registration in the listing, or undefined. */
export async function listed(cluster: string) {
  return (await list()).clusters.find((entry) => entry.cluster === cluster);
}

/** A cluster's credentials, as its operator would make them: a key pair and an apiserver token. */
export async function credentials() {
  const keys = await generateKeyPair();
  const token = generateToken();
  return { ...keys, token, tokenHash: await tokenHash(token) };
}
export type Credentials = Awaited<ReturnType<typeof credentials>>;

/** A review by `cluster`'s apiserver presenting `token`: the status (200 judged, 401 refused). */
export async function reviewStatus(cluster: string, token: string): Promise<number> {
  const review = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: crypto.randomUUID(), kind: { group: "", version: "v1", kind: "ConfigMap" }, resource: { group: "", version: "v1", resource: "configmaps" }, operation: "CREATE", namespace: "default", userInfo: { username: "test" }, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "default" } } } };
  const response = await dispatch(`/v1/${cluster}/validate`, { method: "POST", body: JSON.stringify(review), headers: { "content-type": "application/json", authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

/** A signed read of `cluster`'s snapshot with `privateKeyPem`: 404 (registered, nothing pushed) or 401. */
export async function signedReadStatus(cluster: string, privateKeyPem: string): Promise<number> {
  const headers = await signRequest(await importPrivateKey(privateKeyPem), "GET", cluster, new Uint8Array(), Math.floor(Date.now() / 1000));
  const response = await dispatch(`/v1/${cluster}/snapshot`, { headers });
  await response.arrayBuffer();
  return response.status;
}
