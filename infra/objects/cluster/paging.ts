// A list read page by page, as kubectl reads one: `limit` and the continue
// token, each page handed on and dropped, a 410 Gone (the token outlived
// etcd's compaction) restarting the list once.
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { ApiException } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../../../shared/zod/index.js";
import type { KubeObject } from "../../../shared/snapshot/builder/index.js";
import { CliError, EXIT_USAGE } from "../../base/errors.js";
import { requestFailure } from "./failures.js";
import { apiVersionOf, pathOf, qualified, type ServedResource } from "./resource.js";
import type { WireApi } from "./wire-api.js";

/** Objects per list request, as kubectl asks; the server may return fewer and a continue token. */
export const DEFAULT_PAGE_SIZE = 500;

export interface PageRequest {
  limit: number;
  _continue?: string;
  labelSelector?: string;
}

/** One page in wire shape: items and the token for the next page. */
const pageSchema = z.looseObject({
  items: z.nullable(z.array(z.looseObject({}))),
  metadata: z.optional(z.nullable(z.looseObject({ continue: z.optional(z.string()), _continue: z.optional(z.string()) }))),
});

/** One resource to list page by page: what its items are, how messages name it, and the request for one page (answered in wire shape). */
export interface PagedList {
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
export class ListExpired extends Error {
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
    if (!page.success) throw new CliError(`list ${list.name}: the API server's answer is not a list`, EXIT_USAGE);
    onPage((page.data.items ?? []).map((item) => ({ apiVersion: list.apiVersion, kind: list.kind, ...item })));
    token = page.data.metadata?.continue || page.data.metadata?._continue || undefined;
    if (!token) return true;
  }
}
