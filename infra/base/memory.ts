// Handing the memory a finished phase of a verb used back to the OS, for the
// CronJob's container (docs/operations.md, "The sync job's resources").
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

interface GcOptions {
  type: "major";
  execution: "sync";
  /** V8's CollectAllAvailableGarbage: full collections flagged to reduce memory, until one frees nothing more. */
  flavor: "last-resort";
}

let collect: ((options: GcOptions) => void) | undefined;

/**
 * Collects the garbage of a phase that has just ended and returns the heap
 * pages it frees to the OS. Since V8 13 (Node 24) a full collection keeps the
 * pages it empties in a pool for the heap's own later use, committed and
 * resident, and releases them only when a collection is flagged to reduce
 * memory (v8 src/heap/heap.cc, GarbageCollectionEpilogueInSafepoint:
 * ReleasePooledChunksImmediately under ShouldReduceMemory). Node 20's V8
 * unmapped them within a second. So a verb whose heap peaks early and whose
 * later work allocates outside the heap (request bodies, signatures, sockets)
 * holds both at once: `edgeadmit sync` of 100,000 applications peaked at
 * 272 MB on Node 24 against 192 MB on Node 20, past the CronJob's 256 Mi.
 * The collection is V8's own `gc()`, reached without `--expose-gc` on the
 * command line: the flag makes V8 install it in contexts created after it is
 * set. It takes as long as a few full collections of what is still live
 * (87 ms with 1.5 million dropped objects beside a small live heap).
 */
export function releaseFreedMemory(): void {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as (options: GcOptions) => void;
  }
  collect({ type: "major", execution: "sync", flavor: "last-resort" });
}
