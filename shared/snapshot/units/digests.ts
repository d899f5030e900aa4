// The digests a sync compares: units grouped into buckets by name, a digest
// per bucket, and the snapshot's root digest over the buckets.
import { fnv1a, sha256HexSync } from "../../digest/index.js";

/**
 * Units are grouped into this many buckets by their name, so a sync compares
 * 1,024 bucket digests first and lists the units of the buckets that differ,
 * never every unit of a large cluster.
 */
export const BUCKETS = 1024;

/** The bucket of a unit name: the same on both sides. */
export function bucketOf(name: string): number {
  return fnv1a(name) % BUCKETS;
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A bucket's digest (synchronous: the Durable Object computes it inside a transaction): SHA-256 over its units' `name\tsha256\n` lines, by name. */
export function bucketDigest(units: ReadonlyArray<{ name: string; sha256: string }>): string {
  return sha256HexSync([...units].sort(byName).map((unit) => `${JSON.stringify(unit.name)}\t${unit.sha256}\n`).join(""));
}

/** Digest per non-empty bucket. */
export function bucketDigests(units: Iterable<{ name: string; sha256: string }>): Map<number, string> {
  const grouped = new Map<number, Array<{ name: string; sha256: string }>>();
  for (const unit of units) {
    const bucket = bucketOf(unit.name);
    const list = grouped.get(bucket) ?? [];
    list.push(unit);
    grouped.set(bucket, list);
  }
  const digests = new Map<number, string>();
  for (const [bucket, list] of grouped) digests.set(bucket, bucketDigest(list));
  return digests;
}

/** The digest of a whole snapshot: SHA-256 over `bucket\tdigest\n` of its non-empty buckets in order. What `sync` compares as the content hash. */
export function rootDigest(buckets: ReadonlyMap<number, string>): string {
  return sha256HexSync(
    [...buckets]
      .sort(([a], [b]) => a - b)
      .map(([bucket, digest]) => `${bucket}\t${digest}\n`)
      .join(""),
  );
}
