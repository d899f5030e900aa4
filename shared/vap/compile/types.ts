// The static types the apiserver declares for a policy's variables
// (k8s.io/apiserver pkg/admission/plugin/cel compile.go and composition.go):
// `request` and `namespaceObject` are object types whose unknown fields are
// compile errors, `params` exists only with a paramKind, and `variables` is
// an object type whose fields are the policy's variables, each typed as its
// expression's type, each visible to the expressions after it.
import { typeParameters, type ObjectFields, type TypeName, type Value } from "../../cel/index.js";
import { parseTimestamp } from "../../cel/time/index.js";

const object = (fields: Record<string, TypeName>): ObjectFields => new Map(Object.entries(fields));

/** compile.go BuildRequestType: AdmissionRequest less uid, object and oldObject. */
const REQUEST_TYPES: ReadonlyArray<[string, ObjectFields]> = [
  ["kubernetes.GroupVersionKind", object({ group: "string", version: "string", kind: "string" })],
  ["kubernetes.GroupVersionResource", object({ group: "string", version: "string", resource: "string" })],
  ["kubernetes.UserInfo", object({ username: "string", uid: "string", groups: "list(string)", extra: "map(string, list(string))" })],
  [
    "kubernetes.AdmissionRequest",
    object({
      kind: "kubernetes.GroupVersionKind",
      resource: "kubernetes.GroupVersionResource",
      subResource: "string",
      requestKind: "kubernetes.GroupVersionKind",
      requestResource: "kubernetes.GroupVersionResource",
      requestSubResource: "string",
      name: "string",
      namespace: "string",
      operation: "string",
      userInfo: "kubernetes.UserInfo",
      dryRun: "bool",
      options: "dyn",
    }),
  ],
];

/** compile.go BuildNamespaceType: a Namespace less managedFields, ownerReferences and the other omitted metadata. */
const NAMESPACE_TYPES: ReadonlyArray<[string, ObjectFields]> = [
  ["kubernetes.NamespaceSpec", object({ finalizers: "list(string)" })],
  ["kubernetes.NamespaceCondition", object({ status: "string", type: "string", lastTransitionTime: "google.protobuf.Timestamp", message: "string", reason: "string" })],
  ["kubernetes.NamespaceStatus", object({ conditions: "list(kubernetes.NamespaceCondition)", phase: "string" })],
  [
    "kubernetes.NamespaceMetadata",
    object({
      name: "string",
      generateName: "string",
      namespace: "string",
      labels: "map(string, string)",
      annotations: "map(string, string)",
      UID: "string",
      creationTimestamp: "google.protobuf.Timestamp",
      deletionGracePeriodSeconds: "int",
      deletionTimestamp: "google.protobuf.Timestamp",
      generation: "int",
      resourceVersion: "string",
      finalizers: "list(string)",
    }),
  ],
  ["kubernetes.Namespace", object({ metadata: "kubernetes.NamespaceMetadata", spec: "kubernetes.NamespaceSpec", status: "kubernetes.NamespaceStatus" })],
];

/** composition.go variablesTypeName. */
const VARIABLES_TYPE = "kubernetes.variables";

/** The types convertCelTypeToDeclType (composition.go) keeps of a variable's output type; any other becomes dyn. */
const KEPT = new Set(["bool", "bytes", "double", "google.protobuf.Duration", "int", "null_type", "string", "google.protobuf.Timestamp", "uint"]);

/** A variable's type as `variables` declares it: its expression's type, list and map parameters converted in turn, anything else dyn. */
export function variableType(type: TypeName): TypeName {
  if (KEPT.has(type)) return type;
  const open = type.indexOf("(");
  const kind = open < 0 ? type : type.slice(0, open);
  if (kind !== "list" && kind !== "map") return "dyn";
  return `${kind}(${typeParameters(type).map(variableType).join(", ")})`;
}

/** The declarations of one policy's expressions. */
export interface PolicyDeclarations {
  /** Declared variables and their static types (dyn: untyped). */
  variables: ReadonlyMap<string, TypeName>;
  objectTypes: ReadonlyMap<string, ObjectFields>;
  /** A key equal for equal declarations, to share compile results between policies. */
  key: string;
}

/**
 * What a policy's expression may name: `names` (the environment's variables)
 * less `params` without a paramKind, with `request`, `namespaceObject` and
 * `variables` typed; `variables` holds the given (earlier) variables.
 */
export function policyDeclarations(names: readonly string[], hasParams: boolean, variables: ReadonlyArray<readonly [string, TypeName]>): PolicyDeclarations {
  const declared = new Map<string, TypeName>();
  for (const name of names) if (hasParams || name !== "params") declared.set(name, "dyn");
  declared.set("request", "kubernetes.AdmissionRequest");
  declared.set("namespaceObject", "kubernetes.Namespace");
  declared.set("variables", VARIABLES_TYPE);
  const objectTypes = new Map([...REQUEST_TYPES, ...NAMESPACE_TYPES, [VARIABLES_TYPE, new Map(variables)]]);
  return { variables: declared, objectTypes, key: `${hasParams}|${variables.map(([name, type]) => `${name}:${type}`).join(",")}` };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A copy of `record` with its RFC 3339 strings at `keys` as timestamps (a string that does not parse stays one). */
function withTimestamps(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const copy = { ...record };
  for (const key of keys) {
    const text = copy[key];
    if (typeof text === "string") copy[key] = parseTimestamp(text) ?? text;
  }
  return copy;
}

/** Per snapshot object: the namespaces a snapshot holds are read by every review in them. */
const namespaceValues = new WeakMap<object, Value>();

/**
 * A snapshot's Namespace as `namespaceObject` holds it in the apiserver: its
 * timestamps (metadata.creationTimestamp, deletionTimestamp, the conditions'
 * lastTransitionTime) are CEL timestamps, as BuildNamespaceType declares
 * them, not the RFC 3339 strings of its JSON.
 */
export function namespaceValue(namespace: Record<string, unknown>): Value {
  const known = namespaceValues.get(namespace);
  if (known !== undefined) return known;
  const { metadata, status } = namespace;
  const conditions = isRecord(status) ? status["conditions"] : undefined;
  const value = {
    ...namespace,
    ...(isRecord(metadata) ? { metadata: withTimestamps(metadata, ["creationTimestamp", "deletionTimestamp"]) } : {}),
    ...(isRecord(status) && Array.isArray(conditions)
      ? { status: { ...status, conditions: conditions.map((c: unknown) => (isRecord(c) ? withTimestamps(c, ["lastTransitionTime"]) : c)) } }
      : {}),
  } as Value;
  namespaceValues.set(namespace, value);
  return value;
}
