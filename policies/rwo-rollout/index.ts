// rwo-rollout (incident B): a Deployment on a single-node PVC whose
// RollingUpdate starts a new pod while the old one still holds the volume.
// The scheduler does not steer the new pod to the node the volume is attached
// to, so it fails with Multi-Attach (ReadWriteOncePod: VolumeRestrictions
// never schedules it), never becomes ready, and the old pod, kept until it
// does, never goes: the rollout hangs.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { isWorkloadWrite, userWorkload, workloadRef } from "../../shared/k8s/controller/index.js";
import { HOSTNAME_TOPOLOGY_KEY, matchLabelKeysOf, mismatchLabelKeysOf, requiredTerms, selectsOwnPods, selectsPeerPods } from "../../shared/k8s/podaffinity/index.js";
import { deploymentRollout } from "../../shared/k8s/rollout/index.js";
import type { PodAffinityTerm } from "../../shared/k8s/schemas/index.js";
import { sharedClaimNames } from "../../shared/k8s/volumes/index.js";
import type { Workload } from "../../shared/k8s/workload/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import type { VolumeClaim } from "../../shared/snapshot/schema.js";
import type { SnapshotView } from "../../shared/snapshot/view.js";
import { capped } from "../../shared/text/index.js";

export const id = "rwo-rollout";

/** Labels whose value changes with every revision: a term keyed on them never holds a new pod beside an old one. */
const REVISION_KEYS = new Set(["pod-template-hash", "controller-revision-hash"]);
const perRevision = (term: PodAffinityTerm) => [...matchLabelKeysOf(term), ...mismatchLabelKeysOf(term)].some((key) => REVISION_KEYS.has(key));

/**
 * A required podAffinity on the node puts every new pod beside an old one, or
 * beside another user of the claim, so on the node that holds the volume
 * (given that the users are co-located, which rwo-shared judges).
 */
function heldOnTheVolumesNode(workload: Workload, claim: VolumeClaim, namespace: string): boolean {
  const own = workload.podMetadata.labels ?? {};
  const peers = (claim.mountedBy ?? []).filter((user) => user.kind !== workload.kind || user.name !== workload.metadata.name);
  return requiredTerms(workload.podSpec.affinity?.podAffinity).some(
    (term) =>
      term.topologyKey === HOSTNAME_TOPOLOGY_KEY &&
      ((selectsOwnPods(term, own, namespace) === true && !perRevision(term)) || peers.some((peer) => selectsPeerPods(term, own, peer.podLabels ?? {}, namespace))),
  );
}

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const workload = userWorkload(request);
  if (workload?.kind !== "Deployment") return [];
  const namespace = request.namespace || workload.metadata.namespace;
  if (!namespace) return [];
  const rollout = deploymentRollout(workload.spec);
  // Several replicas on one single-node claim are rwo-shared's concern, rollout or not. With
  // maxUnavailable 1 (or maxSurge 0, which implies it) the old pod goes as the new one comes.
  if (rollout.type !== "RollingUpdate" || rollout.replicas !== 1 || rollout.unavailable > 0) return [];
  const ref = workloadRef(workload.kind, workload.metadata);
  return sharedClaimNames(workload).flatMap((claimName): Finding[] => {
    const claim = view.volumeClaim(namespace, claimName);
    if (!claim) return [];
    if (claim.accessModes.includes("ReadWriteOncePod"))
      return [{ message: `${ref}: surge pod + RWOP PVC ${capped(claimName)}: rollout hangs; use Recreate or maxSurge 0`, field: "spec.strategy" }];
    if (claim.pinnedToNode || heldOnTheVolumesNode(workload, claim, namespace)) return [];
    return [{ message: `${ref}: surge pod + RWO PVC ${capped(claimName)}: Multi-Attach; use Recreate or maxSurge 0`, field: "spec.strategy" }];
  });
}

export const rwoRolloutPolicy: Policy = {
  id,
  description: "A Deployment on a ReadWriteOnce PVC rolls out with Recreate or maxSurge 0, not two pods at once",
  defaultMode: "Warn",
  matches: (request) => request.kind.kind === "Deployment" && isWorkloadWrite(request),
  evaluate,
};
