// ha-spread: a replicated Deployment or StatefulSet that asks the scheduler for
// no spreading of its own, so a node failure may take every replica. The
// default scheduler profile does spread a ReplicaSet's or a StatefulSet's pods
// softly (PodTopologySpread's system defaults: maxSkew 3 per node and 5 per
// zone, ScheduleAnyway), which yields to resource scores and full nodes: hence
// an audit, not a warning. Replicas that cannot share a node at all (host
// ports, a request too big for two) and pods kept on one node on purpose are
// left alone.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { podsAtOnce, userWorkload, workloadRef, isWorkloadWrite } from "../../shared/k8s/controller/index.js";
import { holdsHostPort } from "../../shared/k8s/hostports/index.js";
import { selectorMatches } from "../../shared/k8s/labels/index.js";
import { HOSTNAME_TOPOLOGY_KEY, allTerms, coLocatingTerms, selectsOwnPods } from "../../shared/k8s/podaffinity/index.js";
import { podRequests } from "../../shared/k8s/resources/index.js";
import { requiredTermsOf } from "../../shared/k8s/nodeaffinity/index.js";
import type { PodSpec } from "../../shared/k8s/schemas/index.js";
import { sharedClaimNames } from "../../shared/k8s/volumes/index.js";
import type { Workload } from "../../shared/k8s/workload/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import type { SnapshotView } from "../../shared/snapshot/view.js";

export const id = "ha-spread";

/** Devices and other resources named `<domain>/<name>` outside kubernetes.io: few per node (IsExtendedResourceName). */
const isExtendedResource = (resource: string) => resource.includes("/") && !resource.startsWith("kubernetes.io/") && !resource.startsWith("requests.");

/**
 * Some resource the pod asks for more than half of what the biggest node can
 * give (NodeResourcesFit): two replicas never fit one node. Without node facts
 * in the snapshot, a request for a device (`nvidia.com/gpu`) counts as one:
 * devices come a few per node, and an audit must not guess against them.
 */
function tooBigToShare(workload: Workload, view: SnapshotView): boolean {
  for (const [resource, request] of podRequests(workload)) {
    if (request.sign <= 0) continue;
    if (!view.knowsNodeCapacity()) {
      if (isExtendedResource(resource)) return true;
      continue;
    }
    // No node has the resource at all: the pod never schedules, let alone beside a twin.
    const largest = view.largestAllocatable(resource);
    if (!largest || request.add(request).compareTo(largest) > 0) return true;
  }
  return false;
}

/** The pod may run on one node only: a nodeName, or a nodeSelector or every required term naming one host. */
function pinnedToOneNode(podSpec: PodSpec): boolean {
  if (typeof podSpec["nodeName"] === "string" && podSpec["nodeName"] !== "") return true;
  if (podSpec.nodeSelector?.[HOSTNAME_TOPOLOGY_KEY] !== undefined) return true;
  const hosts = new Set<string>();
  for (const term of requiredTermsOf(podSpec.affinity?.nodeAffinity) ?? []) {
    const pin = [...(term.matchExpressions ?? []), ...(term.matchFields ?? [])].find(
      (r) => (r.key === HOSTNAME_TOPOLOGY_KEY || r.key === "metadata.name") && r.operator === "In" && r.values?.length === 1,
    );
    if (!pin) return false;
    hosts.add(pin.values![0]!);
  }
  return hosts.size === 1;
}

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const workload = userWorkload(request);
  if (workload?.kind !== "Deployment" && workload?.kind !== "StatefulSet") return [];
  const replicas = podsAtOnce(workload);
  if (replicas < 2) return [];
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const { podSpec } = workload;
  // An anti-affinity term whose scope cannot be decided counts as spreading: no false alarm.
  if (allTerms(podSpec.affinity?.podAntiAffinity).some((term) => selectsOwnPods(term, labels, namespace) !== false)) return [];
  // A constraint counts pods its selector matches (matchLabelKeys only narrow it to the pod's own values).
  if ((podSpec.topologySpreadConstraints ?? []).some((constraint) => constraint.labelSelector && selectorMatches(constraint.labelSelector, labels))) return [];
  // Replicas that cannot share a node are spread already: NodePorts, NodeResourcesFit.
  if (holdsHostPort(podSpec) || tooBigToShare(workload, view)) return [];
  // Pods kept on one node on purpose, or on a single-node volume (rwo-shared's
  // concern), must not be told to spread.
  if (pinnedToOneNode(podSpec) || coLocatingTerms(podSpec, labels, namespace).length > 0) return [];
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
