// Drives the worker under test over HTTP, inside workerd.
import { env, exports } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../functions/index.js";
import { importPrivateKey, publicKeyOf, signRequest, type SignedMethod } from "../../shared/signing/index.js";
import type { TestCluster as RegisteredCluster } from "./clusters.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { encodeSnapshot, pushBodies, type Snapshot } from "../../shared/snapshot/index.js";
import type { AdmissionResponseReview } from "../../shared/admission/index.js";
import { parseAllDocuments } from "yaml";
import { RELEASE, USER_AGENT_HEADER, userAgent } from "../../shared/version/index.js";

export const BASE = "https://edgeadmit.test";

/** The User-Agent a sync job of this release sends (infra/client): the tests' signed calls come from one. */
export const SYNC_JOB = { [USER_AGENT_HEADER]: userAgent(RELEASE, "sync", undefined) };

export function call(path: string, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

/** The bearer token the test cluster `cluster`'s apiserver presents. */
export function tokenOf(cluster: RegisteredCluster): string {
  return (JSON.parse(env.TEST_TOKENS) as Record<RegisteredCluster, string>)[cluster];
}

/** The Authorization header of `cluster`'s apiserver. */
export function bearer(cluster: RegisteredCluster): Record<string, string> {
  return { authorization: `Bearer ${tokenOf(cluster)}` };
}

/**
 * The same Request straight into the worker's fetch handler, without the
 * loopback socket that `call` goes through: the pool's loopback slows down
 * superlinearly past a few hundred calls in one file, so the high-volume
 * helpers (push, validate) and the property tests use this.
 */
export async function dispatch(path: string, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`${BASE}${path}`, init), env, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

type TestCluster = "demo" | "strict" | "other";
/** The key each test cluster is registered with (see clusters.ts). */
const SIGNER: Record<string, TestCluster> = { fresh: "other", sealed: "strict", pushes: "demo", rotating: "demo", open: "other" };

function keys(): Record<TestCluster, string> {
  return JSON.parse(env.TEST_KEYS);
}

let nextGeneration = Date.now();
/** A generation newer than any this test run has used. */
export function freshGeneration(): number {
  return ++nextGeneration;
}

export function objectsFromYaml(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

export function snapshotOf(objects: KubeObject[], overrides: Partial<Snapshot> = {}): Snapshot {
  const { snapshot, problems } = buildSnapshot(objects, { generation: freshGeneration(), builtAt: new Date().toISOString() });
  if (problems.length > 0) throw new Error(`test snapshot has problems: ${problems.join("; ")}`);
  return { ...snapshot, ...overrides };
}

/** Who signs `cluster`'s pushes, as the push route hands it to the store: its test key, the only one registered. */
export async function pushSigner(cluster: string) {
  const key = await publicKeyOf(keys()[SIGNER[cluster] ?? (cluster as TestCluster)]);
  return { key, current: [key] };
}

/** The signature headers `signer`'s key gives a `method` request with `bytes` to `cluster`. */
export async function sign(cluster: string, bytes: Uint8Array, options: { signer?: TestCluster; timestamp?: number; method?: SignedMethod } = {}) {
  const key = await importPrivateKey(keys()[options.signer ?? SIGNER[cluster] ?? (cluster as TestCluster)]);
  return { ...(await signRequest(key, options.method ?? "PUT", cluster, bytes, options.timestamp ?? Math.floor(Date.now() / 1000))), ...SYNC_JOB };
}

/** The bodies that push every unit of `snapshot` (one for a small snapshot), as `edgeadmit snapshot push` sends them. */
export async function fullPushBodies(snapshot: Snapshot): Promise<string[]> {
  const { units, digest } = await encodeSnapshot(snapshot);
  return pushBodies(snapshot.generation, units, { base: null, builtAt: snapshot.builtAt, removed: [], digest });
}

/** Signs `body` (a snapshot: every unit, one body after another; text: that body) as `signer` would and PUTs it to `cluster`'s snapshot; the last answer. */
export async function push(
  cluster: string,
  body: string | Snapshot,
  options: { signer?: TestCluster; timestamp?: number; headers?: Record<string, string> } = {},
): Promise<Response> {
  let response: Response | undefined;
  for (const text of typeof body === "string" ? [body] : await fullPushBodies(body)) {
    const bytes = new TextEncoder().encode(text);
    const signed = await sign(cluster, bytes, options);
    response = await dispatch(`/v1/${cluster}/snapshot`, { method: "PUT", body: bytes, headers: { ...signed, ...options.headers } });
    if (response.status !== 200) return response;
  }
  return response!;
}

/** The wire response, with room to assert that patch and patchType never appear. */
export type ReviewResponse = AdmissionResponseReview & { response: { patch?: unknown; patchType?: unknown } };

/** POSTs `review` as `cluster`'s apiserver does, with its token; the verdict. */
export async function validate(cluster: RegisteredCluster, review: unknown, policy?: string): Promise<ReviewResponse> {
  const response = await dispatch(`/v1/${cluster}/validate${policy ? `/${policy}` : ""}?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(cluster) },
    body: JSON.stringify(review),
  });
  if (response.status !== 200) throw new Error(`validate answered ${response.status}: ${await response.text()}`);
  return response.json();
}
