// CollectParams (k8s.io/apiserver policy/generic): the params a binding
// evaluates its policy with, from the objects of the policy's paramKind the
// snapshot holds, or why none can be had (a configuration error).
import type { Labels } from "../../k8s/labels/index.js";
import { selectorMatches } from "../../k8s/labels/index.js";
import type { BindingSpec, PolicySpec } from "../schema/index.js";

/** What finding params needs to know of the cluster (a part of PolicyFacts). */
export interface ParamFacts {
  /** Whether objects of a paramKind (`<apiVersion>/<kind>`) are namespaced; undefined when the snapshot does not know the kind (not listed). */
  paramKindNamespaced(kind: string): boolean | undefined;
  /** The param objects of a known kind: those in `namespace` for a namespaced kind, all of them (namespace undefined) for a cluster-scoped one. */
  paramObjects(kind: string, namespace: string | undefined): readonly unknown[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const metadataOf = (object: unknown): Record<string, unknown> | undefined => (isRecord(object) && isRecord(object["metadata"]) ? object["metadata"] : undefined);

/** Params by name, per list the facts handed out: a cluster's params of one kind are usually one list, asked for by every policy of the kind. */
const byName = new WeakMap<readonly unknown[], ReadonlyMap<unknown, unknown>>();
/** Lists this short are searched; longer ones are indexed on first use. */
const SEARCHED = 8;

function paramNamed(objects: readonly unknown[], name: string): unknown {
  if (objects.length <= SEARCHED) return objects.find((object) => metadataOf(object)?.["name"] === name);
  let index = byName.get(objects);
  if (index === undefined) {
    const map = new Map<unknown, unknown>();
    // The first object of a name wins, as a search from the front would find it.
    for (const object of objects) {
      const key = metadataOf(object)?.["name"];
      if (!map.has(key)) map.set(key, object);
    }
    byName.set(objects, (index = map));
  }
  return index.get(name);
}

/** The params ([null] without paramKind or paramRef), or the configuration error. */
export function collectParams(paramKind: PolicySpec["paramKind"], binding: BindingSpec, requestNamespace: string, facts: ParamFacts): unknown[] | string {
  const ref = binding.paramRef;
  if (!paramKind || !ref) return [null];
  const kind = `${paramKind.apiVersion}/${paramKind.kind}`;
  const namespaced = facts.paramKindNamespaced(kind);
  if (namespaced === undefined) return `paramKind kind \`${paramKind.apiVersion}, Kind=${paramKind.kind}\` not known`;
  let namespace: string | undefined;
  if (namespaced) {
    namespace = ref.namespace || requestNamespace;
    if (!namespace) return "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources";
  } else if (ref.namespace) return "paramRef.namespace must not be provided for a cluster-scoped `paramKind`";
  const inScope = facts.paramObjects(kind, namespace);
  let params: unknown[];
  if (ref.name) {
    if (ref.selector) return "paramRef.name and paramRef.selector are mutually exclusive";
    const named = paramNamed(inScope, ref.name);
    params = named === undefined ? [] : [named];
  } else if (ref.selector) {
    const selector = ref.selector;
    params = inScope.filter((object) => {
      const labels = metadataOf(object)?.["labels"];
      return selectorMatches(selector, (isRecord(labels) ? labels : {}) as Labels);
    });
  } else return "one of name or selector must be provided";
  if (params.length === 0 && ref.parameterNotFoundAction === "Deny") return "no params found for policy binding with `Deny` parameterNotFoundAction";
  return params;
}
