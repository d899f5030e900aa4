// One isolate's first sight of a snapshot, in a fresh process so the heap holds
// nothing else: what functions/store/cache.ts does with a stored snapshot
// (decodeStoredSnapshot + new SnapshotView), then the first review's lookup,
// and what stays on the heap afterwards. Needs --expose-gc. Prints one JSON line.
import { readFileSync } from "node:fs";
import { decodeSnapshot, decodeStoredSnapshot, SnapshotView, type Lineage } from "../shared/snapshot/index.js";
import { nowMs } from "./stats.js";

const [file, namespace, lineageJson] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
if (!file || !namespace || !lineageJson || !gc) {
  console.error("usage: node --expose-gc scripts/tsrun.mjs bench/snapshot-child.ts <stored-snapshot.json> <namespace> <lineage-json>");
  process.exit(2);
}
const lineage = JSON.parse(lineageJson) as Lineage;

function settledHeap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const before = settledHeap();
let text: string | undefined = readFileSync(file, "utf8");
const start = nowMs();
const decoded = decodeStoredSnapshot(text);
if (!decoded.ok) throw new Error(decoded.error);
const decodedAt = nowMs();
let view: SnapshotView | undefined = new SnapshotView(decoded.snapshot);
const viewAt = nowMs();
const application = view.applicationByLineage(namespace, lineage);
const end = nowMs();
if (!application) throw new Error(`the first lookup found no application ${JSON.stringify(lineage)} in ${namespace}`);

// What the push route pays once per push, in one isolate: the full schema pass.
const pushStart = nowMs();
if (!decodeSnapshot(text).ok) throw new Error("the stored snapshot does not pass the schema");
const pushValidateMs = nowMs() - pushStart;

// The store's text is garbage once decoded; the snapshot and the view stay with the isolate.
text = undefined;
const retainedBytes = settledHeap() - before;
// Where the heap goes: the decoded snapshot alone, once the view and its indexes are dropped.
view = undefined;
const snapshotBytes = settledHeap() - before;
console.log(
  JSON.stringify({
    firstSightMs: end - start,
    decodeMs: decodedAt - start,
    viewMs: viewAt - decodedAt,
    firstLookupMs: end - viewAt,
    pushValidateMs,
    retainedBytes,
    viewBytes: retainedBytes - snapshotBytes,
    applications: Object.keys(decoded.snapshot.applications).length,
  }),
);
