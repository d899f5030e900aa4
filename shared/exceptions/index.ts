// EdgeAdmissionExceptions (edgeadmit.io/v1alpha1, cluster-scoped): named
// objects exempt from named policies. Cluster-scoped, unlike Kyverno's
// namespaced PolicyException, so that only whoever may write cluster-wide
// objects can grant one: a tenant who can write in its own namespace cannot
// exempt itself. The review (shared/review) honours them in one place, for the function,
// `edgeadmit check` and the audit alike.
import * as z from "zod/mini";
import "../zod/index.js";
import type { AdmissionRequest } from "../admission/index.js";
import { selectorMatches } from "../k8s/labels/index.js";
import { labelSelectorSchema } from "../k8s/schemas/index.js";

export const EXCEPTION_KIND = "EdgeAdmissionException";
export const EXCEPTION_GROUP = "edgeadmit.io";

const names = z.optional(z.array(z.string().check(z.minLength(1))));

/** Which objects an exception covers: every field given must hold (kinds, namespaces and names each list alternatives). */
const exceptionMatchSchema = z.object({
  /** Kinds as written in the object (`Deployment`), any group; absent: any kind. */
  kinds: names,
  /** Namespaces; absent: any namespace (and cluster-scoped objects). */
  namespaces: names,
  /** metadata.name exactly; absent: any name (an object with generateName only matches no list of names). */
  names,
  /** The object's labels; absent: any labels. */
  selector: z.optional(labelSelectorSchema),
});
type ExceptionMatch = z.infer<typeof exceptionMatchSchema>;

/** An exception as the snapshot carries it: its spec, by name. */
export const exceptionSchema = z.object({
  /** Built-in policy ids and ValidatingAdmissionPolicy names; at least one. */
  policies: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  /** At least one; the exception covers an object any of them matches. */
  match: z.array(exceptionMatchSchema).check(z.minLength(1)),
  /** Why, for people reading reports. */
  reason: z.optional(z.string()),
});
export type Exception = z.infer<typeof exceptionSchema>;

/** The object as the cluster holds it: apiVersion edgeadmit.io/v1alpha1, kind EdgeAdmissionException, a name and the spec above. */
export const exceptionObjectSchema = z.looseObject({
  metadata: z.looseObject({ name: z.string().check(z.minLength(1)) }),
  spec: exceptionSchema,
});

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function labelsOf(request: AdmissionRequest): Record<string, string> {
  const object = request.object ?? request.oldObject;
  const metadata = isRecord(object) && isRecord(object["metadata"]) ? object["metadata"] : {};
  const labels = metadata["labels"];
  return isRecord(labels) ? (Object.fromEntries(Object.entries(labels).filter(([, v]) => typeof v === "string")) as Record<string, string>) : {};
}

function nameOf(request: AdmissionRequest): string {
  if (request.name) return request.name;
  const object = request.object ?? request.oldObject;
  const name = isRecord(object) && isRecord(object["metadata"]) ? object["metadata"]["name"] : undefined;
  return typeof name === "string" ? name : "";
}

function matchesRequest(match: ExceptionMatch, request: AdmissionRequest): boolean {
  if (match.kinds && !match.kinds.includes(request.kind.kind)) return false;
  if (match.namespaces && !match.namespaces.includes(request.namespace ?? "")) return false;
  if (match.names && !match.names.includes(nameOf(request))) return false;
  if (match.selector && !selectorMatches(match.selector, labelsOf(request))) return false;
  return true;
}

/** Exceptions by the policy they name, in name order: built once per snapshot, so a review looks at the few that name its policies. */
export type ExceptionIndex = ReadonlyMap<string, ReadonlyArray<readonly [name: string, exception: Exception]>>;

export function indexExceptions(exceptions: Readonly<Record<string, Exception>>): ExceptionIndex {
  const index = new Map<string, Array<readonly [string, Exception]>>();
  for (const name of Object.keys(exceptions).sort()) {
    const exception = exceptions[name]!;
    for (const policy of new Set(exception.policies)) index.set(policy, [...(index.get(policy) ?? []), [name, exception] as const]);
  }
  return index;
}

/** The name of the first exception (in name order) that exempts the request from `policy`, or undefined. */
export function exceptionFor(index: ExceptionIndex, policy: string, request: AdmissionRequest): string | undefined {
  for (const [name, exception] of index.get(policy) ?? []) if (exception.match.some((match) => matchesRequest(match, request))) return name;
  return undefined;
}
