// The object a cluster's validation would see when an object is created:
// what the apiserver does to a request's object before validating admission
// runs, for the Kubernetes version given.
//
//   1. API defaults: the decoder's SetDefaults_* of the object's group,
//      version and kind (defaults/), or its CRD's structural schema defaults
//      (crd.ts) for a custom resource;
//   2. the built-in mutating admission plugins on by default, in order
//      (admission/), reading the cluster objects they list (cluster.ts);
//   3. the object converted back to its version: a pod spec's
//      serviceAccount is its serviceAccountName (Convert_core_PodSpec_To_v1_PodSpec).
//
// Not modelled: mutating webhooks; MutatingAdmissionPolicies (on by default
// from Kubernetes 1.36: applying one needs CEL object construction and
// server-side-apply merging, which this project's CEL does not have, so
// ClusterObjects names the ones it was given and check warns that they were
// not applied); what each kind's create strategy sets (PrepareForCreate: a
// new status, generation, uid, a name from generateName); and the plugins'
// own refusals. Pure: no I/O, no clock; linear in the object.
//
// The function never needs this (the apiserver sends it the mutated
// object); `check`, `test` and the conformance suite do.
import { DEFAULT_VERSION, type KubernetesVersion } from "../cel/kubernetes/environment.js";
import { ADMITTED_TYPES, admitCreate, type PluginName } from "./admission/index.js";
import { ClusterObjects } from "./cluster.js";
import { defaultBySchema } from "./crd.js";
import { applyApiDefaults, hasApiDefaults } from "./defaults/index.js";
import { child, Defaulter, isRecord, type Change, type Json } from "./fields.js";
import { gatesFor, type Gates } from "./features.js";

export { ClusterObjects } from "./cluster.js";
export { applyApiDefaults, applyStatusDefaults } from "./defaults/index.js";
export { Defaulter, type Change, type Json } from "./fields.js";
export { gatesFor, type Gate, type Gates } from "./features.js";
export { PLUGIN_NAMES, TOKEN_VOLUME, type PluginName } from "./admission/index.js";

export interface AdmitOptions {
  version?: KubernetesVersion;
  /** One admission plugin alone, on the object as given, without API defaults: how each plugin's own tests run it (the conformance suite). */
  plugin?: PluginName;
  /** The cluster objects the admission plugins read; none (a cluster with nothing but its system PriorityClasses) when absent. */
  cluster?: ClusterObjects;
  /** The feature gates, when not the version's defaults (the conformance suite's cases that set some). */
  gates?: Gates;
  /** The object is the caller's to give away (parsed for this judging alone): set in place, no copy made. */
  inPlace?: boolean;
}

export interface Admitted {
  object: Json;
  /** What was set, in the order it was set, each with the upstream function or plugin that sets it. */
  changes: Change[];
}

/** The pod specs of a built-in kind, where the v1 conversion writes serviceAccount. */
const POD_SPECS: Readonly<Record<string, readonly string[]>> = {
  "v1/Pod": ["spec"],
  "v1/PodTemplate": ["template", "spec"],
  "v1/ReplicationController": ["spec", "template", "spec"],
  "apps/v1/Deployment": ["spec", "template", "spec"],
  "apps/v1/StatefulSet": ["spec", "template", "spec"],
  "apps/v1/DaemonSet": ["spec", "template", "spec"],
  "apps/v1/ReplicaSet": ["spec", "template", "spec"],
  "batch/v1/Job": ["spec", "template", "spec"],
  "batch/v1/CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
};

/** Convert_v1_PodSpec_To_core_PodSpec then back: serviceAccountName, or else the deprecated serviceAccount, written to both. */
function serviceAccountAlias(object: Json, type: string, d: Defaulter): void {
  const path = POD_SPECS[type];
  if (!path) return;
  let spec: Json | undefined = object;
  for (const key of path) spec = child(spec, key);
  if (!spec) return;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const name = text(spec["serviceAccountName"]) || text(spec["serviceAccount"]);
  if (name === "" || spec["serviceAccount"] === name) return;
  d.as("Convert_core_PodSpec_To_v1_PodSpec", () => {
    const at = path.join(".");
    if (text(spec["serviceAccountName"]) === "") {
      spec["serviceAccountName"] = name;
      d.note(`${at}.serviceAccountName`);
    }
    spec["serviceAccount"] = name;
    d.note(`${at}.serviceAccount`);
  });
}

/**
 * `object` as validation would see its creation in a cluster of
 * `options.version` holding `options.cluster`: a new object when anything
 * applies to it, the given one never changed (unless `options.inPlace`). An
 * object nothing applies to (no defaults, no plugin, or no Kubernetes object
 * at all) comes back as it is.
 */
export function admit(object: Json, options: AdmitOptions = {}): Admitted {
  const d = new Defaulter();
  const apiVersion = object["apiVersion"];
  const kind = object["kind"];
  if (typeof apiVersion !== "string" || typeof kind !== "string") return { object, changes: [] };
  const cluster = options.cluster ?? new ClusterObjects();
  const defaulted = hasApiDefaults(apiVersion, kind);
  const schema = defaulted ? undefined : cluster.crdSchema(apiVersion, kind);
  const type = `${apiVersion}/${kind}`;
  // Most kinds (ConfigMaps, RBAC roles, custom resources without a CRD given) have nothing set: no copy for them.
  if (!defaulted && !schema && !ADMITTED_TYPES.has(type)) return { object, changes: [] };
  const copy = options.inPlace ? object : (JSON.parse(JSON.stringify(object)) as Json);
  const metadata = child(copy, "metadata");
  const namespace = typeof metadata?.["namespace"] === "string" ? metadata["namespace"] : "default";
  if (options.plugin !== undefined) {
    admitCreate({ object: copy, type, namespace, cluster }, d, options.plugin);
    return { object: copy, changes: d.changes };
  }
  const gates = options.gates ?? gatesFor(options.version ?? DEFAULT_VERSION);
  applyApiDefaults(copy, apiVersion, kind, d, gates);
  if (schema) d.as("CRD structural defaults", () => defaultBySchema(copy, schema, "", d));
  admitCreate({ object: copy, type, namespace, cluster }, d);
  serviceAccountAlias(copy, type, d);
  return { object: copy, changes: d.changes };
}

/** The cluster objects among `objects` (the input, --policies), as the admission plugins read them. */
export function clusterObjectsOf(objects: Iterable<unknown>): ClusterObjects {
  const cluster = new ClusterObjects();
  for (const object of objects) if (isRecord(object)) cluster.add(object);
  return cluster;
}

/** `changes` grouped by the function or plugin that made them, in the order each first appears: what reports print. */
export function changesByFunction(changes: readonly Change[]): Array<{ by: string; fields: string[] }> {
  const grouped = new Map<string, string[]>();
  for (const { by, field } of changes) {
    const fields = grouped.get(by);
    if (fields) fields.push(field);
    else grouped.set(by, [field]);
  }
  return [...grouped].map(([by, fields]) => ({ by, fields }));
}
