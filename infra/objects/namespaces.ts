// The namespace a namespaced object that names none gets, as kubectl gives it
// the current one, and which kinds have no namespace.
import * as z from "zod/mini";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { BUILT_IN_CLUSTER_SCOPED } from "../../shared/snapshot/builder/scopes.js";
import { groupKind, groupOf, isObject } from "./identity.js";

/**
 * Gives namespaced objects that name no namespace `namespace` ("default" when
 * unset, as kubectl's current namespace usually is), knowing the
 * cluster-scoped kinds built in and those the CustomResourceDefinitions it
 * has learned declare.
 */
export class NamespaceDefaults {
  readonly #clusterScoped = new Set<string>();
  readonly #namespace: string;

  constructor(namespace: string | undefined) {
    this.#namespace = namespace ?? "default";
  }

  /** Takes note of a CustomResourceDefinition's scope; other objects are no news. */
  learn(object: KubeObject): void {
    const crd = crdOf(object);
    if (crd?.clusterScoped) this.#clusterScoped.add(crd.groupKind);
  }

  /** In place: the objects are the reader's own, and sourceOf is keyed by their identity. */
  apply(object: KubeObject): void {
    if (isClusterScoped(object.apiVersion, object.kind)) return;
    if (typeof object.apiVersion === "string" && typeof object.kind === "string" && this.#clusterScoped.has(groupKind(groupOf(object.apiVersion), object.kind))) return;
    if (!isObject(object.metadata)) object.metadata = { namespace: this.#namespace };
    else if (typeof object.metadata.namespace !== "string" || object.metadata.namespace === "") object.metadata.namespace = this.#namespace;
  }
}

const crdSchema = z.looseObject({
  apiVersion: z.string().check(z.startsWith("apiextensions.k8s.io/")),
  kind: z.literal("CustomResourceDefinition"),
  spec: z.looseObject({ group: z.string(), names: z.looseObject({ kind: z.string() }), scope: z.enum(["Cluster", "Namespaced"]) }),
});

/** The group/Kind a CustomResourceDefinition defines and whether it is cluster-scoped; undefined for anything else. */
function crdOf(object: KubeObject): { groupKind: string; clusterScoped: boolean } | undefined {
  const crd = crdSchema.safeParse(object);
  return crd.success ? { groupKind: groupKind(crd.data.spec.group, crd.data.spec.names.kind), clusterScoped: crd.data.spec.scope === "Cluster" } : undefined;
}

/**
 * Whether objects of this apiVersion and kind have no namespace: a built-in
 * cluster-scoped kind (NamespaceDefaults adds the CRDs the input declares).
 * Any other kind counts as namespaced: kubectl would ask the apiserver, which
 * knows every CRD; without one, namespaced is the common case and the one
 * that cannot lose a namespace.
 */
export function isClusterScoped(apiVersion: unknown, kind: unknown): boolean {
  return typeof apiVersion === "string" && typeof kind === "string" && BUILT_IN_CLUSTER_SCOPED.has(groupKind(groupOf(apiVersion), kind));
}
