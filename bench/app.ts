// The function's HTTP layer in process: the Hono app (functions/app.ts) on a
// Web Request, with its Durable Object store replaced by an in-memory one, and
// the no-op twin's handler beside it. Splits the end-to-end gap into what the
// app does (routing, bodyLimit, cluster lookup, snapshot cache, review) and
// what only workerd and the network add.
import { app } from "../functions/app.js";
import type { Env } from "../functions/config/index.js";
import type { SnapshotMeta } from "../functions/store/index.js";
import { sha256Hex } from "../shared/digest/index.js";
import { generateKeyPair } from "../shared/signing/index.js";
import { tokenHash } from "../shared/tokens/index.js";
import { allowAll } from "./noop.js";

const CLUSTER = "bench";
/** The apiserver's bearer token in the benchmarks: what every review presents. */
export const BENCH_TOKEN = "edgeadmit_bench-token-not-a-secret-0000000";

/** The Env the function sees, its snapshot store answering from memory like a Durable Object stub. */
export async function inMemoryEnv(stored: string, generation: number): Promise<Env> {
  const { publicKey } = await generateKeyPair();
  const bytes = new TextEncoder().encode(stored);
  const meta: SnapshotMeta = { generation, contentHash: "bench", builtAt: new Date().toISOString(), pushedAt: Date.now(), bytes: bytes.length, storedSha256: await sha256Hex(bytes), boundPolicies: 0, policyProblems: [] };
  const store = { head: async () => meta, read: async () => ({ ok: true, meta, bytes }) };
  const namespace = { idFromName: (name: string) => name, get: () => store };
  return {
    CLUSTERS: JSON.stringify({ [CLUSTER]: { publicKey, tokenHashes: [await tokenHash(BENCH_TOKEN)] } }),
    SNAPSHOTS: namespace as unknown as Env["SNAPSHOTS"],
  };
}

function post(body: string): Request {
  return new Request(`http://edgeadmit.bench/v1/${CLUSTER}/validate?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
    body,
  });
}

/** One review through the Hono app, as workerd would hand it over; returns the response's length. */
export async function throughApp(body: string, env: Env): Promise<number> {
  const response = await app.fetch(post(body), env);
  if (response.status !== 200) throw new Error(`the app answered ${response.status}: ${await response.text()}`);
  return (await response.text()).length;
}

export async function throughNoop(body: string): Promise<number> {
  return (await (await allowAll(post(body))).text()).length;
}
