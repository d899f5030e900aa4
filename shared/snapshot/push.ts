// The push protocol, one body shape for every step: PUT /v1/<cluster>/snapshot
// with a SnapshotPush, signed like any push (shared/signing signs the body's
// SHA-256, not the path, so the body says what it is). A push is one
// generation: its units travel in batches that stage them, the last body
// also commits. A small snapshot is one body that stages and commits.
//
// - base null: the push sends every unit; the new generation is exactly them.
// - base G: the push sends the units that differ from generation G and names
//   the ones it no longer has; the function refuses it (409) unless G is the
//   stored generation, and `sync` then pushes every unit.
// The commit carries the digest of the whole new generation, so a lost batch
// or a unit not in the schema's form is refused, never stored.
import * as z from "zod/mini";
import { SNAPSHOT_API_VERSION } from "./schema.js";
import { CLUSTER_UNIT, describeUnit, type EncodedUnit } from "./units/index.js";

const PUSH_KIND = "SnapshotPush";

/**
 * The largest push body the function takes. A batch decodes to a few times
 * its size on the function's heap, so 8 MiB keeps a push far inside an
 * isolate's 128 MB; the largest unit (one namespace's shard, or the cluster
 * part) must fit in one body: about 60,000 applications in one namespace.
 */
export const MAX_PUSH_BYTES = 8 * 1024 * 1024;
/** What `sync` puts in one body before it starts the next. */
export const PUSH_BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Units one body stages, and names one commit removes, at most: each is
 * schema work in the function and SQL statements in the cluster's Durable
 * Object, which serves the cluster's reviews meanwhile, so a body's work is
 * bounded by count, not only by bytes (in workerd locally, on a busy 2-core
 * machine: 2,000 staged units 0.14 to 0.26 s, 10,000 removals 0.09 to 0.43 s). `sync` cuts batches at
 * this count; a sync that would remove more pushes every unit instead (base null).
 */
export const MAX_PUSH_UNITS = 2_000;
export const MAX_REMOVED = 10_000;

const generationSchema = z.number().check(z.int(), z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER));
const DIGEST = /^[0-9a-f]{64}$/;

// Strict, like the registry's bodies: a field this version does not know is refused, not carried.
export const pushBodySchema = z.strictObject({
  apiVersion: z.literal(SNAPSHOT_API_VERSION),
  kind: z.literal(PUSH_KIND),
  /** Strictly increasing per cluster; the function refuses anything not newer. */
  generation: generationSchema,
  /** Unit name → content: "" the cluster part (only in the body that commits), `affinityclass/<name>` a class's references, any other name a namespace's shard. */
  units: z
    .record(z.string(), z.unknown())
    .check(z.refine((units) => Object.keys(units).length <= MAX_PUSH_UNITS, `at most ${MAX_PUSH_UNITS} units per body: send the rest in further bodies`)),
  commit: z.optional(
    z.strictObject({
      base: z.nullable(generationSchema),
      /** When the snapshot was built (UTC, as toISOString writes it). */
      builtAt: z.iso.datetime(),
      removed: z.array(z.string()).check(z.maxLength(MAX_REMOVED, `at most ${MAX_REMOVED} names per push: push every unit instead (base null)`)),
      /** rootDigest over every unit of the new generation. */
      digest: z.string().check(z.regex(DIGEST, "must be 64 lowercase hex digits")),
    }),
  ),
});
type PushBody = z.infer<typeof pushBodySchema>;
export type PushCommit = NonNullable<PushBody["commit"]>;

/** The envelope of a body without its units, to measure and write around them. */
function envelope(generation: number, commit: PushCommit | undefined): [head: string, tail: string] {
  const head = `{"apiVersion":${JSON.stringify(SNAPSHOT_API_VERSION)},"kind":"${PUSH_KIND}","generation":${generation},"units":{`;
  return [head, commit ? `},"commit":${JSON.stringify(commit)}}` : "}}"];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The batches that push `units`, each `sizeOf` bytes: at most
 * PUSH_BATCH_BYTES of units each (a larger unit alone), shards first, the
 * cluster part in the last batch, whose body also carries `commit`. Throws
 * when one unit cannot fit in a body the function takes.
 */
export function pushBatches<U extends { name: string }>(units: readonly U[], commit: PushCommit, sizeOf: (unit: U) => number): U[][] {
  const commitBytes = encoder.encode(JSON.stringify(commit)).length;
  if (commitBytes > MAX_PUSH_BYTES / 2) throw new Error(`the push removes too many namespaces at once (${commit.removed.length}) to name in one body`);
  // Every body, the last with the commit, stays under the function's limit.
  const room = MAX_PUSH_BYTES - commitBytes - 1024;
  const limit = Math.min(PUSH_BATCH_BYTES, room);
  const ordered = [...units.filter((unit) => unit.name !== CLUSTER_UNIT), ...units.filter((unit) => unit.name === CLUSTER_UNIT)];
  const batches: U[][] = [[]];
  let size = 0;
  for (const unit of ordered) {
    const entry = sizeOf(unit) + encoder.encode(JSON.stringify(unit.name)).length + 2;
    if (entry > room)
      throw new Error(
        `${describeUnit(unit.name)} is ${(sizeOf(unit) / 2 ** 20).toFixed(1)} MiB; the function takes at most ${(MAX_PUSH_BYTES / 2 ** 20).toFixed(0)} MiB per body (docs/operations.md, Snapshots in shards)`,
      );
    if (size > 0 && (size + entry > limit || batches.at(-1)!.length >= MAX_PUSH_UNITS)) {
      batches.push([]);
      size = 0;
    }
    batches.at(-1)!.push(unit);
    size += entry;
  }
  return batches;
}

/** The body of one batch as `generation`, the last one with `commit`. The units' stored bytes go in as they are, so what is signed is what is stored. */
export function pushBody(generation: number, batch: ReadonlyArray<Pick<EncodedUnit, "name" | "bytes">>, commit: PushCommit | undefined): string {
  const [head, tail] = envelope(generation, commit);
  return `${head}${batch.map((unit) => `${JSON.stringify(unit.name)}:${decoder.decode(unit.bytes)}`).join(",")}${tail}`;
}

/** Every body that pushes `units` as `generation` (see pushBatches), at once. */
export function pushBodies(generation: number, units: readonly EncodedUnit[], commit: PushCommit): string[] {
  const batches = pushBatches(units, commit, (unit) => unit.bytes.length);
  return batches.map((batch, index) => pushBody(generation, batch, index === batches.length - 1 ? commit : undefined));
}
