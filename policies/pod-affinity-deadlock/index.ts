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
  hasNodeSelector,
  namesOneApplication,
  requiredTerms,
  selectsEveryPod,
  selectsOwnPods,
} from "../../shared/k8s/podaffinity/index.js";
import type { PodAffinityTerm } from "../../shared/k8s/schemas/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import { listed, MAX_LISTED } from "../../shared/text/index.js";

export const id = "pod-affinity-deadlock";

/** What is wrong with one term: its message is built only for the few problems reported. */
type Problem = "no selector" | "every pod" | "shared label" | "first pod";

function evaluate(request: AdmissionRequest): Finding[] {
  const workload = userWorkload(request);
  if (!workload) return [];
  const terms = requiredTerms(workload.podSpec.affinity?.podAffinity);
  if (terms.length === 0) return [];
  const { podSpec } = workload;
  const namespace = request.namespace || workload.metadata.namespace;
  const labels = workload.podMetadata.labels ?? {};
  const ref = workloadRef(workload.kind, workload.metadata);
  const nodePin = hasNodeConstraint(podSpec) ? (hasNodeSelector(podSpec) ? "nodeSelector" : "node affinity") : undefined;

  // One pass over the terms; only the first MAX_LISTED problems are kept, the rest counted.
  const reported: Array<{ index: number; problem: Problem }> = [];
  let problems = 0;
  const report = (index: number, problem: Problem) => {
    if (problems++ < MAX_LISTED) reported.push({ index, problem });
  };
  // The exception needs the pod to match every term: a term on its own
  // application's pods beside one on other pods leaves the first replica
  // waiting for a pod of its own application, which cannot come before it.
  let self = -1;
  let other = -1;
  for (let index = 0; index < terms.length; index++) {
    const term = terms[index]!;
    const own = term.labelSelector ? selectsOwnPods(term, labels, namespace) : false;
    const oneApplication = own === true && namesOneApplication(term);
    if (self < 0 && oneApplication) self = index;
    if (other < 0 && own === false && term.labelSelector) other = index;
    // A null selector matches no pod, so not even the first-pod exception applies.
    if (!term.labelSelector) report(index, "no selector");
    else if (selectsEveryPod(term)) report(index, "every pod");
    // Incident A: the pod carries a label other applications share. Once one of
    // their pods runs, the exception is gone, and a node tier without such a
    // pod never gets the first replica.
    else if (own === true && nodePin && !oneApplication) report(index, "shared label");
  }
  if (self >= 0 && other >= 0) report(self, "first pod");

  const message = (index: number, problem: Problem): string => {
    const term = terms[index]!;
    switch (problem) {
      case "no selector":
        return `${ref}: required podAffinity without labelSelector matches no pod: never schedules; add one`;
      case "every pod":
        return `${ref}: required podAffinity labelSelector {} matches every pod; select the pods to join`;
      case "shared label":
        return `${ref}: required podAffinity on shared ${listed(selectorKeys(term.labelSelector!))} + ${nodePin}: deadlock; select the app`;
      case "first pod":
        return `${ref}: required podAffinity ${selector(term)} (own pods) + ${selector(terms[other]!)}: 1st pod never schedules; drop one`;
    }
  };
  const field = `${workload.podSpecPath}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution`;
  const findings: Finding[] = reported.map(({ index, problem }) => ({ message: message(index, problem), field: `${field}[${index}].labelSelector` }));
  if (problems > MAX_LISTED) findings.push({ message: `${ref}: and ${problems - MAX_LISTED} more required podAffinity terms like these`, field });
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
