// rwo-rollout (incident B): a Deployment on a single-node PVC whose
// RollingUpdate starts the new pod before the old one stops. The scheduler
// does not steer the surge pod to the node that holds the volume, so it
// fails with Multi-Attach (ReadWriteOncePod: it never starts) and the rollout hangs.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { isWorkloadWrite, userWorkload, workloadRef } from "../../shared/k8s/controller/index.js";
import { coLocatingTerms } from "../../shared/k8s/podaffinity/index.js";
import { deploymentRollout } from "../../shared/k8s/rollout/index.js";
import { sharedClaimNames } from "../../shared/k8s/volumes/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import type { SnapshotView } from "../../shared/snapshot/view.js";

export const id = "rwo-rollout";

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const workload = userWorkload(request);
  if (workload?.kind !== "Deployment") return [];
  const namespace = request.namespace || workload.metadata.namespace;
  if (!namespace) return [];
  const rollout = deploymentRollout(workload.spec);
  if (rollout.type !== "RollingUpdate" || rollout.surge === 0) return [];
  // Pods held on one node by a required podAffinity on their own labels, or a
  // PV pinned to one node, share a ReadWriteOnce volume there without harm.
  const coLocated = coLocatingTerms(workload.podSpec, workload.podMetadata.labels ?? {}, namespace).length > 0;
  const ref = workloadRef(workload.kind, workload.metadata);
  return sharedClaimNames(workload).flatMap((claimName): Finding[] => {
    const claim = view.volumeClaim(namespace, claimName);
    if (!claim) return [];
    if (claim.accessModes.includes("ReadWriteOncePod"))
      return [{ message: `${ref}: surge pod + RWOP PVC ${claimName}: rollout hangs; use Recreate or maxSurge 0`, field: "spec.strategy" }];
    if (claim.pinnedToNode || coLocated) return [];
    return [{ message: `${ref}: surge pod + RWO PVC ${claimName}: Multi-Attach; use Recreate or maxSurge 0`, field: "spec.strategy" }];
  });
}

export const rwoRolloutPolicy: Policy = {
  id,
  description: "A Deployment on a ReadWriteOnce PVC rolls out with Recreate or maxSurge 0, not two pods at once",
  defaultMode: "Warn",
  matches: (request) => request.kind.kind === "Deployment" && isWorkloadWrite(request),
  evaluate,
};
