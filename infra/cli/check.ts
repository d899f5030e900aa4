// `edgeadmit check`: manifests judged before they reach a cluster, by the same
// code and with the same messages as the function, against cluster facts from
// the manifests themselves, a built snapshot, or the live cluster.
import { judgeObjects } from "../../shared/judge/index.js";
import { decodeSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import type { KubeObject } from "../../shared/snapshot/build/index.js";
import { POLICIES } from "../../policies/index.js";
import { JOB_NAMESPACE } from "../objects/job.js";
import { readObjects, sourceOf } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, stringList } from "./args.js";
import { CliError, EXIT_FAILURE, EXIT_USAGE, firstLine } from "./errors.js";
import { readInput, type CliIo } from "./io.js";
import { countsOf, failingModes, FAIL_ON, type CheckReport, type FailOn } from "./output/index.js";
import { renderJson } from "./output/json.js";
import { renderSarif } from "./output/sarif.js";
import { renderText } from "./output/text.js";
import { CLUSTER_FLAGS, snapshotFromCluster, snapshotOf } from "./snapshot.js";
import type { Verb } from "./verb.js";

const RENDERERS = { text: renderText, json: renderJson, sarif: renderSarif } as const;
const OUTPUTS = Object.keys(RENDERERS) as Array<keyof typeof RENDERERS>;

/** Every object judged by every built-in policy and the snapshot's own ValidatingAdmissionPolicies, each with where it was read. */
export function checkObjects(objects: readonly KubeObject[], snapshot: Snapshot): CheckReport {
  const judged = judgeObjects(objects, snapshot, { policies: POLICIES });
  return { objects: judged.map((one) => ({ judged: one, source: sourceOf(one.object) })), policies: POLICIES };
}

/** 1 when an object is unreadable or a result is in a mode `failOn` fails on, else 0. */
export function exitCodeOf(report: CheckReport, failOn: FailOn): number {
  const counts = countsOf(report);
  return counts.unreadable > 0 || failingModes(failOn).some((mode) => counts[mode] > 0) ? EXIT_FAILURE : 0;
}

/** Exit 1 says "denied" (or "an expectation failed"), so anything that stops the verb from running is 2, in one line. */
export function cannotRun(e: unknown): CliError {
  if (e instanceof CliError) return new CliError(e.message, EXIT_USAGE);
  return new CliError(firstLine(e instanceof Error ? e.message : String(e)), EXIT_USAGE);
}

export const check: Verb = {
  name: "check",
  summary: "judge Kubernetes YAML with every policy, as the webhook would",
  usage: `edgeadmit check -f PATH... [-n NS] [--snapshot FILE | --from-cluster [--context NAME]] [-o text|json|sarif] [--fail-on deny|warn|audit]

Judges each object in PATH (files, directories, - for stdin: the output of
kubectl kustomize or helm template) as the webhook would judge its creation:
the built-in policies and the cluster's own ValidatingAdmissionPolicies, with
the webhook's messages. Namespaced objects without a namespace go to -n
(default: default).
The cluster facts (AffinityClasses, tenants, claims, nodes, settings, policies,
bindings and their params) come from the same input, or from --snapshot FILE
(as edgeadmit snapshot build writes it), or from the live cluster
(--from-cluster, through the kubeconfig, as the sync job lists it).
-o text (default) prints file:line, object, policy, mode and message per
result, then the counts; json prints every object with its results; sarif
prints SARIF 2.1.0 for code scanning.
Exits 0 when nothing is denied, 1 when something is (--fail-on warn: or
warned; --fail-on audit: or audited) or an object cannot be read, 2 when the
check cannot run (bad flags, unreadable input).

Examples:
  edgeadmit check -f deploy/ --snapshot snapshot.json
  kubectl kustomize overlays/prod | edgeadmit check -f - --from-cluster --context prod-eu
  helm template my-release chart/ | edgeadmit check -f - -n shop -o sarif > edgeadmit.sarif`,
  async run(argv, io) {
    const args = parseVerbArgs("check", argv, {
      file: { type: "string", short: "f", multiple: true },
      namespace: { type: "string", short: "n" },
      snapshot: { type: "string" },
      "from-cluster": { type: "boolean" },
      output: { type: "string", short: "o" },
      "fail-on": { type: "string" },
      ...CLUSTER_FLAGS,
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const files = stringList(args, "file");
    if (files.length === 0) throw new CliError("-f PATH is required (see edgeadmit check --help)", EXIT_USAGE);
    const output = choice("output", optionalString(args, "output"), OUTPUTS, "text");
    const failOn = choice("fail-on", optionalString(args, "fail-on"), FAIL_ON, "deny");
    const snapshotFile = optionalString(args, "snapshot");
    const fromCluster = args.values["from-cluster"] === true;
    if (snapshotFile !== undefined && fromCluster) throw new CliError("give --snapshot FILE or --from-cluster, not both", EXIT_USAGE);
    if (snapshotFile === "-" && files.includes("-")) throw new CliError("stdin can be read once: give -f - or --snapshot -, not both", EXIT_USAGE);
    if (!fromCluster && optionalString(args, "context") !== undefined) throw new CliError("--context goes with --from-cluster", EXIT_USAGE);

    let objects: KubeObject[];
    let snapshot: Snapshot;
    try {
      objects = await readObjects(files, io, { namespace: optionalString(args, "namespace") });
      if (objects.length === 0) throw new CliError(`no Kubernetes objects in ${files.join(", ")}`);
      snapshot = fromCluster ? await snapshotFromCluster("check", args, io) : snapshotFile !== undefined ? await snapshotFromFile(snapshotFile, io) : snapshotOf("check", objects, io, optionalString(args, "settings-namespace") ?? JOB_NAMESPACE, { reportIgnored: false });
    } catch (e) {
      throw cannotRun(e);
    }
    const report = checkObjects(objects, snapshot);
    io.out(RENDERERS[output](report));
    return exitCodeOf(report, failOn);
  },
};

async function snapshotFromFile(file: string, io: CliIo): Promise<Snapshot> {
  const decoded = decodeSnapshot(await readInput(file, io, "snapshot"));
  if (!decoded.ok) throw new CliError(`${file === "-" ? "<stdin>" : file}: ${decoded.error}`);
  return decoded.snapshot;
}
