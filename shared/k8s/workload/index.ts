// The pod a workload will create, whatever the workload's kind.
import * as z from "zod/mini";
import { describeZodError } from "../../zod/index.js";
import { parseUnchanged } from "../../zod/unchanged.js";
import { capped } from "../../text/index.js";
import { objectMetaSchema, podSpecSchema, podTemplateSchema, type ObjectMeta, type PodSpec } from "../schemas/index.js";

/** Workload kinds whose pods edgeadmit judges, with where their pod spec lives. */
export const POD_SPEC_PATHS = {
  Pod: "spec",
  Deployment: "spec.template.spec",
  StatefulSet: "spec.template.spec",
  DaemonSet: "spec.template.spec",
  ReplicaSet: "spec.template.spec",
  ReplicationController: "spec.template.spec",
  Job: "spec.template.spec",
  CronJob: "spec.jobTemplate.spec.template.spec",
} as const;
export type WorkloadKind = keyof typeof POD_SPEC_PATHS;

export function isWorkloadKind(kind: string): kind is WorkloadKind {
  return Object.hasOwn(POD_SPEC_PATHS, kind);
}

/** A request.object that is not the shape of its kind: the caller answers 400. */
export class InvalidObjectError extends Error {
  override name = "InvalidObjectError";
}

export interface Workload {
  kind: WorkloadKind;
  /** The workload object's own metadata. */
  metadata: ObjectMeta;
  /** The pod template's metadata (for a Pod: its own). */
  podMetadata: ObjectMeta;
  podSpec: PodSpec;
  /** Dotted path of the pod spec inside the object, for messages: `spec.template.spec`. */
  podSpecPath: string;
  /** The object's `spec`, for kind-specific fields (replicas, strategy, volumeClaimTemplates). */
  spec: Record<string, unknown>;
}

const podSchema = z.looseObject({ metadata: z.optional(objectMetaSchema), spec: z.optional(podSpecSchema) });
const templatedSchema = z.looseObject({
  metadata: z.optional(objectMetaSchema),
  spec: z.optional(z.looseObject({ template: z.optional(podTemplateSchema) })),
});
const cronJobSchema = z.looseObject({
  metadata: z.optional(objectMetaSchema),
  spec: z.optional(
    z.looseObject({
      jobTemplate: z.optional(z.looseObject({ spec: z.optional(z.looseObject({ template: z.optional(podTemplateSchema) })) })),
    }),
  ),
});

/** The longest description of an invalid object: zod's paths name the caller's keys. */
const MAX_INVALID_DESCRIPTION = 512;

/** An InvalidObjectError naming the problem, capped: the keys and values in it are the caller's. */
export function invalidObject(kind: string, problem: z.core.$ZodError | string): InvalidObjectError {
  const description = typeof problem === "string" ? problem : describeZodError(problem);
  return new InvalidObjectError(`request.object is not a valid ${kind}: ${capped(description, MAX_INVALID_DESCRIPTION)}`);
}

function parse<T>(schema: z.ZodMiniType<T>, kind: string, object: unknown): T {
  const result = parseUnchanged(schema, object);
  if (!result.success) throw invalidObject(kind, result.error);
  return result.data;
}

/** Decodes `object` as a workload of `kind` and finds its pod template. */
export function workloadOf(kind: WorkloadKind, object: unknown): Workload {
  if (object === null || typeof object !== "object") throw new InvalidObjectError(`request.object is missing; a ${kind} was expected`);
  // Every policy that judges a request asks for its workload, one after the
  // other: the last one decoded is kept, so a review decodes it once. One
  // slot, not a WeakMap: ephemerons would slow every young-generation GC.
  if (last?.object === object && last.workload.kind === kind) return last.workload;
  const workload = decode(kind, object);
  last = { object, workload };
  return workload;
}

let last: { object: object; workload: Workload } | undefined;

function decode(kind: WorkloadKind, object: object): Workload {
  if (kind === "Pod") {
    const pod = parse(podSchema, kind, object);
    const metadata = pod.metadata ?? {};
    return { kind, metadata, podMetadata: metadata, podSpec: pod.spec ?? {}, podSpecPath: POD_SPEC_PATHS.Pod, spec: pod.spec ?? {} };
  }
  if (kind === "CronJob") {
    const cronJob = parse(cronJobSchema, kind, object);
    const template = cronJob.spec?.jobTemplate?.spec?.template;
    return {
      kind,
      metadata: cronJob.metadata ?? {},
      podMetadata: template?.metadata ?? {},
      podSpec: template?.spec ?? {},
      podSpecPath: POD_SPEC_PATHS.CronJob,
      spec: cronJob.spec ?? {},
    };
  }
  const workload = parse(templatedSchema, kind, object);
  const template = workload.spec?.template;
  return {
    kind,
    metadata: workload.metadata ?? {},
    podMetadata: template?.metadata ?? {},
    podSpec: template?.spec ?? {},
    podSpecPath: POD_SPEC_PATHS[kind],
    spec: workload.spec ?? {},
  };
}

/**
 * How messages name an object. At admission a Pod often has only
 * generateName: say so rather than print `ns/` with an empty name.
 */
export function describeObject(kind: WorkloadKind, metadata: ObjectMeta, namespace: string | undefined): string {
  const ns = namespace || metadata.namespace;
  const prefix = ns ? `${capped(ns)}/` : "";
  if (metadata.name) return `${kind.toLowerCase()} ${prefix}${capped(metadata.name)}`;
  if (metadata.generateName) return `${kind.toLowerCase()} ${prefix}${capped(metadata.generateName)}* (generateName)`;
  return `${kind.toLowerCase()} ${prefix}(unnamed)`;
}
