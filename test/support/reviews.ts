// AdmissionReviews for tests: the shape the kube-apiserver sends.
let uid = 0;

export interface ReviewOptions {
  apiVersion?: "admission.k8s.io/v1" | "admission.k8s.io/v1beta1";
  operation?: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  namespace?: string;
  oldObject?: unknown;
  group?: string;
  version?: string;
}

const GROUPS: Record<string, [group: string, version: string, resource: string]> = {
  Pod: ["", "v1", "pods"],
  Deployment: ["apps", "v1", "deployments"],
  StatefulSet: ["apps", "v1", "statefulsets"],
  DaemonSet: ["apps", "v1", "daemonsets"],
  ReplicaSet: ["apps", "v1", "replicasets"],
  Job: ["batch", "v1", "jobs"],
  CronJob: ["batch", "v1", "cronjobs"],
  AffinityClass: ["cozystack.io", "v1alpha1", "affinityclasses"],
  Tenant: ["apps.cozystack.io", "v1alpha1", "tenants"],
};

export function reviewOf(object: { kind: string; metadata?: { name?: string; namespace?: string } } & Record<string, unknown>, options: ReviewOptions = {}) {
  const [group, version, resource] = GROUPS[object.kind] ?? [options.group ?? "", options.version ?? "v1", `${object.kind.toLowerCase()}s`];
  const operation = options.operation ?? "CREATE";
  return {
    apiVersion: options.apiVersion ?? "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-4000-8000-${String(++uid).padStart(12, "0")}`,
      kind: { group, version, kind: object.kind },
      resource: { group, version, resource },
      name: object.metadata?.name,
      namespace: options.namespace ?? object.metadata?.namespace,
      operation,
      userInfo: { username: "kubernetes-admin" },
      object: operation === "DELETE" ? null : object,
      oldObject: options.oldObject ?? (operation === "DELETE" ? object : null),
      dryRun: false,
    },
  };
}

/** The lineage labels CozyStack's mutating webhook puts on an application's pods. */
export function lineage(kind: string, name: string): Record<string, string> {
  return {
    "apps.cozystack.io/application.group": "apps.cozystack.io",
    "apps.cozystack.io/application.kind": kind,
    "apps.cozystack.io/application.name": name,
  };
}

export const MAIN_DB_LINEAGE = lineage("Postgres", "main-db");

export function pod(spec: { name?: string; generateName?: string; namespace?: string; labels?: Record<string, string>; nodeSelector?: Record<string, string>; affinity?: unknown }) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(spec.name ? { name: spec.name } : {}),
      ...(spec.generateName ? { generateName: spec.generateName } : {}),
      namespace: spec.namespace ?? "tenant-acme",
      labels: spec.labels ?? MAIN_DB_LINEAGE,
    },
    spec: {
      containers: [{ name: "app", image: "registry.example/app:1" }],
      ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
      ...(spec.affinity ? { affinity: spec.affinity } : {}),
    },
  };
}
