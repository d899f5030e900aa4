// The API defaults of apps/v1 (k8s.io/kubernetes pkg/apis/apps/v1/defaults.go)
// and batch/v1 (pkg/apis/batch/v1/defaults.go), with the pod template and
// claim template defaults their generated defaulters apply.
import { child, fieldOf, itemOf, records, type Defaulter, type Json } from "../fields.js";
import type { Gates } from "../features.js";
import { claimSpec, podTemplate } from "./core.js";

/**
 * The strategy at `spec[key]`: RollingUpdate unless given, and then its
 * rollingUpdate's maxUnavailable and maxSurge where unset (a Deployment's
 * strategy, a DaemonSet's updateStrategy).
 */
function rollingUpdate(spec: Json, key: string, maxUnavailable: string | number, maxSurge: string | number, d: Defaulter): void {
  const strategy = d.struct(spec, key, "spec");
  if (!strategy) return;
  const at = `spec.${key}`;
  d.string(strategy, "type", "RollingUpdate", at);
  const rolling = strategy["type"] === "RollingUpdate" ? d.struct(strategy, "rollingUpdate", at) : undefined;
  if (!rolling) return;
  d.set(rolling, "maxUnavailable", maxUnavailable, `${at}.rollingUpdate`);
  d.set(rolling, "maxSurge", maxSurge, `${at}.rollingUpdate`);
}

/** SetDefaults_Deployment. */
export function deployment(object: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_Deployment", () => {
    d.set(spec, "replicas", 1, "spec");
    rollingUpdate(spec, "strategy", "25%", "25%", d);
    d.set(spec, "revisionHistoryLimit", 10, "spec");
    d.set(spec, "progressDeadlineSeconds", 600, "spec");
  });
  podTemplate(spec, "template", "spec", d, gates);
}

/** SetDefaults_DaemonSet. */
export function daemonSet(object: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_DaemonSet", () => {
    rollingUpdate(spec, "updateStrategy", 1, 0, d);
    d.set(spec, "revisionHistoryLimit", 10, "spec");
  });
  podTemplate(spec, "template", "spec", d, gates);
}

/** SetDefaults_StatefulSet, and each volumeClaimTemplate as a claim (SetDefaults_PersistentVolumeClaim sets its status.phase: the set's create strategy resets the set's status, never its templates'). */
export function statefulSet(object: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_StatefulSet", () => {
    d.string(spec, "podManagementPolicy", "OrderedReady", "spec");
    const strategy = d.struct(spec, "updateStrategy", "spec");
    if (strategy) {
      if (d.string(strategy, "type", "RollingUpdate", "spec.updateStrategy")) d.struct(strategy, "rollingUpdate", "spec.updateStrategy");
      const rolling = child(strategy, "rollingUpdate");
      if (strategy["type"] === "RollingUpdate" && rolling) d.set(rolling, "partition", 0, "spec.updateStrategy.rollingUpdate");
    }
    const retention = d.struct(spec, "persistentVolumeClaimRetentionPolicy", "spec");
    if (retention) {
      d.string(retention, "whenDeleted", "Retain", "spec.persistentVolumeClaimRetentionPolicy");
      d.string(retention, "whenScaled", "Retain", "spec.persistentVolumeClaimRetentionPolicy");
    }
    d.set(spec, "replicas", 1, "spec");
    d.set(spec, "revisionHistoryLimit", 10, "spec");
  });
  podTemplate(spec, "template", "spec", d, gates);
  records(spec["volumeClaimTemplates"]).forEach((claim, i) => {
    const at = itemOf("spec.volumeClaimTemplates", i);
    const status = d.struct(claim, "status", at);
    if (status) d.as("SetDefaults_PersistentVolumeClaim", () => d.string(status, "phase", "Pending", fieldOf(at, "status")));
    const claimTemplateSpec = child(claim, "spec");
    if (claimTemplateSpec) claimSpec(claimTemplateSpec, fieldOf(at, "spec"), d);
  });
}

/** SetDefaults_ReplicaSet. */
export function replicaSet(object: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_ReplicaSet", () => d.set(spec, "replicas", 1, "spec"));
  podTemplate(spec, "template", "spec", d, gates);
}

/** SetDefaults_PodFailurePolicyOnPodConditionsPattern, in a Job spec (a Job's or a CronJob's template). */
function podFailurePolicy(spec: Json, path: string, d: Defaulter): void {
  d.as("SetDefaults_PodFailurePolicyOnPodConditionsPattern", () =>
    records(child(spec, "podFailurePolicy")?.["rules"]).forEach((rule, i) =>
      records(rule["onPodConditions"]).forEach((pattern, j) => d.string(pattern, "status", "True", itemOf(fieldOf(itemOf(fieldOf(fieldOf(path, "podFailurePolicy"), "rules"), i), "onPodConditions"), j))),
    ),
  );
}

/** 2^31 − 1: a Job with backoffLimitPerIndex and no backoffLimit counts failures per index only. */
const MAX_INT32 = 2147483647;

/** SetDefaults_Job. */
export function job(object: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_Job", () => {
    if ((spec["completions"] === undefined || spec["completions"] === null) && (spec["parallelism"] === undefined || spec["parallelism"] === null)) d.set(spec, "completions", 1, "spec");
    d.set(spec, "parallelism", 1, "spec");
    const perIndex = spec["backoffLimitPerIndex"];
    d.set(spec, "backoffLimit", perIndex !== undefined && perIndex !== null ? MAX_INT32 : 6, "spec");
    const templateLabels = child(child(child(spec, "template"), "metadata"), "labels");
    const metadata = child(object, "metadata");
    if (templateLabels && metadata) d.set(metadata, "labels", { ...templateLabels }, "metadata", "list");
    d.set(spec, "completionMode", "NonIndexed", "spec");
    d.set(spec, "suspend", false, "spec");
    d.set(spec, "podReplacementPolicy", spec["podFailurePolicy"] !== undefined && spec["podFailurePolicy"] !== null ? "Failed" : "TerminatingOrFailed", "spec");
  });
  podFailurePolicy(spec, "spec", d);
  podTemplate(spec, "template", "spec", d, gates);
}

/** SetDefaults_CronJob; its jobTemplate gets the defaults of the types inside a Job spec, not SetDefaults_Job (which takes a Job). */
export function cronJob(object: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(object, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_CronJob", () => {
    d.string(spec, "concurrencyPolicy", "Allow", "spec");
    d.set(spec, "suspend", false, "spec");
    d.set(spec, "successfulJobsHistoryLimit", 3, "spec");
    d.set(spec, "failedJobsHistoryLimit", 1, "spec");
  });
  const jobTemplate = d.field(spec, "jobTemplate", "spec");
  const jobSpec = jobTemplate && d.field(jobTemplate, "spec", "spec.jobTemplate");
  if (!jobSpec) return;
  podFailurePolicy(jobSpec, "spec.jobTemplate.spec", d);
  podTemplate(jobSpec, "template", "spec.jobTemplate.spec", d, gates);
}
