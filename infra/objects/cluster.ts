// The live path of `edgeadmit snapshot build --from-cluster`, `edgeadmit
// sync` and the audit: lists, page by page, every kind the SnapshotBuilder
// consumes, through @kubernetes/client-node, in their wire shape (as `kubectl
// get -o json` shows them, with apiVersion and kind), so the YAML path and
// this one build from the same objects. Each page goes into the builder and
// is dropped: memory holds the snapshot's facts and the pages in flight, not
// the cluster. Failures become one line naming what failed.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
// Named imports, so the CronJob's bundle keeps only these parts of client-node;
// the CLI imports this module lazily, so verbs that never talk to a cluster do not load it.
import { AdmissionregistrationV1Api, ApiException, AppsV1Api, BatchV1Api, CoreV1Api, HttpMethod, KubeConfig, KubernetesObjectApi, VersionApi, type KubernetesObject, type ResponseContext } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../../shared/zod/index.js";
import { SETTINGS_CONFIGMAP, SnapshotBuilder, type BuildOptions, type BuildResult, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { boundNeeds } from "../../shared/snapshot/builder/policies.js";
import { DEFAULT_VERSION, parseVersion, versionText } from "../../shared/cel/kubernetes/environment.js";
import { CliError, firstLine } from "../base/errors.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { WEBHOOK_CONFIGURATION_NAME, type WebhookRule } from "../webhook/index.js";
/** Objects per list request, as kubectl asks; the server may return fewer and a continue token. */
export const DEFAULT_PAGE_SIZE = 500;
/**
 * Lists running at once: the few large ones (HelmReleases, claims, volumes)
 * overlap their round trips, and memory holds at most this many pages.
 */
const LIST_CONCURRENCY = 4;

/** The answer type WireApi reads as sent. */
const WIRE = "wire";

/**
 * The API server through client-node's own request path (kubeconfig
 * credentials, TLS, failures as ApiException), answered as the JSON it sent:
 * no typed model in between, which would turn timestamps into Dates, drop
 * fields it does not know and cost a copy of every page.
 */
export class WireApi extends KubernetesObjectApi {
  /** The resource the API server serves `kind` as (plural name, scope), or undefined when it serves no such kind. */
  discover(apiVersion: string, kind: string) {
    return this.resource(apiVersion, kind);
  }

  /** GET `path` (`/api/v1/…`, `/apis/<group>/<version>/…`) with the query parameters that are set, as parsed JSON. */
  get(path: string, query: Record<string, string | number | undefined> = {}): Promise<unknown> {
    const request = this.configuration.baseServer.makeRequestContext(path, HttpMethod.GET);
    request.setHeaderParam("Accept", "application/json");
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") request.setQueryParam(name, String(value));
    return this.requestPromise<KubernetesObject>(request, WIRE);
  }

  // client-node's own reading makes a KubernetesObject of any answer with a kind, whose
  // metadata is an object's: a list's continue token would be lost. The body is taken as sent.
  protected override async processResponse<T extends KubernetesObject>(response: ResponseContext, type?: string): Promise<T> {
    if (type !== WIRE) return super.processResponse<T>(response, type);
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) throw new ApiException(response.httpStatusCode, "Unsuccessful HTTP Request", await response.getBodyAsAny(), response.headers);
    return JSON.parse(await response.body.text()) as T;
  }
}

interface PageRequest {
  limit: number;
  _continue?: string;
  labelSelector?: string;
}

/** One page in wire shape: items and the token for the next page. */
const pageSchema = z.looseObject({
  items: z.nullable(z.array(z.looseObject({}))),
  metadata: z.optional(z.nullable(z.looseObject({ continue: z.optional(z.string()), _continue: z.optional(z.string()) }))),
});

/** A kind the API server serves, as its URLs and RBAC name it. */
export interface ServedResource {
  group: string;
  version: string;
  /** The plural resource, as RBAC rules and URLs name it. */
  resource: string;
  kind: string;
}

/** client-node's typed calls: see ListedResource.typed. */
interface TypedApis {
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  admission: AdmissionregistrationV1Api;
  version: VersionApi;
}

interface ListedResource extends ServedResource {
  /** Who installs the CRD, for the message when the API server does not serve it; absent for built-in kinds. */
  crdFrom?: string;
  /**
   * A built-in kind's typed list call, its answer turned back into wire
   * shape: how these kinds were always read, kept so the objects they yield
   * stay exactly what they were (a typed model re-dates timestamps, drops
   * fields it does not know and reads a malformed list as one of empty
   * items). Read raw, through WireApi, they would cost a copy less per page.
   */
  typed?: (apis: TypedApis, page: PageRequest) => Promise<unknown>;
}

/** A resource's apiVersion: the version alone for the core group. */
export const apiVersionOf = ({ group, version }: { group: string; version: string }) => (group ? `${group}/${version}` : version);
/** The URL path of a kind's objects in every namespace (or of a cluster-scoped kind). */
const pathOf = (resource: ServedResource) => `${resource.group ? `/apis/${resource.group}` : "/api"}/${resource.version}/${resource.resource}`;

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
  { group: "cozystack.io", version: "v1alpha1", resource: "affinityclasses", kind: "AffinityClass", crdFrom: "kubectl apply -k infra/k8s installs it" },
  { group: "apps.cozystack.io", version: "v1alpha1", resource: "tenants", kind: "Tenant", crdFrom: "CozyStack installs it" },
  { group: "helm.toolkit.fluxcd.io", version: "v2", resource: "helmreleases", kind: "HelmRelease", crdFrom: "Flux's helm-controller installs it" },
  { group: "", version: "v1", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", typed: ({ core }, page) => core.listPersistentVolumeClaimForAllNamespaces(page) },
  { group: "", version: "v1", resource: "persistentvolumes", kind: "PersistentVolume", typed: ({ core }, page) => core.listPersistentVolume(page) },
  { group: "", version: "v1", resource: "nodes", kind: "Node", typed: ({ core }, page) => core.listNode(page) },
  { group: "", version: "v1", resource: "replicationcontrollers", kind: "ReplicationController", typed: ({ core }, page) => core.listReplicationControllerForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "deployments", kind: "Deployment", typed: ({ apps }, page) => apps.listDeploymentForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "statefulsets", kind: "StatefulSet", typed: ({ apps }, page) => apps.listStatefulSetForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", typed: ({ apps }, page) => apps.listDaemonSetForAllNamespaces(page) },
  { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", typed: ({ apps }, page) => apps.listReplicaSetForAllNamespaces(page) },
  { group: "batch", version: "v1", resource: "jobs", kind: "Job", typed: ({ batch }, page) => batch.listJobForAllNamespaces(page) },
  { group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob", typed: ({ batch }, page) => batch.listCronJobForAllNamespaces(page) },
  // The cluster's own policies bound at the edge (shared/vap), and the namespaces their selectors and namespaceObject read.
  { group: "admissionregistration.k8s.io", version: "v1", resource: "validatingadmissionpolicies", kind: "ValidatingAdmissionPolicy", typed: ({ admission }, page) => admission.listValidatingAdmissionPolicy(page) },
  { group: "edgeadmit.io", version: "v1alpha1", resource: "edgeadmissionpolicybindings", kind: "EdgeAdmissionPolicyBinding", crdFrom: "kubectl apply -k infra/k8s installs it" },
  // Objects exempt from named policies (shared/exceptions).
  { group: "edgeadmit.io", version: "v1alpha1", resource: "edgeadmissionexceptions", kind: "EdgeAdmissionException", crdFrom: "kubectl apply -k infra/k8s installs it" },
  { group: "", version: "v1", resource: "namespaces", kind: "Namespace", typed: ({ core }, page) => core.listNamespace(page) },
];

export interface ClusterOptions {
  /** A kubeconfig context other than the current one. */
  context?: string;
  /** Where the settings ConfigMap lives: the job's namespace. */
  settingsNamespace?: string;
  /** Read the function's ValidatingWebhookConfiguration too (sync, snapshot build): pushed as the snapshot's webhookRules, and checked against what bound policies match. */
  readWebhook?: boolean;
  /** The ServiceAccount that lists (in the job's namespace): the one a missing paramKind grant names. */
  serviceAccount?: string;
  pageSize?: number;
}

interface ClusterSnapshot {
  /**
   * The build: a paramKind or inventory kind of a bound policy that could not
   * be listed is left out of the snapshot, never empty, so its policies meet
   * "paramKind not known" or "not in the snapshot" and their failurePolicy decides.
   */
  built: BuildResult;
  /** Not failures: e.g. no settings ConfigMap, so the defaults apply. */
  warnings: string[];
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

/**
 * Why a request got no answer: the system error's code (ECONNREFUSED, ENOTFOUND,
 * …), else the innermost message. client-node 2 requests through fetch, whose
 * TypeError says only "fetch failed" and carries the socket's error as its
 * `cause`; a few levels at most, so a looping cause cannot hang the CLI.
 */
function networkReason(e: unknown): string {
  let message = String(e);
  for (let error = e, depth = 0; typeof error === "object" && error !== null && depth < 4; error = (error as { cause?: unknown }).cause, depth++) {
    const { code, message: own } = error as { code?: unknown; message?: unknown };
    if (typeof code === "string") return code;
    if (typeof own === "string") message = own;
  }
  return firstLine(message);
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
  return new CliError(`cannot reach the API server at ${server}: ${networkReason(e)}`);
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
async function readWebhookRules(api: WireApi, server: string, warnings: string[]): Promise<WebhookRule[] | undefined> {
  const name = WEBHOOK_CONFIGURATION_NAME;
  let response: unknown;
  try {
    response = await api.get(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`);
  } catch (e) {
    if (e instanceof ApiException && e.code === 404) {
      warnings.push(`no ValidatingWebhookConfiguration ${name}: the apiserver sends the function nothing, so no policy is enforced at the edge and the function's coverage stays unknown (edgeadmit webhook-config renders it)`);
      return undefined;
    }
    if (e instanceof ApiException && e.code === 403) {
      warnings.push(`RBAC forbids reading ValidatingWebhookConfiguration ${name}: cannot check that it sends what the policies bound at the edge match, and the function's coverage stays unknown (infra/k8s/rbac.yaml grants it)`);
      return undefined;
    }
    throw requestFailure(e, "get", `validatingwebhookconfigurations/${name}`, server);
  }
  const parsed = webhookSchema.safeParse(response);
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

/**
 * A kind a bound policy needs, found through discovery and handed to `list`
 * with whether it is namespaced; or why it cannot be listed, a warning per
 * use: the API server serves no such kind, or RBAC forbids listing it.
 */
async function listDeclared(
  api: WireApi,
  { apiVersion, kind }: { apiVersion: string; kind: string },
  uses: readonly DeclaredUse[],
  { pageSize, server, serviceAccount }: { pageSize: number; server: string; serviceAccount: string },
  list: (resource: ServedResource, namespaced: boolean, options: PageOptions) => Promise<void>,
): Promise<string[] | undefined> {
  const slash = apiVersion.indexOf("/");
  const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ["", apiVersion];
  let served;
  try {
    served = await api.discover(apiVersion, kind);
  } catch (e) {
    // Discovery of a group nobody serves answers 404: the kind is not known, as the apiserver would find.
    if (!(e instanceof ApiException && e.code === 404)) throw requestFailure(e, "discover", apiVersion, server);
  }
  if (!served) return uses.map((use) => `the API server serves no ${kind} in ${apiVersion}, ${use.what}: those policies meet "${use.meet}" at the edge`);
  try {
    await list({ group, version, resource: served.name, kind }, served.namespaced, { pageSize, server });
    return undefined;
  } catch (e) {
    if (e instanceof CliError && e.message.startsWith("RBAC forbids")) return uses.map((use) => grantLine(served.name, group, use, serviceAccount));
    throw e;
  }
}

/** One resource to list page by page: what its items are, how messages name it, and the request for one page (answered in wire shape). */
interface PagedList {
  apiVersion: string;
  kind: string;
  /** As RBAC names it: `deployments.apps`. */
  name: string;
  page(request: PageRequest): Promise<unknown>;
}

/** The list of every object of `resource`, through `api`. */
export function pagedList(api: WireApi, resource: ServedResource): PagedList {
  const path = pathOf(resource);
  return {
    apiVersion: apiVersionOf(resource),
    kind: resource.kind,
    name: qualified(resource),
    page: ({ limit, _continue, labelSelector }) => api.get(path, { limit, continue: _continue, labelSelector }),
  };
}

export interface PageOptions {
  pageSize: number;
  server: string;
  labelSelector?: string;
  /**
   * A 410 Gone restarted the list: the pages handed on so far are to be
   * forgotten. Without it, a 410 ends the list with ListExpired, for a
   * caller that must start over more than this one list.
   */
  onRestart?: () => void;
  /** A 404 (no CRD installed) ends the list as not served instead of failing. */
  skipNotServed?: boolean;
  /** Who installs the CRD, for the message when the API server does not serve it. */
  crd?: { name: string; from: string };
}

/**
 * 410 Gone in the middle of a list: the continue token outlived etcd's
 * compaction (about 5 minutes), so the pages read so far are from an older
 * revision than the rest would be. `failure` is the message if starting over fails too.
 */
class ListExpired extends Error {
  constructor(readonly failure: CliError) {
    super(failure.message);
    this.name = "ListExpired";
  }
}

/**
 * Every object of `list`, handed to `onPage` one page at a time, each item
 * with its apiVersion and kind, as `kubectl get -o yaml` shows them; a page
 * is not kept once handed on. False when the resource is not served and
 * `skipNotServed` says so. An exception from `onPage` ends the list.
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
      const failure = requestFailure(e, "list", `${list.name} (all namespaces)`, options.server, options.crd);
      if (e instanceof ApiException && e.code === 410 && token) {
        if (!options.onRestart) throw new ListExpired(failure);
        // Start over once, for one consistent list.
        if (!restarted) {
          restarted = true;
          token = undefined;
          options.onRestart();
          continue;
        }
      }
      throw failure;
    }
    const page = pageSchema.safeParse(response);
    if (!page.success) throw new CliError(`list ${list.name}: the API server's answer is not a list`);
    onPage((page.data.items ?? []).map((item) => ({ apiVersion: list.apiVersion, kind: list.kind, ...item })));
    token = page.data.metadata?.continue || page.data.metadata?._continue || undefined;
    if (!token) return true;
  }
}

/**
 * Runs `tasks`, at most `concurrency` at once. After a failure it starts no
 * more, and `stopped()` tells those running to end (their next page throws);
 * once they have, the first failure is thrown.
 */
async function inParallel(tasks: ReadonlyArray<(stopped: () => boolean) => Promise<unknown>>, concurrency: number): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined;
  const worker = async () => {
    while (next < tasks.length && !failure) {
      const task = tasks[next++]!;
      try {
        await task(stopped);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  if (failure) throw failure.error;
}

/** Thrown into a list whose fellow list failed: never seen, the first failure is. */
class Stopped extends Error {}

/** Listed first, in this order, before any kind they may name. */
const POLICY_KINDS = new Set(["edgeadmit.io/EdgeAdmissionPolicyBinding", "admissionregistration.k8s.io/ValidatingAdmissionPolicy"]);
const groupKindOf = (resource: { group: string; kind: string }) => `${resource.group}/${resource.kind}`;

/**
 * The snapshot of the cluster the kubeconfig points at, built as the lists
 * come in (see the module's comment). A 410 Gone in any list starts the
 * whole listing over once, with a fresh builder: what was added cannot be
 * taken back, and each kind is then one consistent list.
 */
export async function buildFromCluster(options: ClusterOptions, build: BuildOptions): Promise<ClusterSnapshot> {
  const config = loadKubeConfig(options.context);
  const api = config.makeApiClient(WireApi);
  const typedApis: TypedApis = {
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    batch: config.makeApiClient(BatchV1Api),
    admission: config.makeApiClient(AdmissionregistrationV1Api),
    version: config.makeApiClient(VersionApi),
  };
  const server = config.getCurrentCluster()!.server;
  try {
    return await listAndBuild(api, typedApis, server, options, build);
  } catch (e) {
    if (!(e instanceof ListExpired)) throw e;
    try {
      return await listAndBuild(api, typedApis, server, options, build);
    } catch (again) {
      throw again instanceof ListExpired ? again.failure : again;
    }
  }
}

/**
 * The cluster's Kubernetes version as /version reports it ("1.33"; a
 * provider's minor "33+" is 33): the CEL environment its policies compile
 * with at the edge. A server that does not say is a warning, and the
 * snapshot then carries no version (the function uses DEFAULT_VERSION).
 */
async function readKubernetesVersion(api: VersionApi, server: string, warnings: string[]): Promise<string | undefined> {
  const fallback = `the snapshot carries no Kubernetes version, so policies compile with Kubernetes ${versionText(DEFAULT_VERSION)}'s CEL environment`;
  let info: { major?: unknown; minor?: unknown; gitVersion?: unknown };
  try {
    info = await api.getCode();
  } catch (e) {
    if (!(e instanceof ApiException)) throw requestFailure(e, "get", "/version", server);
    warnings.push(`GET /version answered ${e.code}: ${fallback}`);
    return undefined;
  }
  const parsed = parseVersion(`${String(info.major)}.${String(info.minor)}`) ?? (typeof info.gitVersion === "string" ? parseVersion(info.gitVersion) : undefined);
  if (parsed === undefined) {
    warnings.push(`/version names no major.minor (major ${JSON.stringify(info.major)}, minor ${JSON.stringify(info.minor)}): ${fallback}`);
    return undefined;
  }
  return versionText(parsed);
}

/**
 * One pass: first the policies and their bindings, so what the bound ones
 * need (their paramKinds, the kinds their inventory declares, the
 * Namespaces) is known before any of it is listed; then the other kinds and
 * the settings, LIST_CONCURRENCY lists at once, each through its own lane of
 * the builder (its problems read in LISTED_RESOURCES order, as if listed one
 * after another); then the declared kinds the job does not list by itself,
 * found through discovery.
 */
async function listAndBuild(api: WireApi, typedApis: TypedApis, server: string, options: ClusterOptions, build: BuildOptions): Promise<ClusterSnapshot> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const namespace = options.settingsNamespace ?? JOB_NAMESPACE;
  const warnings: string[] = [];
  const kubernetesVersion = await readKubernetesVersion(typedApis.version, server, warnings);
  const namespacedKinds = new Map<string, boolean>();
  const policyObjects: KubeObject[] = [];
  let needs: ReturnType<typeof boundNeeds> | undefined;
  const builder = new SnapshotBuilder({
    ...build,
    ...(kubernetesVersion !== undefined ? { kubernetesVersion } : {}),
    // Read at build(): filled as discovery answers.
    namespacedKinds,
    // Kept for the policies: the policies and bindings; Namespaces only when some policy is bound (else the snapshot carries none).
    // A paramKind's objects are kept through keep(), whatever their kind.
    retain: (object) => {
      const apiVersion = String(object.apiVersion);
      if (needs?.paramKinds.has(`${apiVersion}/${String(object.kind)}`)) return false;
      const groupKind = `${apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : ""}/${String(object.kind)}`;
      return POLICY_KINDS.has(groupKind) || (groupKind === "/Namespace" && (needs?.policies.length ?? 0) > 0);
    },
  });

  /** A list of `resource` into its lane; objects of a declared kind also kept for the policies or the inventory. */
  const listInto = (list: PagedList, pageOptions: PageOptions, lane = builder.lane(), also?: (object: KubeObject) => void) => {
    const key = `${list.apiVersion}/${list.kind}`;
    const param = needs?.paramKinds.has(key) ?? false;
    const inventory = needs?.inventoryKinds.has(key) ?? false;
    return async (stopped: () => boolean = () => false) =>
      forEachPage(list, pageOptions, (objects) => {
        if (stopped()) throw new Stopped();
        for (const object of objects) {
          lane.add(object);
          if (param) builder.keep(object);
          if (inventory) builder.addInventory(object);
          also?.(object);
        }
      });
  };
  const listed = (resource: ListedResource) => {
    const crd = resource.crdFrom ? { name: `${qualified(resource)}/${resource.version}`, from: resource.crdFrom } : undefined;
    const { typed } = resource;
    const raw = pagedList(api, resource);
    // Back to the wire shape: the typed client turns timestamps into Dates and drops apiVersion/kind from items.
    const list = typed ? { ...raw, page: async (request: PageRequest) => JSON.parse(JSON.stringify(await typed(typedApis, request))) as unknown } : raw;
    return { list, options: { pageSize, server, ...(crd ? { crd } : {}) } };
  };

  // 1. The bindings, then the policies: what the bound ones need.
  for (const groupKind of POLICY_KINDS) {
    const { list, options: pageOptions } = listed(LISTED_RESOURCES.find((resource) => groupKindOf(resource) === groupKind)!);
    await listInto(list, pageOptions, builder.lane(), (object) => policyObjects.push(object))();
  }
  needs = boundNeeds(policyObjects);

  // 2. Everything else the job lists, and the settings.
  const tasks: Array<(stopped: () => boolean) => Promise<unknown>> = LISTED_RESOURCES.filter((resource) => !POLICY_KINDS.has(groupKindOf(resource))).map((resource) => {
    const { list, options: pageOptions } = listed(resource);
    return listInto(list, pageOptions);
  });
  const settingsLane = builder.lane();
  tasks.push(async () => {
    try {
      const configMap = await api.get(`/api/v1/namespaces/${namespace}/configmaps/${SETTINGS_CONFIGMAP}`);
      settingsLane.add({ apiVersion: "v1", kind: "ConfigMap", ...(configMap as Record<string, unknown>) });
    } catch (e) {
      if (!(e instanceof ApiException && e.code === 404)) throw requestFailure(e, "get", `configmaps/${SETTINGS_CONFIGMAP} in namespace ${namespace}`, server);
      warnings.push(`no ConfigMap ${namespace}/${SETTINGS_CONFIGMAP}: the snapshot carries the default settings`);
    }
  });
  await inParallel(tasks, LIST_CONCURRENCY);

  // 3. What the bound policies name that the job does not list anyway, whatever kind that is:
  // the objects of their paramKinds and the kinds their inventory declares, each listed once.
  const declared = new Map<string, { apiVersion: string; kind: string; params?: string[]; inventory?: string[] }>();
  for (const [key, { apiVersion, kind, policies: names }] of needs.paramKinds) declared.set(key, { apiVersion, kind, params: names });
  for (const [key, { apiVersion, kind, policies: names }] of needs.inventoryKinds) declared.set(key, { ...(declared.get(key) ?? { apiVersion, kind }), inventory: names });
  const unlistedParamKinds: string[] = [];
  const unlistedInventoryKinds: string[] = [];
  for (const [key, needed] of declared) {
    if (LISTED_RESOURCES.some((resource) => `${apiVersionOf(resource)}/${resource.kind}` === key)) continue;
    const uses = [...(needed.params ? [paramUse(needed.params)] : []), ...(needed.inventory ? [inventoryUse(needed.inventory)] : [])];
    const problem = await listDeclared(api, needed, uses, { pageSize, server, serviceAccount: options.serviceAccount ?? "edgeadmit-sync" }, async (resource, namespaced, pageOptions) => {
      await listInto(pagedList(api, resource), pageOptions)();
      namespacedKinds.set(groupKindOf(resource), namespaced);
    });
    if (problem === undefined) continue;
    if (needed.params) unlistedParamKinds.push(key);
    if (needed.inventory) unlistedInventoryKinds.push(key);
    warnings.push(...problem);
  }
  // Read on every sync, not only when the cluster binds policies of its own: the function's coverage of
  // fleet policies (GET /v1/registry/coverage, fleet status) is known only for clusters whose rules it got.
  const webhookRules = options.readWebhook ? await readWebhookRules(api, server, warnings) : undefined;
  const built = builder.build();
  for (const key of unlistedParamKinds) delete built.snapshot.policyParams[key];
  for (const key of unlistedInventoryKinds) delete built.snapshot.inventory[key];
  return { built, warnings, ...(webhookRules ? { webhookRules } : {}) };
}
