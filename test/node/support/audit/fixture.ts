// The cluster the audit's tests run against: a tenant, classes good and bad,
// workloads with findings, clean ones, one no policy can read, and one of the
// cluster's own policies bound at the edge.
import type { KubeObject } from "../../../../shared/snapshot/builder/index.js";
import type { ServedResource } from "../fake-apiserver.js";
import { objectsFromText } from "../../../../infra/objects/yaml.js";
import { AUDITABLE_RESOURCES } from "../../../../infra/audit/resources.js";

export const AUDIT_CLUSTER_YAML = `
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: { name: dc1, uid: uid-dc1 }
spec: { nodeSelector: { topology.kubernetes.io/zone: dc1 } }
---
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: { name: nowhere, uid: uid-nowhere }
spec:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{}]
---
apiVersion: v1
kind: Node
metadata: { name: node-a, labels: { topology.kubernetes.io/zone: dc1 } }
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: { name: acme, namespace: tenant-root, uid: uid-acme }
spec: { allowedAffinityClasses: [dc1], defaultAffinityClass: dc1, affinityClassEnforcement: Deny }
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: main-db
  namespace: tenant-acme
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Postgres
    apps.cozystack.io/application.name: main-db
    apps.cozystack.io/affinity-class: dc1
spec: { chart: { spec: { chart: postgres } } }
---
apiVersion: v1
kind: Namespace
metadata: { name: tenant-acme, labels: { tenant: acme } }
---
apiVersion: v1
kind: Namespace
metadata: { name: team-b }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: tenant-acme, uid: uid-web, labels: { helm.toolkit.fluxcd.io/name: main-db } }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      nodeSelector: { topology.kubernetes.io/zone: dc1 }
      containers: [{ name: web, image: nginx }]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: pinned, namespace: tenant-acme, uid: uid-pinned, labels: { helm.toolkit.fluxcd.io/name: main-db } }
spec:
  replicas: 1
  selector: { matchLabels: { app: pinned } }
  template:
    metadata: { labels: { app: pinned } }
    spec:
      nodeSelector: { topology.kubernetes.io/zone: dc2 }
      containers: [{ name: pinned, image: nginx }]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: api, namespace: team-b, uid: uid-api }
spec:
  replicas: 7
  selector: { matchLabels: { app: api } }
  template:
    metadata: { labels: { app: api } }
    spec:
      containers: [{ name: api, image: nginx }]
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: broken, namespace: team-b, uid: uid-broken }
spec:
  replicas: 1
  selector: { matchLabels: { app: broken } }
  template:
    metadata: { labels: { app: broken } }
    spec:
      containers: oops
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: { name: replica-limit }
spec:
  matchConstraints:
    resourceRules: [{ apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments] }]
  validations:
    - expression: "!has(object.spec.replicas) || object.spec.replicas <= 5"
      message: at most 5 replicas
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: { name: replica-limit-warn }
spec: { policyName: replica-limit, validationActions: [Warn] }
`;

export function auditClusterObjects(): KubeObject[] {
  return objectsFromText(AUDIT_CLUSTER_YAML, "audit-cluster");
}

/** What the fake API server serves beyond the sync job's lists: the audit's kinds, and the reports, writable. */
export const AUDIT_SERVED: readonly ServedResource[] = [
  ...AUDITABLE_RESOURCES,
  { group: "wgpolicyk8s.io", version: "v1alpha2", resource: "policyreports", kind: "PolicyReport", namespaced: true },
  { group: "wgpolicyk8s.io", version: "v1alpha2", resource: "clusterpolicyreports", kind: "ClusterPolicyReport", namespaced: false },
];
