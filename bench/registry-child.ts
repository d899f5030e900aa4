// What one isolate keeps of a registry of N clusters, in a fresh process so the
// heap holds nothing else: the directory of ids after the first lookup, then
// every registration once each has been looked up. Needs --expose-gc. Prints
// one JSON line.
import { RegistryCache } from "../functions/registry/cache.js";
import { fleet } from "./registry.js";
import { nowMs } from "./stats.js";

const clusters = Number(process.argv[2]);
const gc = (globalThis as { gc?: () => void }).gc;
if (!(clusters >= 1) || !gc) {
  console.error("usage: node --expose-gc scripts/tsrun.mjs bench/registry-child.ts <clusters>");
  process.exit(2);
}

/** heapUsed + external once collections stop freeing anything: native key handles are freed by finalizers, a turn after the GC that found them. */
async function settled(): Promise<number> {
  let last = Infinity;
  for (let i = 0; i < 20; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
    const usage = process.memoryUsage();
    const now = usage.heapUsed + usage.external;
    if (Math.abs(last - now) < 4096) return now;
    last = now;
  }
  return last;
}

const { ids, registry } = await fleet(clusters);
const reader = () => registry;
const now = Date.now();
// A first cache, filled and dropped, so that what the process makes once (compiled code, the key
// import machinery) is in the baseline and not counted as the measured cache's.
let warmup: RegistryCache | undefined = new RegistryCache(clusters);
for (const id of ids) await warmup.lookup(reader, id, now);
warmup = undefined;
const cache = new RegistryCache(clusters);
const before = await settled();
const start = nowMs();
// An id nobody registered: the directory is read, no registration is.
if (await cache.lookup(reader, "not-registered", now)) throw new Error("an unknown id was found");
const coldDirectoryMs = nowMs() - start;
const directoryBytes = (await settled()) - before;
const filling = nowMs();
for (const id of ids) if (!(await cache.lookup(reader, id, now))) throw new Error(`${id} is not registered`);
const fillMs = nowMs() - filling;
const totalBytes = (await settled()) - before;
if (cache.size().registrations !== clusters) throw new Error(`the cache holds ${cache.size().registrations} registrations, not ${clusters}`);
console.log(JSON.stringify({ clusters, directoryBytes, totalBytes, coldDirectoryMs, fillMs }));
