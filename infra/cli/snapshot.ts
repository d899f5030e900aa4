// `edgeadmit snapshot build` and `edgeadmit snapshot push`, and the pieces
// `edgeadmit sync` shares with them: building from YAML or the cluster,
// reading the signing key, reaching the function.
import { writeFileSync } from "node:fs";
import { decodeSnapshot, MAX_PUSH_BYTES, snapshotSchema, type Snapshot } from "../../shared/snapshot/index.js";
import { buildSnapshot, type BuildOptions, type BuildResult, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { POLICIES } from "../../policies/index.js";
import { DEFAULT_VERSION, NEWEST_VERSION, OLDEST_VERSION, parseVersion, versionText } from "../../shared/cel/kubernetes/environment.js";
import { pushSnapshot, type PushReport, type StoredSnapshot } from "../client/index.js";
import type { ClusterOptions, ClusterSnapshot, StreamedCluster, UnitSink } from "../objects/cluster/snapshot.js";
import type { StreamedMeasures } from "../../shared/snapshot/stream/index.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { boundNeeds } from "../../shared/snapshot/builder/policies.js";
import { describeObject } from "../objects/identity.js";
import { withServedVersions } from "../objects/served.js";
import { readObjects } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, requiredString, type ParsedArgs, fileList } from "./args.js";
import { leavingReport, NEVER_LEAVES, printLeaving } from "./leaving.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { policySetOf } from "../../shared/vap/index.js";
import { uncoveredPolicyRules, WEBHOOK_CONFIGURATION_NAME, type WebhookRule } from "../webhook/index.js";
import { baseUrlOf } from "./endpoint.js";
import { readPrivateKey } from "./keygen.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import type { Verb } from "./verb.js";

/** How many ignored objects the summary line names before `… and N more`. */
const IGNORED_NAMED = 5;

/**
 * The objects a snapshot holds, settings aside (with `streamed`, those of the
 * snapshot's applications and claims, which sync counts as they stream):
 * none means pushing it forgets everything the function knew of the cluster.
 */
function objectCount(snapshot: Snapshot, streamed?: StreamedMeasures): number {
  const records = [snapshot.affinityClasses, snapshot.tenants, snapshot.applications, snapshot.volumeClaims, snapshot.nodes, snapshot.validatingAdmissionPolicies, snapshot.policyBindings, snapshot.namespaces, snapshot.exceptions];
  return (
    (streamed ? streamed.applications.objects + streamed.volumeClaims.objects : 0) +
    records.reduce((sum, record) => sum + Object.keys(record).length, 0) +
    Object.values(snapshot.policyParams).reduce((sum, param) => sum + param.objects.length, 0) +
    Object.values(snapshot.inventory).reduce((sum, kind) => sum + Object.keys(kind.objects).length, 0)
  );
}

const EMPTY_HINT = "pushed, it replaces everything the function knows of the cluster; pass --allow-empty if that is meant";

/**
 * What every build is given: the generation is the clock in ms, so the
 * cluster keeps no counter; only the ConfigMap edgeadmit-settings in
 * `settingsNamespace` is read; the Kubernetes version when known (a live
 * cluster's /version, or --kubernetes-version offline).
 */
export function buildOptionsOf(settingsNamespace: string, kubernetesVersion?: string): BuildOptions {
  const now = Date.now();
  return { generation: now, builtAt: new Date(now).toISOString(), settingsNamespace, policyIds: POLICIES.map((policy) => policy.id), ...(kubernetesVersion !== undefined ? { kubernetesVersion } : {}) };
}

export const KUBERNETES_VERSION_FLAG = { "kubernetes-version": { type: "string" } } as const;

/** The help text of --kubernetes-version, shared by the verbs that take it. */
export const KUBERNETES_VERSION_HELP = `--kubernetes-version MAJOR.MINOR (${versionText(OLDEST_VERSION)} to ${versionText(NEWEST_VERSION)}) is the Kubernetes version whose CEL
environment the ValidatingAdmissionPolicies compile with, when the facts come
from files; without it, ${versionText(DEFAULT_VERSION)} (a snapshot from a live cluster carries its own).`;

/** --kubernetes-version as "major.minor", checked against the versions this build knows; undefined when not given. */
export function kubernetesVersionFlag(args: ParsedArgs): string | undefined {
  const text = optionalString(args, "kubernetes-version");
  if (text === undefined) return undefined;
  const version = parseVersion(text);
  if (version === undefined) throw new CliError(`--kubernetes-version must be MAJOR.MINOR, e.g. 1.33, not "${text}"`, EXIT_USAGE);
  const known = (v: typeof version) => v.major * 1000 + v.minor;
  if (known(version) < known(OLDEST_VERSION) || known(version) > known(NEWEST_VERSION))
    throw new CliError(`--kubernetes-version ${versionText(version)}: this build knows the CEL environments of Kubernetes ${versionText(OLDEST_VERSION)} to ${versionText(NEWEST_VERSION)}`, EXIT_USAGE);
  return versionText(version);
}

/**
 * Prints each object the build skipped as a warning and the objects the
 * snapshot does not use on one line. `check` and `test` judge every object
 * whether it is a cluster fact or not, so they do not report the rest.
 */
function reportBuild(verb: string, { problems, ignored, refused }: BuildResult, io: CliIo, reportIgnored = true): void {
  refuseLeaks(verb, refused, io);
  for (const problem of problems) io.err(`warning: ${problem}\n`);
  if (reportIgnored && ignored.length > 0) {
    const named = ignored.slice(0, IGNORED_NAMED).map(describeObject).join(", ");
    const more = ignored.length > IGNORED_NAMED ? `, … and ${ignored.length - IGNORED_NAMED} more` : "";
    io.err(`edgeadmit ${verb}: ignored ${ignored.length} object${ignored.length === 1 ? "" : "s"} the policies do not use: ${named}${more}\n`);
  }
}

/**
 * A build whose bound policies ask for what never leaves the cluster
 * (shared/inventory/secrets.ts) is refused: every such ask on stderr, the
 * first as the error, exit 2 (input that cannot be used, in every verb),
 * nothing written, pushed or judged.
 */
export function refuseLeaks(verb: string, refused: readonly string[], io: CliIo): void {
  if (refused.length === 0) return;
  for (const line of refused.slice(1)) io.err(`edgeadmit ${verb}: ${line}\n`);
  throw new CliError(`${refused[0]}; refused, nothing ${verb === "sync" ? "was pushed" : verb === "snapshot build" ? "was written" : "was judged"}`, EXIT_USAGE);
}

/** The snapshot of `objects` (see buildOptionsOf and reportBuild), inventory kinds read at their declared versions (infra/objects/served.ts). */
export function snapshotOf(
  verb: string,
  objects: readonly KubeObject[],
  io: CliIo,
  settingsNamespace: string,
  { reportIgnored = true, kubernetesVersion }: { reportIgnored?: boolean; kubernetesVersion?: string | undefined } = {},
): Snapshot {
  const built = buildSnapshot(withServedVersions(objects, boundNeeds(objects).inventoryKinds, io), buildOptionsOf(settingsNamespace, kubernetesVersion));
  reportBuild(verb, built, io, reportIgnored);
  return built.snapshot;
}

export const CLUSTER_FLAGS = { context: { type: "string" }, "settings-namespace": { type: "string" } } as const;

/** The listing's warnings and the build's report, printed. */
function reportCluster(verb: string, { built, warnings }: ClusterSnapshot, io: CliIo): void {
  for (const warning of warnings) io.err(`warning: ${warning}\n`);
  reportBuild(verb, built, io);
}

/**
 * The snapshot of the cluster the kubeconfig points at, built as its lists
 * come in (infra/objects/cluster/snapshot.ts), with the listing's warnings and the
 * build's report printed. Its generation is the time the listing started.
 */
export async function snapshotOfCluster(verb: string, io: CliIo, options: ClusterOptions & { settingsNamespace: string }): Promise<{ snapshot: Snapshot; webhookRules?: WebhookRule[] }> {
  const { buildFromCluster } = await import("../objects/cluster/snapshot.js");
  const cluster = await buildFromCluster(options, buildOptionsOf(options.settingsNamespace));
  reportCluster(verb, cluster, io);
  return { snapshot: cluster.built.snapshot, ...(cluster.webhookRules ? { webhookRules: cluster.webhookRules } : {}) };
}

/** What a verb that reads the cluster and pushes or judges what it read asks of it: --settings-namespace, --context, and the function's webhook rules. */
function readingOptions(args: ParsedArgs): ClusterOptions & { settingsNamespace: string } {
  const context = optionalString(args, "context");
  return { settingsNamespace: optionalString(args, "settings-namespace") ?? JOB_NAMESPACE, readWebhook: true, ...(context !== undefined ? { context } : {}) };
}

/** A policy whose requests the apiserver never sends is a policy that is not enforced: said on every run. */
function reportUncovered(snapshot: Snapshot, webhookRules: WebhookRule[] | undefined, io: CliIo): void {
  for (const hole of webhookRules ? uncoveredPolicyRules(webhookRules, policySetOf(snapshot).rules) : [])
    io.err(`warning: ${hole}, which ValidatingWebhookConfiguration ${WEBHOOK_CONFIGURATION_NAME} does not send the function: not enforced there; regenerate it with edgeadmit webhook-config --snapshot\n`);
}

export async function snapshotFromCluster(verb: string, args: ParsedArgs, io: CliIo): Promise<Snapshot> {
  const { snapshot, webhookRules } = await snapshotOfCluster(verb, io, readingOptions(args));
  reportUncovered(snapshot, webhookRules, io);
  // Pushed too: the function checks the fleet's policies against them (docs/fleet.md, Coverage).
  return webhookRules ? { ...snapshot, webhookRules } : snapshot;
}

/**
 * The cluster's snapshot as units in `units` (streamFromCluster: sync's way,
 * for a cluster of any size), reported as snapshotFromCluster reports it. The
 * snapshot returned is the rest the units were made of, without applications
 * and claims, which `streamed` counts; or, when a list was out of namespace
 * order (said in a warning), the whole snapshot. `finish` makes the units
 * left, once the release they go to is known.
 */
export async function unitsFromCluster(
  verb: string,
  args: ParsedArgs,
  io: CliIo,
  units: UnitSink,
): Promise<{ snapshot: Snapshot; streamed?: StreamedMeasures; finish: StreamedCluster["finish"] }> {
  const { streamFromCluster } = await import("../objects/cluster/snapshot.js");
  const options = readingOptions(args);
  const cluster = await streamFromCluster(options, buildOptionsOf(options.settingsNamespace), units);
  if (cluster.wholeBecause) io.err(`warning: ${cluster.wholeBecause}: listed again and built the whole snapshot in memory\n`);
  reportCluster(verb, cluster, io);
  reportUncovered(cluster.built.snapshot, cluster.webhookRules, io);
  return { snapshot: cluster.built.snapshot, ...(cluster.streamed ? { streamed: cluster.streamed } : {}), finish: cluster.finish };
}

const ALLOW_EMPTY_FLAG = { "allow-empty": { type: "boolean" } } as const;
/** `--report text|json` of build: what it says on stderr of what leaves the cluster. */
const REPORTS = ["text", "json"] as const;

/** What a push sent, in words: incremental or every unit (and why), the units and bytes on the wire, and what the function stores in all. */
export function sentLine(pushed: PushReport): string {
  const what = pushed.full
    ? `every unit${pushed.fullBecause ? ` (${pushed.fullBecause})` : ""}: ${pushed.units} units`
    : `incremental against generation ${pushed.base}: ${pushed.units} of ${pushed.totalUnits} units${pushed.removed > 0 ? `, ${pushed.removed} removed` : ""}`;
  return `${what} in ${pushed.bodies} bod${pushed.bodies === 1 ? "y" : "ies"}, ${pushed.bytes} bytes sent; the function stores ${pushed.stored.bytes} bytes`;
}

/** What a push sent and what the function answered, for -o json. */
export function pushedJson(pushed: PushReport) {
  const { stored } = pushed;
  return {
    cluster: stored.cluster,
    generation: stored.generation,
    contentHash: stored.contentHash,
    incremental: !pushed.full,
    ...(pushed.base !== undefined ? { base: pushed.base } : {}),
    ...(pushed.fullBecause !== undefined ? { fullBecause: pushed.fullBecause } : {}),
    sent: { bodies: pushed.bodies, bytes: pushed.bytes, units: pushed.units, removed: pushed.removed },
    totalUnits: pushed.totalUnits,
    storedBytes: stored.bytes,
    boundPolicies: stored.boundPolicies,
    policyProblems: stored.policyProblems,
  };
}

/** The leaving report as -o json carries it. */
export const leavingJson = (snapshot: Snapshot, streamed?: StreamedMeasures) => ({ leaving: leavingReport(snapshot, streamed), neverLeaves: NEVER_LEAVES });
export const PUSH_FLAGS = { endpoint: { type: "string" }, cluster: { type: "string" }, key: { type: "string" }, ...ALLOW_EMPTY_FLAG } as const;

export interface PushTarget {
  endpoint: string;
  cluster: string;
  privateKeyPem: string;
  /** Whether a snapshot with no objects may go out (--allow-empty). */
  allowEmpty: boolean;
}

/** --endpoint, --cluster and --key, checked before anything is built or sent. */
export async function pushTarget(verb: string, args: ParsedArgs, io: CliIo): Promise<PushTarget> {
  const endpoint = requiredString(verb, args, "endpoint");
  const cluster = requiredString(verb, args, "cluster");
  const keyFile = requiredString(verb, args, "key");
  baseUrlOf("--endpoint", endpoint);
  const privateKeyPem = await readPrivateKey(keyFile, io);
  return { endpoint, cluster, privateKeyPem, allowEmpty: args.values["allow-empty"] === true };
}

/** The function's word on the cluster's own policies: how many are bound at the edge, and each that cannot be used (on stderr whatever -o says). */
export function reportPolicies(stored: StoredSnapshot, io: CliIo, json = false): void {
  if (!json && (stored.boundPolicies > 0 || stored.policyProblems.length > 0)) io.out(`${stored.boundPolicies} ValidatingAdmissionPolic${stored.boundPolicies === 1 ? "y" : "ies"} bound at the edge\n`);
  for (const problem of stored.policyProblems) io.err(`warning: ${problem}\n`);
}

/** A snapshot with no objects (without --allow-empty) fails here, before anything is sent. */
export function checkPushable(target: PushTarget, snapshot: Snapshot, streamed?: StreamedMeasures): void {
  if (!target.allowEmpty && objectCount(snapshot, streamed) === 0) throw new CliError(`the snapshot holds no objects: ${EMPTY_HINT}`);
}


/** A snapshot file's text as a Snapshot; fields the schema does not know are refused, not dropped, so what is signed is what was written. */
function snapshotFromText(text: string, name: string): Snapshot {
  const decoded = decodeSnapshot(text);
  if (!decoded.ok) throw new CliError(`${name}: ${decoded.error}`);
  const unknown = Object.keys(JSON.parse(text) as Record<string, unknown>).filter((key) => !Object.hasOwn(snapshotSchema.shape, key));
  if (unknown.length > 0) throw new CliError(`${name}: fields a snapshot does not have: ${unknown.join(", ")} (edgeadmit snapshot build writes snapshots)`);
  return decoded.snapshot;
}

const build: Verb = {
  name: "snapshot build",
  summary: "build a snapshot from Kubernetes YAML or from the live cluster",
  usage: `edgeadmit snapshot build (-f PATH... [-n NS] [--kubernetes-version V] | --from-cluster [--context NAME]) [--settings-namespace NS] [--allow-empty] [-o FILE] [--report text|json]

-f takes files (many YAML documents each), directories (their .yaml, .yml and
.json files, recursively) and - for stdin; kind: List is unpacked. -n puts
namespaced objects that name no namespace into NS (default: default), as
kubectl apply -n does.
--from-cluster lists AffinityClasses, Tenants, HelmReleases, PVCs, PVs, Nodes,
the workloads (not Pods) and the ConfigMap edgeadmit-settings through the
kubeconfig, as the sync job does, and the cluster's /version. Either way the settings are the ConfigMap
edgeadmit-settings in --settings-namespace (default ${JOB_NAMESPACE}) only.
Objects that cannot be used are skipped with a warning on stderr; objects the
snapshot does not use are named on one line. A snapshot with no objects is an
error unless --allow-empty: pushed, it would replace all the function knows.
The generation is the current time in milliseconds.
What leaves the cluster is printed on stderr (--report json: as one JSON
line): each kind, the fields of it that travel, the count of objects and
their bytes, and the policies that asked. A bound policy asking for what
never leaves the cluster (a Secret's data, managedFields,
last-applied-configuration: docs/inventory.md) makes the build fail, naming
the policy and the field, and nothing is written.
${KUBERNETES_VERSION_HELP}

Examples:
  edgeadmit snapshot build -f examples/demo/cluster.yaml -o snapshot.json
  kubectl get affinityclasses,tenants,helmreleases -A -o yaml | edgeadmit snapshot build -f -
  edgeadmit snapshot build --from-cluster --context prod-eu`,
  async run(argv, io) {
    const args = parseVerbArgs("snapshot build", argv, {
      file: { type: "string", short: "f", multiple: true },
      "from-cluster": { type: "boolean" },
      output: { type: "string", short: "o" },
      namespace: { type: "string", short: "n" },
      report: { type: "string" },
      ...CLUSTER_FLAGS,
      ...ALLOW_EMPTY_FLAG,
      ...KUBERNETES_VERSION_FLAG,
    }, Number.MAX_SAFE_INTEGER);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const files = fileList("snapshot build", args);
    const fromCluster = args.values["from-cluster"] === true;
    if (fromCluster === (files.length > 0)) throw new CliError("give either -f PATH... or --from-cluster (see edgeadmit snapshot build --help)", EXIT_USAGE);
    const namespace = optionalString(args, "namespace");
    if (fromCluster && namespace !== undefined) throw new CliError("-n goes with -f (the cluster's objects name their namespaces)", EXIT_USAGE);
    if (!fromCluster && optionalString(args, "context") !== undefined) throw new CliError("--context goes with --from-cluster", EXIT_USAGE);
    const kubernetesVersion = kubernetesVersionFlag(args);
    if (fromCluster && kubernetesVersion !== undefined) throw new CliError("--kubernetes-version goes with -f (the cluster's /version says its own)", EXIT_USAGE);
    const snapshot = fromCluster
      ? await snapshotFromCluster("snapshot build", args, io)
      : snapshotOf("snapshot build", await readObjects(files, io, { namespace }), io, optionalString(args, "settings-namespace") ?? JOB_NAMESPACE, { kubernetesVersion });
    if (objectCount(snapshot) === 0 && args.values["allow-empty"] !== true)
      throw new CliError(`the snapshot would hold no objects${fromCluster ? "" : ` (from ${files.join(", ")})`}: ${EMPTY_HINT}`);
    if (choice("report", optionalString(args, "report"), REPORTS, "text") === "json") io.err(`${JSON.stringify(leavingJson(snapshot))}\n`);
    else printLeaving(leavingReport(snapshot), io.err);
    const json = `${JSON.stringify(snapshot, null, 2)}\n`;
    const output = optionalString(args, "output");
    if (output === undefined || output === "-") io.out(json);
    else {
      try {
        writeFileSync(output, json);
      } catch (e) {
        throw fileError("write", output, e);
      }
      const size = (record: object) => Object.keys(record).length;
      const counts = `${size(snapshot.affinityClasses)} AffinityClasses, ${size(snapshot.tenants)} tenants, ${size(snapshot.applications)} applications, ${size(snapshot.volumeClaims)} RWO volume claims, ${size(snapshot.validatingAdmissionPolicies)} ValidatingAdmissionPolicies bound at the edge, ${size(snapshot.exceptions)} exceptions`;
      io.err(`wrote ${output}: generation ${snapshot.generation}, ${counts}\n`);
    }
    return 0;
  },
};

const pushVerb: Verb = {
  name: "snapshot push",
  summary: "sign a snapshot with the cluster's key and store it in the function",
  usage: `edgeadmit snapshot push --endpoint URL --cluster ID --key FILE [--allow-empty] [-o text|json|yaml] [FILE|-]

Reads the snapshot (a file, or stdin when FILE is - or absent), checks it
(fields a snapshot does not have, no objects without --allow-empty, one
namespace's shard over the function's ${MAX_PUSH_BYTES / (1024 * 1024)} MiB per body: each refused before
sending), splits it into its cluster-wide part and one shard per namespace,
signs them with the cluster's Ed25519 private key and PUTs them to
<URL>/v1/<ID>/snapshot, in batches for a large snapshot, the last committing
them as one generation. Prints the generation the function stored, what went
on the wire (every unit: units, bodies, bytes sent) and what the function
stores in all (-o json: as one JSON object on one line; -o yaml: one YAML
document); when the function refuses
(unknown cluster, bad signature, not newer than what it has, a Secret's
values) exits 1 with the function's reason.

Examples:
  edgeadmit snapshot push --endpoint http://127.0.0.1:8787 --cluster demo --key .edgeadmit/demo.key snapshot.json
  edgeadmit snapshot build -f cluster.yaml | edgeadmit snapshot push --endpoint https://edgeadmit.example.com --cluster prod-eu --key edgeadmit.key`,
  async run(argv, io) {
    const args = parseVerbArgs("snapshot push", argv, { ...PUSH_FLAGS, ...OUTPUT_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const target = await pushTarget("snapshot push", args, io);
    const output = outputOf(args);
    const file = args.positionals[0] ?? "-";
    const snapshot = snapshotFromText(await readInput(file, io, "snapshot"), file === "-" ? "<stdin>" : file);
    checkPushable(target, snapshot);
    // Every unit; one too large for a body fails before anything is sent.
    const pushed = await pushSnapshot(target.endpoint, target.cluster, target.privateKeyPem, snapshot);
    const { stored } = pushed;
    if (output !== "text") printData(io, output, pushedJson(pushed), { oneLine: true });
    else io.out(`stored generation ${stored.generation} for cluster ${stored.cluster} (content ${stored.contentHash.slice(0, 12)}): ${sentLine(pushed)}\n`);
    reportPolicies(stored, io, output !== "text");
    return 0;
  },
};

export const snapshotVerbs = [build, pushVerb];
