// SnapshotPush bodies for tests that write the protocol by hand: one unit per
// body, a commit on its own, a wrong digest, a base that is not stored.
import { encodeSnapshot, SNAPSHOT_API_VERSION, type PushCommit, type Snapshot } from "../../shared/snapshot/index.js";
import { fullPushBodies } from "./worker.js";

/** The one body that pushes every unit of a small snapshot. */
export async function pushBody(snapshot: Snapshot): Promise<string> {
  const bodies = await fullPushBodies(snapshot);
  if (bodies.length !== 1) throw new Error(`the snapshot takes ${bodies.length} bodies, not one`);
  return bodies[0]!;
}

/** The snapshot's units by name ("" the cluster part), as decoded values. */
export async function unitsOf(snapshot: Snapshot): Promise<Record<string, unknown>> {
  const { units } = await encodeSnapshot(snapshot);
  return Object.fromEntries(units.map((unit) => [unit.name, JSON.parse(new TextDecoder().decode(unit.bytes))]));
}

/** A SnapshotPush body; with `commit`, it commits (builtAt and removed default to now and none). */
export function putBody(generation: number, units: Record<string, unknown>, commit?: Partial<PushCommit> & Pick<PushCommit, "base" | "digest">): string {
  return JSON.stringify({
    apiVersion: SNAPSHOT_API_VERSION,
    kind: "SnapshotPush",
    generation,
    units,
    ...(commit ? { commit: { builtAt: new Date().toISOString(), removed: [], ...commit } } : {}),
  });
}
