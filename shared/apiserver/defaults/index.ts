// The API defaults of an object, by its group, version and kind: what the
// apiserver's decoder sets (scheme.Default, the generated SetObjectDefaults_*)
// before anything else sees a request's object. Kinds without defaults, and
// versions a supported cluster no longer serves (apps/v1beta1, extensions),
// are left as written.
import type { Defaulter, Json } from "../fields.js";
import type { Gates } from "../features.js";
import { cronJob, daemonSet, deployment, job, replicaSet, statefulSet } from "./apps.js";
import * as core from "./core.js";
import * as groups from "./groups.js";

type Apply = (object: Json, d: Defaulter, gates: Gates) => void;

const BY_TYPE: ReadonlyMap<string, Apply> = new Map<string, Apply>([
  ["v1/Pod", core.pod],
  ["v1/PodTemplate", (object, d, gates) => core.podTemplate(object, "template", "", d, gates)],
  ["v1/ReplicationController", core.replicationController],
  ["v1/Service", core.service],
  ["v1/PersistentVolumeClaim", core.persistentVolumeClaim],
  ["v1/PersistentVolume", core.persistentVolume],
  ["v1/Endpoints", core.endpoints],
  ["v1/Namespace", core.namespace],
  ["v1/Secret", core.secret],
  ["v1/LimitRange", core.limitRange],
  ["v1/ResourceQuota", (object, d) => core.resourceListsAt(object, ["spec.hard"], d)],
  ["v1/Node", (object, d) => core.resourceListsAt(object, ["status.capacity", "status.allocatable"], d)],
  ["apps/v1/Deployment", deployment],
  ["apps/v1/DaemonSet", daemonSet],
  ["apps/v1/StatefulSet", statefulSet],
  ["apps/v1/ReplicaSet", replicaSet],
  ["batch/v1/Job", job],
  ["batch/v1/CronJob", cronJob],
  ["networking.k8s.io/v1/NetworkPolicy", groups.networkPolicy],
  ["networking.k8s.io/v1/IngressClass", groups.ingressClass],
  ["storage.k8s.io/v1/StorageClass", groups.storageClass],
  ["storage.k8s.io/v1/CSIDriver", groups.csiDriver],
  ["scheduling.k8s.io/v1/PriorityClass", groups.priorityClass],
  ["rbac.authorization.k8s.io/v1/RoleBinding", groups.roleBinding],
  ["rbac.authorization.k8s.io/v1/ClusterRoleBinding", groups.roleBinding],
  ["discovery.k8s.io/v1/EndpointSlice", groups.endpointSlice],
  ["autoscaling/v1/HorizontalPodAutoscaler", groups.horizontalPodAutoscalerV1],
  ["autoscaling/v2/HorizontalPodAutoscaler", groups.horizontalPodAutoscalerV2],
]);

/** Whether the built-in API defaults `apiVersion`/`kind` (a type this module knows). */
export const hasApiDefaults = (apiVersion: string, kind: string): boolean => BY_TYPE.has(`${apiVersion}/${kind}`);

/** Sets the API defaults of `object` (of `apiVersion`/`kind`) in place. */
export function applyApiDefaults(object: Json, apiVersion: string, kind: string, d: Defaulter, gates: Gates): void {
  BY_TYPE.get(`${apiVersion}/${kind}`)?.(object, d, gates);
}

/** The defaults SetDefaults_* set in an object's status, which a create's strategy replaces (core.statusDefaults): the defaulting tables assert them, a create's validation never sees them. */
export function applyStatusDefaults(object: Json, apiVersion: string, kind: string, d: Defaulter): void {
  core.statusDefaults(object, `${apiVersion}/${kind}`, d);
}
