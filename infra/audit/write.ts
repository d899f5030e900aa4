// Writes one run's reports and removes the rest: every report the audit
// manages (by its managed-by label) is created, replaced whole, or deleted
// when the run produced nothing for it, so results of deleted objects and
// namespaces do not outlive them. Replace carries the resourceVersion read;
// a 409 (another writer, or a create racing one) is retried once with the
// version read again.
import { ApiException } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../../shared/zod/index.js";
import { CliError } from "../base/errors.js";
import { requestFailure } from "../objects/cluster/failures.js";
import { forEachPage, type ClusterApis } from "./resources.js";
import { MANAGED_BY_SELECTOR, REPORT_GROUP, REPORT_VERSION, type PolicyReport } from "./reports.js";

const REPORT_RESOURCES = {
  PolicyReport: { group: REPORT_GROUP, version: REPORT_VERSION, resource: "policyreports", kind: "PolicyReport", namespaced: true },
  ClusterPolicyReport: { group: REPORT_GROUP, version: REPORT_VERSION, resource: "clusterpolicyreports", kind: "ClusterPolicyReport", namespaced: false },
} as const;

const storedSchema = z.looseObject({
  kind: z.enum(["PolicyReport", "ClusterPolicyReport"]),
  metadata: z.looseObject({ name: z.string(), namespace: z.optional(z.string()), resourceVersion: z.string() }),
});
type StoredReport = z.infer<typeof storedSchema>;

const keyOf = (report: { kind: string; metadata: { name: string; namespace?: string | undefined } }) =>
  `${report.kind} ${report.metadata.namespace ? `${report.metadata.namespace}/` : ""}${report.metadata.name}`;

export interface WriteOutcome {
  /** One line per report: `created PolicyReport ns/name (…)`, `deleted …`. */
  actions: string[];
}

/** The reports this audit wrote before, by `Kind namespace/name`, with the resourceVersion to replace them at. */
export async function managedReports(apis: ClusterApis, pageSize: number, server: string): Promise<Map<string, StoredReport>> {
  const found = new Map<string, StoredReport>();
  for (const resource of Object.values(REPORT_RESOURCES)) {
    const served = await forEachPage(apis, resource, { pageSize, labelSelector: MANAGED_BY_SELECTOR, server, onRestart: () => found.clear() }, (items) => {
      for (const item of items) {
        const stored = storedSchema.safeParse(item);
        if (stored.success) found.set(keyOf(stored.data), stored.data);
      }
    });
    if (!served) throw new CliError(`the API server does not serve ${resource.resource}.${resource.group}/${resource.version}: is its CRD installed? (infra/k8s/components/audit installs it)`);
  }
  return found;
}

function counts(report: PolicyReport): string {
  const { pass, fail, warn, error, skip } = report.summary;
  return `${pass} pass, ${fail} fail, ${warn} warn, ${error} error, ${skip} skip`;
}

function target(report: { kind: "PolicyReport" | "ClusterPolicyReport"; metadata: { name: string; namespace?: string | undefined } }) {
  const resource = REPORT_RESOURCES[report.kind];
  return { group: resource.group, version: resource.version, plural: resource.resource, name: report.metadata.name, ...(report.metadata.namespace ? { namespace: report.metadata.namespace } : {}) };
}

async function currentVersion(apis: ClusterApis, report: PolicyReport): Promise<string> {
  const { namespace, ...where } = target(report);
  const read = namespace ? await apis.custom.getNamespacedCustomObject({ ...where, namespace }) : await apis.custom.getClusterCustomObject(where);
  return storedSchema.parse(read).metadata.resourceVersion;
}

async function replace(apis: ClusterApis, report: PolicyReport, resourceVersion: string): Promise<void> {
  const { namespace, ...where } = target(report);
  const body = { ...report, metadata: { ...report.metadata, resourceVersion } };
  if (namespace) await apis.custom.replaceNamespacedCustomObject({ ...where, namespace, body });
  else await apis.custom.replaceClusterCustomObject({ ...where, body });
}

async function create(apis: ClusterApis, report: PolicyReport): Promise<void> {
  const { namespace, name: _name, ...where } = target(report);
  if (namespace) await apis.custom.createNamespacedCustomObject({ ...where, namespace, body: report });
  else await apis.custom.createClusterCustomObject({ ...where, body: report });
}

const isConflict = (e: unknown) => e instanceof ApiException && e.code === 409;

/** Creates or replaces `report`; on a 409, reads the version again and replaces once more. */
async function put(apis: ClusterApis, report: PolicyReport, stored: StoredReport | undefined): Promise<"created" | "replaced"> {
  try {
    if (stored) await replace(apis, report, stored.metadata.resourceVersion);
    else await create(apis, report);
    return stored ? "replaced" : "created";
  } catch (e) {
    if (!isConflict(e)) throw e;
  }
  await replace(apis, report, await currentVersion(apis, report));
  return "replaced";
}

/**
 * Makes the cluster's edgeadmit reports exactly `reports`: each created or
 * replaced, then every other managed report deleted. With `dryRun`, only
 * says what it would do.
 */
export async function writeReports(apis: ClusterApis, reports: readonly PolicyReport[], options: { pageSize: number; server: string; dryRun: boolean }): Promise<WriteOutcome> {
  const existing = await managedReports(apis, options.pageSize, options.server);
  const actions: string[] = [];
  for (const report of reports) {
    const key = keyOf(report);
    const stored = existing.get(key);
    existing.delete(key);
    if (options.dryRun) {
      actions.push(`would ${stored ? "replace" : "create"} ${key} (${counts(report)})`);
      continue;
    }
    try {
      actions.push(`${await put(apis, report, stored)} ${key} (${counts(report)})`);
    } catch (e) {
      throw requestFailure(e, "write", key, options.server);
    }
  }
  for (const [key, stale] of existing) {
    if (options.dryRun) {
      actions.push(`would delete ${key}`);
      continue;
    }
    const { namespace, ...where } = target(stale);
    try {
      if (namespace) await apis.custom.deleteNamespacedCustomObject({ ...where, namespace });
      else await apis.custom.deleteClusterCustomObject(where);
    } catch (e) {
      // Gone already: what deleting it was for.
      if (!(e instanceof ApiException && e.code === 404)) throw requestFailure(e, "delete", key, options.server);
    }
    actions.push(`deleted ${key}`);
  }
  return { actions };
}
