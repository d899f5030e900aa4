// The function's HTTP layer in process: the Hono app (functions/app.ts) on a
// Web Request, with its Durable Object store replaced by an in-memory one, and
// the no-op twin's handler beside it. Splits the end-to-end gap into what the
// app does (routing, bodyLimit, cluster lookup, snapshot cache, review) and
// what only workerd and the network add.
import type { ExecutionContext } from "hono";
import { app } from "../functions/app.js";
import type { Env } from "../functions/config/index.js";
import { encodeSnapshot, type EncodedSnapshot, type Snapshot } from "../shared/snapshot/index.js";
import { generateKeyPair } from "../shared/signing/index.js";
import { tokenHash } from "../shared/tokens/index.js";
import { MemoryStore } from "./memory-store.js";
import { allowAll } from "./noop.js";

const CLUSTER = "bench";
/** The apiserver's bearer token in the benchmarks: what every review presents. */
export const BENCH_TOKEN = "edgeadmit_bench-token-not-a-secret-0000000";

/** The key every bench cluster is registered with and its stores' snapshots are signed by, unless a bench brings its own. */
const BENCH_PUBLIC_KEY = (await generateKeyPair()).publicKey;

/** A store holding `snapshot` as the push route would have stored it, pushed with the bench key (`encoded`: its units, when already at hand). */
export async function storeWith(snapshot: Snapshot, store = new MemoryStore(), encoded?: EncodedSnapshot): Promise<MemoryStore> {
  const { units, digest } = encoded ?? (await encodeSnapshot(snapshot));
  const result = store.push(snapshot.generation, units, { key: BENCH_PUBLIC_KEY, current: [BENCH_PUBLIC_KEY] }, { base: null, builtAt: snapshot.builtAt, pushedAt: Date.now(), removed: [], digest });
  if (!result.ok) throw new Error(`the memory store refused the bench snapshot: ${JSON.stringify(result)}`);
  return store;
}

/** The Env the function sees for `stores` by cluster id, every cluster's apiserver presenting BENCH_TOKEN, its snapshot store answering from memory like a Durable Object stub. */
export async function envOf(stores: ReadonlyMap<string, MemoryStore>, vars: Partial<Env> = {}, publicKey = BENCH_PUBLIC_KEY): Promise<Env> {
  const tokenHashes = [await tokenHash(BENCH_TOKEN)];
  const namespace = { idFromName: (name: string) => name, get: (name: string) => stores.get(name) };
  return {
    CLUSTERS: JSON.stringify(Object.fromEntries([...stores.keys()].map((id) => [id, { publicKey, tokenHashes }]))),
    SNAPSHOTS: namespace as unknown as Env["SNAPSHOTS"],
    ...vars,
  };
}

/** The Env of one cluster "bench" holding `snapshot`. */
export async function inMemoryEnv(snapshot: Snapshot): Promise<Env> {
  return envOf(new Map([[CLUSTER, await storeWith(snapshot)]]));
}

function post(body: string, cluster = CLUSTER): Request {
  return new Request(`http://edgeadmit.bench/v1/${cluster}/validate?timeout=10s`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` },
    body,
  });
}

/** What workerd hands every request beside env: without one, Hono's executionCtx throws, and the app pays for the exception on every review. */
const EXECUTION_CONTEXT: ExecutionContext = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} };

/** One review through the Hono app, as workerd would hand it over; returns the response's length. */
export async function throughApp(body: string, env: Env, cluster = CLUSTER): Promise<number> {
  const response = await app.fetch(post(body, cluster), env, EXECUTION_CONTEXT);
  if (response.status !== 200) throw new Error(`the app answered ${response.status}: ${await response.text()}`);
  return (await response.text()).length;
}

export async function throughNoop(body: string): Promise<number> {
  return (await (await allowAll(post(body))).text()).length;
}
