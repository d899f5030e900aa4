// pod-affinity-deadlock (incident A): a required podAffinity term the first
// pod cannot satisfy. The scheduler lets a pod ignore its own required
// podAffinity only when no pod matching the term exists anywhere in the
// term's namespaces and the pod matches the term itself; otherwise it waits
// for a node that runs a matching pod, which may never come.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import { isWorkloadWrite, userWorkload, workloadRef } from "../../shared/k8s/controller/index.js";
import { selectorKeys } from "../../shared/k8s/labels/index.js";
import {
  describeSelector,
  hasNodeConstraint,
  namesOneApplication,
  requiredTerms,
  selectsEveryPod,
  selectsOwnPods,
} from "../../shared/k8s/podaffinity/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";

export const id = "pod-affinity-deadlock";

function evaluate(request: AdmissionRequest): Finding[] {
  const workload = userWorkload(request);
  if (!workload) return [];
  const { podSpec } = workload;
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const ref = workloadRef(workload.kind, workload.metadata);
  const nodePin = Object.keys(podSpec.nodeSelector ?? {}).length > 0 ? "nodeSelector" : "node affinity";
  const field = `${workload.podSpecPath}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution`;

  return requiredTerms(podSpec.affinity?.podAffinity).flatMap((term, index): Finding[] => {
    const at = { field: `${field}[${index}].labelSelector` };
    // (c) A null selector matches no pod, so not even the first-pod exception applies.
    if (!term.labelSelector) return [{ message: `${ref}: required podAffinity without labelSelector matches no pod: never schedules; add one`, ...at }];
    if (selectsEveryPod(term)) return [{ message: `${ref}: required podAffinity labelSelector {} matches every pod; select the pods to join`, ...at }];
    const own = selectsOwnPods(term, labels, namespace);
    // (a) Its own pods do not match: the first pod waits for some other pod to run.
    if (own === false)
      return [{ message: `${ref}: required podAffinity ${describeSelector(term.labelSelector)} matches none of its pods: 1st pod waits; fix selector`, ...at }];
    // (b) Once another application's pod carries the shared label, the
    // exception is gone: a node tier without such a pod never gets the first replica.
    if (!namesOneApplication(term) && hasNodeConstraint(podSpec))
      return [{ message: `${ref}: required podAffinity on shared ${[...new Set(selectorKeys(term.labelSelector))].join(",")} + ${nodePin}: deadlock; select the app`, ...at }];
    return [];
  });
}

export const podAffinityDeadlockPolicy: Policy = {
  id,
  description: "Required podAffinity terms that the first pod of a workload can satisfy",
  defaultMode: "Warn",
  matches: isWorkloadWrite,
  evaluate,
};
