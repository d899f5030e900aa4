// The objects the cluster's own policies need at the edge (shared/vap): the
// ValidatingAdmissionPolicies some binding binds there, those bindings, the
// objects of the bound policies' paramKinds, the inventory they declare
// (shared/inventory), and the namespaces.
import { parse as parseYaml } from "yaml";
import { annotationOf, declarationOf, INVENTORY_ANNOTATION, ANNOTATION_FIELD, mergeDeclarations, type InventoryDeclaration, type KindInventory } from "../../inventory/declaration.js";
import { projection } from "../../inventory/paths.js";
import { NAMESPACE_NAME_LABEL } from "../../k8s/labels/index.js";
import type { InventoryKind } from "../schema.js";
import type { KubeObject } from "./object.js";
import { BUILT_IN_CLUSTER_SCOPED } from "./scopes.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

interface PolicyObjects {
  validatingAdmissionPolicies: Record<string, unknown>;
  policyBindings: Record<string, unknown>;
  policyParams: Record<string, { namespaced: boolean; objects: unknown[] }>;
  inventory: Record<string, InventoryKind>;
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
 * A policy as it matters at the edge: a binding's definition, with its
 * edgeadmit.io/inventory annotation written as JSON, so the function reads it
 * without a YAML parser. An annotation that is not YAML stays as written (the
 * function then reports the policy's declaration as unusable) and is a problem here.
 */
function policyDefinition(object: KubeObject, problems: string[]) {
  const text = annotationOf(object);
  if (text === undefined) return definition(object);
  let json = text;
  try {
    json = JSON.stringify(parseYaml(text, { maxAliasCount: 100 }) ?? null);
  } catch (e) {
    problems.push(`ValidatingAdmissionPolicy ${nameOf(object)}: ${ANNOTATION_FIELD} is not YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  const { metadata, ...rest } = definition(object);
  return { ...rest, metadata: { ...metadata, annotations: { [INVENTORY_ANNOTATION]: json } } };
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

/** The scopes the CustomResourceDefinitions in the input declare, by `group/Kind`. */
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

/**
 * Whether a kind (`group/Kind`) is namespaced: as discovery says (the sync
 * job), else as a CRD in the input says, else as its objects show (when any
 * were found), else as Kubernetes' built-in kinds are: a ConfigMap is
 * namespaced whether or not the cluster holds one.
 */
function isNamespaced(kind: string, discovery: ReadonlyMap<string, boolean>, crdScopes: ReadonlyMap<string, boolean>, objectsShow: boolean | undefined): boolean {
  return discovery.get(kind) ?? crdScopes.get(kind) ?? objectsShow ?? !BUILT_IN_CLUSTER_SCOPED.has(kind);
}

interface PolicyObjectOptions {
  /** Objects given as inventory only (check adds them once the declarations are known); each kind's objects among `objects` count too. */
  inventoryCandidates?: readonly KubeObject[];
  /** `group/Kind` → namespaced, as the API server's discovery answered (the sync job). */
  namespacedKinds?: ReadonlyMap<string, boolean>;
}

export function collectPolicyObjects(objects: readonly KubeObject[], problems: string[], options: PolicyObjectOptions = {}): PolicyObjects {
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
  const { validatingAdmissionPolicies, paramKinds } = boundPolicies(policies, bindings, problems);
  const scopes = namespacedKinds(objects);
  const policyParams: Record<string, { namespaced: boolean; objects: unknown[] }> = {};
  for (const [key, { apiVersion, kind }] of paramKinds) {
    const found = objects.filter((object) => object.apiVersion === apiVersion && object.kind === kind);
    const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
    const namespaced = isNamespaced(`${group}/${kind}`, options.namespacedKinds ?? scopes, scopes, found.length > 0 ? found.some((object) => typeof metadataOf(object)["namespace"] === "string") : undefined);
    policyParams[key] = { namespaced, objects: found.map(({ metadata, ...rest }) => ({ ...rest, metadata: withoutManagedFields(metadata) })) };
  }
  const inventory = collectInventory(inventoryKinds(validatingAdmissionPolicies), objects, options.inventoryCandidates ?? [], options.namespacedKinds ?? scopes, scopes, problems);
  // Namespaces serve only namespaceSelector and namespaceObject: without a bound policy they would only churn the snapshot.
  return { validatingAdmissionPolicies, policyBindings: bindings, policyParams, inventory, namespaces: Object.keys(validatingAdmissionPolicies).length > 0 ? namespaces : {} };
}

/** The kinds the bound policies (definitions, annotation as JSON) declare, merged; a policy whose declaration is unusable declares none (compiling it says why). */
export function inventoryKinds(validatingAdmissionPolicies: Readonly<Record<string, unknown>>): Map<string, KindInventory> {
  const declarations = new Map<string, InventoryDeclaration>();
  for (const [name, policy] of Object.entries(validatingAdmissionPolicies)) {
    const declaration = declarationOf(policy);
    if (typeof declaration !== "string") declarations.set(name, declaration);
  }
  return mergeDeclarations(declarations);
}

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The declared kinds' objects, projected and keyed `namespace/name` (or
 * `name`), each kind present even with no objects: the input is the cluster
 * (offline), or what the sync job listed (a kind it could not list is
 * dropped afterwards). Namespaced or not: as discovery or a CRD says, else
 * as the objects show, else as Kubernetes' built-in kinds are.
 */
function collectInventory(
  kinds: ReadonlyMap<string, KindInventory>,
  objects: readonly KubeObject[],
  candidates: readonly KubeObject[],
  namespacedKinds: ReadonlyMap<string, boolean>,
  crdScopes: ReadonlyMap<string, boolean>,
  problems: string[],
): Record<string, InventoryKind> {
  const inventory: Record<string, InventoryKind> = {};
  if (kinds.size === 0) return inventory;
  const found = new Map<string, Map<string, unknown>>();
  const facts = new Set(objects);
  for (const object of [...objects, ...candidates]) {
    const key = `${String(object.apiVersion)}/${String(object.kind)}`;
    const kind = kinds.get(key);
    if (!kind) continue;
    const metadata = metadataOf(object);
    const name = nameOf(object);
    const namespace = typeof metadata["namespace"] === "string" && metadata["namespace"] !== "" ? metadata["namespace"] : undefined;
    if (!name || namespace?.includes("/") || name.includes("/")) {
      problems.push(`${kind.kind} ${namespace ? `${namespace}/` : ""}${name ?? "(no name)"}: not in the inventory (an object there has a name, and names hold no "/")`);
      continue;
    }
    const byKey = found.get(key) ?? found.set(key, new Map()).get(key)!;
    const id = namespace ? `${namespace}/${name}` : name;
    if (byKey.has(id)) {
      // A candidate may repeat an object the builder kept anyway: the first stays.
      if (!facts.has(object)) continue;
      problems.push(`${kind.kind} ${id}: an object of that name came before; this one wins in the inventory`);
    }
    byKey.set(id, object);
  }
  for (const [key, kind] of kinds) {
    const group = kind.apiVersion.includes("/") ? kind.apiVersion.slice(0, kind.apiVersion.indexOf("/")) : "";
    const listed = found.get(key) ?? new Map<string, unknown>();
    const namespaced = isNamespaced(`${group}/${kind.kind}`, namespacedKinds, crdScopes, listed.size > 0 ? [...listed.keys()].some((id) => id.includes("/")) : undefined);
    const project = projection(kind.fields);
    const kept: Record<string, unknown> = {};
    for (const id of [...listed.keys()].sort(byCode)) {
      if (id.includes("/") !== namespaced) {
        problems.push(`${kind.kind} ${id}: ${namespaced ? "a namespaced kind's object names no namespace" : "a cluster-scoped kind's object names a namespace"}; not in the inventory`);
        continue;
      }
      kept[id] = project(listed.get(id));
    }
    inventory[key] = { namespaced, fields: kind.fields.map((path) => path.text), index: kind.index.map((path) => path.text), objects: kept };
  }
  return inventory;
}

type ParamKind = { apiVersion: string; kind: string; policies: string[] };

/** The policies some binding binds, and their paramKinds by `<apiVersion>/<kind>`. */
function boundPolicies(policies: ReadonlyMap<string, KubeObject>, bindings: Readonly<Record<string, unknown>>, problems: string[]) {
  const validatingAdmissionPolicies: Record<string, unknown> = {};
  const paramKinds = new Map<string, ParamKind>();
  for (const binding of Object.values(bindings)) {
    const policyName = isRecord(binding) && isRecord(binding["spec"]) ? binding["spec"]["policyName"] : undefined;
    const policy = typeof policyName === "string" ? policies.get(policyName) : undefined;
    if (!policy || typeof policyName !== "string") continue;
    if (!Object.hasOwn(validatingAdmissionPolicies, policyName)) validatingAdmissionPolicies[policyName] = policyDefinition(policy, problems);
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

/** The policies bound at the edge among `objects` (as they travel) and their paramKinds. */
function boundAmong(objects: readonly KubeObject[], problems: string[]) {
  const policies = new Map<string, KubeObject>();
  const bindings: Record<string, unknown> = {};
  for (const object of objects) {
    const name = nameOf(object);
    if (!name) continue;
    const kind = groupKind(object);
    if (kind === POLICY_KIND) policies.set(name, object);
    else if (BINDING_KINDS.has(kind)) bindings[name] = definition(object);
  }
  return boundPolicies(policies, bindings, problems);
}

/**
 * What the policies bound at the edge among `objects` need besides: their
 * names, their paramKinds and the kinds their inventory annotation declares,
 * each by `<apiVersion>/<kind>` (the keys of policyParams and inventory).
 * What the sync job lists next (an annotation that is not YAML declares
 * none; the builder reports it).
 */
export function boundNeeds(objects: readonly KubeObject[]): { policies: string[]; paramKinds: Map<string, ParamKind>; inventoryKinds: Map<string, KindInventory> } {
  const { validatingAdmissionPolicies, paramKinds } = boundAmong(objects, []);
  return { policies: Object.keys(validatingAdmissionPolicies), paramKinds, inventoryKinds: inventoryKinds(validatingAdmissionPolicies) };
}

/** The kinds the policies bound at the edge among `objects` declare in their inventory annotation (see boundNeeds). */
export function boundInventoryKinds(objects: readonly KubeObject[]): Map<string, KindInventory> {
  return boundNeeds(objects).inventoryKinds;
}

/** Whether collectPolicyObjects kept `object`: a binding, a Namespace, a bound policy, an object of a bound policy's paramKind. */
export function usedByPolicies(object: KubeObject, collected: PolicyObjects): boolean {
  const kind = groupKind(object);
  if (BINDING_KINDS.has(kind) || kind === "/Namespace") return true;
  const name = nameOf(object);
  if (kind === POLICY_KIND) return name !== undefined && Object.hasOwn(collected.validatingAdmissionPolicies, name);
  const key = `${String(object.apiVersion)}/${String(object.kind)}`;
  return Object.hasOwn(collected.policyParams, key) || Object.hasOwn(collected.inventory, key);
}

function withoutManagedFields(metadata: unknown): unknown {
  if (!isRecord(metadata)) return metadata;
  const { managedFields: _managed, ...rest } = metadata;
  return rest;
}
