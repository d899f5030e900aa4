// One isolate serving a fleet, in a fresh process so the heap holds nothing
// else: <clusters> clusters each holding a snapshot of <applications>
// applications (every store the same units, in memory like a Durable
// Object elsewhere), their pods reviewed round-robin through the Hono app.
// Prints one JSON line: the heap retained by the isolate's cache after the
// reviews (heapUsed after two forced GCs, minus before the first review).
// Needs --expose-gc.
import { cacheStats, forget } from "../functions/store/cache.js";
import { encodeSnapshot } from "../shared/snapshot/index.js";
import { envOf, storeWith, throughApp } from "./app.js";
import { MemoryStore } from "./memory-store.js";
import { podReviewOf } from "./review.js";
import { buildClusterSnapshot } from "./snapshot.js";

const [clusters, applications, rounds] = process.argv.slice(2).map(Number);
const gc = (globalThis as { gc?: () => void }).gc;
if (!clusters || !applications || !rounds || !gc) {
  console.error("usage: node --expose-gc scripts/tsrun.mjs bench/fleet-isolate-child.ts <clusters> <applications> <rounds>");
  process.exit(2);
}

function settledHeap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const built = buildClusterSnapshot(applications);
const encoded = await encodeSnapshot(built.snapshot);
const stores = new Map<string, MemoryStore>();
for (let c = 0; c < clusters; c++) stores.set(`c${c}`, await storeWith(built.snapshot, new MemoryStore(), encoded));
const env = await envOf(stores);
const texts = Array.from({ length: 50 }, (_, j) => podReviewOf(built.shape, 1 + j * 37));
// One review first, so code and the cluster registrations are loaded before the baseline.
await throughApp(texts[0]!, env, "c0");
forget();
const before = settledHeap();
const started = performance.now();
for (let round = 0; round < rounds; round++) for (let c = 0; c < clusters; c++) await throughApp(texts[(round * 7 + c) % texts.length]!, env, `c${c}`);
const ms = performance.now() - started;
const retained = settledHeap() - before;
console.log(JSON.stringify({ retained, estimate: cacheStats.bytes, entries: cacheStats.entries, reviews: rounds * clusters, ms, namespaces: Object.keys(built.snapshot.tenants).length }));
