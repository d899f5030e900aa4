// The API server through client-node, answered in wire shape.
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { ApiException, HttpMethod, KubernetesObjectApi, type KubernetesObject, type ResponseContext } from "@kubernetes/client-node";

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
