// The audit (`edgeadmit audit`, a CronJob of its own): what the webhook would
// say today about every object the cluster already holds. Builds the cluster
// facts as the sync job does, judges each kind a policy looks at page by
// page with judgeObjects, and writes the verdicts as PolicyReports. Never
// pushes, never writes anything but its own reports.
import type { Snapshot } from "../../shared/snapshot/index.js";
import { POLICIES } from "../../policies/index.js";
import { FleetPolicies } from "../../shared/fleet/index.js";
import { clusterFleetSelection } from "../client/index.js";
import type { CliIo } from "../base/io.js";
import { loadKubeConfig } from "../objects/cluster/kubeconfig.js";
import type { ClusterOptions } from "../objects/cluster/snapshot.js";
import { ObjectAuditor, ReportSet, summaryOf, type Summary } from "./reports.js";
import { apiVersionOf, qualified } from "../objects/cluster/resource.js";
import { auditScope, clusterApis, forEachPage } from "./resources.js";
import { writeReports } from "./write.js";

/** The audit CronJob's ServiceAccount (infra/k8s/components/audit): who needs a grant for a paramKind. */
const AUDIT_SERVICE_ACCOUNT = "edgeadmit-audit";

interface AuditOptions {
  context?: string;
  settingsNamespace: string;
  pageSize: number;
  maxResultsPerReport: number;
  dryRun: boolean;
  /** The function and this cluster's id and signing key: the fleet policies bound here are judged too (GET /v1/<cluster>/fleet). */
  fleet?: { endpoint: string; cluster: string; privateKeyPem: string };
}

interface AuditOutcome {
  /** How many objects were judged, and of which kinds (`deployments.apps`). */
  objects: number;
  kinds: string[];
  /** Over every report written. */
  summary: Summary;
  reports: number;
  /** What was written or deleted, one line each. */
  actions: string[];
}

/** How the CLI builds a cluster's snapshot, reporting as it goes (infra/cli/snapshot.ts): the audit judges against the same one, and the CLI sits above the audit. */
export type SnapshotOfCluster = (verb: string, io: CliIo, options: ClusterOptions & { settingsNamespace: string }) => Promise<{ snapshot: Snapshot }>;

export async function runAudit(options: AuditOptions, io: CliIo, snapshotOfCluster: SnapshotOfCluster): Promise<AuditOutcome> {
  const config = loadKubeConfig(options.context);
  const apis = clusterApis(config);
  const server = config.getCurrentCluster()!.server;
  const { pageSize } = options;

  const { snapshot } = await snapshotOfCluster("audit", io, {
    settingsNamespace: options.settingsNamespace,
    pageSize,
    serviceAccount: AUDIT_SERVICE_ACCOUNT,
    ...(options.context !== undefined ? { context: options.context } : {}),
  });

  const fleet = options.fleet && (await fleetOf(options.fleet, io));
  const scope = auditScope(snapshot, POLICIES, fleet);
  for (const kind of scope.unlisted) io.err(`warning: a bound ValidatingAdmissionPolicy selects ${kind}, which the audit does not list: judged at admission only\n`);
  const now = Date.now();
  const auditor = new ObjectAuditor(snapshot, POLICIES, { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1_000_000 }, fleet);
  const results = new ReportSet();
  let judged = 0;
  const kinds: string[] = [];
  for (const resource of scope.resources) {
    let listed = 0;
    const onRestart = () => {
      results.forget(apiVersionOf(resource), resource.kind);
      judged -= listed;
      listed = 0;
    };
    const served = await forEachPage(apis, resource, { pageSize, server, onRestart }, (page) => {
      for (const { namespace, results: found } of auditor.audit(page)) results.add(namespace, found);
      listed += page.length;
      judged += page.length;
    });
    if (served) kinds.push(qualified(resource));
    else io.err(`warning: the API server does not serve ${qualified(resource)}/${resource.version}: none judged\n`);
  }

  const reports = results.reports(options.maxResultsPerReport);
  const { actions } = await writeReports(apis, reports, { pageSize, server, dryRun: options.dryRun });
  return { objects: judged, kinds, summary: summaryOf(reports.flatMap((r) => r.results)), reports: reports.length, actions };
}

/**
 * What the fleet binds on this cluster, ready to judge with: the selection
 * the function answers selects the same on any labels (shared/fleet
 * selectionFor), so FleetPolicies of it is the webhook's own. Undefined when
 * the fleet binds nothing here.
 */
async function fleetOf(target: NonNullable<AuditOptions["fleet"]>, io: CliIo) {
  const selection = await clusterFleetSelection(target.endpoint, target.cluster, target.privateKeyPem);
  const policies = new FleetPolicies({ revision: selection.revision, set: selection.set, stages: {}, appliedAt: 0, change: "" }).forCluster({});
  if (!policies) return undefined;
  io.err(`fleet revision ${selection.revision}: ${policies.bindings.length} fleet binding${policies.bindings.length === 1 ? "" : "s"} judged too\n`);
  return { policies, set: selection.set };
}
