// What the builder takes: any Kubernetes object, typed no further than its
// kind, and how its problems name it. Its own module so the builder's parts
// (policies.ts, namespaced.ts) use it without importing the builder that
// imports them.
import * as z from "zod/mini";
import { objectMetaSchema } from "../../k8s/schemas/index.js";
import { describeZodError } from "../../zod/index.js";

export interface KubeObject {
  apiVersion?: unknown;
  kind?: unknown;
  [key: string]: unknown;
}

/** An object's name, namespace and labels: what every fact branch reads first. */
export const named = z.looseObject({ metadata: z.looseObject({ name: z.string(), namespace: z.optional(z.string()), labels: objectMetaSchema.shape.labels }) });

export function kindOf(object: KubeObject): { group: string; kind: string } {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  return { group: slash >= 0 ? apiVersion.slice(0, slash) : "", kind: typeof object.kind === "string" ? object.kind : "" };
}

/** `Tenant tenant-root/acme`, as a problem names the object it skipped. */
export function describeKubeObject(object: KubeObject): string {
  const meta = named.safeParse(object);
  const { kind } = kindOf(object);
  if (!meta.success) return kind || "object";
  return `${kind} ${meta.data.metadata.namespace ? `${meta.data.metadata.namespace}/` : ""}${meta.data.metadata.name}`;
}

/** Code-unit order, as the builder sorts what it lists. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The object through `schema`, or undefined with what is wrong with it in `problems`. */
export function decode<T>(schema: z.ZodMiniType<T>, object: KubeObject, problems: string[]): T | undefined {
  const result = schema.safeParse(object);
  if (result.success) return result.data;
  problems.push(`${describeKubeObject(object)}: ${describeZodError(result.error)}`);
  return undefined;
}
