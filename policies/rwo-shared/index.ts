// rwo-shared (incident A, after the fix): several workloads, or several pods
// of one, mount the same ReadWriteOnce PVC. ReadWriteOnce attaches the volume
// to one node but does not make the scheduler put the pods there unless the
// PV has node affinity (kubernetes/kubernetes#26567): expect Multi-Attach.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { isWorkloadWrite, podsAtOnce, userWorkload, workloadRef } from "../../shared/k8s/controller/index.js";
import type { Labels } from "../../shared/k8s/labels/index.js";
import { HOSTNAME_TOPOLOGY_KEY, requiredTerms, selectsOwnPods, selectsPeerPods } from "../../shared/k8s/podaffinity/index.js";
import { sharedClaimNames } from "../../shared/k8s/volumes/index.js";
import type { Workload } from "../../shared/k8s/workload/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import type { VolumeUser } from "../../shared/snapshot/schema.js";
import type { SnapshotView } from "../../shared/snapshot/view.js";
import { capped } from "../../shared/text/index.js";

export const id = "rwo-shared";

/**
 * The workload's pods go to one node together with every other user of the
 * claim: a required podAffinity term on kubernetes.io/hostname that selects
 * its own pods (when it runs several) and each other user's pods. Each user is
 * judged on its own admission, so a group that all pass this shares one node.
 */
function coLocated(workload: Workload, pods: number, others: readonly VolumeUser[], namespace: string): boolean {
  const own: Labels = workload.podMetadata.labels ?? {};
  return requiredTerms(workload.podSpec.affinity?.podAffinity).some(
    (term) =>
      term.topologyKey === HOSTNAME_TOPOLOGY_KEY &&
      (pods <= 1 || selectsOwnPods(term, own, namespace) === true) &&
      others.every((other) => selectsPeerPods(term, own, other.podLabels ?? {}, namespace)),
  );
}

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const workload = userWorkload(request);
  const namespace = request.namespace || workload?.metadata.namespace;
  if (!workload || !namespace) return [];
  const pods = podsAtOnce(workload);
  // Scaled to zero, or a Job with nothing left to run: no pod to meet another.
  if (pods === 0) return [];
  const ref = workloadRef(workload.kind, workload.metadata);
  const field = `${workload.podSpecPath}.volumes`;
  return sharedClaimNames(workload).flatMap((name): Finding[] => {
    const claim = view.volumeClaim(namespace, name);
    const claimName = capped(name);
    if (!claim) return [];
    const others = (claim.mountedBy ?? []).filter((user) => user.kind !== workload.kind || user.name !== workload.metadata.name);
    if (others.length === 0 && pods <= 1) return [];
    const who = others.length > 0 ? `${others.length + 1} users` : workload.kind === "DaemonSet" ? "a pod per node" : `${pods} pods`;
    if (claim.accessModes.includes("ReadWriteOncePod"))
      return [{ message: `${ref}: RWOP PVC ${claimName} admits one pod but has ${who}; run one pod or use RWX`, field }];
    if (claim.pinnedToNode) return [];
    if (workload.kind === "DaemonSet") return [{ message: `${ref}: a pod per node on RWO PVC ${claimName}: Multi-Attach; use RWX`, field }];
    if (coLocated(workload, pods, others, namespace)) return [];
    const message =
      others.length > 0
        ? `${ref}: RWO PVC ${claimName} has ${who}: Multi-Attach; co-locate or use RWX`
        : `${ref}: ${who} on RWO PVC ${claimName}: Multi-Attach; co-locate or use RWX`;
    return [{ message, field }];
  });
}

export const rwoSharedPolicy: Policy = {
  id,
  description: "Pods on different nodes do not share a ReadWriteOnce PVC unless something puts them on one node",
  defaultMode: "Warn",
  matches: isWorkloadWrite,
  evaluate,
};
