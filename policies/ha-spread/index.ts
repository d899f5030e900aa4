// ha-spread: a replicated Deployment or StatefulSet that nothing keeps off a
// single node, so one node failure takes every replica.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { podsAtOnce, userWorkload, workloadRef, isWorkloadWrite } from "../../shared/k8s/controller/index.js";
import { selectorMatches } from "../../shared/k8s/labels/index.js";
import { allTerms, coLocatingTerms, selectsOwnPods } from "../../shared/k8s/podaffinity/index.js";
import { sharedClaimNames } from "../../shared/k8s/volumes/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import type { SnapshotView } from "../../shared/snapshot/view.js";

export const id = "ha-spread";

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const workload = userWorkload(request);
  if (workload?.kind !== "Deployment" && workload?.kind !== "StatefulSet") return [];
  const replicas = podsAtOnce(workload);
  if (replicas < 2) return [];
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const { podSpec } = workload;
  // An anti-affinity term whose scope cannot be decided counts as spreading: no false alarm.
  if (allTerms(podSpec.affinity?.podAntiAffinity).some(({ term }) => selectsOwnPods(term, labels, namespace) !== false)) return [];
  // A constraint counts pods its selector matches (matchLabelKeys only narrow it to the pod's own values).
  if ((podSpec.topologySpreadConstraints ?? []).some((constraint) => constraint.labelSelector && selectorMatches(constraint.labelSelector, labels))) return [];
  // Pods kept on one node on purpose, or on a single-node volume (rwo-shared's
  // concern), must not be told to spread.
  if (coLocatingTerms(podSpec, labels, namespace).length > 0) return [];
  if (namespace && sharedClaimNames(workload).some((claim) => view.volumeClaim(namespace, claim))) return [];
  const ref = workloadRef(workload.kind, workload.metadata);
  return [{ message: `${ref}: ${replicas} replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels`, field: workload.podSpecPath }];
}

export const haSpreadPolicy: Policy = {
  id,
  description: "Replicated Deployments and StatefulSets spread their pods across nodes",
  defaultMode: "Audit",
  matches: (request) => (request.kind.kind === "Deployment" || request.kind.kind === "StatefulSet") && isWorkloadWrite(request),
  evaluate,
};
