// One isolate's first sight of a snapshot, in a fresh process so the heap holds
// nothing else: the cold decode (JSON.parse + schema + SnapshotView) and what
// stays on the heap afterwards. Needs --expose-gc. Prints one JSON line.
import { readFileSync } from "node:fs";
import { decodeSnapshot, SnapshotView } from "../shared/snapshot/index.js";
import { nowMs } from "./stats.js";

const file = process.argv[2];
const gc = (globalThis as { gc?: () => void }).gc;
if (!file || !gc) {
  console.error("usage: node --expose-gc scripts/tsrun.mjs bench/snapshot-child.ts <snapshot.json>");
  process.exit(2);
}

function settledHeap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const before = settledHeap();
let text: string | undefined = readFileSync(file, "utf8");
const start = nowMs();
const decoded = decodeSnapshot(text);
if (!decoded.ok) throw new Error(decoded.error);
const decodedAt = nowMs();
let view: SnapshotView | undefined = new SnapshotView(decoded.snapshot);
const end = nowMs();
// Where the decode's time goes: JSON.parse alone, timed after the fact so the decode ran cold.
JSON.parse(text);
const parseMs = nowMs() - end;
// The store's text is garbage once decoded; only the view stays with the isolate.
text = undefined;
const retainedBytes = settledHeap() - before;
// Where the heap goes: the decoded snapshot alone, once the view's index is dropped.
view = undefined;
const snapshotBytes = settledHeap() - before;
const applications = Object.keys(decoded.snapshot.applications).length;
console.log(
  JSON.stringify({ decodeMs: end - start, parseMs, schemaMs: decodedAt - start - parseMs, viewMs: end - decodedAt, retainedBytes, viewBytes: retainedBytes - snapshotBytes, applications }),
);
