// The live path of `edgeadmit snapshot build --from-cluster` and `edgeadmit
// sync`: lists, page by page, every kind buildSnapshot consumes, through
// @kubernetes/client-node, and returns them in their wire shape (as
// `kubectl get -o yaml` shows them), so the YAML path and this one feed
// buildSnapshot the same objects. Failures become one line naming what failed.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
// Named imports, so the CronJob's bundle keeps only these parts of client-node;
// the CLI imports this module lazily, so verbs that never talk to a cluster do not load it.
import { AdmissionregistrationV1Api, ApiException, AppsV1Api, BatchV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObjectApi } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../../shared/zod/index.js";
import { SETTINGS_CONFIGMAP, type KubeObject } from "../../shared/snapshot/build/index.js";
import { boundInventoryKinds, boundParamKinds } from "../../shared/snapshot/build/policies.js";
import { CliError, firstLine } from "../cli/errors.js";
import { JOB_NAMESPACE } from "./job.js";
import { WEBHOOK_CONFIGURATION_NAME, type WebhookRule } from "../webhook/index.js";
/** Objects per list request, as kubectl asks; the server may return fewer and a continue token. */
export const DEFAULT_PAGE_SIZE = 500;

/** Any kind by apiVersion and kind, found through discovery: the paramKinds of bound policies, known only at run time. */
class ParamKindApi extends KubernetesObjectApi {
  /** The resource the API server serves `kind` as (plural name, scope), or undefined when it serves no such kind. */
  discover(apiVersion: string, kind: string) {
    return this.resource(apiVersion, kind);
  }
}

interface Apis {
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  custom: CustomObjectsApi;
  admission: AdmissionregistrationV1Api;
  params: ParamKindApi;
}

export interface PageRequest {
  limit: number;
  _continue?: string;
  labelSelector?: string;
}

/** One page in wire shape: items and the token for the next page (a typed list spells it `_continue`). */
const pageSchema = z.looseObject({
  items: z.nullable(z.array(z.looseObject({}))),
  metadata: z.optional(z.nullable(z.looseObject({ continue: z.optional(z.string()), _continue: z.optional(z.string()) }))),
});

export interface ListedResource {
  group: string;
  version: string;
  /** The plural resource, as RBAC rules and URLs name it. */
  resource: string;
  kind: string;
  /** Who installs the CRD, for the message when the API server does not serve it; absent for built-in kinds. */
  crdFrom?: string;
  list(apis: Apis, page: PageRequest): Promise<unknown>;
}

function custom(group: string, version: string, resource: string, kind: string, crdFrom: string, scope: "Cluster" | "AllNamespaces"): ListedResource {
  return {
    group,
    version,
    resource,
    kind,
    crdFrom,
    list: ({ custom }, page) =>
      scope === "Cluster"
        ? custom.listClusterCustomObject({ group, version, plural: resource, ...page })
        : custom.listCustomObjectForAllNamespaces({ group, version, plural: resource, ...page }),
  };
}

/**
 * Everything the sync job lists, cluster-wide: every kind buildSnapshot
 * consumes except Pods. Pods are left out on purpose: they are the most
 * numerous objects and churn all day, and operator-made ones (KubeVirt's
 * virt-launcher, with a fresh name per VM start) would change the snapshot
 * without a change a policy cares about; a bare Pod is judged at its own
 * admission. infra/k8s/rbac.yaml grants get/list on exactly these (a test
 * holds the two together).
 */
export const LISTED_RESOURCES: readonly ListedResource[] = [
  custom("cozystack.io", "v1alpha1", "affinityclasses", "AffinityClass", "kubectl apply -k infra/k8s installs it", "Cluster"),
  custom("apps.cozystack.io", "v1alpha1", "tenants", "Tenant", "CozyStack installs it", "AllNamespaces"),
  custom("helm.toolkit.fluxcd.io", "v2", "helmreleases", "HelmRelease", "Flux's helm-controller installs it", "AllNamespaces"),
  { group: "", version: "v1", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", list: ({ core }, page) => core.listPersistentVolumeClaimForAllNamespaces(page) },
  { group: "", version: "v1", resource: "persistentvolumes", kind: "PersistentVolume", list: ({ core }, page) => core.listPersistentVolume(page) },
  { group: "", version: "v1", resource: "nodes", kind: "Node", list: ({ core }, page) => core.listNode(page) },
  { group: "", version: "v1", resource: "replicationcontrollers", kind: "ReplicationController", list: ({ core }, page) => core.listReplicationControllerForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", list: ({ apps }, page) => apps.listDeploymentForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet", list: ({ apps }, page) => apps.listStatefulSetForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", list: ({ apps }, page) => apps.listDaemonSetForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", list: ({ apps }, page) => apps.listReplicaSetForAllNamespaces(page) },
  { group: "batch", version: "v1", resource: "jobs", kind: "Job", list: ({ batch }, page) => batch.listJobForAllNamespaces(page) },
  { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob", list: ({ batch }, page) => batch.listCronJobForAllNamespaces(page) },
  // The cluster's own policies bound at the edge (shared/vap), and the namespaces their selectors and namespaceObject read.
  {
    group: "admissionregistration.k8s.io",
    version: "v1",
    resource: "validatingadmissionpolicies",
    kind: "ValidatingAdmissionPolicy",
    list: ({ admission }, page) => admission.listValidatingAdmissionPolicy(page),
  },
  custom("edgeadmit.io", "v1alpha1", "edgeadmissionpolicybindings", "EdgeAdmissionPolicyBinding", "kubectl apply -k infra/k8s installs it", "Cluster"),
  // Objects exempt from named policies (shared/exceptions).
  custom("edgeadmit.io", "v1alpha1", "edgeadmissionexceptions", "EdgeAdmissionException", "kubectl apply -k infra/k8s installs it", "Cluster"),
  { group: "", version: "v1", resource: "namespaces", kind: "Namespace", list: ({ core }, page) => core.listNamespace(page) },
];

export interface ClusterOptions {
  /** A kubeconfig context other than the current one. */
  context?: string;
  /** Where the settings ConfigMap lives: the job's namespace. */
  settingsNamespace?: string;
  /** Read the function's ValidatingWebhookConfiguration too (sync, snapshot build), to check it sends what bound policies match. */
  readWebhook?: boolean;
  /** The ServiceAccount that lists (in the job's namespace): the one a missing paramKind grant names. */
  serviceAccount?: string;
  pageSize?: number;
}

export interface ClusterObjects {
  objects: KubeObject[];
  /** Not failures: e.g. no settings ConfigMap, so the defaults apply. */
  warnings: string[];
  /**
   * paramKinds (`<apiVersion>/<kind>`) of bound policies that could not be
   * listed: the snapshot must not claim they have no objects, so their
   * policies meet "paramKind not known" and their failurePolicy decides.
   */
  unlistedParamKinds: string[];
  /** Inventory kinds (`<apiVersion>/<kind>`) of bound policies that could not be listed: left unknown, never empty, for the same reason. */
  unlistedInventoryKinds: string[];
  /** `group/Kind` → namespaced, for the kinds found through discovery: how the inventory of a kind with no objects is cut. */
  namespacedKinds: Map<string, boolean>;
  /** The rules of the ValidatingWebhookConfiguration that sends the function its requests, read when some policy is bound at the edge. */
  webhookRules?: WebhookRule[];
}

/** A resource as RBAC and messages name it: `deployments.apps`, `pods`. */
export function qualified(resource: { group: string; resource: string }): string {
  return resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
}

/** The kubeconfig kubectl would use (KUBECONFIG, ~/.kube/config, or the pod's service account), on `context`. */
export function loadKubeConfig(context?: string): KubeConfig {
  const config = new KubeConfig();
  const fromEnv = (process.env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  const missing = fromEnv.filter((file) => !existsSync(file));
  if (fromEnv.length > 0 && missing.length === fromEnv.length) throw new CliError(`no kubeconfig: KUBECONFIG names ${missing.join(", ")}, which does not exist`);
  const inCluster = Boolean(process.env.KUBERNETES_SERVICE_HOST) && existsSync("/var/run/secrets/kubernetes.io/serviceaccount/token");
  if (fromEnv.length === 0 && !existsSync(join(homedir(), ".kube", "config")) && !inCluster)
    throw new CliError("no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run inside a cluster");
  try {
    config.loadFromDefault();
  } catch (e) {
    throw new CliError(`cannot load the kubeconfig: ${firstLine((e as Error).message)}`);
  }
  if (context !== undefined) {
    if (!config.getContextObject(context))
      throw new CliError(`no context "${context}" in the kubeconfig (contexts: ${config.getContexts().map((c) => c.name).join(", ") || "none"})`);
    config.setCurrentContext(context);
  }
  if (!config.getCurrentCluster()?.server) throw new CliError(`the kubeconfig's context "${config.getCurrentContext()}" names no cluster with a server`);
  return config;
}

/** The Kubernetes Status message of a failed request, if the body carries one. */
function statusMessage(body: unknown): string | undefined {
  const text = typeof body === "string" ? body : undefined;
  let value: unknown = body;
  if (text !== undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      return firstLine(text) || undefined;
    }
  }
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === "string" ? firstLine(message) : undefined;
}

/** One line for a failed request: unreachable server, credentials, RBAC, a missing CRD, anything else. */
export function requestFailure(e: unknown, verb: string, what: string, server: string, crd?: { name: string; from: string }): CliError {
  if (e instanceof ApiException) {
    const code = e.code;
    const detail = statusMessage(e.body);
    if (code === 401) return new CliError(`the API server at ${server} rejected the kubeconfig's credentials (401 Unauthorized) for ${verb} ${what}`);
    if (code === 403) return new CliError(`RBAC forbids ${verb} ${what}${detail ? `: ${detail}` : ""}`);
    if (code === 404 && crd) return new CliError(`the API server does not serve ${crd.name}: is its CRD installed? (${crd.from})`);
    return new CliError(`${verb} ${what} failed with HTTP ${code}${detail ? `: ${detail}` : ""}`);
  }
  const error = e as { code?: unknown; message?: unknown };
  const reason = typeof error.code === "string" ? error.code : firstLine(String(error.message ?? e));
  return new CliError(`cannot reach the API server at ${server}: ${reason}`);
}

const webhookSchema = z.looseObject({
  webhooks: z.optional(z.nullable(z.array(z.looseObject({ rules: z.optional(z.nullable(z.array(z.looseObject({
    apiGroups: z._default(z.array(z.string()), []),
    apiVersions: z._default(z.array(z.string()), []),
    resources: z._default(z.array(z.string()), []),
    operations: z._default(z.array(z.string()), []),
    scope: z._default(z.enum(["Cluster", "Namespaced", "*"]), "*"),
  })))) })))),
});

/** The rules of every webhook in the function's ValidatingWebhookConfiguration, or undefined (with a warning) when it cannot be read. */
async function readWebhookRules(apis: Apis, server: string, warnings: string[]): Promise<WebhookRule[] | undefined> {
  const name = WEBHOOK_CONFIGURATION_NAME;
  let response: unknown;
  try {
    response = await apis.admission.readValidatingWebhookConfiguration({ name });
  } catch (e) {
    if (e instanceof ApiException && e.code === 404) {
      warnings.push(`no ValidatingWebhookConfiguration ${name}: the apiserver sends the function nothing, so no policy bound at the edge is enforced (edgeadmit webhook-config --snapshot)`);
      return undefined;
    }
    if (e instanceof ApiException && e.code === 403) {
      warnings.push(`RBAC forbids reading ValidatingWebhookConfiguration ${name}: cannot check that it sends what the policies bound at the edge match (infra/k8s/rbac.yaml grants it)`);
      return undefined;
    }
    throw requestFailure(e, "get", `validatingwebhookconfigurations/${name}`, server);
  }
  const parsed = webhookSchema.safeParse(JSON.parse(JSON.stringify(response)));
  if (!parsed.success) throw new CliError(`get validatingwebhookconfigurations/${name}: the API server's answer is not a ValidatingWebhookConfiguration`);
  return (parsed.data.webhooks ?? []).flatMap((webhook) => webhook.rules ?? []);
}

/** Why a bound policy needs a kind the job does not list by itself: as a paramKind, or in its inventory. */
interface DeclaredUse {
  /** `the paramKind of max-replicas`, `an inventory kind of unique-ingress-host`. */
  what: string;
  /** What those policies meet at the edge when the kind is unknown. */
  meet: string;
  /** The middle of the ClusterRole's name: `params`, `inventory`. */
  role: string;
}

const paramUse = (policies: readonly string[]): DeclaredUse => ({ what: `the paramKind of ${policies.join(", ")}`, meet: "paramKind not known", role: "params" });
const inventoryUse = (policies: readonly string[]): DeclaredUse => ({ what: `an inventory kind of ${policies.join(", ")}`, meet: "not in the snapshot", role: "inventory" });

/** One line saying what RBAC the sync job lacks for a kind a bound policy needs, and the commands that grant it. */
function grantLine(resource: string, group: string, use: DeclaredUse, serviceAccount: string): string {
  const qualifiedName = group ? `${resource}.${group}` : resource;
  const role = `${serviceAccount}-${use.role}-${resource}`;
  return (
    `the sync job may not list ${qualifiedName}, ${use.what}: those policies meet "${use.meet}" at the edge and their failurePolicy decides; grant it with ` +
    `kubectl create clusterrole ${role} --verb=get,list --resource=${qualifiedName} && ` +
    `kubectl create clusterrolebinding ${role} --clusterrole=${role} --serviceaccount=${JOB_NAMESPACE}:${serviceAccount}`
  );
}

/** One line saying what RBAC the sync job lacks for a paramKind, and the commands that grant it. */
export function paramKindGrant(resource: string, group: string, policies: readonly string[], serviceAccount: string): string {
  return grantLine(resource, group, paramUse(policies), serviceAccount);
}

/** One line saying what RBAC the sync job lacks for a kind a policy's inventory declares, and the commands that grant it. */
export function inventoryKindGrant(resource: string, group: string, policies: readonly string[], serviceAccount: string): string {
  return grantLine(resource, group, inventoryUse(policies), serviceAccount);
}

/** The objects of a kind a bound policy needs (found through discovery) and whether it is namespaced, or why they cannot be listed (a warning per use). */
async function listDeclared(
  apis: Apis,
  { apiVersion, kind }: { apiVersion: string; kind: string },
  uses: readonly DeclaredUse[],
  { pageSize, server, serviceAccount }: { pageSize: number; server: string; serviceAccount: string },
): Promise<{ objects: KubeObject[]; namespaced: boolean } | { warnings: string[] }> {
  const slash = apiVersion.indexOf("/");
  const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ["", apiVersion];
  let served;
  try {
    served = await apis.params.discover(apiVersion, kind);
  } catch (e) {
    // Discovery of a group nobody serves answers 404: the kind is not known, as the apiserver would find.
    if (!(e instanceof ApiException && e.code === 404)) throw requestFailure(e, "discover", apiVersion, server);
  }
  if (!served) return { warnings: uses.map((use) => `the API server serves no ${kind} in ${apiVersion}, ${use.what}: those policies meet "${use.meet}" at the edge`) };
  const resource: ListedResource = {
    group,
    version,
    resource: served.name,
    kind,
    list: ({ params }, page) => params.list(apiVersion, kind, undefined, undefined, undefined, undefined, undefined, undefined, page.limit, page._continue),
  };
  try {
    return { objects: await listAll(apis, resource, pageSize, server), namespaced: served.namespaced };
  } catch (e) {
    if (e instanceof CliError && e.message.startsWith("RBAC forbids")) return { warnings: uses.map((use) => grantLine(served.name, group, use, serviceAccount)) };
    throw e;
  }
}

/** One resource to list page by page: what its items are, how messages name it, and the request for one page. */
export interface PagedList {
  apiVersion: string;
  kind: string;
  /** As RBAC names it: `deployments.apps`. */
  name: string;
  page(request: PageRequest): Promise<unknown>;
}

export interface PageOptions {
  pageSize: number;
  server: string;
  labelSelector?: string;
  /** A 410 Gone restarted the list: the pages handed on so far are to be forgotten. */
  onRestart?: () => void;
  /** A 404 (no CRD installed) ends the list as not served instead of failing. */
  skipNotServed?: boolean;
  /** Who installs the CRD, for the message when the API server does not serve it. */
  crd?: { name: string; from: string };
}

/**
 * Every object of `list`, handed to `onPage` one page at a time, each item
 * with its apiVersion and kind back, as `kubectl get -o yaml` shows them.
 * False when the resource is not served and `skipNotServed` says so.
 */
export async function forEachPage(list: PagedList, options: PageOptions, onPage: (objects: KubeObject[]) => void): Promise<boolean> {
  let token: string | undefined;
  let restarted = false;
  for (;;) {
    let response: unknown;
    try {
      response = await list.page({ limit: options.pageSize, ...(token ? { _continue: token } : {}), ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}) });
    } catch (e) {
      if (options.skipNotServed && e instanceof ApiException && e.code === 404) return false;
      // 410 Gone: the continue token outlived etcd's compaction (about 5 minutes). The pages
      // read so far are from an older revision, so start over once for one consistent list.
      if (e instanceof ApiException && e.code === 410 && token && !restarted) {
        restarted = true;
        token = undefined;
        options.onRestart?.();
        continue;
      }
      throw requestFailure(e, "list", `${list.name} (all namespaces)`, options.server, options.crd);
    }
    // Back to the wire shape: the typed client turns timestamps into Dates and drops apiVersion/kind from items.
    const page = pageSchema.safeParse(JSON.parse(JSON.stringify(response)));
    if (!page.success) throw new CliError(`list ${list.name}: the API server's answer is not a list`);
    onPage((page.data.items ?? []).map((item) => ({ apiVersion: list.apiVersion, kind: list.kind, ...item })));
    token = page.data.metadata?.continue || page.data.metadata?._continue || undefined;
    if (!token) return true;
  }
}

async function listAll(apis: Apis, resource: ListedResource, pageSize: number, server: string): Promise<KubeObject[]> {
  const list: PagedList = {
    apiVersion: resource.group ? `${resource.group}/${resource.version}` : resource.version,
    kind: resource.kind,
    name: qualified(resource),
    page: (request) => resource.list(apis, request),
  };
  const crd = resource.crdFrom ? { name: `${qualified(resource)}/${resource.version}`, from: resource.crdFrom } : undefined;
  let objects: KubeObject[] = [];
  await forEachPage(list, { pageSize, server, onRestart: () => (objects = []), ...(crd ? { crd } : {}) }, (page) => objects.push(...page));
  return objects;
}

/** Every object a snapshot is built from, listed from the cluster the kubeconfig points at. */
export async function listClusterObjects(options: ClusterOptions = {}): Promise<ClusterObjects> {
  const config = loadKubeConfig(options.context);
  const apis: Apis = {
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    batch: config.makeApiClient(BatchV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
    admission: config.makeApiClient(AdmissionregistrationV1Api),
    params: config.makeApiClient(ParamKindApi),
  };
  const server = config.getCurrentCluster()!.server;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const namespace = options.settingsNamespace ?? JOB_NAMESPACE;
  const warnings: string[] = [];

  const settings = async (): Promise<KubeObject[]> => {
    try {
      const configMap = await apis.core.readNamespacedConfigMap({ name: SETTINGS_CONFIGMAP, namespace });
      return [{ apiVersion: "v1", kind: "ConfigMap", ...(JSON.parse(JSON.stringify(configMap)) as Record<string, unknown>) }];
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) {
        warnings.push(`no ConfigMap ${namespace}/${SETTINGS_CONFIGMAP}: the snapshot carries the default settings`);
        return [];
      }
      throw requestFailure(e, "get", `configmaps/${SETTINGS_CONFIGMAP} in namespace ${namespace}`, server);
    }
  };
  const lists = await Promise.all([...LISTED_RESOURCES.map((resource) => listAll(apis, resource, pageSize, server)), settings()]);
  const objects = lists.flat();
  // Then what the bound policies name, whatever kind that is: the objects of their paramKinds, and the
  // kinds their inventory declares (each listed once; a kind the job lists anyway is there already).
  const declared = new Map<string, { apiVersion: string; kind: string; params?: string[]; inventory?: string[] }>();
  for (const [key, { apiVersion, kind, policies }] of boundParamKinds(objects)) declared.set(key, { apiVersion, kind, params: policies });
  for (const [key, { apiVersion, kind, policies }] of boundInventoryKinds(objects)) {
    const groupOf = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
    const version = apiVersion.slice(apiVersion.indexOf("/") + 1);
    if (LISTED_RESOURCES.some((r) => r.group === groupOf && r.version === version && r.kind === kind)) continue;
    declared.set(key, { ...(declared.get(key) ?? { apiVersion, kind }), inventory: policies });
  }
  const unlistedParamKinds: string[] = [];
  const unlistedInventoryKinds: string[] = [];
  const namespacedKinds = new Map<string, boolean>();
  for (const [key, needed] of declared) {
    const uses = [...(needed.params ? [paramUse(needed.params)] : []), ...(needed.inventory ? [inventoryUse(needed.inventory)] : [])];
    const listed = await listDeclared(apis, needed, uses, { pageSize, server, serviceAccount: options.serviceAccount ?? "edgeadmit-sync" });
    if ("objects" in listed) {
      objects.push(...listed.objects);
      namespacedKinds.set(`${needed.apiVersion.includes("/") ? needed.apiVersion.slice(0, needed.apiVersion.indexOf("/")) : ""}/${needed.kind}`, listed.namespaced);
      continue;
    }
    if (needed.params) unlistedParamKinds.push(key);
    if (needed.inventory) unlistedInventoryKinds.push(key);
    warnings.push(...listed.warnings);
  }
  const webhookRules = options.readWebhook && objects.some((o) => o.kind === "EdgeAdmissionPolicyBinding") ? await readWebhookRules(apis, server, warnings) : undefined;
  return { objects, warnings, unlistedParamKinds, unlistedInventoryKinds, namespacedKinds, ...(webhookRules ? { webhookRules } : {}) };
}
