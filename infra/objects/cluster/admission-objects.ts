// The objects a cluster's built-in admission plugins read (shared/apiserver
// ClusterObjects: LimitRanger, ServiceAccount, Priority, DefaultStorageClass,
// DefaultIngressClass, RuntimeClass, and the CRDs whose schemas default their
// objects), listed from the live cluster for `check --from-cluster`, so a
// manifest is judged as that cluster's apiserver would admit it. Never part
// of a snapshot: the function gets objects the apiserver has admitted already.
import type { KubeObject } from "../../../shared/snapshot/builder/index.js";
import { CliError } from "../../base/errors.js";
import { loadKubeConfig } from "./kubeconfig.js";
import { DEFAULT_PAGE_SIZE, forEachPage, pagedList } from "./paging.js";
import { qualified, type ServedResource } from "./resource.js";
import { WireApi } from "./wire-api.js";

/** What the plugins read, and which plugin reads it (for the warning when it cannot be listed). */
export const ADMISSION_RESOURCES: ReadonlyArray<ServedResource & { readBy: string }> = [
  { group: "", version: "v1", resource: "limitranges", kind: "LimitRange", readBy: "LimitRanger" },
  { group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", readBy: "ServiceAccount" },
  { group: "scheduling.k8s.io", version: "v1", resource: "priorityclasses", kind: "PriorityClass", readBy: "Priority" },
  { group: "storage.k8s.io", version: "v1", resource: "storageclasses", kind: "StorageClass", readBy: "DefaultStorageClass" },
  { group: "networking.k8s.io", version: "v1", resource: "ingressclasses", kind: "IngressClass", readBy: "DefaultIngressClass" },
  { group: "node.k8s.io", version: "v1", resource: "runtimeclasses", kind: "RuntimeClass", readBy: "RuntimeClass" },
  { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions", kind: "CustomResourceDefinition", readBy: "custom resource defaulting" },
];

/**
 * Every object of ADMISSION_RESOURCES in the cluster of `context`. One that
 * cannot be listed (RBAC, not served) is a warning, not a failure: the check
 * goes on as a cluster without those objects would admit, and says so.
 */
export async function listAdmissionObjects(context: string | undefined, warnings: string[]): Promise<KubeObject[]> {
  const config = loadKubeConfig(context);
  const api = config.makeApiClient(WireApi);
  const server = config.getCurrentCluster()!.server;
  const objects: KubeObject[] = [];
  for (const resource of ADMISSION_RESOURCES) {
    try {
      await forEachPage(pagedList(api, resource), { pageSize: DEFAULT_PAGE_SIZE, server, skipNotServed: true }, (page) => objects.push(...page));
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      warnings.push(`${e.message}: the ${resource.readBy} admission plugin reads ${qualified(resource)}, so the check admits as a cluster without them would`);
    }
  }
  return objects;
}
