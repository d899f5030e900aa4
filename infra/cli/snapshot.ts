// `edgeadmit snapshot build` and `edgeadmit snapshot push`, and the pieces
// `edgeadmit sync` shares with them: building from YAML or the cluster,
// reading the signing key, reaching the function.
import { writeFileSync } from "node:fs";
import { decodeSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/build/index.js";
import { pushSnapshot, type StoredSnapshot } from "../client/index.js";
import { JOB_NAMESPACE } from "../objects/job.js";
import { readObjects } from "../objects/yaml.js";
import { optionalString, parseVerbArgs, requiredString, stringList, type ParsedArgs } from "./args.js";
import { CliError, EXIT_USAGE, fileError } from "./errors.js";
import { readInput, type CliIo } from "./io.js";
import { readPrivateKey } from "./keygen.js";
import type { Verb } from "./verb.js";

/** Builds from `objects`, printing each skipped object as a warning; generation is the clock in ms, so the cluster keeps no counter. */
export function snapshotOf(objects: readonly KubeObject[], io: CliIo, settingsNamespace?: string): Snapshot {
  const now = Date.now();
  const { snapshot, problems } = buildSnapshot(objects, { generation: now, builtAt: new Date(now).toISOString(), ...(settingsNamespace ? { settingsNamespace } : {}) });
  for (const problem of problems) io.err(`warning: ${problem}\n`);
  return snapshot;
}

export const CLUSTER_FLAGS = { context: { type: "string" }, "settings-namespace": { type: "string" } } as const;

export async function snapshotFromCluster(args: ParsedArgs, io: CliIo): Promise<Snapshot> {
  const settingsNamespace = optionalString(args, "settings-namespace") ?? JOB_NAMESPACE;
  const context = optionalString(args, "context");
  const { listClusterObjects } = await import("../objects/cluster.js");
  const { objects, warnings } = await listClusterObjects({ settingsNamespace, ...(context !== undefined ? { context } : {}) });
  for (const warning of warnings) io.err(`warning: ${warning}\n`);
  return snapshotOf(objects, io, settingsNamespace);
}

export const PUSH_FLAGS = { endpoint: { type: "string" }, cluster: { type: "string" }, key: { type: "string" } } as const;

export interface PushTarget {
  endpoint: string;
  cluster: string;
  privateKeyPem: string;
}

/** --endpoint, --cluster and --key, checked before anything is built or sent. */
export async function pushTarget(verb: string, args: ParsedArgs, io: CliIo): Promise<PushTarget> {
  const endpoint = requiredString(verb, args, "endpoint");
  const cluster = requiredString(verb, args, "cluster");
  const keyFile = requiredString(verb, args, "key");
  if (!/^https?:\/\/[^/?#]+/.test(endpoint)) throw new CliError(`--endpoint must be an http(s) URL, not "${endpoint}"`, EXIT_USAGE);
  const privateKeyPem = await readPrivateKey(keyFile, io);
  return { endpoint, cluster, privateKeyPem };
}

/** The function's word on the cluster's own policies: how many are bound at the edge, and each that cannot be used. */
export function reportPolicies(stored: StoredSnapshot, io: CliIo): void {
  if (stored.boundPolicies > 0 || stored.policyProblems.length > 0) io.out(`${stored.boundPolicies} ValidatingAdmissionPolicies bound at the edge\n`);
  for (const problem of stored.policyProblems) io.err(`warning: ${problem}\n`);
}

export function push(target: PushTarget, snapshot: Snapshot) {
  return pushSnapshot(target.endpoint, target.cluster, target.privateKeyPem, JSON.stringify(snapshot));
}

const build: Verb = {
  name: "snapshot build",
  summary: "build a snapshot from Kubernetes YAML or from the live cluster",
  usage: `edgeadmit snapshot build (-f PATH... [-n NS] | --from-cluster [--context NAME]) [--settings-namespace NS] [-o FILE]

-f takes files (many YAML documents each), directories (their .yaml, .yml and
.json files, recursively) and - for stdin; kind: List is unpacked. -n puts
namespaced objects that name no namespace into NS (default: default), as
kubectl apply -n does.
--from-cluster lists AffinityClasses, Tenants, HelmReleases, PVCs, PVs, Nodes,
the workloads (not Pods) and the ConfigMap edgeadmit-settings (in --settings-namespace,
default ${JOB_NAMESPACE}) through the kubeconfig, as the sync job does.
Objects that cannot be used are skipped with a warning on stderr.
The generation is the current time in milliseconds.

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
      ...CLUSTER_FLAGS,
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const files = stringList(args, "file");
    const fromCluster = args.values["from-cluster"] === true;
    if (fromCluster === (files.length > 0)) throw new CliError("give either -f PATH... or --from-cluster (see edgeadmit snapshot build --help)", EXIT_USAGE);
    const namespace = optionalString(args, "namespace");
    if (fromCluster && namespace !== undefined) throw new CliError("-n goes with -f (the cluster's objects name their namespaces)", EXIT_USAGE);
    if (!fromCluster && optionalString(args, "context") !== undefined) throw new CliError("--context goes with --from-cluster", EXIT_USAGE);
    let snapshot: Snapshot;
    if (fromCluster) snapshot = await snapshotFromCluster(args, io);
    else {
      const objects = await readObjects(files, io, { namespace });
      snapshot = snapshotOf(objects, io, optionalString(args, "settings-namespace"));
    }
    const json = `${JSON.stringify(snapshot, null, 2)}\n`;
    const output = optionalString(args, "output");
    if (output === undefined || output === "-") io.out(json);
    else {
      try {
        writeFileSync(output, json);
      } catch (e) {
        throw fileError("write", output, e);
      }
      const counts = `${Object.keys(snapshot.affinityClasses).length} AffinityClasses, ${Object.keys(snapshot.tenants).length} tenants, ${Object.keys(snapshot.applications).length} applications, ${Object.keys(snapshot.volumeClaims).length} RWO volume claims`;
      io.err(`wrote ${output}: generation ${snapshot.generation}, ${counts}\n`);
    }
    return 0;
  },
};

const pushVerb: Verb = {
  name: "snapshot push",
  summary: "sign a snapshot with the cluster's key and store it in the function",
  usage: `edgeadmit snapshot push --endpoint URL --cluster ID --key FILE [FILE|-]

Reads the snapshot (a file, or stdin when FILE is - or absent), checks it,
signs it with the cluster's Ed25519 private key and PUTs it to
<URL>/v1/<ID>/snapshot. Prints the generation the function stored; when the
function refuses (unknown cluster, bad signature, not newer than what it has)
exits 1 with the function's reason.

Examples:
  edgeadmit snapshot push --endpoint http://127.0.0.1:8787 --cluster demo --key .edgeadmit/demo.key snapshot.json
  edgeadmit snapshot build -f cluster.yaml | edgeadmit snapshot push --endpoint https://edgeadmit.example.com --cluster prod-eu --key edgeadmit.key`,
  async run(argv, io) {
    const args = parseVerbArgs("snapshot push", argv, PUSH_FLAGS, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const target = await pushTarget("snapshot push", args, io);
    const file = args.positionals[0] ?? "-";
    const decoded = decodeSnapshot(await readInput(file, io, "snapshot"));
    if (!decoded.ok) throw new CliError(`${file === "-" ? "<stdin>" : file}: ${decoded.error}`);
    const stored = await push(target, decoded.snapshot);
    io.out(`stored generation ${stored.generation} for cluster ${stored.cluster} (${stored.bytes} bytes, content ${stored.contentHash.slice(0, 12)})\n`);
    reportPolicies(stored, io);
    return 0;
  },
};

export const snapshotVerbs = [build, pushVerb];
