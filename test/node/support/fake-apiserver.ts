// A Kubernetes API server for tests: answers the list and get requests the
// live path makes, with real-shaped JSON (typed lists whose items carry no
// apiVersion/kind, in the order of their storage keys, `limit`/`continue`
// paging, Status bodies for 403, the plain-text 404 of an API group nobody
// serves), and a kubeconfig for it.
// Resources given in `resources` are also served by name and written to
// (POST, PUT with resourceVersion checks, DELETE), as the audit writes its
// PolicyReports; the objects live in `objects`, which tests may change between runs.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { KubeObject } from "../../../shared/snapshot/builder/index.js";
import { LISTED_RESOURCES } from "../../../infra/objects/cluster/listed.js";

const CLUSTER_SCOPED_RESOURCES = new Set(["nodes", "persistentvolumes", "namespaces", "validatingadmissionpolicies", "affinityclasses", "edgeadmissionpolicybindings", "edgeadmissionexceptions"]);

export interface FakeApiServerOptions {
  /** Most objects per page, fewer when `limit` asks fewer (the real server may also return fewer than asked). */
  pageSize?: number;
  /** `resource.group` (as RBAC names it) the token may not list. */
  forbidden?: string[];
  /** API groups with no CRD installed. */
  missingGroups?: string[];
  /** Answer the first request carrying a continue token with 410 Gone, as after etcd compacted its revision. */
  expireFirstContinue?: boolean;
  /** Served besides LISTED_RESOURCES: listed, and read, created, replaced and deleted by name. */
  resources?: readonly ServedResource[];
  /** `namespace/name` (or `name` when cluster-scoped) whose first PUT answers 409 Conflict, as when another writer got there first. */
  conflictOnce?: string[];
  /** What GET /version answers (default major "1", minor "33"), or its status code when it fails. */
  kubernetesVersion?: { major: string; minor: string } | number;
  /** Lists served in the order of `objects`, not of their storage keys, as no Kubernetes API server serves them. */
  unordered?: boolean;
  /**
   * Kinds (`<apiVersion>/<kind>`) listed from a generator instead of
   * `objects`, already in storage key order: a cluster too large to hold
   * (the bench's million applications).
   */
  generated?: ReadonlyMap<string, GeneratedList>;
}

/** The objects of one kind, made when a page asks for them: how many there are, and the one at each place in storage key order. */
export interface GeneratedList {
  length: number;
  at(index: number): KubeObject;
}

/**
 * The API server lists a kind in the order of its storage keys,
 * `<namespace>/<name>` (or `<name>`), compared byte by byte: one etcd range
 * read continued after the last key (k8s.io/apiserver
 * pkg/storage/etcd3/store.go, GetList), or the watch cache's B-tree of the
 * same keys (pkg/storage/cacher/store_btree.go, ListPrefix).
 */
function byStorageKey(a: KubeObject, b: KubeObject): number {
  const key = (object: KubeObject) => {
    const { namespace, name } = metadataOf(object);
    return Buffer.from(namespace ? `${namespace}/${name ?? ""}` : (name ?? ""));
  };
  return Buffer.compare(key(a), key(b));
}

export interface ServedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface FakeApiServer {
  url: string;
  /** A kubeconfig file with contexts `fake` (current), `elsewhere` (a closed port) and `wrong-token`. */
  kubeconfig: string;
  /** `GET /path?query`, query parameters in name order. */
  requests: string[];
  /** What the server holds (the array it was given), changed by writes; tests may add and remove objects between requests. */
  objects: KubeObject[];
  stop(): Promise<void>;
}

function apiVersionOf(object: KubeObject): string {
  return typeof object.apiVersion === "string" ? object.apiVersion : "";
}

function metadataOf(object: KubeObject): { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> } {
  return (object.metadata ?? {}) as { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
}

/** Equality requirements only (`a=b,c=d`): all the audit asks for. */
function selectedBy(labelSelector: string | null, object: KubeObject): boolean {
  if (!labelSelector) return true;
  const labels = metadataOf(object).labels ?? {};
  return labelSelector.split(",").every((requirement) => {
    const [key, value] = requirement.split("=");
    return key !== undefined && labels[key] === value;
  });
}

async function bodyOf(request: IncomingMessage): Promise<KubeObject> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as KubeObject;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json" });
  response.end(text);
}

function status(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/** Serves `objects` itself, not a copy: changes the test makes to it show in the next answers, and writes land in it. */
export async function startFakeApiServer(objects: KubeObject[], options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const requests: string[] = [];
  const pageSize = options.pageSize ?? 2;
  let expireNextContinue = options.expireFirstContinue ?? false;
  const conflicts = new Set(options.conflictOnce ?? []);
  const served = options.resources ?? [];
  let revision = 1000;
  /** Lists being paged, by what they list. */
  const listings = new Map<string, KubeObject[]>();

  const known: ServedResource[] = [...LISTED_RESOURCES.map((r) => ({ group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: !CLUSTER_SCOPED_RESOURCES.has(r.resource) })), ...(options.resources ?? [])];
  /** What the server serves: the listed kinds, those in `resources`, and any other kind among `objects` (a paramKind) as `<kind>s`. */
  const servedResources = (): ServedResource[] => {
    const served = [...known];
    for (const object of objects) {
      const apiVersion = apiVersionOf(object);
      const slash = apiVersion.indexOf("/");
      const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ["", apiVersion];
      if (served.some((r) => r.group === group && r.version === version && r.kind === object.kind)) continue;
      served.push({ group, version, resource: `${String(object.kind).toLowerCase()}s`, kind: String(object.kind), namespaced: metadataOf(object).namespace !== undefined });
    }
    return served;
  };

  /** GET, POST, PUT and DELETE of one object of a `resources` entry. */
  const write = async (request: IncomingMessage, response: ServerResponse, resource: ServedResource, namespace: string | undefined, name: string | undefined) => {
    const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
    const key = namespace ? `${namespace}/${name ?? ""}` : (name ?? "");
    const index = objects.findIndex((o) => apiVersionOf(o) === apiVersion && o.kind === resource.kind && metadataOf(o).namespace === namespace && metadataOf(o).name === name);
    const notFound = () => send(response, 404, status(404, "NotFound", `${resource.resource}.${resource.group} "${name}" not found`));
    if (request.method === "GET") return index >= 0 ? send(response, 200, objects[index]) : notFound();
    if (request.method === "DELETE") {
      if (index < 0) return notFound();
      objects.splice(index, 1);
      return send(response, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
    }
    const body = await bodyOf(request);
    const metadata = metadataOf(body);
    if (request.method === "POST") {
      const created = objects.some((o) => apiVersionOf(o) === apiVersion && o.kind === resource.kind && metadataOf(o).namespace === namespace && metadataOf(o).name === metadata.name);
      if (created) return send(response, 409, status(409, "AlreadyExists", `${resource.resource}.${resource.group} "${metadata.name}" already exists`));
      const stored = { ...body, metadata: { ...metadata, ...(namespace ? { namespace } : {}), resourceVersion: String(++revision), uid: `uid-${revision}` } };
      objects.push(stored);
      return send(response, 201, stored);
    }
    if (request.method === "PUT") {
      if (index < 0) return notFound();
      const current = objects[index]!;
      if (conflicts.delete(key)) current.metadata = { ...metadataOf(current), resourceVersion: String(++revision) };
      if (metadata.resourceVersion !== metadataOf(current).resourceVersion)
        return send(
          response,
          409,
          status(409, "Conflict", `Operation cannot be fulfilled on ${resource.resource}.${resource.group} "${name}": the object has been modified; please apply your changes to the latest version and try again`),
        );
      const stored = { ...body, metadata: { ...metadataOf(current), ...metadata, resourceVersion: String(++revision) } };
      objects[index] = stored;
      return send(response, 200, stored);
    }
    return send(response, 405, status(405, "MethodNotAllowed", `${request.method} is not allowed`));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fake");
    url.searchParams.sort();
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (request.headers.authorization !== "Bearer test-token") return send(response, 401, status(401, "Unauthorized", "Unauthorized"));

    if (url.pathname === "/version") {
      const version = options.kubernetesVersion ?? { major: "1", minor: "33" };
      if (typeof version === "number") return send(response, version, status(version, "Forbidden", "forbidden: User cannot get path \"/version\""));
      return send(response, 200, { ...version, gitVersion: `v${version.major}.${version.minor.replace(/\D.*/, "")}.1`, platform: "linux/amd64" });
    }

    const get = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/.exec(url.pathname);
    if (get) {
      const [, namespace, name] = get;
      const found = objects.find((o) => o.kind === "ConfigMap" && metadataOf(o).namespace === namespace && metadataOf(o).name === name);
      if (options.forbidden?.includes("configmaps"))
        return send(response, 403, status(403, "Forbidden", `configmaps "${name}" is forbidden: User "system:serviceaccount:edgeadmit-system:edgeadmit-sync" cannot get resource "configmaps" in API group "" in the namespace "${namespace}"`));
      return found ? send(response, 200, found) : send(response, 404, status(404, "NotFound", `configmaps "${name}" not found`));
    }

    const webhook = /^\/apis\/admissionregistration\.k8s\.io\/v1\/validatingwebhookconfigurations\/([^/]+)$/.exec(url.pathname);
    if (webhook) {
      const found = objects.find((o) => o.kind === "ValidatingWebhookConfiguration" && metadataOf(o).name === webhook[1]);
      if (options.forbidden?.includes("validatingwebhookconfigurations.admissionregistration.k8s.io"))
        return send(response, 403, status(403, "Forbidden", `validatingwebhookconfigurations.admissionregistration.k8s.io "${webhook[1]}" is forbidden`));
      return found ? send(response, 200, found) : send(response, 404, status(404, "NotFound", `validatingwebhookconfigurations.admissionregistration.k8s.io "${webhook[1]}" not found`));
    }

    // Discovery, as KubernetesObjectApi asks it for a paramKind: the resources of one group version.
    const discovery = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(url.pathname);
    if (discovery) {
      const group = discovery[2] ?? "";
      if (options.missingGroups?.includes(group)) return send(response, 404, "404 page not found\n");
      const groupVersion = group ? `${group}/${discovery[3]}` : "v1";
      const resources = servedResources().filter((r) => (r.group ? `${r.group}/${r.version}` : r.version) === groupVersion);
      if (resources.length === 0) return send(response, 404, "404 page not found\n");
      return send(response, 200, {
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion,
        resources: resources.map((r) => ({ name: r.resource, singularName: "", namespaced: r.namespaced, kind: r.kind, verbs: ["get", "list"] })),
      });
    }

    const path = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(?:namespaces\/([^/]+)\/)?([^/]+)(?:\/([^/]+))?$/.exec(url.pathname);
    const group = path?.[2] ?? "";
    const version = path?.[1] ?? path?.[3];
    const servedResource = served.find((r) => path && r.group === group && r.version === version && r.resource === path[5]);
    if (servedResource && !options.missingGroups?.includes(group) && (request.method !== "GET" || path?.[6] !== undefined))
      return write(request, response, servedResource, path?.[4], path?.[6]);
    const list = path && path[4] === undefined && path[6] === undefined && request.method === "GET" ? path : undefined;
    // The scan of every object for other kinds only when the path names none of the known ones: a list of 200,000 objects asks hundreds of pages.
    const isListed = (r: ServedResource) => list !== undefined && r.group === group && r.version === version && r.resource === list[5];
    const resource = servedResource ?? known.find(isListed) ?? servedResources().find(isListed);
    if (!resource || !list) return send(response, 404, "404 page not found\n");
    if (options.missingGroups?.includes(group)) return send(response, 404, "404 page not found\n");
    const qualified = group ? `${resource.resource}.${group}` : resource.resource;
    if (options.forbidden?.includes(qualified))
      return send(
        response,
        403,
        status(403, "Forbidden", `${qualified} is forbidden: User "system:serviceaccount:edgeadmit-system:edgeadmit-sync" cannot list resource "${resource.resource}" in API group "${group}" at the cluster scope`),
      );

    if (expireNextContinue && url.searchParams.has("continue")) {
      expireNextContinue = false;
      return send(
        response,
        410,
        status(410, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."),
      );
    }
    const apiVersion = group ? `${group}/${version}` : version!;
    // A list is taken once and paged from that copy, as the apiserver pages a consistent snapshot; a list without continue takes it anew.
    const listKey = `${apiVersion}\u0000${resource.kind}\u0000${url.searchParams.get("labelSelector") ?? ""}`;
    const continued = url.searchParams.get("continue");
    const generated = options.generated?.get(`${apiVersion}/${resource.kind}`);
    const taken = () => {
      const all = objects.filter((o) => apiVersionOf(o) === apiVersion && o.kind === resource.kind && selectedBy(url.searchParams.get("labelSelector"), o));
      return options.unordered ? all : all.sort(byStorageKey);
    };
    const held = generated ? undefined : ((continued !== null ? listings.get(listKey) : undefined) ?? taken());
    const listing: GeneratedList = generated ?? { length: held!.length, at: (index) => held![index]! };
    const offset = Number(continued ?? "0");
    const limit = Number(url.searchParams.get("limit") ?? pageSize);
    const size = Math.max(1, Math.min(pageSize, Number.isInteger(limit) && limit > 0 ? limit : pageSize));
    const page = Array.from({ length: Math.max(0, Math.min(size, listing.length - offset)) }, (_, i) => listing.at(offset + i));
    const next = offset + size < listing.length ? String(offset + size) : undefined;
    if (next && held) listings.set(listKey, held);
    else listings.delete(listKey);
    send(response, 200, {
      apiVersion,
      kind: `${resource.kind}List`,
      metadata: { resourceVersion: "4711", ...(next ? { continue: next } : {}) },
      items: page.map(({ apiVersion: _apiVersion, kind: _kind, ...item }) => item),
    });
  };

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), "edgeadmit-kube-"));
  const kubeconfig = join(dir, "config");
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
  - name: fake
    cluster: { server: "${url}", insecure-skip-tls-verify: true }
  # port 2: nothing listens there, and fetch refuses port 9 (discard) outright as a "bad port"
  - name: closed
    cluster: { server: "http://127.0.0.1:2", insecure-skip-tls-verify: true }
users:
  - name: sync
    user: { token: test-token }
  - name: stranger
    user: { token: not-the-token }
contexts:
  - name: fake
    context: { cluster: fake, user: sync }
  - name: elsewhere
    context: { cluster: closed, user: sync }
  - name: wrong-token
    context: { cluster: fake, user: stranger }
current-context: fake
`,
  );
  return { url, kubeconfig, requests, objects, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
