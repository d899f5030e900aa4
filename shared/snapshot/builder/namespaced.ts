// The facts of the kinds whose objects grow with the cluster: HelmReleases
// (applications), PersistentVolumeClaims and the workloads mounting them
// (volumeClaims). Every one of them is keyed `namespace/name` and reads
// nothing of another namespace but which PersistentVolumes are pinned to one
// node, so the builder holds them apart from the rest: the whole snapshot
// keeps one NamespacedFacts for every namespace, and the sync job
// (shared/snapshot/stream) one per namespace, settled and dropped as soon as
// every list has gone past that namespace.
import * as z from "zod/mini";
import { InvalidObjectError, isWorkloadKind, workloadOf, type Workload, type WorkloadKind } from "../../k8s/workload/index.js";
import { madeByWorkloadController, WORKLOAD_API_GROUPS } from "../../k8s/controller/index.js";
import { sharedClaimNames } from "../../k8s/volumes/index.js";
import type { Application, VolumeClaim, VolumeUser } from "../schema.js";
import { AFFINITY_CLASS_LABEL, lineageOf, type Lineage } from "../view.js";
import { compare, decode, describeKubeObject, named, type KubeObject } from "./object.js";

const pvcObject = z.looseObject({
  metadata: z.looseObject({ name: z.string(), namespace: z.string() }),
  spec: z.looseObject({
    accessModes: z.optional(z.nullable(z.array(z.string()))),
    volumeName: z.optional(z.nullable(z.string())),
  }),
});

const RWO_MODES = new Set(["ReadWriteOnce", "ReadWriteOncePod"]);
/** With one of these the attach/detach controller lets the volume attach to many nodes (isMultiAttachAllowed). */
const MULTI_NODE_MODES = new Set(["ReadWriteMany", "ReadOnlyMany"]);

/**
 * An application as one literal of its final shape: V8 keeps such an
 * object's fields inside it, where one grown field by field takes about
 * three times the memory (100,000 HelmReleases: 35 MB against 12).
 */
function applicationOf(lineage: Lineage | undefined, affinityClass: string | undefined): Application {
  if (lineage) return affinityClass ? { group: lineage.group, kind: lineage.kind, name: lineage.name, affinityClass } : { group: lineage.group, kind: lineage.kind, name: lineage.name };
  return affinityClass ? { affinityClass } : {};
}

/** Whether NamespacedFacts reads the objects of `group` and `kind`: HelmReleases, PersistentVolumeClaims and the workload kinds. */
export function readsNamespaced(group: string, kind: string): boolean {
  return (group === "helm.toolkit.fluxcd.io" && kind === "HelmRelease") || (group === "" && kind === "PersistentVolumeClaim") || (isWorkloadKind(kind) && group === WORKLOAD_API_GROUPS[kind]);
}

/** The applications and ReadWriteOnce claims of the objects read, settled once every volume and workload is in. */
export class NamespacedFacts {
  readonly #applications: Record<string, Application> = {};
  /** Claims that attach to one node only, by `namespace/name`, and the volumes they are bound to. */
  readonly #volumeClaims: Record<string, VolumeClaim> = {};
  readonly #volumeNames = new Map<string, string>();
  readonly #usersByClaim = new Map<string, VolumeUser[]>();
  /** One copy of each label value and access mode list: they repeat across thousands of objects, and each parsed object brings its own. */
  readonly #strings = new Map<string, string>();
  readonly #lists = new Map<string, string[]>();

  #shared(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    this.#strings.set(value, value);
    return value;
  }

  #sharedList(values: string[]): string[] {
    const key = values.join("\u0000");
    const known = this.#lists.get(key);
    if (known !== undefined) return known;
    this.#lists.set(key, values);
    return values;
  }

  /** Takes the facts of an object of `group` and `kind` (what is wrong with it goes to `problems`); false when it is not of a kind read here. */
  add(group: string, kind: string, object: KubeObject, problems: string[]): boolean {
    if (!readsNamespaced(group, kind)) return false;
    if (kind === "HelmRelease") this.#addHelmRelease(object, problems);
    else if (kind === "PersistentVolumeClaim") this.#addClaim(object, problems);
    else this.#addWorkload(kind as WorkloadKind, object, problems);
    return true;
  }

  /** A HelmRelease: its application, by the affinity-class and lineage labels. */
  #addHelmRelease(object: KubeObject, problems: string[]): void {
    const hr = decode(named, object, problems);
    if (!hr?.metadata.namespace) return;
    const labels = hr.metadata.labels ?? {};
    const lineage = lineageOf(labels);
    const affinityClass = labels[AFFINITY_CLASS_LABEL] ? this.#shared(labels[AFFINITY_CLASS_LABEL]) : undefined;
    this.#applications[`${hr.metadata.namespace}/${hr.metadata.name}`] = applicationOf(lineage && { group: this.#shared(lineage.group), kind: this.#shared(lineage.kind), name: lineage.name }, affinityClass);
  }

  /** A PersistentVolumeClaim that attaches to one node only; any other is no fact. */
  #addClaim(object: KubeObject, problems: string[]): void {
    const pvc = decode(pvcObject, object, problems);
    const accessModes = pvc?.spec.accessModes ?? [];
    if (!pvc || !accessModes.some((mode) => RWO_MODES.has(mode)) || accessModes.some((mode) => MULTI_NODE_MODES.has(mode))) return;
    const key = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
    // pinnedToNode and mountedBy are settled in settle(), once every volume and workload is in.
    this.#volumeClaims[key] = { accessModes: this.#sharedList(accessModes), pinnedToNode: false };
    if (pvc.spec.volumeName) this.#volumeNames.set(key, pvc.spec.volumeName);
    else this.#volumeNames.delete(key);
  }

  /**
   * Records which claims a workload's pods share, under `namespace/claim`.
   * Objects a workload controller made count as their owner, so a Deployment's
   * ReplicaSets and Pods do not count it twice.
   */
  #addWorkload(kind: WorkloadKind, object: KubeObject, problems: string[]): void {
    let workload: Workload;
    try {
      workload = workloadOf(kind, object);
    } catch (e) {
      if (!(e instanceof InvalidObjectError)) throw e;
      problems.push(`${describeKubeObject(object)}: ${e.message.replace(/^request\.object is not a valid \w+: /, "")}`);
      return;
    }
    const { name, namespace } = workload.metadata;
    if (!name || !namespace || madeByWorkloadController(workload.metadata)) return;
    const podLabels = workload.podMetadata.labels ?? undefined;
    for (const claim of sharedClaimNames(workload)) {
      const key = `${namespace}/${claim}`;
      const users = this.#usersByClaim.get(key) ?? [];
      users.push(podLabels && Object.keys(podLabels).length > 0 ? { kind, name, podLabels } : { kind, name });
      this.#usersByClaim.set(key, users);
    }
  }

  /** The applications and the claims, each claim pinned when its volume is among `pinned` and with the workloads mounting it, sorted by kind and name. */
  settle(pinned: ReadonlySet<string>): { applications: Record<string, Application>; volumeClaims: Record<string, VolumeClaim> } {
    const volumeClaims = this.#volumeClaims;
    for (const [key, claim] of Object.entries(volumeClaims)) {
      const volumeName = this.#volumeNames.get(key);
      claim.pinnedToNode = volumeName !== undefined && pinned.has(volumeName);
      const users = this.#usersByClaim.get(key);
      if (users) claim.mountedBy = [...users].sort((a, b) => (a.kind === b.kind ? compare(a.name, b.name) : compare(a.kind, b.kind)));
    }
    return { applications: this.#applications, volumeClaims };
  }
}
