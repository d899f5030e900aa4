// A Kubernetes API server for tests: answers the list and get requests the
// live path makes, with real-shaped JSON (typed lists whose items carry no
// apiVersion/kind, `limit`/`continue` paging, Status bodies for 403, the
// plain-text 404 of an API group nobody serves), and a kubeconfig for it.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { KubeObject } from "../../shared/snapshot/build/index.js";
import { LISTED_RESOURCES } from "./cluster.js";

const CLUSTER_SCOPED_RESOURCES = new Set(["nodes", "persistentvolumes", "namespaces", "validatingadmissionpolicies", "affinityclasses", "edgeadmissionpolicybindings"]);

export interface FakeApiServerOptions {
  /** Objects per page, whatever `limit` asks (the real server may also return fewer). */
  pageSize?: number;
  /** `resource.group` (as RBAC names it) the token may not list. */
  forbidden?: string[];
  /** API groups with no CRD installed. */
  missingGroups?: string[];
  /** Answer the first request carrying a continue token with 410 Gone, as after etcd compacted its revision. */
  expireFirstContinue?: boolean;
}

export interface FakeApiServer {
  url: string;
  /** A kubeconfig file with contexts `fake` (current), `elsewhere` (a closed port) and `wrong-token`. */
  kubeconfig: string;
  /** `GET /path?query`, query parameters in name order. */
  requests: string[];
  stop(): Promise<void>;
}

function apiVersionOf(object: KubeObject): string {
  return typeof object.apiVersion === "string" ? object.apiVersion : "";
}

function metadataOf(object: KubeObject): { name?: string; namespace?: string } {
  return (object.metadata ?? {}) as { name?: string; namespace?: string };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json" });
  response.end(text);
}

function status(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

export async function startFakeApiServer(objects: readonly KubeObject[], options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const requests: string[] = [];
  const pageSize = options.pageSize ?? 2;
  let expireNextContinue = options.expireFirstContinue ?? false;

  /** What the server serves: the listed kinds, and any other kind among `objects` (a paramKind) as `<kind>s`. */
  const servedResources = (): Array<{ group: string; version: string; resource: string; kind: string; namespaced: boolean }> => {
    const served = LISTED_RESOURCES.map((r) => ({ group: r.group, version: r.version, resource: r.resource, kind: r.kind, namespaced: !CLUSTER_SCOPED_RESOURCES.has(r.resource) }));
    for (const object of objects) {
      const apiVersion = apiVersionOf(object);
      const slash = apiVersion.indexOf("/");
      const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ["", apiVersion];
      if (served.some((r) => r.group === group && r.version === version && r.kind === object.kind)) continue;
      served.push({ group, version, resource: `${String(object.kind).toLowerCase()}s`, kind: String(object.kind), namespaced: metadataOf(object).namespace !== undefined });
    }
    return served;
  };

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://fake");
    url.searchParams.sort();
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (request.headers.authorization !== "Bearer test-token") return send(response, 401, status(401, "Unauthorized", "Unauthorized"));

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

    const list = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/([^/]+)$/.exec(url.pathname);
    const group = list?.[2] ?? "";
    const version = list?.[1] ?? list?.[3];
    const resource = servedResources().find((r) => list && r.group === group && r.version === version && r.resource === list[4]);
    if (!resource) return send(response, 404, "404 page not found\n");
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
    const all = objects.filter((o) => apiVersionOf(o) === apiVersion && o.kind === resource.kind);
    const offset = Number(url.searchParams.get("continue") ?? "0");
    const page = all.slice(offset, offset + pageSize);
    const next = offset + pageSize < all.length ? String(offset + pageSize) : undefined;
    send(response, 200, {
      apiVersion,
      kind: `${resource.kind}List`,
      metadata: { resourceVersion: "4711", ...(next ? { continue: next } : {}) },
      items: page.map(({ apiVersion: _apiVersion, kind: _kind, ...item }) => item),
    });
  };

  const server = createServer(handle);
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
  - name: closed
    cluster: { server: "http://127.0.0.1:9", insecure-skip-tls-verify: true }
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
  return { url, kubeconfig, requests, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
