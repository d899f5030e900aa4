// What the audit reads from the cluster: the objects it judges (every kind a
// built-in policy or a bound ValidatingAdmissionPolicy looks at, out of the
// kinds the audit may list); the snapshot's facts come from the sync job's
// lists (infra/objects/cluster/snapshot.ts). Listed page
// by page through @kubernetes/client-node; each page is handed on and dropped,
// so memory holds one page at a time.
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { admissionRequestSchema, type AdmissionRequest } from "../../shared/admission/index.js";
import { wrapReview } from "../../shared/admission/wrap.js";
import { matchPolicies } from "../../shared/review/index.js";
import type { ClusterFleet, FleetSet } from "../../shared/fleet/index.js";
import type { Policy } from "../../shared/policy/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import type { Snapshot } from "../../shared/snapshot/schema.js";
import { SnapshotView } from "../../shared/snapshot/view.js";
import { policyObjectSchema, policySetOf } from "../../shared/vap/index.js";
import { forEachPage as forEachListedPage, pagedList, type PageOptions } from "../objects/cluster/paging.js";
import { apiVersionOf, qualified } from "../objects/cluster/resource.js";
import { WireApi } from "../objects/cluster/wire-api.js";

export interface ClusterApis {
  /** Lists, in wire shape. */
  wire: WireApi;
  /** Writes the reports. */
  custom: CustomObjectsApi;
}

export function clusterApis(config: KubeConfig): ClusterApis {
  return { wire: config.makeApiClient(WireApi), custom: config.makeApiClient(CustomObjectsApi) };
}

interface AuditableResource {
  group: string;
  version: string;
  /** The plural resource, as RBAC rules, URLs and a policy's resourceRules name it. */
  resource: string;
  kind: string;
  namespaced: boolean;
}

/**
 * Every kind the audit may judge, and so may list (infra/k8s/components/audit
 * grants get/list on exactly these and the sync job's LISTED_RESOURCES; a test holds them
 * together). A bound ValidatingAdmissionPolicy that selects a kind not here is
 * named in a warning: its objects are judged at admission only.
 */
export const AUDITABLE_RESOURCES: readonly AuditableResource[] = [
  { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true },
  { group: "", version: "v1", resource: "replicationcontrollers", kind: "ReplicationController", namespaced: true },
  { group: "", version: "v1", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", namespaced: true },
  { group: "", version: "v1", resource: "services", kind: "Service", namespaced: true },
  { group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false },
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true },
  { group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet", namespaced: true },
  { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", namespaced: true },
  { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", namespaced: true },
  { group: "batch", version: "v1", resource: "jobs", kind: "Job", namespaced: true },
  { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob", namespaced: true },
  { group: "networking.k8s.io", version: "v1", resource: "ingresses", kind: "Ingress", namespaced: true },
  { group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", namespaced: true },
  { group: "cozystack.io", version: "v1alpha1", resource: "affinityclasses", kind: "AffinityClass", namespaced: false },
  { group: "apps.cozystack.io", version: "v1alpha1", resource: "tenants", kind: "Tenant", namespaced: true },
  { group: "helm.toolkit.fluxcd.io", version: "v2", resource: "helmreleases", kind: "HelmRelease", namespaced: true },
];

/** The AdmissionRequest creating an object of `resource`: what `matches` and resourceRules look at. */
function probeRequest(resource: AuditableResource): AdmissionRequest {
  const metadata = { name: "probe", ...(resource.namespaced ? { namespace: "default" } : {}) };
  return admissionRequestSchema.parse(wrapReview({ apiVersion: apiVersionOf(resource), kind: resource.kind, metadata }).request);
}

interface AuditScope {
  /** The kinds some policy looks at, in AUDITABLE_RESOURCES order. */
  resources: AuditableResource[];
  /** Kinds a bound policy selects that the audit cannot list. */
  unlisted: string[];
}

/**
 * The kinds to judge, derived from the policies themselves: those a built-in
 * policy's `matches` takes on creation, and those a bound policy's
 * matchConstraints name. A wildcard rule selects every auditable kind.
 */
export function auditScope(snapshot: Snapshot, policies: readonly Policy[], fleet?: { policies: ClusterFleet; set: FleetSet }): AuditScope {
  const view = new SnapshotView(snapshot);
  const policySet = policySetOf(snapshot);
  const resources = AUDITABLE_RESOURCES.filter((resource) => {
    const probe = probeRequest(resource);
    return matchPolicies(probe, policies, view, fleet?.policies).length > 0 || policySet.mayMatch(probe) || fleet?.policies.set.mayMatch(probe) === true;
  });
  const auditable = new Set(AUDITABLE_RESOURCES.map(qualified));
  const unlisted = new Set<string>();
  for (const object of [...Object.values(snapshot.validatingAdmissionPolicies), ...(fleet?.set.policies ?? [])]) {
    const policy = policyObjectSchema.safeParse(object);
    for (const rule of policy.success ? policy.data.spec.matchConstraints.resourceRules : []) {
      for (const group of rule.apiGroups)
        for (const entry of rule.resources) {
          const name = qualified({ group, resource: entry.split("/")[0]! });
          if (group !== "*" && !entry.startsWith("*") && !auditable.has(name)) unlisted.add(name);
        }
    }
  }
  return { resources, unlisted: [...unlisted].sort() };
}

/**
 * Every object of `resource`, handed to `onPage` one page at a time (the sync
 * job's paging: 410 restarts, wire shape). Returns false when the API server
 * does not serve the resource (404: a CRD not installed).
 */
export function forEachPage(apis: ClusterApis, resource: AuditableResource, options: Omit<PageOptions, "skipNotServed" | "crd">, onPage: (objects: KubeObject[]) => void): Promise<boolean> {
  return forEachListedPage(pagedList(apis.wire, resource), { ...options, skipNotServed: true }, onPage);
}
