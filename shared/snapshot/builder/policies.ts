// The objects the cluster's own policies need at the edge (shared/vap): the
// ValidatingAdmissionPolicies some binding binds there, those bindings, the
// objects of the bound policies' paramKinds, the inventory they declare
// (shared/inventory), and the namespaces.
import { parse as parseYaml } from "yaml";
import { annotationOf, declarationLeak, declarationOf, describeKind, INVENTORY_ANNOTATION, ANNOTATION_FIELD, mergeDeclarations, type InventoryDeclaration, type KindInventory } from "../../inventory/declaration.js";
import { indexedValues, projection, type FieldPath } from "../../inventory/paths.js";
import { LAST_APPLIED_ANNOTATION, neverLeaves } from "../../inventory/secrets.js";
import { indexBucketOf } from "../../inventory/units.js";
import { utf8Length } from "../../text/index.js";
import { NAMESPACE_NAME_LABEL } from "../../k8s/labels/index.js";
import type { InventoryKind } from "../schema.js";
import type { KubeObject } from "./object.js";
import { BUILT_IN_CLUSTER_SCOPED } from "./scopes.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

interface PolicyObjects {
  /** What a bound policy asks for that never leaves the cluster (inventory/secrets.ts), one line each naming the policy and the field: the build is refused. */
  refused: string[];
  validatingAdmissionPolicies: Record<string, unknown>;
  policyBindings: Record<string, unknown>;
  policyParams: Record<string, { namespaced: boolean; objects: unknown[] }>;
  inventory: Record<string, InventoryKind>;
  namespaces: Record<string, unknown>;
}

/**
 * A binding or exception named with a "/": no cluster holds one (the
 * apiserver stores DNS subdomain names), and `fleet/<name>` is how the
 * fleet's read in verdicts, so it is skipped (the function refuses a push
 * carrying one: shared/snapshot/units/decode.ts).
 */
export const slashedNameProblem = (kind: string, name: string) => `${kind} ${name}: a name holds no "/" (a cluster's names are DNS subdomains; "fleet/<name>" names the fleet's): skipped`;

/** Kinds of the bindings that bind a policy at the edge; the upstream one counts only when given as input (offline). */
const BINDING_KINDS = new Set(["edgeadmit.io/EdgeAdmissionPolicyBinding", "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding"]);
const POLICY_KIND = "admissionregistration.k8s.io/ValidatingAdmissionPolicy";

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
  return { metadata: withoutNeverProjected(trimmed), ...(object["spec"] !== undefined ? { spec: object["spec"] } : {}), ...(object["status"] !== undefined ? { status: object["status"] } : {}) };
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
      else if (name.includes("/")) problems.push(slashedNameProblem(kind.split("/")[1]!, name));
      else {
        if (Object.hasOwn(bindings, name)) problems.push(`${kind.split("/")[1]} ${name}: a binding of that name came before; this one wins`);
        bindings[name] = definition(object);
      }
    } else if (kind === "/Namespace" && name) namespaces[name] = namespaceObject(object, name);
  }

  // Only bound policies travel; each bound policy's paramKind brings its objects.
  const { validatingAdmissionPolicies, paramKinds, refused } = boundPolicies(policies, bindings, problems);
  const scopes = namespacedKinds(objects);
  const policyParams: Record<string, { namespaced: boolean; objects: unknown[] }> = {};
  for (const [key, { apiVersion, kind }] of paramKinds) {
    const found = objects.filter((object) => object.apiVersion === apiVersion && object.kind === kind);
    const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
    const namespaced = isNamespaced(`${group}/${kind}`, options.namespacedKinds ?? scopes, scopes, found.length > 0 ? found.some((object) => typeof metadataOf(object)["namespace"] === "string") : undefined);
    policyParams[key] = { namespaced, objects: found.map(({ metadata, ...rest }) => ({ ...rest, metadata: withoutNeverProjected(metadata) })) };
  }
  const inventory = collectInventory(inventoryKinds(validatingAdmissionPolicies), objects, options.inventoryCandidates ?? [], options.namespacedKinds ?? scopes, scopes, problems);
  // Namespaces serve only namespaceSelector and namespaceObject: without a bound policy they would only churn the snapshot.
  return { refused, validatingAdmissionPolicies, policyBindings: bindings, policyParams, inventory, namespaces: Object.keys(validatingAdmissionPolicies).length > 0 ? namespaces : {} };
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
  /** Namespace → the bytes of the inventory objects its shard holds so far, over every kind. */
  const shardBytes = new Map<string, number>();
  for (const object of [...objects, ...candidates]) {
    const key = `${String(object.apiVersion)}/${String(object.kind)}`;
    const kind = kinds.get(key);
    if (!kind) continue;
    const metadata = metadataOf(object);
    const name = nameOf(object);
    const namespace = typeof metadata["namespace"] === "string" && metadata["namespace"] !== "" ? metadata["namespace"] : undefined;
    // Kubernetes names hold neither; the index joins keys with a newline (shared/snapshot/units/schemas.ts REFERENCE_SEPARATOR).
    if (!name || /[/\n]/.test(namespace ?? "") || /[/\n]/.test(name)) {
      problems.push(`${kind.kind} ${JSON.stringify(namespace ? `${namespace}/` : "").slice(1, -1)}${name === undefined ? "(no name)" : JSON.stringify(name).slice(1, -1)}: not in the inventory (an object there has a name, and names hold no "/" or newline)`);
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
    const over = overLimits(key, kind.index, kept, shardBytes);
    const leftOutIndex = over.size > 0 ? leftOutValues(key, kind.index, [...over.keys()].map((id) => kept[id])) : undefined;
    const named: Record<string, string> = {};
    const consequence = `the policies reading ${describeKind(key)} (${kind.policies.join(", ")}) meet an evaluation error where it could count, and their failurePolicy decides`;
    for (const [id, why] of over) {
      delete kept[id];
      // The first few are named, here as in the snapshot; the rest counted, so a flood of bad objects is one line more, not one each.
      if (Object.keys(named).length >= INVENTORY_LIMITS.named) continue;
      named[id] = why;
      problems.push(`${kind.kind} ${id}: left out of the inventory: ${why}; ${consequence}`);
    }
    if (over.size > INVENTORY_LIMITS.named) problems.push(`${over.size - INVENTORY_LIMITS.named} more objects of ${describeKind(key)} left out of the inventory for breaking its limits; ${consequence}`);
    for (const [field, buckets] of Object.entries(leftOutIndex?.crowded ?? {}))
      problems.push(
        `${describeKind(key)}: the values of ${field} its left-out objects hold pass ${INVENTORY_LIMITS.bucketBytes} bytes in index bucket${buckets.length > 1 ? "s" : ""} ${buckets.join(", ")}: every lookup of a value there meets an evaluation error (${kind.policies.join(", ")}), and their failurePolicy decides`,
      );
    inventory[key] = {
      namespaced,
      fields: kind.fields.map((path) => path.text),
      index: kind.index.map((path) => path.text),
      objects: kept,
      ...(over.size > 0 ? { leftOut: { total: over.size, objects: named, ...leftOutIndex } } : {}),
    };
  }
  return inventory;
}

/**
 * What one inventory object may cost the snapshot (docs/inventory.md,
 * "Limits"). The index holds references, so its bytes grow with the number
 * of indexed values, not with the objects' size; these keep any one object
 * from making a unit too large to push.
 */
export const INVENTORY_LIMITS = {
  /** One object's projection, as JSON. */
  objectBytes: 512 * 1024,
  /** One namespace's inventory objects, over every kind: its shard travels in one push body (8 MiB) with the rest of the namespace's facts. */
  namespaceBytes: 4 * 1024 * 1024,
  /** One object's indexed values, over every indexed field. */
  indexedValues: 10_000,
  /**
   * One object's values in one index bucket. Values spread over the 1,024
   * buckets by hash (10,000 values: about 10 a bucket, seldom 25); many in
   * one were chosen to collide.
   */
  valuesInOneBucket: 64,
  /**
   * One index bucket's entries, about: a bucket travels in one push body of
   * at most 8 MiB. And, besides them, the values of its left-out objects.
   */
  bucketBytes: 1024 * 1024,
  /** Left-out objects the snapshot names per kind; the rest are counted. */
  named: 100,
} as const;

/**
 * The objects of kind `key` over a limit, by key, each with why. A namespace
 * takes objects in key order (kind by kind) until its shard's share is
 * spent (`shardBytes`, kept across kinds); a bucket over its bytes loses the
 * objects of the namespace with the most bytes in it first, largest first,
 * until it fits.
 */
function overLimits(key: string, index: readonly FieldPath[], objects: Readonly<Record<string, unknown>>, shardBytes: Map<string, number>): Map<string, string> {
  const over = new Map<string, string>();
  /** Bucket → key → the bytes of that object's entries there. */
  const buckets = new Map<number, Map<string, number>>();
  for (const [id, object] of Object.entries(objects)) {
    const bytes = utf8Length(JSON.stringify(object));
    if (bytes > INVENTORY_LIMITS.objectBytes) {
      over.set(id, `its projection is ${bytes} bytes of JSON (at most ${INVENTORY_LIMITS.objectBytes})`);
      continue;
    }
    let values = 0;
    const mine = new Map<number, { values: number; bytes: number }>();
    for (const path of index)
      for (const valueKey of indexedValues(object, path)) {
        values++;
        const bucket = indexBucketOf(key, path.text, valueKey);
        const entry = mine.get(bucket) ?? mine.set(bucket, { values: 0, bytes: 0 }).get(bucket)!;
        entry.values++;
        // The value's key and the reference, quoted, with their separators.
        entry.bytes += utf8Length(valueKey) + utf8Length(id) + 8;
      }
    const crowded = Math.max(0, ...[...mine.values()].map((entry) => entry.values));
    if (values > INVENTORY_LIMITS.indexedValues) {
      over.set(id, `it has ${values} indexed values (at most ${INVENTORY_LIMITS.indexedValues})`);
      continue;
    }
    if (crowded > INVENTORY_LIMITS.valuesInOneBucket) {
      over.set(id, `${crowded} of its indexed values fall in one index bucket (at most ${INVENTORY_LIMITS.valuesInOneBucket})`);
      continue;
    }
    const slash = id.indexOf("/");
    const namespace = slash > 0 ? id.slice(0, slash) : undefined;
    if (namespace !== undefined) {
      const spent = shardBytes.get(namespace) ?? 0;
      if (spent + bytes > INVENTORY_LIMITS.namespaceBytes) {
        over.set(id, `namespace ${namespace}'s inventory objects would pass ${INVENTORY_LIMITS.namespaceBytes} bytes of JSON with it (its shard travels in one push body)`);
        continue;
      }
      shardBytes.set(namespace, spent + bytes);
    }
    for (const [bucket, entry] of mine) (buckets.get(bucket) ?? buckets.set(bucket, new Map()).get(bucket)!).set(id, entry.bytes);
  }
  for (const [bucket, entries] of buckets) {
    /** Namespace ("" for cluster-scoped objects) → its objects' entries in the bucket, and their bytes. */
    const byNamespace = new Map<string, { bytes: number; objects: Array<[string, number]> }>();
    let total = 0;
    for (const [id, bytes] of entries) {
      if (over.has(id)) continue;
      total += bytes;
      const namespace = id.includes("/") ? id.slice(0, id.indexOf("/")) : "";
      const share = byNamespace.get(namespace) ?? byNamespace.set(namespace, { bytes: 0, objects: [] }).get(namespace)!;
      share.bytes += bytes;
      share.objects.push([id, bytes]);
    }
    if (total <= INVENTORY_LIMITS.bucketBytes) continue;
    // The namespace with the most bytes there gives up its objects first, largest first: values chosen to
    // collide (hashes anyone can compute) can crowd a bucket, but one namespace's flood of objects, however
    // small each, leaves out its own before another's.
    const namespaces = [...byNamespace].sort(([a, x], [b, y]) => y.bytes - x.bytes || byCode(a, b));
    for (const [namespace, share] of namespaces) {
      for (const [id, bytes] of share.objects.sort(([a, x], [b, y]) => y - x || byCode(a, b))) {
        if (total <= INVENTORY_LIMITS.bucketBytes) break;
        over.set(
          id,
          `index bucket ${bucket} would hold about ${total} bytes (at most ${INVENTORY_LIMITS.bucketBytes}), ${share.bytes} of them ${namespace === "" ? "cluster-scoped objects'" : `namespace ${namespace}'s`}, the most of any namespace there; ${bytes} of them its entries`,
        );
        total -= bytes;
      }
      if (total <= INVENTORY_LIMITS.bucketBytes) break;
    }
  }
  return over;
}

/**
 * The indexed values of the left-out objects of kind `key`, by field, so that
 * only lookups of them meet an evaluation error (docs/inventory.md, "Limits"):
 * they travel in their index buckets, values without the objects' keys, so
 * they take no more than the objects' own values. Where those of one bucket
 * pass INVENTORY_LIMITS.bucketBytes (values chosen to collide), the bucket is
 * crowded instead: every lookup of the field there meets the error.
 */
function leftOutValues(key: string, index: readonly FieldPath[], leftOut: readonly unknown[]): { values: Record<string, string[]>; crowded?: Record<string, number[]> } {
  const values: Record<string, string[]> = {};
  const crowded: Record<string, number[]> = {};
  for (const path of index) {
    const found = new Set<string>();
    for (const object of leftOut) for (const valueKey of indexedValues(object, path)) found.add(valueKey);
    /** Bucket → the bytes its left-out values of this field take there, quoted, with their separators. */
    const bytes = new Map<number, number>();
    for (const valueKey of found) {
      const bucket = indexBucketOf(key, path.text, valueKey);
      bytes.set(bucket, (bytes.get(bucket) ?? 0) + utf8Length(valueKey) + 3);
    }
    const full = new Set([...bytes].filter(([, total]) => total > INVENTORY_LIMITS.bucketBytes).map(([bucket]) => bucket));
    values[path.text] = [...found].filter((valueKey) => !full.has(indexBucketOf(key, path.text, valueKey))).sort(byCode);
    if (full.size > 0) crowded[path.text] = [...full].sort((a, b) => a - b);
  }
  return { values, ...(Object.keys(crowded).length > 0 ? { crowded } : {}) };
}

type ParamKind = { apiVersion: string; kind: string; policies: string[] };

/** The policies some binding binds, and their paramKinds by `<apiVersion>/<kind>`. */
function boundPolicies(policies: ReadonlyMap<string, KubeObject>, bindings: Readonly<Record<string, unknown>>, problems: string[]) {
  const validatingAdmissionPolicies: Record<string, unknown> = {};
  const paramKinds = new Map<string, ParamKind>();
  const refused: string[] = [];
  for (const binding of Object.values(bindings)) {
    const policyName = isRecord(binding) && isRecord(binding["spec"]) ? binding["spec"]["policyName"] : undefined;
    const policy = typeof policyName === "string" ? policies.get(policyName) : undefined;
    if (!policy || typeof policyName !== "string" || Object.hasOwn(validatingAdmissionPolicies, policyName)) continue;
    const definition = (validatingAdmissionPolicies[policyName] = policyDefinition(policy, problems));
    // Its declaration then declares nothing (declarationOf refuses it too), so nothing of it is listed or projected.
    const leak = declarationLeak(definition);
    if (leak) refused.push(`ValidatingAdmissionPolicy ${policyName}: ${leak}`);
    const paramKind = isRecord(policy["spec"]) ? policy["spec"]["paramKind"] : undefined;
    if (isRecord(paramKind) && typeof paramKind["apiVersion"] === "string" && typeof paramKind["kind"] === "string") {
      // A paramKind's objects travel whole: one that never leaves the cluster is refused, and not listed.
      const paramLeak = neverLeaves(paramKind["apiVersion"], paramKind["kind"], undefined);
      if (paramLeak) {
        refused.push(`ValidatingAdmissionPolicy ${policyName}: spec.paramKind: ${paramLeak}`);
        continue;
      }
      const key = `${paramKind["apiVersion"]}/${paramKind["kind"]}`;
      const known = paramKinds.get(key) ?? { apiVersion: paramKind["apiVersion"], kind: paramKind["kind"], policies: [] };
      if (!known.policies.includes(policyName)) known.policies.push(policyName);
      paramKinds.set(key, known);
    }
  }
  return { validatingAdmissionPolicies, paramKinds, refused };
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
    else if (BINDING_KINDS.has(kind) && !name.includes("/")) bindings[name] = definition(object);
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
export function boundNeeds(objects: readonly KubeObject[]): { policies: string[]; paramKinds: Map<string, ParamKind>; inventoryKinds: Map<string, KindInventory>; refused: string[] } {
  const { validatingAdmissionPolicies, paramKinds, refused } = boundAmong(objects, []);
  return { policies: Object.keys(validatingAdmissionPolicies), paramKinds, inventoryKinds: inventoryKinds(validatingAdmissionPolicies), refused };
}

/** The kinds the policies bound at the edge among `objects` declare in their inventory annotation (see boundNeeds). */
export function boundInventoryKinds(objects: readonly KubeObject[]): Map<string, KindInventory> {
  return boundNeeds(objects).inventoryKinds;
}

/** Whether collectPolicyObjects kept `object`: a binding, a Namespace, a bound policy, an object of a bound policy's paramKind. */
export function usedByPolicies(object: KubeObject, collected: Omit<PolicyObjects, "refused">): boolean {
  const kind = groupKind(object);
  if (BINDING_KINDS.has(kind) || kind === "/Namespace") return true;
  const name = nameOf(object);
  if (kind === POLICY_KIND) return name !== undefined && Object.hasOwn(collected.validatingAdmissionPolicies, name);
  const key = `${String(object.apiVersion)}/${String(object.kind)}`;
  return Object.hasOwn(collected.policyParams, key) || Object.hasOwn(collected.inventory, key);
}

/** Metadata without what never leaves the cluster (inventory/secrets.ts): managedFields and the last-applied-configuration annotation. */
function withoutNeverProjected(metadata: unknown): unknown {
  if (!isRecord(metadata)) return metadata;
  const { managedFields: _managed, ...rest } = metadata;
  if (isRecord(rest["annotations"]) && LAST_APPLIED_ANNOTATION in rest["annotations"]) {
    const { [LAST_APPLIED_ANNOTATION]: _applied, ...annotations } = rest["annotations"];
    rest["annotations"] = annotations;
  }
  return rest;
}
