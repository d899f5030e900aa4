// What an object is, read from its own fields: its group and kind, its
// identity in a cluster, and how messages name it.
import type { KubeObject } from "../../shared/snapshot/builder/index.js";

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function metadataOf(object: KubeObject): { name?: unknown; namespace?: unknown } {
  return isObject(object.metadata) ? object.metadata : {};
}

/** `ConfigMap default/x`, `Widget.example.com ns/y`: the kind (qualified by its group, as kubectl does), namespace and name. */
export function describeObject(object: KubeObject): string {
  const group = typeof object.apiVersion === "string" ? groupOf(object.apiVersion) : "";
  const kind = typeof object.kind === "string" && object.kind !== "" ? object.kind : "object";
  const { name, namespace } = metadataOf(object);
  return `${kind}${group ? `.${group}` : ""} ${typeof namespace === "string" ? `${namespace}/` : ""}${typeof name === "string" ? name : "(no name)"}`;
}

/** What identifies an object in a cluster: group, kind, namespace and name; undefined without a name (generateName). */
export function identityOf(object: KubeObject): string | undefined {
  const { name, namespace } = metadataOf(object);
  if (typeof name !== "string" || name === "") return undefined;
  const group = typeof object.apiVersion === "string" ? groupOf(object.apiVersion) : "";
  return JSON.stringify([group, object.kind, typeof namespace === "string" ? namespace : "", name]);
}

/** `group/Kind`, with "" for the core group: how scope is looked up. */
export function groupKind(group: string, kind: string): string {
  return `${group}/${kind}`;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash >= 0 ? apiVersion.slice(0, slash) : "";
}

/** `group/Kind` of an object, "" group for the core one. */
export function groupKindOf(object: KubeObject): string {
  return groupKind(groupOf(typeof object.apiVersion === "string" ? object.apiVersion : ""), typeof object.kind === "string" ? object.kind : "");
}
