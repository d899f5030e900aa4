// What a ValidatingAdmissionPolicy declares of the cluster's inventory, in
// its annotation edgeadmit.io/inventory: the kinds its expressions read, the
// fields of them the snapshot keeps, the fields indexed by value, and the
// edge's own expressions for variables whose spec expression is a stand-in
// the apiserver can compile (it knows no `inventory`, and compiles every
// expression of a policy when it is created).
//
// The annotation is YAML (JSON is YAML). The snapshot builder rewrites it as
// JSON, so the function reads it without a YAML parser.
import * as z from "zod/mini";
import "../zod/index.js";
import { capped } from "../text/index.js";
import { describeZodError } from "../zod/index.js";
import { isObject, parseFieldPath, type FieldPath } from "./paths.js";
import { neverLeaves } from "./secrets.js";

export const INVENTORY_ANNOTATION = "edgeadmit.io/inventory";
/** How a message names the annotation. */
export const ANNOTATION_FIELD = `metadata.annotations["${INVENTORY_ANNOTATION}"]`;

const MAX_KINDS = 16;
const MAX_FIELDS = 32;

/** `group/version` or `version`, as an apiVersion is written. */
const API_VERSION = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;
const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;

const declarationSchema = z.strictObject({
  kinds: z._default(
    z
      .array(
        z.strictObject({
          apiVersion: z.string().check(z.regex(API_VERSION, "must be an apiVersion: group/version, or v1 for the core group")),
          kind: z.string().check(z.regex(KIND, "must be a kind: CamelCase letters and digits")),
          fields: z._default(z.array(z.string()).check(z.maxLength(MAX_FIELDS)), []),
          index: z._default(z.array(z.string()).check(z.maxLength(MAX_FIELDS)), []),
        }),
      )
      .check(z.maxLength(MAX_KINDS)),
    [],
  ),
  variables: z._default(z.record(z.string(), z.string().check(z.minLength(1))), {}),
});

/** A declared kind, keyed `<apiVersion>/<kind>` as the snapshot keys it. */
interface KindDeclaration {
  apiVersion: string;
  kind: string;
  /** The fields kept besides the identity (apiVersion, kind, metadata.name, metadata.namespace). */
  fields: FieldPath[];
  /** The fields inventory.index() may look up by value: each among `fields`, or inside one. */
  index: FieldPath[];
}

export interface InventoryDeclaration {
  kinds: ReadonlyMap<string, KindDeclaration>;
  /** Variable name → the expression that replaces its spec expression at the edge. */
  variables: ReadonlyMap<string, string>;
}

export const NO_DECLARATION: InventoryDeclaration = { kinds: new Map(), variables: new Map() };

export const kindKey = (apiVersion: string, kind: string) => `${apiVersion}/${kind}`;

/** `networking.k8s.io/v1 Ingress`, as messages name a kind. */
export const describeKind = (key: string) => {
  const slash = key.lastIndexOf("/");
  return `${key.slice(0, slash)} ${key.slice(slash + 1)}`;
};

/** The first declared field that never leaves the cluster (secrets.ts), as `kinds.<i>.fields.<j>: why`. */
function leakIn(kinds: readonly { apiVersion: string; kind: string; fields: readonly string[] }[]): string | undefined {
  for (const [i, declared] of kinds.entries())
    for (const [j, text] of declared.fields.entries()) {
      const path = parseFieldPath(text);
      const refused = typeof path === "string" ? undefined : neverLeaves(declared.apiVersion, declared.kind, path);
      if (refused) return `kinds.${i}.fields.${j}: ${refused}`;
    }
  return undefined;
}

/** The declaration of a parsed annotation value, or what is wrong with it (without the annotation's name). */
export function parseDeclaration(value: unknown): InventoryDeclaration | string {
  const parsed = declarationSchema.safeParse(value);
  if (!parsed.success) return describeZodError(parsed.error);
  const leak = leakIn(parsed.data.kinds);
  if (leak) return leak;
  const kinds = new Map<string, KindDeclaration>();
  for (const [i, declared] of parsed.data.kinds.entries()) {
    const key = kindKey(declared.apiVersion, declared.kind);
    if (kinds.has(key)) return `kinds.${i}: ${describeKind(key)} is declared twice`;
    const paths = (list: readonly string[], name: string): FieldPath[] | string => {
      const out: FieldPath[] = [];
      for (const [j, text] of list.entries()) {
        const path = parseFieldPath(text);
        if (typeof path === "string") return `kinds.${i}.${name}.${j}: ${path}`;
        if (!out.some((known) => known.text === path.text)) out.push(path);
      }
      return out;
    };
    const fields = paths(declared.fields, "fields");
    if (typeof fields === "string") return fields;
    const index = paths(declared.index, "index");
    if (typeof index === "string") return index;
    const stray = index.find((path) => !fields.some((field) => field.steps.every((step, at) => path.steps[at] === step)));
    if (stray) return `kinds.${i}.index: ${stray.text} is not among the kind's fields, nor inside one (an index looks up kept values)`;
    kinds.set(key, { apiVersion: declared.apiVersion, kind: declared.kind, fields, index });
  }
  return { kinds, variables: new Map(Object.entries(parsed.data.variables)) };
}


/** The annotation's text on a policy object, if it has one. */
export function annotationOf(policy: unknown): string | undefined {
  const metadata = isObject(policy) ? policy["metadata"] : undefined;
  const annotations = isObject(metadata) ? metadata["annotations"] : undefined;
  const text = isObject(annotations) ? annotations[INVENTORY_ANNOTATION] : undefined;
  return typeof text === "string" ? text : undefined;
}

/**
 * The declaration in a policy's annotation as the snapshot carries it (JSON):
 * NO_DECLARATION without one, else the declaration or what is wrong with it.
 */
export function declarationOf(policy: unknown): InventoryDeclaration | string {
  const text = annotationOf(policy);
  if (text === undefined) return NO_DECLARATION;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `${ANNOTATION_FIELD} is not JSON in the snapshot (edgeadmit snapshot build and sync write its YAML as JSON, and warn when it is not YAML): ${capped((e as Error).message.replace(/\s+/g, " "), 127)}`;
  }
  const declaration = parseDeclaration(value);
  return typeof declaration === "string" ? `${ANNOTATION_FIELD}: ${declaration}` : declaration;
}

/**
 * What a policy (its annotation as JSON, as the snapshot carries it) declares
 * that never leaves the cluster, naming the field; undefined when nothing
 * (an annotation that is no declaration declares nothing: compiling it says why).
 */
export function declarationLeak(policy: unknown): string | undefined {
  const text = annotationOf(policy);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = declarationSchema.safeParse(value);
  const leak = parsed.success ? leakIn(parsed.data.kinds) : undefined;
  return leak && `${ANNOTATION_FIELD} ${leak}`;
}

/** What the snapshot keeps of one kind: every bound policy's fields and indexes of it, merged. */
export interface KindInventory {
  apiVersion: string;
  kind: string;
  fields: FieldPath[];
  index: FieldPath[];
  /** The policies that declare it, for messages. */
  policies: string[];
}

/** The kinds of `declarations` (by policy name), each with the union of what its policies declare, by key. */
export function mergeDeclarations(declarations: ReadonlyMap<string, InventoryDeclaration>): Map<string, KindInventory> {
  const merged = new Map<string, KindInventory>();
  const union = (into: FieldPath[], more: readonly FieldPath[]) => {
    for (const path of more) if (!into.some((known) => known.text === path.text)) into.push(path);
  };
  for (const [policy, declaration] of declarations) {
    for (const [key, declared] of declaration.kinds) {
      let kind = merged.get(key);
      if (!kind) merged.set(key, (kind = { apiVersion: declared.apiVersion, kind: declared.kind, fields: [], index: [], policies: [] }));
      union(kind.fields, declared.fields);
      union(kind.index, declared.index);
      kind.policies.push(policy);
    }
  }
  for (const kind of merged.values()) {
    kind.fields.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    kind.index.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  }
  return merged;
}
