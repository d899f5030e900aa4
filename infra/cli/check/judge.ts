// Judging for `edgeadmit check` and `edgeadmit test`: every object by every
// built-in policy and the snapshot's own ValidatingAdmissionPolicies, each
// verdict kept without its object.
import { changesByFunction, clusterObjectsOf } from "../../../shared/apiserver/index.js";
import { judgeObjects, type JudgedObject } from "../../../shared/judge/index.js";
import type { Snapshot } from "../../../shared/snapshot/index.js";
import type { KubeObject } from "../../../shared/snapshot/builder/index.js";
import { POLICIES } from "../../../policies/index.js";
import type { NamespaceDefaults } from "../../objects/namespaces.js";
import type { Source } from "../../objects/yaml.js";
import type { CheckedObject, CheckReport } from "../output/index.js";
import type { PendingObjects } from "./pending.js";
import { count, type Progress } from "./progress.js";

/** A verdict without its object: what a report of many objects keeps; what was defaulted only when the report shows it (`-o json`). */
function checkedOf(judged: JudgedObject, source: Source | undefined, keepDefaulted: boolean, scope?: string): CheckedObject {
  return {
    ref: judged.ref,
    source,
    ...(scope !== undefined ? { scope } : {}),
    results: judged.results,
    skipped: judged.skipped,
    ...(keepDefaulted && judged.defaulted && judged.defaulted.length > 0 ? { defaulted: changesByFunction(judged.defaulted) } : {}),
    ...(judged.error !== undefined ? { error: judged.error } : {}),
  };
}

/**
 * Every object judged by every built-in policy and the snapshot's own
 * ValidatingAdmissionPolicies, as one cluster, each with where it was read;
 * as the apiserver would hand it to validation, with the cluster objects
 * among `cluster`, unless `defaults` is false.
 */
export function checkObjects(objects: readonly KubeObject[], snapshot: Snapshot, sourceOf: (object: KubeObject) => Source | undefined, { cluster = objects, defaults = true }: { cluster?: readonly KubeObject[]; defaults?: boolean } = {}): CheckReport {
  const judged = judgeObjects(objects, snapshot, { policies: POLICIES, ...(defaults ? { apiserver: { cluster: clusterObjectsOf(cluster) } } : {}) });
  return { objects: judged.map((one) => checkedOf(one, sourceOf(one.object), true)), policies: POLICIES, errors: [], skipped: [], scopes: 1 };
}

/** Every pending resource judged by its scope's judge, in input order, its text dropped once its verdict is kept; the scope is named when there are several. */
export function judgePending(
  pending: PendingObjects,
  judges: ReadonlyMap<string, (object: KubeObject) => JudgedObject>,
  defaults: NamespaceDefaults,
  progress: Progress,
  keepDefaulted: boolean,
): CheckedObject[] {
  const checked: CheckedObject[] = [];
  const separate = judges.size > 1;
  const total = pending.count;
  for (const { object, source, scope } of pending.drain()) {
    defaults.apply(object);
    checked.push(checkedOf(judges.get(scope)!(object), source, keepDefaulted, separate ? scope : undefined));
    progress.tick(() => `judged ${checked.length.toLocaleString("en")} of ${count(total, "object")}`);
  }
  return checked;
}
