// A push through the function's own route code (the Hono app, PUT
// /v1/:cluster/snapshot) in a fresh process, its store in memory keeping
// only hashes (the units live in the Durable Object, not in the isolate):
// every body of a full push, then every body of an incremental one. Prints
// one JSON line: the peak heap (heapUsed + arrayBuffers, sampled at each
// store call and after each request) above the heap before each push.
// Needs --expose-gc.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { app } from "../functions/app.js";
import { generateKeyPair, importPrivateKey, signRequest } from "../shared/signing/index.js";
import { envOf } from "./app.js";
import { MemoryStore } from "./memory-store.js";

const [dir] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!dir || !gc) {
  console.error("usage: node --expose-gc scripts/tsrun.mjs bench/fleet-push-child.ts <dir with full-N.json and incremental-N.json>");
  process.exit(2);
}

const CLUSTER = "fleet";
const used = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

const store = new MemoryStore(false);
const keys = await generateKeyPair();
const key = await importPrivateKey(keys.privateKeyPem);
const env = await envOf(new Map([[CLUSTER, store]]), {}, keys.publicKey);

async function push(prefix: string): Promise<{ peakBytes: number; bodies: number; bytes: number; ms: number }> {
  const files = readdirSync(dir!)
    .filter((name) => name.startsWith(`${prefix}-`))
    .sort((a, b) => Number(a.slice(prefix.length + 1, -5)) - Number(b.slice(prefix.length + 1, -5)));
  gc!();
  gc!();
  const before = used();
  let peak = before;
  store.onCall = () => (peak = Math.max(peak, used()));
  let bytes = 0;
  const started = performance.now();
  for (const file of files) {
    // Read one body at a time, as the route receives it.
    const body = new Uint8Array(readFileSync(join(dir!, file)));
    bytes += body.length;
    const headers = await signRequest(key, "PUT", CLUSTER, body, Math.floor(Date.now() / 1000));
    const response = await app.fetch(new Request(`http://edgeadmit.bench/v1/${CLUSTER}/snapshot`, { method: "PUT", body, headers }), env);
    peak = Math.max(peak, used());
    if (response.status !== 200) throw new Error(`${file}: ${response.status} ${await response.text()}`);
    await response.text();
  }
  const ms = performance.now() - started;
  store.onCall = undefined;
  return { peakBytes: peak - before, bodies: files.length, bytes, ms };
}

const full = await push("full");
const incremental = await push("incremental");
console.log(JSON.stringify({ full, incremental, units: store.head()?.units }));
