// Synthetic clusters as snapshots: built from Kubernetes objects by the real
// buildSnapshot (bench/cluster.ts makes the objects), checked by the push
// route's schema. The fleet section (bench/fleet.ts) measures what an
// isolate does with them in shards.
import { buildSnapshot } from "../shared/snapshot/builder/index.js";
import { decodeSnapshot, SnapshotView, type Snapshot } from "../shared/snapshot/index.js";
import { clusterObjects, clusterShape, type ClusterShape } from "./cluster.js";

export interface BuiltSnapshot {
  shape: ClusterShape;
  objects: number;
  /** What `snapshot build` writes (empty past 100,000 applications: the fleet section does not need it, and the text would be hundreds of MB). */
  json: string;
  /** The schema's output: what the sync job splits and pushes. */
  snapshot: Snapshot;
}

/** Applications built per buildSnapshot call: the objects of a million applications do not fit in memory at once. */
const BATCH = 50_000;

export function buildClusterSnapshot(applications: number): BuiltSnapshot {
  const shape = clusterShape(applications);
  let built: Snapshot | undefined;
  let objects = 0;
  for (let from = 0; from < applications; from += BATCH) {
    const batch = clusterObjects(shape, { applications: [from, Math.min(applications, from + BATCH)] });
    objects += from === 0 ? batch.length : batch.length - (1 + shape.affinityClasses + shape.tenants);
    const { snapshot, problems } = buildSnapshot(batch, { generation: Date.now(), builtAt: new Date().toISOString() });
    if (problems.length > 0) throw new Error(`benchmark cluster of ${applications} applications has problems: ${problems.slice(0, 3).join("; ")}`);
    if (!built) built = snapshot;
    else {
      Object.assign(built.applications, snapshot.applications);
      Object.assign(built.volumeClaims, snapshot.volumeClaims);
    }
  }
  if (Object.keys(built!.applications).length !== applications) throw new Error(`snapshot holds ${Object.keys(built!.applications).length} applications, expected ${applications}`);
  // The schema pass as the CLI would run it, where the text is of a size to hold; past that, encodeSnapshot runs the schema per unit.
  const json = applications <= 100_000 ? JSON.stringify(built) : "";
  const validated = json ? decodeSnapshot(json) : { ok: true as const, snapshot: built! };
  if (!validated.ok) throw new Error(validated.error);
  return { shape, objects, json, snapshot: validated.snapshot };
}

/** The whole snapshot as one view, as check, test and the audit read it. */
export function viewOf(built: BuiltSnapshot): SnapshotView {
  return new SnapshotView(built.snapshot);
}
