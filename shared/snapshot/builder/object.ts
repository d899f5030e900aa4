// What the builder takes: any Kubernetes object, typed no further than its
// kind. Its own module so the builder's parts (policies.ts) use it without
// importing the builder that imports them.
export interface KubeObject {
  apiVersion?: unknown;
  kind?: unknown;
  [key: string]: unknown;
}
