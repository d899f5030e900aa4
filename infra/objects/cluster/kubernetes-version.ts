// The cluster's Kubernetes version, which picks the CEL environment its policies compile with.
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { ApiException, type VersionApi } from "@kubernetes/client-node";
import { DEFAULT_VERSION, parseVersion, versionText } from "../../../shared/cel/kubernetes/environment.js";
import { requestFailure } from "./failures.js";

/**
 * The cluster's Kubernetes version as /version reports it ("1.33"; a
 * provider's minor "33+" is 33): the CEL environment its policies compile
 * with at the edge. A server that does not say is a warning, and the
 * snapshot then carries no version (the function uses DEFAULT_VERSION).
 */
export async function readKubernetesVersion(api: VersionApi, server: string, warnings: string[]): Promise<string | undefined> {
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
