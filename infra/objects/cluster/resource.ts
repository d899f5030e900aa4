// A kind the API server serves, and how its apiVersion, URL path and RBAC name are written.

/** A kind the API server serves, as its URLs and RBAC name it. */
export interface ServedResource {
  group: string;
  version: string;
  /** The plural resource, as RBAC rules and URLs name it. */
  resource: string;
  kind: string;
}

/** A resource's apiVersion: the version alone for the core group. */
export const apiVersionOf = ({ group, version }: { group: string; version: string }) => (group ? `${group}/${version}` : version);
/** The URL path of a kind's objects in every namespace (or of a cluster-scoped kind). */
export const pathOf = (resource: ServedResource) => `${resource.group ? `/apis/${resource.group}` : "/api"}/${resource.version}/${resource.resource}`;

/** A resource as RBAC and messages name it: `deployments.apps`, `pods`. */
export function qualified(resource: { group: string; resource: string }): string {
  return resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
}
