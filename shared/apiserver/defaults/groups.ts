// The API defaults of the other built-in groups a cluster serves at v1 (and
// autoscaling/v2): networking (pkg/apis/networking/v1/defaults.go), storage
// (pkg/apis/storage/v1/defaults.go), scheduling, rbac, discovery and
// autoscaling (pkg/apis/<group>/<version>/defaults.go). policy/v1 has none.
import { child, fieldOf, itemOf, records, type Defaulter, type Json } from "../fields.js";

/** SetDefaults_NetworkPolicy, and SetDefaults_NetworkPolicyPort on every rule's ports. */
export function networkPolicy(object: Json, d: Defaulter): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_NetworkPolicyPort", () => {
    for (const direction of ["ingress", "egress"])
      records(spec[direction]).forEach((rule, i) => records(rule["ports"]).forEach((port, j) => d.set(port, "protocol", "TCP", itemOf(fieldOf(itemOf(`spec.${direction}`, i), "ports"), j))));
  });
  d.as("SetDefaults_NetworkPolicy", () => {
    const egress = spec["egress"];
    d.set(spec, "policyTypes", Array.isArray(egress) && egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"], "spec", "list");
  });
}

/** SetDefaults_IngressClass. */
export function ingressClass(object: Json, d: Defaulter): void {
  const parameters = child(child(object, "spec"), "parameters");
  if (parameters) d.as("SetDefaults_IngressClass", () => d.set(parameters, "scope", "Cluster", "spec.parameters"));
}

/** SetDefaults_StorageClass. */
export function storageClass(object: Json, d: Defaulter): void {
  d.as("SetDefaults_StorageClass", () => {
    d.set(object, "reclaimPolicy", "Delete", "");
    d.set(object, "volumeBindingMode", "Immediate", "");
  });
}

/** SetDefaults_CSIDriver (seLinuxMount: SELinuxMountReadWriteOncePod, on since 1.28). */
export function csiDriver(object: Json, d: Defaulter): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_CSIDriver", () => {
    d.set(spec, "attachRequired", true, "spec");
    d.set(spec, "podInfoOnMount", false, "spec");
    d.set(spec, "storageCapacity", false, "spec");
    d.set(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType", "spec");
    d.set(spec, "volumeLifecycleModes", ["Persistent"], "spec", "list");
    d.set(spec, "requiresRepublish", false, "spec");
    d.set(spec, "seLinuxMount", false, "spec");
  });
}

/** SetDefaults_PriorityClass. */
export function priorityClass(object: Json, d: Defaulter): void {
  d.as("SetDefaults_PriorityClass", () => d.set(object, "preemptionPolicy", "PreemptLowerPriority", ""));
}

/** SetDefaults_RoleBinding and SetDefaults_ClusterRoleBinding, and SetDefaults_Subject on each subject. */
export function roleBinding(object: Json, d: Defaulter): void {
  const roleRef = child(object, "roleRef");
  if (roleRef) d.as(object["kind"] === "ClusterRoleBinding" ? "SetDefaults_ClusterRoleBinding" : "SetDefaults_RoleBinding", () => d.string(roleRef, "apiGroup", "rbac.authorization.k8s.io", "roleRef"));
  d.as("SetDefaults_Subject", () =>
    records(object["subjects"]).forEach((subject, i) => {
      if (subject["kind"] === "User" || subject["kind"] === "Group") d.string(subject, "apiGroup", "rbac.authorization.k8s.io", itemOf("subjects", i));
    }),
  );
}

/** SetDefaults_EndpointPort of discovery/v1. */
export function endpointSlice(object: Json, d: Defaulter): void {
  d.as("SetDefaults_EndpointPort", () =>
    records(object["ports"]).forEach((port, i) => {
      d.set(port, "name", "", itemOf("ports", i));
      d.set(port, "protocol", "TCP", itemOf("ports", i));
    }),
  );
}

/** autoscaling/v1 SetDefaults_HorizontalPodAutoscaler (the CPU target is conversion's, from annotations). */
export function horizontalPodAutoscalerV1(object: Json, d: Defaulter): void {
  const spec = child(object, "spec");
  if (spec) d.as("SetDefaults_HorizontalPodAutoscaler", () => d.set(spec, "minReplicas", 1, "spec"));
}

/** defaultHPAScaleUpRules and defaultHPAScaleDownRules of autoscaling/v2 defaults.go. */
const SCALE_RULES = {
  scaleUp: {
    stabilizationWindowSeconds: 0,
    selectPolicy: "Max",
    policies: [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ],
  },
  scaleDown: { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
} as const;

/** autoscaling/v2 SetDefaults_HorizontalPodAutoscaler and SetDefaults_HorizontalPodAutoscalerBehavior (GenerateHPAScale{Up,Down}Rules). */
export function horizontalPodAutoscalerV2(object: Json, d: Defaulter): void {
  const spec = child(object, "spec");
  if (!spec) return;
  d.as("SetDefaults_HorizontalPodAutoscaler", () => {
    d.set(spec, "minReplicas", 1, "spec");
    d.set(spec, "metrics", [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }], "spec", "list");
  });
  const behavior = child(spec, "behavior");
  if (!behavior) return;
  d.as("SetDefaults_HorizontalPodAutoscalerBehavior", () => {
    for (const direction of ["scaleUp", "scaleDown"] as const) {
      const rules = d.struct(behavior, direction, "spec.behavior");
      if (!rules) continue;
      for (const [key, value] of Object.entries(SCALE_RULES[direction])) d.set(rules, key, JSON.parse(JSON.stringify(value)), fieldOf("spec.behavior", direction));
    }
  });
}
