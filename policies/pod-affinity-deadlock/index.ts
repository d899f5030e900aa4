// pod-affinity-deadlock (incident A): required podAffinity the workload's
// first pod can never satisfy. The scheduler's InterPodAffinity filter puts a
// pod only where, for every required term, a matching pod runs in the same
// topology domain. Its one exception (the "first pod"): when no pod matching
// any term exists anywhere in the terms' namespaces and the pod matches every
// term itself, it may go anywhere. Required affinity to another workload's
// pods is an ordering dependency (the pod waits until one runs), not a
// deadlock, and raises nothing.
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
import type { PodAffinityTerm } from "../../shared/k8s/schemas/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import { listed, MAX_LISTED } from "../../shared/text/index.js";

export const id = "pod-affinity-deadlock";

interface Problem {
  index: number;
  /** Built only for the few problems reported. */
  message: () => string;
}

function evaluate(request: AdmissionRequest): Finding[] {
  const workload = userWorkload(request);
  if (!workload) return [];
  const terms = requiredTerms(workload.podSpec.affinity?.podAffinity);
  if (terms.length === 0) return [];
  const { podSpec } = workload;
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const ref = workloadRef(workload.kind, workload.metadata);
  const nodePin = hasNodeConstraint(podSpec) ? (Object.keys(podSpec.nodeSelector ?? {}).length > 0 ? "nodeSelector" : "node affinity") : undefined;
  const own = terms.map((term) => (term.labelSelector ? selectsOwnPods(term, labels, namespace) : false));

  const problems: Problem[] = [];
  terms.forEach((term, index) => {
    // A null selector matches no pod, so not even the first-pod exception applies.
    if (!term.labelSelector) problems.push({ index, message: () => `${ref}: required podAffinity without labelSelector matches no pod: never schedules; add one` });
    else if (selectsEveryPod(term)) problems.push({ index, message: () => `${ref}: required podAffinity labelSelector {} matches every pod; select the pods to join` });
    // Incident A: the pod carries a label other applications share. Once one of
    // their pods runs, the exception is gone, and a node tier without such a
    // pod never gets the first replica.
    else if (own[index] === true && nodePin && !namesOneApplication(term))
      problems.push({ index, message: () => `${ref}: required podAffinity on shared ${listed(selectorKeys(term.labelSelector!))} + ${nodePin}: deadlock; select the app` });
  });
  // The exception needs the pod to match every term: a term on its own
  // application's pods beside one on other pods leaves the first replica
  // waiting for a pod of its own application, which cannot come before it.
  const self = terms.findIndex((term, i) => own[i] === true && namesOneApplication(term));
  const other = terms.findIndex((term, i) => own[i] === false && term.labelSelector);
  if (self >= 0 && other >= 0)
    problems.push({ index: self, message: () => `${ref}: required podAffinity ${selector(terms[self]!)} (own pods) + ${selector(terms[other]!)}: 1st pod never schedules; drop one` });

  const field = `${workload.podSpecPath}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution`;
  const findings: Finding[] = problems.slice(0, MAX_LISTED).map(({ index, message }) => ({ message: message(), field: `${field}[${index}].labelSelector` }));
  if (problems.length > MAX_LISTED) findings.push({ message: `${ref}: and ${problems.length - MAX_LISTED} more required podAffinity terms like these`, field });
  return findings;
}

/** A term's selector as kubectl prints it, short. */
const selector = (term: PodAffinityTerm) => describeSelector(term.labelSelector ?? {});

export const podAffinityDeadlockPolicy: Policy = {
  id,
  description: "Required podAffinity terms that the first pod of a workload can satisfy",
  defaultMode: "Warn",
  matches: isWorkloadWrite,
  evaluate,
};
