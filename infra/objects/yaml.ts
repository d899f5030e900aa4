// Kubernetes objects from YAML or JSON: files with many documents,
// directories, `-` for stdin, and `kind: List` (or `<Kind>List`, as the API
// returns it) unpacked into its items. A syntax error names file and line.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, parseAllDocuments } from "yaml";
import type { KubeObject } from "../../shared/snapshot/build/index.js";
import { CliError, firstLine } from "../cli/errors.js";
import { readInput, type CliIo } from "../cli/io.js";

const MANIFEST = /\.(ya?ml|json)$/i;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Files to read for each path given: a directory contributes its manifests, recursively, in name order. */
function manifestFiles(path: string): string[] {
  if (path === "-") return [path];
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!isDirectory) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? manifestFiles(join(path, entry.name)) : MANIFEST.test(entry.name) ? [join(path, entry.name)] : []));
}

/** A list's items, each with its own apiVersion/kind (a typed `<Kind>List` leaves them out). */
function unpack(object: Record<string, unknown>, where: string): KubeObject[] {
  const kind = typeof object.kind === "string" ? object.kind : "";
  if (!kind.endsWith("List") || !Array.isArray(object.items)) return [object];
  const itemKind = kind === "List" ? undefined : kind.slice(0, -"List".length);
  return object.items.flatMap((item, index) => {
    if (!isObject(item)) throw new CliError(`${where}: items[${index}] is not a Kubernetes object`);
    const typed = itemKind ? { apiVersion: object.apiVersion, kind: itemKind, ...item } : item;
    return unpack(typed, `${where} items[${index}]`);
  });
}

/** Every object in `text`; `name` is how errors refer to it (a path, or `<stdin>`). */
export function objectsFromText(text: string, name: string): KubeObject[] {
  const objects: KubeObject[] = [];
  // Records line starts while parsing, so finding a document's line is a binary search, not a rescan of the file.
  const lineCounter = new LineCounter();
  for (const doc of parseAllDocuments(text, { lineCounter })) {
    const error = doc.errors[0];
    if (error) {
      const at = error.linePos?.[0];
      const message = firstLine(error.message).replace(/ at line \d+, column \d+:?$/, "");
      throw new CliError(`${name}${at ? `:${at.line}:${at.col}` : ""}: ${message}`);
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const line = doc.contents?.range ? lineCounter.linePos(doc.contents.range[0]).line : undefined;
    const where = `${name}${line ? `:${line}` : ""}`;
    if (!isObject(value)) throw new CliError(`${where}: a document is not a Kubernetes object (a mapping with apiVersion and kind)`);
    objects.push(...unpack(value, where));
  }
  return objects;
}

/** The objects in every path, in order: files, directories, `-` for stdin (read once). */
export async function readObjects(paths: readonly string[], io: CliIo): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  for (const file of paths.flatMap(manifestFiles)) {
    const text = await readInput(file, io, "file");
    objects.push(...objectsFromText(text, file === "-" ? "<stdin>" : file));
  }
  return objects;
}

/** Kinds without a namespace, among those a manifest for edgeadmit is likely to hold. */
const CLUSTER_SCOPED = new Set([
  "AffinityClass",
  "PersistentVolume",
  "Namespace",
  "Node",
  "StorageClass",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "PriorityClass",
  "RuntimeClass",
  "IngressClass",
  "CSIDriver",
  "APIService",
]);

/** Puts namespaced objects that name no namespace into `namespace`, as `kubectl apply -n` does. */
export function inNamespace(objects: readonly KubeObject[], namespace: string): KubeObject[] {
  return objects.map((object) => {
    const metadata = isObject(object.metadata) ? object.metadata : {};
    if (typeof object.kind === "string" && CLUSTER_SCOPED.has(object.kind)) return object;
    if (typeof metadata.namespace === "string" && metadata.namespace !== "") return object;
    return { ...object, metadata: { ...metadata, namespace } };
  });
}
