// The kinds a bound policy declares that the job does not list by itself
// (paramKinds, inventory kinds): found through discovery and listed, or a
// warning saying why not, with the RBAC that would grant the list.
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { ApiException } from "@kubernetes/client-node";
import { CliError } from "../../base/errors.js";
import { JOB_NAMESPACE } from "../../base/job.js";
import { requestFailure } from "./failures.js";
import type { PageOptions } from "./paging.js";
import type { ServedResource } from "./resource.js";
import type { WireApi } from "./wire-api.js";

/** Why a bound policy needs a kind the job does not list by itself: as a paramKind, or in its inventory. */
interface DeclaredUse {
  /** `the paramKind of max-replicas`, `an inventory kind of unique-ingress-host`. */
  what: string;
  /** What those policies meet at the edge when the kind is unknown. */
  meet: string;
  /** The middle of the ClusterRole's name: `params`, `inventory`. */
  role: string;
}

export const paramUse = (policies: readonly string[]): DeclaredUse => ({ what: `the paramKind of ${policies.join(", ")}`, meet: "paramKind not known", role: "params" });
export const inventoryUse = (policies: readonly string[]): DeclaredUse => ({ what: `an inventory kind of ${policies.join(", ")}`, meet: "not in the snapshot", role: "inventory" });

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
export async function listDeclared(
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
