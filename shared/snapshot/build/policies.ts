// The objects the cluster's own policies need at the edge (shared/vap): the
// ValidatingAdmissionPolicies some binding binds there, those bindings, the
// objects of the bound policies' paramKinds, and the namespaces.
import { NAMESPACE_NAME_LABEL } from "../../vap/match/index.js";
import type { KubeObject } from "./index.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export interface PolicyObjects {
  validatingAdmissionPolicies: Record<string, unknown>;
  policyBindings: Record<string, unknown>;
  policyParams: Record<string, { namespaced: boolean; objects: unknown[] }>;
  namespaces: Record<string, unknown>;
}

/** Kinds of the bindings that bind a policy at the edge; the upstream one counts only when given as input (offline). */
const BINDING_KINDS = new Set(["edgeadmit.io/EdgeAdmissionPolicyBinding", "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding"]);
const POLICY_KIND = "admissionregistration.k8s.io/ValidatingAdmissionPolicy";
/** Where the kubectl client puts the whole object again: never read by a policy, often the largest annotation. */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

function groupKind(object: KubeObject): string {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  return `${slash >= 0 ? apiVersion.slice(0, slash) : ""}/${typeof object.kind === "string" ? object.kind : ""}`;
}

function metadataOf(object: unknown): Record<string, unknown> {
  return isRecord(object) && isRecord(object["metadata"]) ? object["metadata"] : {};
}

const nameOf = (object: unknown): string | undefined => {
  const name = metadataOf(object)["name"];
  return typeof name === "string" && name !== "" ? name : undefined;
};

/** A policy or binding as it matters at the edge: its name and spec (no status, no managed fields). */
function definition(object: KubeObject) {
  return { apiVersion: object.apiVersion, kind: object.kind, metadata: { name: nameOf(object) }, spec: object["spec"] };
}

/**
 * The Namespace as the apiserver hands it to CEL (namespaceObject): metadata
 * without managed fields or owners, spec, status. Its name label is set as the
 * apiserver sets it on every Namespace (a YAML file often leaves it out).
 */
function namespaceObject(object: KubeObject, name: string) {
  const metadata = metadataOf(object);
  const kept = ["name", "generateName", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations"];
  const trimmed = Object.fromEntries(kept.filter((key) => metadata[key] !== undefined).map((key) => [key, metadata[key]]));
  trimmed["labels"] = { ...(isRecord(trimmed["labels"]) ? trimmed["labels"] : {}), [NAMESPACE_NAME_LABEL]: name };
  if (isRecord(trimmed["annotations"]) && LAST_APPLIED in trimmed["annotations"]) {
    const { [LAST_APPLIED]: _applied, ...annotations } = trimmed["annotations"];
    trimmed["annotations"] = annotations;
  }
  return { metadata: trimmed, ...(object["spec"] !== undefined ? { spec: object["spec"] } : {}), ...(object["status"] !== undefined ? { status: object["status"] } : {}) };
}

/** Whether a paramKind is namespaced: as a CustomResourceDefinition in the input says, else as its objects show. */
function namespacedKinds(objects: readonly KubeObject[]): Map<string, boolean> {
  const scopes = new Map<string, boolean>();
  for (const object of objects) {
    if (groupKind(object) !== "apiextensions.k8s.io/CustomResourceDefinition" || !isRecord(object["spec"])) continue;
    const spec = object["spec"];
    const names = isRecord(spec["names"]) ? spec["names"] : {};
    if (typeof spec["group"] === "string" && typeof names["kind"] === "string") scopes.set(`${spec["group"]}/${names["kind"]}`, spec["scope"] === "Namespaced");
  }
  return scopes;
}

export function collectPolicyObjects(objects: readonly KubeObject[], problems: string[]): PolicyObjects {
  const policies = new Map<string, KubeObject>();
  const bindings: Record<string, unknown> = {};
  const namespaces: Record<string, unknown> = {};
  for (const object of objects) {
    const kind = groupKind(object);
    const name = nameOf(object);
    if (kind === POLICY_KIND || BINDING_KINDS.has(kind)) {
      if (!name) {
        problems.push(`${kind.split("/")[1]} without metadata.name: skipped`);
        continue;
      }
      if (kind === POLICY_KIND) policies.set(name, object);
      else {
        if (Object.hasOwn(bindings, name)) problems.push(`${kind.split("/")[1]} ${name}: a binding of that name came before; this one wins`);
        bindings[name] = definition(object);
      }
    } else if (kind === "/Namespace" && name) namespaces[name] = namespaceObject(object, name);
  }

  // Only bound policies travel; each bound policy's paramKind brings its objects.
  const { validatingAdmissionPolicies, paramKinds } = boundPolicies(policies, bindings);
  const scopes = namespacedKinds(objects);
  const policyParams: Record<string, { namespaced: boolean; objects: unknown[] }> = {};
  for (const [key, { apiVersion, kind }] of paramKinds) {
    const found = objects.filter((object) => object.apiVersion === apiVersion && object.kind === kind);
    const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
    const namespaced = scopes.get(`${group}/${kind}`) ?? found.some((object) => typeof metadataOf(object)["namespace"] === "string");
    policyParams[key] = { namespaced, objects: found.map(({ metadata, ...rest }) => ({ ...rest, metadata: withoutManagedFields(metadata) })) };
  }
  // Namespaces serve only namespaceSelector and namespaceObject: without a bound policy they would only churn the snapshot.
  return { validatingAdmissionPolicies, policyBindings: bindings, policyParams, namespaces: Object.keys(validatingAdmissionPolicies).length > 0 ? namespaces : {} };
}

type ParamKind = { apiVersion: string; kind: string; policies: string[] };

/** The policies some binding binds, and their paramKinds by `<apiVersion>/<kind>`. */
function boundPolicies(policies: ReadonlyMap<string, KubeObject>, bindings: Readonly<Record<string, unknown>>) {
  const validatingAdmissionPolicies: Record<string, unknown> = {};
  const paramKinds = new Map<string, ParamKind>();
  for (const binding of Object.values(bindings)) {
    const policyName = isRecord(binding) && isRecord(binding["spec"]) ? binding["spec"]["policyName"] : undefined;
    const policy = typeof policyName === "string" ? policies.get(policyName) : undefined;
    if (!policy || typeof policyName !== "string") continue;
    validatingAdmissionPolicies[policyName] = definition(policy);
    const paramKind = isRecord(policy["spec"]) ? policy["spec"]["paramKind"] : undefined;
    if (isRecord(paramKind) && typeof paramKind["apiVersion"] === "string" && typeof paramKind["kind"] === "string") {
      const key = `${paramKind["apiVersion"]}/${paramKind["kind"]}`;
      const known = paramKinds.get(key) ?? { apiVersion: paramKind["apiVersion"], kind: paramKind["kind"], policies: [] };
      if (!known.policies.includes(policyName)) known.policies.push(policyName);
      paramKinds.set(key, known);
    }
  }
  return { validatingAdmissionPolicies, paramKinds };
}

/**
 * The paramKinds of the policies bound at the edge among `objects`: what the
 * sync job lists next, by `<apiVersion>/<kind>` (the key of policyParams).
 */
export function boundParamKinds(objects: readonly KubeObject[]): Map<string, ParamKind> {
  const policies = new Map<string, KubeObject>();
  const bindings: Record<string, unknown> = {};
  for (const object of objects) {
    const name = nameOf(object);
    if (!name) continue;
    const kind = groupKind(object);
    if (kind === POLICY_KIND) policies.set(name, object);
    else if (BINDING_KINDS.has(kind)) bindings[name] = definition(object);
  }
  return boundPolicies(policies, bindings).paramKinds;
}

/** Whether collectPolicyObjects kept `object`: a binding, a Namespace, a bound policy, an object of a bound policy's paramKind. */
export function usedByPolicies(object: KubeObject, collected: PolicyObjects): boolean {
  const kind = groupKind(object);
  if (BINDING_KINDS.has(kind) || kind === "/Namespace") return true;
  const name = nameOf(object);
  if (kind === POLICY_KIND) return name !== undefined && Object.hasOwn(collected.validatingAdmissionPolicies, name);
  return Object.hasOwn(collected.policyParams, `${String(object.apiVersion)}/${String(object.kind)}`);
}

function withoutManagedFields(metadata: unknown): unknown {
  if (!isRecord(metadata)) return metadata;
  const { managedFields: _managed, ...rest } = metadata;
  return rest;
}
