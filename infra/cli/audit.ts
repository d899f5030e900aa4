// `edgeadmit audit`: what the audit CronJob runs. Judges every object the
// policies look at, as the webhook would judge its creation now, and writes
// the verdicts as wgpolicyk8s.io PolicyReports (docs/audit.md).
import { JOB_NAMESPACE } from "../base/job.js";
import { optionalString, parseVerbArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { CLUSTER_FLAGS, PUSH_FLAGS, pushTarget, snapshotOfCluster } from "./snapshot.js";
import type { Verb } from "./verb.js";

/** As the sync job's lists (infra/objects/cluster/paging.ts), which this module does not import: it loads client-node. */
const DEFAULT_PAGE_SIZE = 500;
const DEFAULT_MAX_RESULTS_PER_REPORT = 1000;

function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(value)) throw new CliError(`--${flag} must be a whole number ≥ 1, not "${value}"`, EXIT_USAGE);
  return Number(value);
}

export const audit: Verb = {
  name: "audit",
  summary: "judge what the cluster holds and write PolicyReports (the audit CronJob)",
  usage: `edgeadmit audit [--context NAME] [--settings-namespace NS] [--page-size N] [--max-results-per-report N] [--dry-run]
                [--endpoint URL --cluster ID --key FILE]

Builds the snapshot from the cluster (as sync does, plus its
ValidatingAdmissionPolicies and EdgeAdmissionPolicyBindings), then lists,
${DEFAULT_PAGE_SIZE} objects a page (--page-size), every kind a built-in or bound policy
looks at and judges each object as the webhook would judge its creation.
Writes one wgpolicyk8s.io/v1alpha2 PolicyReport per namespace
(edgeadmit-<namespace>) and a ClusterPolicyReport edgeadmit-cluster, split in
parts (-2, -3…) past --max-results-per-report results (default ${DEFAULT_MAX_RESULTS_PER_REPORT}), and
deletes its reports that no longer have results. --dry-run writes nothing
and says what it would write. Pushes nothing. --settings-namespace defaults
to ${JOB_NAMESPACE}. With --endpoint, --cluster and --key (the sync job's),
also judges the fleet policies the function binds on this cluster, read
with the cluster's own key (docs/fleet.md). Docs: docs/audit.md.

Example:
  edgeadmit audit --context prod-eu --dry-run`,
  async run(argv, io) {
    const args = parseVerbArgs("audit", argv, {
      ...CLUSTER_FLAGS,
      endpoint: PUSH_FLAGS.endpoint,
      cluster: PUSH_FLAGS.cluster,
      key: PUSH_FLAGS.key,
      "page-size": { type: "string" },
      "max-results-per-report": { type: "string" },
      "dry-run": { type: "boolean" },
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const context = optionalString(args, "context");
    const options = {
      settingsNamespace: optionalString(args, "settings-namespace") ?? JOB_NAMESPACE,
      pageSize: positiveInteger("page-size", optionalString(args, "page-size"), DEFAULT_PAGE_SIZE),
      maxResultsPerReport: positiveInteger("max-results-per-report", optionalString(args, "max-results-per-report"), DEFAULT_MAX_RESULTS_PER_REPORT),
      dryRun: args.values["dry-run"] === true,
      ...(context !== undefined ? { context } : {}),
      // All three or none: pushTarget names the one missing.
      ...(["endpoint", "cluster", "key"].some((flag) => optionalString(args, flag) !== undefined) ? { fleet: await pushTarget("audit", args, io) } : {}),
    };
    // Loaded lazily, as sync loads the cluster client: verbs that never talk to a cluster do not pay for it.
    const { runAudit } = await import("../audit/index.js");
    const outcome = await runAudit(options, io, snapshotOfCluster);
    for (const action of outcome.actions) io.out(`${action}\n`);
    const { pass, fail, warn, error, skip } = outcome.summary;
    io.out(
      `audited ${outcome.objects} objects (${outcome.kinds.join(", ") || "no kinds"}): ${pass} pass, ${fail} fail, ${warn} warn, ${error} error, ${skip} skip in ${outcome.reports} reports${options.dryRun ? " (dry run: nothing written)" : ""}\n`,
    );
    return 0;
  },
};
