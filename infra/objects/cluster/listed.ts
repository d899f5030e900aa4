// What the sync job lists, cluster-wide, and how the built-in kinds among it are read.
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import type { AdmissionregistrationV1Api, AppsV1Api, BatchV1Api, CoreV1Api, VersionApi } from "@kubernetes/client-node";
import type { PageRequest } from "./paging.js";
import type { ServedResource } from "./resource.js";

/** client-node's typed calls: see ListedResource.typed. */
export interface TypedApis {
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  admission: AdmissionregistrationV1Api;
  version: VersionApi;
}

export interface ListedResource extends ServedResource {
  /** Who installs the CRD, for the message when the API server does not serve it; absent for built-in kinds. */
  crdFrom?: string;
  /**
   * A built-in kind's typed list call, its answer turned back into wire
   * shape: how these kinds were always read, kept so the objects they yield
   * stay exactly what they were (a typed model re-dates timestamps, drops
   * fields it does not know and reads a malformed list as one of empty
   * items). Read raw, through WireApi, they would cost a copy less per page.
   */
  typed?: (apis: TypedApis, page: PageRequest) => Promise<unknown>;
}

/**
 * Everything the sync job lists, cluster-wide: every kind buildSnapshot
 * consumes except Pods. Pods are left out on purpose: they are the most
 * numerous objects and churn all day, and operator-made ones (KubeVirt's
 * virt-launcher, with a fresh name per VM start) would change the snapshot
 * without a change a policy cares about; a bare Pod is judged at its own
 * admission. infra/k8s/rbac.yaml grants get/list on exactly these (a test
 * holds the two together).
 */
export const LISTED_RESOURCES: readonly ListedResource[] = [
  { group: "cozystack.io", version: "v1alpha1", resource: "affinityclasses", kind: "AffinityClass", crdFrom: "kubectl apply -k infra/k8s installs it" },
  { group: "apps.cozystack.io", version: "v1alpha1", resource: "tenants", kind: "Tenant", crdFrom: "CozyStack installs it" },
  { group: "helm.toolkit.fluxcd.io", version: "v2", resource: "helmreleases", kind: "HelmRelease", crdFrom: "Flux's helm-controller installs it" },
  { group: "", version: "v1", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", typed: ({ core }, page) => core.listPersistentVolumeClaimForAllNamespaces(page) },
  { group: "", version: "v1", resource: "persistentvolumes", kind: "PersistentVolume", typed: ({ core }, page) => core.listPersistentVolume(page) },
  { group: "", version: "v1", resource: "nodes", kind: "Node", typed: ({ core }, page) => core.listNode(page) },
  { group: "", version: "v1", resource: "replicationcontrollers", kind: "ReplicationController", typed: ({ core }, page) => core.listReplicationControllerForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", typed: ({ apps }, page) => apps.listDeploymentForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet", typed: ({ apps }, page) => apps.listStatefulSetForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", typed: ({ apps }, page) => apps.listDaemonSetForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", typed: ({ apps }, page) => apps.listReplicaSetForAllNamespaces(page) },
  { group: "batch", version: "v1", resource: "jobs", kind: "Job", typed: ({ batch }, page) => batch.listJobForAllNamespaces(page) },
  { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob", typed: ({ batch }, page) => batch.listCronJobForAllNamespaces(page) },
  // The cluster's own policies bound at the edge (shared/vap), and the namespaces their selectors and namespaceObject read.
  { group: "admissionregistration.k8s.io", version: "v1", resource: "validatingadmissionpolicies", kind: "ValidatingAdmissionPolicy", typed: ({ admission }, page) => admission.listValidatingAdmissionPolicy(page) },
  { group: "edgeadmit.io", version: "v1alpha1", resource: "edgeadmissionpolicybindings", kind: "EdgeAdmissionPolicyBinding", crdFrom: "kubectl apply -k infra/k8s installs it" },
  // Objects exempt from named policies (shared/exceptions).
  { group: "edgeadmit.io", version: "v1alpha1", resource: "edgeadmissionexceptions", kind: "EdgeAdmissionException", crdFrom: "kubectl apply -k infra/k8s installs it" },
  { group: "", version: "v1", resource: "namespaces", kind: "Namespace", typed: ({ core }, page) => core.listNamespace(page) },
];
