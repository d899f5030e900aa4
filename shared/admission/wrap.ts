// Wraps a Kubernetes object into the AdmissionReview the kube-apiserver would
// send for it: `edgeadmit review`, `edgeadmit check` and the tests use this.
import type { AdmissionReview } from "./index.js";

/** group, version and plural resource of the kinds edgeadmit judges; others are guessed from apiVersion and kind. */
const RESOURCES: Record<string, string> = {
  Pod: "pods",
  Deployment: "deployments",
  StatefulSet: "statefulsets",
  DaemonSet: "daemonsets",
  ReplicaSet: "replicasets",
  ReplicationController: "replicationcontrollers",
  Job: "jobs",
  CronJob: "cronjobs",
  AffinityClass: "affinityclasses",
  Tenant: "tenants",
  PersistentVolumeClaim: "persistentvolumeclaims",
  // Kinds whose resource is not the guessed plural.
  Endpoints: "endpoints",
};

/** apimachinery's UnsafeGuessKindToResource: the plural the apiserver most likely serves a kind under. */
function guessResource(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith("s")) return `${singular}es`;
  if (singular.endsWith("y")) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

export interface WrapOptions {
  operation?: "CREATE" | "UPDATE" | "DELETE";
  /** Namespace for an object that names none (as `kubectl apply -n`). */
  namespace?: string;
  oldObject?: Record<string, unknown>;
  apiVersion?: AdmissionReview["apiVersion"];
  uid?: string;
  username?: string;
}

export interface WrappableObject {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: unknown;
  [key: string]: unknown;
}

export function wrapReview(object: WrappableObject, options: WrapOptions = {}) {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "v1";
  const kind = typeof object.kind === "string" ? object.kind : "";
  const slash = apiVersion.indexOf("/");
  const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  const resource = RESOURCES[kind] ?? guessResource(kind);
  const metadata = (typeof object.metadata === "object" && object.metadata !== null ? object.metadata : {}) as { name?: string; namespace?: string };
  const operation = options.operation ?? "CREATE";
  const namespace = metadata.namespace ?? options.namespace;
  return {
    apiVersion: options.apiVersion ?? "admission.k8s.io/v1",
    kind: "AdmissionReview" as const,
    request: {
      uid: options.uid ?? crypto.randomUUID(),
      kind: { group, version, kind },
      resource: { group, version, resource },
      requestKind: { group, version, kind },
      requestResource: { group, version, resource },
      ...(metadata.name ? { name: metadata.name } : {}),
      ...(namespace ? { namespace } : {}),
      operation,
      userInfo: { username: options.username ?? "edgeadmit-review" },
      object: operation === "DELETE" ? null : { ...object, metadata: { ...metadata, ...(namespace ? { namespace } : {}) } },
      oldObject: options.oldObject ?? (operation === "DELETE" ? object : null),
      dryRun: false,
    },
  };
}
