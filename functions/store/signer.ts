// Whose pushes count: a stored generation records the key that signed it
// (functions/store/index.ts), and counts while the cluster's registration
// lists that key. Its own module, below the store and its cache, which both ask.
/**
 * Whether a stored generation counts for a registration that lists the
 * `current` keys now: signed by one of them. A head stored before signers
 * were recorded (before 0.1.0) counts for the keys registered when this
 * release first reads it, which adopt it (SnapshotStore.adoptUnsigned): an
 * upgrade never disowns it.
 */
export function signedByCurrent(meta: { signedBy?: string | undefined }, current: readonly string[]): boolean {
  return meta.signedBy === undefined || current.includes(meta.signedBy);
}
