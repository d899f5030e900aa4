// `edgeadmit check`: the verb. Its flags become CheckOptions; the run is
// check/run.ts, the report is written by check/report.ts and the exit code
// chosen by check/exit.ts.
import { decodeSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { SCOPE_RULES } from "../objects/inputs.js";
import { choice, optionalString, parseVerbArgs, stringList, fileList } from "./args.js";
import { cannotRun, exitCodeOf } from "./check/exit.js";
import { OUTPUTS, writeReport } from "./check/report.js";
import { runCheck } from "./check/run.js";
import { FAIL_ON, type CheckReport } from "./output/index.js";
import { CLUSTER_FLAGS, KUBERNETES_VERSION_FLAG, KUBERNETES_VERSION_HELP, kubernetesVersionFlag, snapshotFromCluster } from "./snapshot.js";
import type { Verb } from "./verb.js";

export const check: Verb = {
  name: "check",
  summary: "judge Kubernetes YAML with every policy, as the webhook would",
  usage: `edgeadmit check -f PATH... [--policies PATH...] [-n NS] [--scope auto|dir|input | --one-cluster]
                [--snapshot FILE | --from-cluster [--context NAME] | --kubernetes-version V] [--settings-namespace NS]
                [--no-defaults] [--strict] [-o text|json|yaml|sarif] [--fail-on deny|warn|audit]

Judges each object in PATH (files, directories walked recursively, - for
stdin: the output of kubectl kustomize or helm template) as the webhook would
judge its creation: the built-in policies and the cluster's own
ValidatingAdmissionPolicies, with the webhook's messages. Namespaced objects
without a namespace go to -n (default: default).

Each object is judged as the cluster's apiserver would hand it to validation:
with the API defaults of its kind and version and what the built-in mutating
admission plugins set (a ServiceAccount's token volume, the tolerations of
DefaultTolerationSeconds, a LimitRange's requests, the default StorageClass
and IngressClass, a PriorityClass's priority), reading the LimitRanges,
PriorityClasses, classes and CRDs in the input, --policies or the live
cluster. -o json lists what was set on each object; --no-defaults judges each
object as written.

What is not judged: --policies PATH holds the policies, their bindings and
params, the settings ConfigMap, EdgeAdmissionExceptions and any other cluster
facts (Namespaces, Nodes, AffinityClasses) for every cluster; policies,
bindings, exceptions and the settings found under -f count the same way.
Skipped, and named in one line: YAML that is no Kubernetes object (no
apiVersion and kind: workflows, Chart.yaml, values.yaml, YAML of other tools
that does not parse), templates (a Helm chart's templates/ and any file of
the chart that does not parse, and Go templates anywhere: {{ … }} where YAML
cannot have it), kustomizations and the patch and replacement files they
list, and a second object with the group, kind, namespace and name of one
read before in the same cluster (a variant: judged, not a cluster fact).
--strict makes each of them an error. An AdmissionReview is judged by its
request.object.

Which objects are one cluster (--scope): auto (default) makes each
application one cluster: a directory with a kustomization or a Helm chart with
its subdirectories, a directory with objects of its own with its
subdirectories that are no application of their own, any other directory its
own files, and the files named on the command line (and stdin) one cluster
together; dir makes every directory its own; input
makes each -f its own; --one-cluster judges everything as one. Two objects with
the same group, kind, namespace and name in one cluster are an error naming
both places; neither is merged into the other.

The cluster facts come from each cluster's own input (with --policies), or
from --snapshot FILE (as edgeadmit snapshot build writes it), or from the live
cluster (--from-cluster, through the kubeconfig, as the sync job lists it,
with the objects its admission plugins read). The settings ConfigMap
edgeadmit-settings is read from the namespace --settings-namespace names
(default edgeadmit-system, where the sync job runs).
${KUBERNETES_VERSION_HELP}
-o text (default) prints file:line, object, policy, mode and message per
result, input errors after every verdict, then the counts and what was
skipped; json prints every object with its results (yaml: the same, as YAML);
sarif prints SARIF 2.1.0.
Exits 1 when something is denied (--fail-on warn: or warned; --fail-on
audit: or audited); else 2 when a Kubernetes object (apiVersion and kind)
cannot be read as written: a syntax error or a key written twice (kubectl
refuses both), an object that is not the shape of its kind (reported after
every verdict), or when the check cannot run; else 0. What is skipped never
fails the run, but under --strict. In CI: --fail-on warn fails on the
built-in policies' Warn findings too (docs/check.md, "In CI").

Examples:
  edgeadmit check -f deploy/ --policies policies/
  edgeadmit check -f examples/ -o json
  kubectl kustomize overlays/prod | edgeadmit check -f - --from-cluster --context prod-eu
  helm template my-release chart/ | edgeadmit check -f - -n shop -o sarif > edgeadmit.sarif`,
  async run(argv, io) {
    const args = parseVerbArgs("check", argv, {
      file: { type: "string", short: "f", multiple: true },
      policies: { type: "string", multiple: true },
      namespace: { type: "string", short: "n" },
      scope: { type: "string" },
      "one-cluster": { type: "boolean" },
      strict: { type: "boolean" },
      snapshot: { type: "string" },
      "from-cluster": { type: "boolean" },
      output: { type: "string", short: "o" },
      "fail-on": { type: "string" },
      "no-defaults": { type: "boolean" },
      ...CLUSTER_FLAGS,
      ...KUBERNETES_VERSION_FLAG,
    }, Number.MAX_SAFE_INTEGER);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const files = fileList("check", args);
    const policies = stringList(args, "policies");
    if (files.length === 0) throw new CliError("-f PATH is required (see edgeadmit check --help)", EXIT_USAGE);
    const output = choice("output", optionalString(args, "output"), OUTPUTS, "text");
    const failOn = choice("fail-on", optionalString(args, "fail-on"), FAIL_ON, "deny");
    const scopeFlag = optionalString(args, "scope");
    if (scopeFlag !== undefined && args.values["one-cluster"] === true) throw new CliError("give --scope or --one-cluster, not both", EXIT_USAGE);
    const scope = args.values["one-cluster"] === true ? "one" : choice("scope", scopeFlag, SCOPE_RULES.filter((rule) => rule !== "one"), "auto");
    const snapshotFile = optionalString(args, "snapshot");
    const fromCluster = args.values["from-cluster"] === true;
    if (snapshotFile !== undefined && fromCluster) throw new CliError("give --snapshot FILE or --from-cluster, not both", EXIT_USAGE);
    if ([snapshotFile, ...files, ...policies].filter((path) => path === "-").length > 1) throw new CliError("stdin can be read once: give - to one of -f, --policies and --snapshot", EXIT_USAGE);
    if (!fromCluster && optionalString(args, "context") !== undefined) throw new CliError("--context goes with --from-cluster", EXIT_USAGE);
    const kubernetesVersion = kubernetesVersionFlag(args);
    if (kubernetesVersion !== undefined && (fromCluster || snapshotFile !== undefined))
      throw new CliError("--kubernetes-version goes with facts from files (a snapshot carries its cluster's version)", EXIT_USAGE);

    let report: CheckReport;
    try {
      report = await runCheck(
        {
          files,
          policies,
          namespace: optionalString(args, "namespace"),
          scope,
          strict: args.values.strict === true,
          settingsNamespace: optionalString(args, "settings-namespace") ?? JOB_NAMESPACE,
          kubernetesVersion,
          defaults: args.values["no-defaults"] !== true,
          keepDefaulted: output === "json" || output === "yaml",
          ...(fromCluster ? { snapshot: () => snapshotFromCluster("check", args, io), clusterObjects: () => admissionObjectsFromCluster(optionalString(args, "context"), io) } : {}),
          ...(snapshotFile !== undefined ? { snapshot: () => snapshotFromFile(snapshotFile, io) } : {}),
        },
        io,
      );
    } catch (e) {
      throw cannotRun(e);
    }
    await writeReport(report, output, io);
    return exitCodeOf(report, failOn);
  },
};

/** What the live cluster's admission plugins read (LimitRanges, PriorityClasses, default classes, CRDs); what cannot be listed is a warning. */
async function admissionObjectsFromCluster(context: string | undefined, io: CliIo): Promise<KubeObject[]> {
  const { listAdmissionObjects } = await import("../objects/cluster/admission-objects.js");
  const warnings: string[] = [];
  const objects = await listAdmissionObjects(context, warnings);
  for (const warning of warnings) io.err(`warning: ${warning}\n`);
  return objects;
}

async function snapshotFromFile(file: string, io: CliIo): Promise<Snapshot> {
  const decoded = decodeSnapshot(await readInput(file, io, "snapshot"));
  if (!decoded.ok) throw new CliError(`${file === "-" ? "<stdin>" : file}: ${decoded.error}`);
  return decoded.snapshot;
}
