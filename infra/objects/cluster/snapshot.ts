// The live path of `edgeadmit snapshot build --from-cluster`, `edgeadmit
// sync` and the audit: lists, page by page, every kind the SnapshotBuilder
// consumes, through @kubernetes/client-node, in their wire shape (as `kubectl
// get -o json` shows them, with apiVersion and kind), so the YAML path and
// this one build from the same objects. Each page goes into the builder and
// is dropped: memory holds the snapshot's facts and the pages in flight, not
// the cluster's objects. `sync` holds less: the kinds whose objects grow with
// the cluster (applications, claims, workloads) are listed side by side in
// namespace order and made into units a namespace at a time
// (shared/snapshot/stream), so memory holds a few namespaces' facts, whatever
// the cluster's size. Failures become one line naming what failed.
// Named imports, so the CronJob's bundle keeps only these parts of client-node;
// the CLI imports this module lazily, so verbs that never talk to a cluster do not load it.
import { AdmissionregistrationV1Api, ApiException, AppsV1Api, BatchV1Api, CoreV1Api, VersionApi } from "@kubernetes/client-node";
import { kindOf, readsNamespaced, SETTINGS_CONFIGMAP, SnapshotBuilder, type BuildOptions, type BuildResult, type KubeObject } from "../../../shared/snapshot/builder/index.js";
import { boundNeeds } from "../../../shared/snapshot/builder/policies.js";
import { encodeSnapshot, type EncodedUnit, type Snapshot } from "../../../shared/snapshot/index.js";
import { NotInNamespaceOrder, UnitStream, type StreamedMeasures, type StreamLane } from "../../../shared/snapshot/stream/index.js";
import type { WrittenFeature } from "../../../shared/version/index.js";
import { JOB_NAMESPACE } from "../../base/job.js";
import type { WebhookRule } from "../../webhook/index.js";
import { inventoryUse, listDeclared, paramUse } from "./declared-kinds.js";
import { requestFailure } from "./failures.js";
import { loadKubeConfig } from "./kubeconfig.js";
import { readKubernetesVersion } from "./kubernetes-version.js";
import { LISTED_RESOURCES, type ListedResource, type TypedApis } from "./listed.js";
import { DEFAULT_PAGE_SIZE, forEachPage, ListExpired, pagedList, pagesOf, type PagedList, type PageOptions, type PageRequest } from "./paging.js";
import { apiVersionOf, qualified } from "./resource.js";
import { readWebhookRules } from "./webhook-rules.js";
import { WireApi } from "./wire-api.js";

/**
 * Lists running at once, or pages asked for ahead: the few large lists
 * overlap their round trips, and memory holds at most this many pages (one
 * more when sync's lists in namespace order wait on one not asked for ahead).
 */
const LIST_CONCURRENCY = 4;

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

export interface ClusterSnapshot {
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

/** What talks to the API server the kubeconfig points at. */
interface Clients {
  api: WireApi;
  typedApis: TypedApis;
  server: string;
}

function clientsOf(options: ClusterOptions): Clients {
  const config = loadKubeConfig(options.context);
  return {
    api: config.makeApiClient(WireApi),
    typedApis: {
      core: config.makeApiClient(CoreV1Api),
      apps: config.makeApiClient(AppsV1Api),
      batch: config.makeApiClient(BatchV1Api),
      admission: config.makeApiClient(AdmissionregistrationV1Api),
      version: config.makeApiClient(VersionApi),
    },
    server: config.getCurrentCluster()!.server,
  };
}

/**
 * `attempt`, and once more after a 410 Gone in any list: what was added
 * cannot be taken back, so the whole listing starts over, with a fresh
 * builder, and each kind is then one consistent list.
 */
async function restartingOnExpiry<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (e) {
    if (!(e instanceof ListExpired)) throw e;
    try {
      return await attempt();
    } catch (again) {
      throw again instanceof ListExpired ? again.failure : again;
    }
  }
}

/** The snapshot of the cluster the kubeconfig points at, built as the lists come in (see the module's comment). */
export async function buildFromCluster(options: ClusterOptions, build: BuildOptions): Promise<ClusterSnapshot> {
  const clients = clientsOf(options);
  return restartingOnExpiry(() => listAndBuild(clients, options, build));
}

/** Where streamFromCluster puts the units; cleared when the listing starts over. */
export interface UnitSink {
  add(unit: EncodedUnit): void;
  clear(): void;
}

/** A listing that made units: what the streamed fields hold, and the units still to make. */
interface Streamed {
  /**
   * What the streamed fields hold, for what leaves the cluster: the built
   * snapshot holds the rest of the cluster, without applications or claims.
   * Absent when the whole snapshot was built (`wholeBecause`).
   */
  streamed?: StreamedMeasures;
  /**
   * The cluster part and the indexes over every namespace into the units, as
   * a function that reads `features` stores them (UnitStream.finish): known
   * only once the function is asked, after the listing. A build refused for
   * what would leave the cluster makes none.
   */
  finish?: (features: ReadonlySet<WrittenFeature>) => Promise<void>;
}

export interface StreamedCluster extends ClusterSnapshot, Streamed {
  finish: NonNullable<Streamed["finish"]>;
  /** Why the units were made of the whole snapshot, built in memory: a list that was not in namespace order. */
  wholeBecause?: string;
}

/**
 * The units of the cluster's snapshot into `units`, each namespace's as soon
 * as it is made (see the module's comment), the rest at finish(): the same
 * bytes buildFromCluster's snapshot encodes to for the same release; the
 * webhook rules read travel in the cluster part. A list out of namespace
 * order (no API server lists so) makes it list everything again and build
 * the whole snapshot in memory.
 */
export async function streamFromCluster(options: ClusterOptions, build: BuildOptions, units: UnitSink): Promise<StreamedCluster> {
  const clients = clientsOf(options);
  try {
    const listed = await restartingOnExpiry(() => {
      units.clear();
      return listAndBuild(clients, options, build, units);
    });
    return { ...listed, finish: listed.finish ?? (async () => {}) };
  } catch (e) {
    if (!(e instanceof NotInNamespaceOrder)) throw e;
    units.clear();
    const whole = await restartingOnExpiry(() => listAndBuild(clients, options, build));
    const finish = async (features: ReadonlySet<WrittenFeature>) => {
      if (whole.built.refused.length === 0) for (const unit of (await encodeSnapshot(withRules(whole.built.snapshot, whole.webhookRules), features)).units) units.add(unit);
    };
    return { ...whole, wholeBecause: e.message, finish };
  }
}

/** The snapshot with the rules of the function's webhook configuration, when they were read: pushed with it. */
export const withRules = (snapshot: Snapshot, webhookRules: WebhookRule[] | undefined): Snapshot => (webhookRules ? { ...snapshot, webhookRules } : snapshot);

/**
 * One pass: first the policies and their bindings, so what the bound ones
 * need (their paramKinds, the kinds their inventory declares, the
 * Namespaces) is known before any of it is listed; then the other kinds and
 * the settings, LIST_CONCURRENCY lists at once, each through its own lane of
 * the builder (its problems read in LISTED_RESOURCES order, as if listed one
 * after another); then the declared kinds the job does not list by itself,
 * found through discovery. Given `units`, the kinds that stream
 * (readsNamespaced) are left out of that, and listed last, side by side in
 * namespace order, into a UnitStream over the rest; their problems follow
 * the rest's.
 */
async function listAndBuild({ api, typedApis, server }: Clients, options: ClusterOptions, build: BuildOptions, units?: UnitSink): Promise<ClusterSnapshot & Streamed> {
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

  /**
   * A list of `resource` into its lane of the builder; objects of a declared
   * kind also kept for the policies or the inventory. When streaming, a kind
   * that streams gets no lane here: its facts come from the stream.
   */
  const listInto = (list: PagedList, pageOptions: PageOptions, also?: (object: KubeObject) => void) => {
    const lane = units && readsNamespaced(kindOf({ apiVersion: list.apiVersion, kind: list.kind }).group, list.kind) ? undefined : builder.lane();
    const key = `${list.apiVersion}/${list.kind}`;
    const param = needs?.paramKinds.has(key) ?? false;
    const inventory = needs?.inventoryKinds.has(key) ?? false;
    return async (stopped: () => boolean = () => false) =>
      forEachPage(list, pageOptions, (objects) => {
        if (stopped()) throw new Stopped();
        for (const object of objects) {
          lane?.add(object);
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
    await listInto(list, pageOptions, (object) => policyObjects.push(object))();
  }
  needs = boundNeeds(policyObjects);

  // 2. Everything else the job lists, and the settings. When streaming, a kind that streams only when a bound
  // policy declares it (its params, its inventory): the objects are kept for the policies, and the kind is
  // listed again in step 4, in namespace order, for its facts.
  const streamed = units ? LISTED_RESOURCES.filter((resource) => readsNamespaced(resource.group, resource.kind)) : [];
  const tasks: Array<(stopped: () => boolean) => Promise<unknown>> = LISTED_RESOURCES.filter((resource) => !POLICY_KINDS.has(groupKindOf(resource))).flatMap((resource) => {
    const { list, options: pageOptions } = listed(resource);
    const key = `${list.apiVersion}/${list.kind}`;
    return !streamed.includes(resource) || needs!.paramKinds.has(key) || needs!.inventoryKinds.has(key) ? [listInto(list, pageOptions)] : [];
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
  const result = { built, warnings, ...(webhookRules ? { webhookRules } : {}) };
  if (!units || built.refused.length > 0) return result;

  // 4. The kinds that stream, into units of the rest.
  const stream = new UnitStream(withRules(built.snapshot, webhookRules), builder.pinnedVolumes, (unit) => units.add(unit));
  await listInNamespaceOrder(
    stream,
    streamed.map((resource) => listed(resource)),
  );
  const { measures, problems } = await stream.settle();
  built.problems.push(...problems);
  return { ...result, streamed: measures, finish: (features) => stream.finish(features) };
}

/**
 * Lists side by side into `stream`, a page at a time, always a page of the
 * list furthest behind in namespace order, which the stream waits on to hand
 * on a namespace; the next pages of the lists least far along are asked for
 * ahead, LIST_CONCURRENCY pages asked for or waiting at most.
 */
async function listInNamespaceOrder(stream: UnitStream, lists: ReadonlyArray<{ list: PagedList; options: PageOptions }>): Promise<void> {
  interface Source {
    pages: AsyncGenerator<KubeObject[], boolean>;
    /** The page asked for and not yet taken. */
    next?: Promise<IteratorResult<KubeObject[], boolean>>;
  }
  const sources = new Map<StreamLane, Source>(lists.map(({ list, options }) => [stream.lane(), { pages: pagesOf(list, options) }]));
  const ask = (source: Source) => {
    if (!source.next) {
      source.next = source.pages.next();
      // Awaited when its list is taken; a failure after another one has ended the listing is not a second failure.
      source.next.catch(() => {});
    }
    return source.next;
  };
  for (;;) {
    const behind = stream.behind();
    if (behind.length === 0) return;
    let asked = [...sources.values()].filter((source) => source.next).length;
    for (const lane of behind) {
      const source = sources.get(lane)!;
      if (source.next) continue;
      if (asked >= LIST_CONCURRENCY) break;
      ask(source);
      asked++;
    }
    const lane = behind[0]!;
    const source = sources.get(lane)!;
    const page = await ask(source);
    delete source.next;
    if (page.done) lane.end();
    else for (const object of page.value) lane.add(object);
    await stream.flush();
  }
}
