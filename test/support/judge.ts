// Runs one policy on one object, as the function would, without HTTP: for
// unit tests beside the policies. The object is wrapped as `edgeadmit review`
// wraps it and decoded by the function's own AdmissionReview decoder.
import { decodeAdmissionReview } from "../../shared/admission/index.js";
import { wrapReview, type WrapOptions, type WrappableObject } from "../../shared/admission/wrap.js";
import type { Policy } from "../../shared/policy/index.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { SnapshotView } from "../../shared/snapshot/view.js";

/** A snapshot view built from `objects` (PVCs, PVs, workloads) as the sync job would build it. */
export function viewOf(objects: readonly KubeObject[]): SnapshotView {
  const { snapshot, problems } = buildSnapshot(objects, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
  if (problems.length > 0) throw new Error(`test snapshot has problems: ${problems.join("; ")}`);
  return new SnapshotView(snapshot);
}

/** The messages `policy` reports for `object` against a cluster holding `cluster`; undefined when it does not match the request. */
export function judge(policy: Policy, object: WrappableObject, cluster: readonly KubeObject[] = [], options: WrapOptions = {}): string[] | undefined {
  const decoded = decodeAdmissionReview(JSON.stringify(wrapReview(object, { namespace: "shop", ...options })));
  if (!decoded.ok) throw new Error(decoded.error);
  const { request } = decoded.review;
  return policy.matches(request) ? policy.evaluate(request, viewOf(cluster)).map((finding) => finding.message) : undefined;
}

/** A PersistentVolumeClaim in namespace `shop`. */
export function claim(name: string, accessModes: string[] = ["ReadWriteOnce"], volumeName?: string): KubeObject {
  return { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name, namespace: "shop" }, spec: { accessModes, ...(volumeName ? { volumeName } : {}) } };
}

export interface WorkloadSpec {
  kind?: "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" | "CronJob" | "Pod";
  name?: string;
  labels?: Record<string, string>;
  /** Top-level spec fields: replicas, strategy, parallelism, volumeClaimTemplates. */
  spec?: Record<string, unknown>;
  /** Pod spec fields besides containers. */
  pod?: Record<string, unknown>;
  claims?: string[];
  ownerReferences?: unknown[];
}

const API_VERSIONS = { Deployment: "apps/v1", StatefulSet: "apps/v1", DaemonSet: "apps/v1", ReplicaSet: "apps/v1", Job: "batch/v1", CronJob: "batch/v1", Pod: "v1" };

/** A workload in namespace `shop` whose pods carry `labels` and mount `claims`. */
export function workload(w: WorkloadSpec = {}): KubeObject {
  const kind = w.kind ?? "Deployment";
  const labels = w.labels ?? { "app.kubernetes.io/name": w.name ?? "web" };
  const podSpec = {
    containers: [{ name: "app", image: "registry.example/app:1" }],
    ...w.pod,
    ...(w.claims ? { volumes: w.claims.map((claimName, i) => ({ name: `data${i}`, persistentVolumeClaim: { claimName } })) } : {}),
  };
  const metadata = { name: w.name ?? "web", namespace: "shop", ...(w.ownerReferences ? { ownerReferences: w.ownerReferences } : {}) };
  const template = { metadata: { labels }, spec: podSpec };
  const selector = { matchLabels: labels };
  const spec =
    kind === "Pod" ? podSpec
    : kind === "CronJob" ? { schedule: "0 3 * * *", jobTemplate: { spec: { template } }, ...w.spec }
    : kind === "Job" ? { template, ...w.spec }
    : { selector, template, ...w.spec };
  return { apiVersion: API_VERSIONS[kind], kind, metadata: kind === "Pod" ? { ...metadata, labels } : metadata, spec };
}
