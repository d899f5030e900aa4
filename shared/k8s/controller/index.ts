// Which workload a user wrote, and how many pods it runs at once. Objects a
// workload controller made (a Deployment's ReplicaSets and their Pods, a
// CronJob's Jobs) were judged as their owner; judging them again repeats the
// warning on every rollout and, under Deny, blocks the controller mid-flight.
import * as z from "zod/mini";
import "../../zod/index.js";
import { parseUnchanged } from "../../zod/unchanged.js";
import type { AdmissionRequest } from "../../admission/index.js";
import { capped } from "../../text/index.js";
import type { ObjectMeta } from "../schemas/index.js";
import { isWorkloadKind, workloadOf, type Workload, type WorkloadKind } from "../workload/index.js";

const ownerReferencesSchema = z.array(z.looseObject({ kind: z.string(), name: z.string(), controller: z.optional(z.nullable(z.boolean())) }));

/** The controller named in the object's ownerReferences, if any. */
export function controllerOf(metadata: ObjectMeta): { kind: string; name: string } | undefined {
  const parsed = parseUnchanged(ownerReferencesSchema, metadata["ownerReferences"] ?? []);
  const owner = parsed.success ? parsed.data.find((reference) => reference.controller === true) : undefined;
  return owner && { kind: owner.kind, name: owner.name };
}

/** Made by a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob or ReplicationController (not by an operator's own kind). */
export function madeByWorkloadController(metadata: ObjectMeta): boolean {
  const controller = controllerOf(metadata);
  return controller !== undefined && controller.kind !== "Pod" && isWorkloadKind(controller.kind);
}

/** Hygiene policies judge CREATE/UPDATE of workloads and CREATE of Pods, not subresources. */
export function isWorkloadWrite(request: AdmissionRequest): boolean {
  if (request.subResource || !isWorkloadKind(request.kind.kind)) return false;
  return request.kind.kind === "Pod" ? request.operation === "CREATE" : request.operation === "CREATE" || request.operation === "UPDATE";
}

/** The workload a user wrote in this request, or undefined when a controller made it (judged as its owner). */
export function userWorkload(request: AdmissionRequest): Workload | undefined {
  if (!isWorkloadWrite(request) || !isWorkloadKind(request.kind.kind)) return undefined;
  const workload = workloadOf(request.kind.kind, request.object);
  return madeByWorkloadController(workload.metadata) ? undefined : workload;
}

const countSchema = z.optional(z.nullable(z.number().check(z.int(), z.minimum(0))));
const jobSpecSchema = z.looseObject({ parallelism: countSchema, completions: countSchema });
const scaledSpecSchema = z.looseObject({ replicas: countSchema, parallelism: countSchema, completions: countSchema, jobTemplate: z.optional(z.nullable(z.looseObject({ spec: z.optional(z.nullable(jobSpecSchema)) }))) });

/** A Job runs `parallelism` pods at once (default 1), and never more than it has completions to reach. */
function jobPods(spec: z.infer<typeof jobSpecSchema> | null | undefined): number {
  const parallelism = spec?.parallelism ?? 1;
  return spec?.completions == null ? parallelism : Math.min(parallelism, spec.completions);
}

/**
 * How many of the workload's pods run at the same time in steady state:
 * replicas (default 1), a Job's parallelism (default 1, at most its
 * completions), one Pod; a DaemonSet runs one on every eligible node, so Infinity.
 */
export function podsAtOnce(workload: Workload): number {
  if (workload.kind === "DaemonSet") return Number.POSITIVE_INFINITY;
  if (workload.kind === "Pod") return 1;
  const parsed = parseUnchanged(scaledSpecSchema, workload.spec);
  const spec = parsed.success ? parsed.data : {};
  if (workload.kind === "Job") return jobPods(spec);
  if (workload.kind === "CronJob") return jobPods(spec.jobTemplate?.spec);
  return spec.replicas ?? 1;
}


/** The API group of each workload kind, to tell a Deployment from another group's kind of the same name. */
export const WORKLOAD_API_GROUPS: Readonly<Record<WorkloadKind, string>> = {
  Pod: "",
  ReplicationController: "",
  Deployment: "apps",
  StatefulSet: "apps",
  DaemonSet: "apps",
  ReplicaSet: "apps",
  Job: "batch",
  CronJob: "batch",
};

/** kubectl's short resource names: warnings must fit 120 characters, and the user applying the object knows its namespace. */
const SHORT_NAMES: Readonly<Record<WorkloadKind, string>> = {
  Pod: "pod",
  ReplicationController: "rc",
  Deployment: "deploy",
  StatefulSet: "sts",
  DaemonSet: "ds",
  ReplicaSet: "rs",
  Job: "job",
  CronJob: "cj",
};

/** How hygiene findings name a workload: `deploy/backend-api`, `pod/web-7d4f-*` for a generateName, `cj/cleanup`. */
export function workloadRef(kind: WorkloadKind, metadata: ObjectMeta): string {
  const name = metadata.name ? capped(metadata.name) : metadata.generateName ? `${capped(metadata.generateName)}*` : "(unnamed)";
  return `${SHORT_NAMES[kind]}/${name}`;
}
