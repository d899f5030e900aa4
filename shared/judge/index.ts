// Kubernetes objects judged as the webhook would judge their creation, without
// HTTP: `edgeadmit check` runs it on manifests, the audit on what the cluster
// holds. Pure: the policies and the snapshot are given, the clock is the
// snapshot's own.
import { admissionRequestSchema, type Decision } from "../admission/index.js";
import { admit, type AdmitOptions, type Change } from "../apiserver/index.js";
import { parseVersion } from "../cel/kubernetes/environment.js";
import { wrapReview } from "../admission/wrap.js";
import { review, type PolicyResult, type SkippedResult } from "../review/index.js";
import type { ClusterFleet } from "../fleet/index.js";
import type { Policy } from "../policy/index.js";
import type { KubeObject } from "../snapshot/builder/index.js";
import type { Snapshot } from "../snapshot/schema.js";
import { SnapshotView } from "../snapshot/view.js";
import { describeZodError } from "../zod/index.js";
import { asServed } from "./served.js";

/** Which object a verdict is about, as reports name it. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  /** metadata.name, or metadata.generateName for an object the apiserver would name. */
  name: string;
}

interface JudgedBase {
  object: KubeObject;
  ref: ObjectRef;
  /** Every policy's result, in the order the webhook reports them; [] when no policy looks at the object. */
  results: PolicyResult[];
  /** Results an EdgeAdmissionException set aside, each naming it. */
  skipped: SkippedResult[];
  /** What the apiserver would have set before validation (JudgeOptions.apiserver), each field with the function or plugin that sets it. */
  defaulted?: Change[];
}

/**
 * One object's verdict: the webhook's Decision, or why no policy could read
 * the object (the function answers such a review 400).
 */
export type JudgedObject = JudgedBase & ({ decision: Decision; error?: undefined } | { decision?: undefined; error: string });

interface JudgeOptions {
  /** The policies to run besides the snapshot's ValidatingAdmissionPolicies: the CLI and the audit pass POLICIES. */
  policies?: readonly Policy[];
  /** The cluster's id, as messages about it name it. */
  cluster?: string;
  operation?: "CREATE" | "UPDATE";
  /** The snapshot's view when the caller holds one already: splitting a snapshot into its view is the costly part of a judge. */
  view?: SnapshotView;
  /** What the fleet binds on the cluster (shared/fleet), judged beside its own policies as the webhook judges it: the audit passes it. */
  fleet?: ClusterFleet;
  /**
   * Judge each object as the apiserver would hand it to validation (API
   * defaults, built-in mutating admission: shared/apiserver), for the
   * snapshot's Kubernetes version unless one is given: check and test pass
   * it, for manifests. Absent, the object as given: the audit's objects are
   * the cluster's own, defaulted already.
   */
  apiserver?: AdmitOptions;
}

const textOf = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

export function refOf(object: KubeObject): ObjectRef {
  const metadata = typeof object["metadata"] === "object" && object["metadata"] !== null ? (object["metadata"] as Record<string, unknown>) : {};
  const namespace = textOf(metadata["namespace"]);
  return {
    apiVersion: textOf(object.apiVersion) ?? "",
    kind: textOf(object.kind) ?? "",
    ...(namespace !== undefined ? { namespace } : {}),
    name: textOf(metadata["name"]) ?? textOf(metadata["generateName"]) ?? "",
  };
}

/**
 * A judge of objects against `snapshot`, one at a time, each as the
 * apiserver would serve it (asServed: quantities canonical), wrapped as
 * `edgeadmit review` wraps it and decoded by the function's own schema. "Now"
 * is when the snapshot was built, so a saved snapshot is never judged stale.
 * An object that breaks a policy is that object's `error`. One view serves
 * every object, so what policies derive from the snapshot is derived once.
 */
export function objectJudge(snapshot: Snapshot, options: JudgeOptions = {}): (object: KubeObject) => JudgedObject {
  const view = options.view ?? new SnapshotView(snapshot);
  const pushedAt = Date.parse(snapshot.builtAt);
  const context = { cluster: options.cluster ?? "offline", policies: options.policies ?? [], snapshot: { view, pushedAt }, withoutSnapshot: "FailOpen", now: pushedAt, fleet: options.fleet } as const;
  const apiserver = options.apiserver && { version: (snapshot.kubernetesVersion === undefined ? undefined : parseVersion(snapshot.kubernetesVersion)), ...options.apiserver };
  return (object): JudgedObject => {
    const ref = refOf(object);
    const served = asServed(object);
    const admitted = apiserver ? admit(served, apiserver) : undefined;
    const defaulted = admitted ? { defaulted: admitted.changes } : {};
    const decoded = admissionRequestSchema.safeParse(wrapReview(admitted?.object ?? served, { operation: options.operation ?? "CREATE" }).request);
    if (!decoded.success) return { object, ref, results: [], skipped: [], ...defaulted, error: `not an admission request: ${describeZodError(decoded.error)}` };
    try {
      const { decision, results, skipped } = review(decoded.data, context);
      return { object, ref, results, skipped, ...defaulted, decision };
    } catch (e) {
      return { object, ref, results: [], skipped: [], ...defaulted, error: e instanceof Error ? e.message : String(e) };
    }
  };
}

/** Every object's verdict against `snapshot` (see objectJudge); the rest are still judged when one breaks a policy. */
export function judgeObjects(objects: readonly KubeObject[], snapshot: Snapshot, options: JudgeOptions = {}): JudgedObject[] {
  return objects.map(objectJudge(snapshot, options));
}
