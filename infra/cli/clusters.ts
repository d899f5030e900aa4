// `edgeadmit clusters check|add|rotate|remove|label|list|get|import|reset-snapshot`:
// the fleet's clusters. `clusters check` checks a CLUSTERS value with the
// function's own loader (shared/clusters), so what passes here loads there.
// The others change and read the function's cluster registry with requests
// signed by the operator's key (the function refuses any other). A change
// takes effect in every isolate within seconds; no deploy.
import { emptyLabelChange, emptyRotation, MAX_CHANGES, relabeled, rotated, type Change, type LabelChange, type RotateChange } from "../../shared/clusters/changes.js";
import {
  clusterIdError,
  DEFAULT_MAX_SNAPSHOT_AGE_SECONDS,
  loadClusters,
  MAX_MAX_SNAPSHOT_AGE_SECONDS,
  maxAgeSecondsSchema,
  normalRegistration,
  registrationSchema,
  tokenDigestsOf,
  WITHOUT_SNAPSHOT,
  type NormalRegistration,
} from "../../shared/clusters/index.js";
import { registryChangeWidens } from "../../shared/governance/index.js";
import { labelKeyError } from "../../shared/k8s/labels/index.js";
import { importPublicKey, PUBLIC_KEY_PREFIX } from "../../shared/signing/index.js";
import { TOKEN_HASH_PATTERN } from "../../shared/tokens/index.js";
import { nextMinorRelease, parseRelease, served, UNNAMED_RELEASE } from "../../shared/version/index.js";
import { currentFleet } from "../client/fleet.js";
import { changeRegistry, getRegistration, listRegistry, REGISTRY_PATH, resetSnapshot, routeUrl, type ChangeAnswer, type ListedCluster } from "../client/registry.js";
import { choice, optionalString, parseVerbArgs, stringList, type ParsedArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { labelFlags, labelsText, selectorFlag } from "./labels.js";
import { relabelLines } from "./fleet-effect.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf, type Target } from "./operator-flags.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import { applied, proposalNote } from "./proposed.js";
import { plural } from "./plural.js";
import type { Verb } from "./verb.js";

/** The one positional argument: a cluster id. */
function clusterArg(verb: string, args: ParsedArgs): string {
  const id = args.positionals[0];
  if (id === undefined) throw new CliError(`say which cluster: edgeadmit ${verb} ID (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  const error = clusterIdError(id);
  if (error) throw new CliError(error, EXIT_USAGE);
  return id;
}

/** `--public-key` values: the key itself (`ed25519:…`), or a file holding it (edgeadmit.pub). */
async function publicKeys(flag: string, values: string[], io: CliIo): Promise<string[]> {
  const keys: string[] = [];
  for (const value of values) {
    const key = value.startsWith(PUBLIC_KEY_PREFIX) ? value : (await readInput(value, io, `--${flag}`)).trim();
    const imported = await importPublicKey(key);
    if (typeof imported === "string") throw new CliError(`--${flag} ${value}: ${imported}`, EXIT_USAGE);
    keys.push(key);
  }
  return keys;
}

function tokenHashes(flag: string, values: string[]): string[] {
  for (const value of values)
    if (!TOKEN_HASH_PATTERN.test(value)) throw new CliError(`--${flag} must be "sha256:" and 64 lowercase hex digits (edgeadmit token prints it), not "${value.slice(0, 80)}"`, EXIT_USAGE);
  return values;
}

function ifRevision(args: ParsedArgs): number | undefined {
  const text = optionalString(args, "if-revision");
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,14}$/.test(text)) throw new CliError(`--if-revision must be a revision that edgeadmit clusters list printed, not "${text}"`, EXIT_USAGE);
  return Number(text);
}

/** --max-age: whole seconds within the registration's bounds. */
function maxAge(args: ParsedArgs): number | undefined {
  const text = optionalString(args, "max-age");
  if (text === undefined) return undefined;
  const parsed = maxAgeSecondsSchema.safeParse(/^\d{1,9}$/.test(text) ? Number(text) : NaN);
  if (!parsed.success) throw new CliError(`--max-age must be whole seconds from 60 to ${MAX_MAX_SNAPSHOT_AGE_SECONDS}, not "${text.slice(0, 20)}"`, EXIT_USAGE);
  return parsed.data;
}

function credentials(registration: NormalRegistration): string {
  return [
    plural(registration.publicKey.length, "signing key"),
    registration.tokenHashes.length > 0 ? plural(registration.tokenHashes.length, "token hash", "token hashes") : undefined,
    registration.anonymous ? "anonymous reviews allowed (never on the internet)" : undefined,
    `withoutSnapshot ${registration.withoutSnapshot}`,
    `maxAgeSeconds ${registration.maxAgeSeconds}`,
    registration.labels ? `labels ${labelsText(registration.labels)}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(", ");
}

function reportNotes(answer: ChangeAnswer, io: CliIo): void {
  for (const note of answer.notes) io.err(`note: ${note}\n`);
}

const EFFECT = "every isolate of the function uses it within seconds (docs/operations.md, Running a fleet)";

/** A registration as the listing gives it, as a change reads and writes it. */
function registrationOf(entry: ListedCluster): NormalRegistration {
  return {
    publicKey: entry.publicKey,
    tokenHashes: entry.tokenHashes,
    ...(entry.anonymous ? { anonymous: true as const } : {}),
    withoutSnapshot: entry.withoutSnapshot,
    maxAgeSeconds: entry.maxAgeSeconds,
    ...(entry.labels ? { labels: entry.labels } : {}),
  };
}

const DRY_RUN_FLAG = { "dry-run": { type: "boolean" } } as const;
const DRY_RUN_HELP = `--dry-run prints the request it would send (method, URL and body; the
signature and a new requestId are added when it is sent) and what it would
do to what the registry holds now (read with signed GETs), and sends no
change: client-side, as kubectl --dry-run=client (the function offers no
server-side dry run). It exits 1 when the function would refuse the change.`;

/** What a dry run found: what the change would do, or the function's refusal of it (its status). */
type Foreseen = { lines: string[] } | { refused: { status: number; reason: string } };

/** The request `changes` make, without sending it. */
function printRequest(target: Target, changes: readonly Change[], io: CliIo): void {
  io.out(`POST ${routeUrl(target.endpoint, REGISTRY_PATH)}\n${JSON.stringify({ changes })}\n`);
}

/** What `changes` widen against what the registry holds (shared/governance): what the threshold asks more keys for. */
const wideningsOf = (changes: readonly Change[], current: (cluster: string) => NormalRegistration | undefined) =>
  changes.map((change) => registryChangeWidens(change, current(change.cluster))).filter((line) => line !== undefined);

/** --dry-run of a change of one cluster: the request, then what it would do or why the function would refuse it; nothing is sent. */
async function dryRun(target: Target, change: Change, held: ListedCluster | undefined, foreseen: Foreseen, io: CliIo): Promise<number> {
  printRequest(target, [change], io);
  if ("refused" in foreseen) throw new CliError(`dry run: the function would refuse it (${foreseen.refused.status}): ${foreseen.refused.reason}; nothing sent`);
  for (const line of foreseen.lines) io.out(`${line}\n`);
  const note = await proposalNote(target, wideningsOf([change], () => (held ? registrationOf(held) : undefined)));
  if (note) io.out(`${note}\n`);
  io.err("dry run: nothing sent\n");
  return 0;
}

/** The registration a change of `cluster` changes, or the refusal a change of one the registry lacks, or at another revision, gets. */
async function heldFor(target: Target, cluster: string, ifRevision: number | undefined): Promise<{ held: ListedCluster } | { refused: { status: number; reason: string } }> {
  const { registration } = await getRegistration(target.endpoint, target.privateKeyPem, cluster);
  if (!registration) return { refused: { status: 404, reason: `the registry does not hold cluster ${cluster}` } };
  if (ifRevision !== undefined && registration.revision !== ifRevision) return { refused: { status: 409, reason: `cluster ${cluster} is at revision ${registration.revision}, not ${ifRevision}: it changed since` } };
  return { held: registration };
}

const check: Verb = {
  name: "clusters check",
  summary: "check a CLUSTERS value as the function loads it: every unusable registration, and why",
  usage: `edgeadmit clusters check [FILE|-]

Reads a CLUSTERS value (JSON; a file, or stdin when FILE is - or absent) and
loads it as the function does. Prints each usable cluster and its credentials,
then each registration the function would disable, with the reason; exits 1
when any is unusable.

Check a value before it goes into a Worker secret, which cannot be read back.

Examples:
  edgeadmit clusters check clusters.json
  echo "$CLUSTERS" | edgeadmit clusters check -`,
  async run(argv, io) {
    const args = parseVerbArgs("clusters check", argv, {}, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const file = args.positionals[0] ?? "-";
    const { clusters, problems } = await loadClusters(await readInput(file, io, "CLUSTERS file"));
    for (const cluster of clusters.values()) {
      const credentials = [
        plural(cluster.keyCount, "signing key"),
        tokenDigestsOf(cluster).length > 0 ? plural(tokenDigestsOf(cluster).length, "token hash", "token hashes") : undefined,
        cluster.anonymous ? "anonymous reviews allowed (never on the internet)" : undefined,
        `withoutSnapshot ${cluster.withoutSnapshot}`,
        `maxAgeSeconds ${cluster.maxAgeSeconds}`,
      ].filter((part) => part !== undefined);
      io.out(`ok ${cluster.id}: ${credentials.join(", ")}\n`);
    }
    for (const problem of problems) io.out(`unusable ${problem.cluster ?? "(CLUSTERS)"}: ${problem.reason}\n`);
    if (clusters.size === 0 && problems.length === 0) io.out("no clusters registered\n");
    return problems.length > 0 || clusters.size === 0 ? 1 : 0;
  },
};

const add: Verb = {
  name: "clusters add",
  summary: "register a cluster in the function's registry (no deploy)",
  usage: `edgeadmit clusters add ID ${TARGET_USAGE} --public-key KEY [--public-key KEY] (--token-hash HASH... | --anonymous) [--without-snapshot FailOpen|FailClosed] [--max-age SECONDS] [--label KEY=VALUE...] [--dry-run]

Registers cluster ID: the public key its sync job signs with (ed25519:…, or a
file holding it such as edgeadmit keygen's edgeadmit.pub), the SHA-256 of each
token its apiserver presents (edgeadmit token prints them), and the stance
without a usable snapshot (default FailOpen): before the first push, past
--max-age seconds after the last one (default ${DEFAULT_MAX_SNAPSHOT_AGE_SECONDS}, at most
${MAX_MAX_SNAPSHOT_AGE_SECONDS}), or when the key that pushed it is no longer registered.
Refused when ID is registered already (rotate changes a registration).
Its labels are what fleet policy sets select clusters by (--label env=prod
--label ring=canary; edgeadmit clusters label changes them).
${DRY_RUN_HELP}
${TARGET_HELP}

Example:
  edgeadmit clusters add prod-eu --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key --public-key ./keys/prod-eu/edgeadmit.pub --token-hash sha256:3c7f…`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, {
      ...TARGET_FLAGS,
      "public-key": { type: "string", multiple: true },
      "token-hash": { type: "string", multiple: true },
      anonymous: { type: "boolean" },
      "without-snapshot": { type: "string" },
      "max-age": { type: "string" },
      label: { type: "string", multiple: true },
      ...DRY_RUN_FLAG,
    }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = clusterArg(this.name, args);
    const labels = labelFlags(stringList(args, "label"));
    const keys = await publicKeys("public-key", stringList(args, "public-key"), io);
    if (keys.length === 0) throw new CliError(`--public-key is required (see edgeadmit ${this.name} --help)`, EXIT_USAGE);
    const hashes = tokenHashes("token-hash", stringList(args, "token-hash"));
    const anonymous = args.values.anonymous === true;
    if (hashes.length === 0 && !anonymous) throw new CliError("--token-hash is required: the SHA-256 of the token the cluster's apiserver presents (edgeadmit token prints it)", EXIT_USAGE);
    const registration: NormalRegistration = {
      publicKey: keys,
      tokenHashes: hashes,
      ...(anonymous ? { anonymous: true as const } : {}),
      withoutSnapshot: choice("without-snapshot", optionalString(args, "without-snapshot"), WITHOUT_SNAPSHOT, "FailOpen"),
      maxAgeSeconds: maxAge(args) ?? DEFAULT_MAX_SNAPSHOT_AGE_SECONDS,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
    };
    const change: Change = { op: "add", cluster, registration };
    const target = await targetOf(this.name, args, io);
    if (args.values["dry-run"] === true) {
      const { registration: held, inClustersVariable } = await getRegistration(target.endpoint, target.privateKeyPem, cluster);
      return dryRun(target, change, undefined, held
        ? { refused: { status: 409, reason: `cluster ${cluster} is registered already (revision ${held.revision}): edgeadmit clusters rotate changes a registration` } }
        : { lines: [`would register ${cluster}: ${credentials(registration)}`, ...(inClustersVariable ? [`note: CLUSTERS registers ${cluster} too, and takes precedence for it`] : [])] }, io);
    }
    const answer = applied(await changeRegistry(target.endpoint, target.privateKeyPem, [change]), io);
    if (!answer) return 0;
    io.out(`registered ${cluster} (revision ${answer.revision}): ${credentials(registration)}\n`);
    reportNotes(answer, io);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

const rotate: Verb = {
  name: "clusters rotate",
  summary: "add and remove a registered cluster's keys and token hashes, or change its stance",
  usage: `edgeadmit clusters rotate ID ${TARGET_USAGE} [--add-key KEY] [--remove-key KEY] [--add-token-hash HASH] [--remove-token-hash HASH] [--without-snapshot FailOpen|FailClosed] [--max-age SECONDS] [--if-revision N] [--dry-run]

Changes cluster ID's registration in one step; each flag may repeat. Rotate
without a window: add the new key or token hash first (both are accepted),
move the cluster over, then remove the old one. To replace a leaked one, add
the new and remove the old in the same rotate: what the removed key pushed
stops counting at once (the cluster takes its --without-snapshot stance)
until the sync job pushes with the new key. A registration always keeps a
signing key and a credential; the function refuses a rotate that would leave
none. --if-revision N refuses the change if the registration changed since
edgeadmit clusters list showed revision N.
${DRY_RUN_HELP}
${TARGET_HELP}

Example:
  edgeadmit clusters rotate prod-eu --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key --add-token-hash sha256:9d1e…`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, {
      ...TARGET_FLAGS,
      "add-key": { type: "string", multiple: true },
      "remove-key": { type: "string", multiple: true },
      "add-token-hash": { type: "string", multiple: true },
      "remove-token-hash": { type: "string", multiple: true },
      "without-snapshot": { type: "string" },
      "max-age": { type: "string" },
      "if-revision": { type: "string" },
      ...DRY_RUN_FLAG,
    }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = clusterArg(this.name, args);
    const addKeys = await publicKeys("add-key", stringList(args, "add-key"), io);
    const removeKeys = await publicKeys("remove-key", stringList(args, "remove-key"), io);
    const addHashes = tokenHashes("add-token-hash", stringList(args, "add-token-hash"));
    const removeHashes = tokenHashes("remove-token-hash", stringList(args, "remove-token-hash"));
    const stance = optionalString(args, "without-snapshot");
    const seconds = maxAge(args);
    const revision = ifRevision(args);
    const change: RotateChange = {
      op: "rotate",
      cluster,
      ...(addKeys.length > 0 ? { addPublicKeys: addKeys } : {}),
      ...(removeKeys.length > 0 ? { removePublicKeys: removeKeys } : {}),
      ...(addHashes.length > 0 ? { addTokenHashes: addHashes } : {}),
      ...(removeHashes.length > 0 ? { removeTokenHashes: removeHashes } : {}),
      ...(revision !== undefined ? { ifRevision: revision } : {}),
      ...(stance !== undefined ? { withoutSnapshot: choice("without-snapshot", stance, WITHOUT_SNAPSHOT, "FailOpen") } : {}),
      ...(seconds !== undefined ? { maxAgeSeconds: seconds } : {}),
    };
    if (emptyRotation(change))
      throw new CliError(`nothing to change: give --add-key, --remove-key, --add-token-hash, --remove-token-hash, --without-snapshot or --max-age (see edgeadmit ${this.name} --help)`, EXIT_USAGE);
    const done = [
      addKeys.length > 0 ? `added ${plural(addKeys.length, "signing key")}` : undefined,
      removeKeys.length > 0 ? `removed ${plural(removeKeys.length, "signing key")}` : undefined,
      addHashes.length > 0 ? `added ${plural(addHashes.length, "token hash", "token hashes")}` : undefined,
      removeHashes.length > 0 ? `removed ${plural(removeHashes.length, "token hash", "token hashes")}` : undefined,
      stance !== undefined ? `withoutSnapshot ${stance}` : undefined,
      seconds !== undefined ? `maxAgeSeconds ${seconds}` : undefined,
    ].filter((part) => part !== undefined);
    const target = await targetOf(this.name, args, io);
    if (args.values["dry-run"] === true) {
      const found = await heldFor(target, cluster, revision);
      if ("refused" in found) return dryRun(target, change, undefined, found, io);
      const before = registrationOf(found.held);
      const after = rotated(before, change);
      return dryRun(target, change, found.held, typeof after === "string"
        ? { refused: { status: 409, reason: after } }
        : { lines: [`would rotate ${cluster} (revision ${found.held.revision}): ${done.join(", ")}`, `  now:   ${credentials(before)}`, `  after: ${credentials(after)}`] }, io);
    }
    const answer = applied(await changeRegistry(target.endpoint, target.privateKeyPem, [change]), io);
    if (!answer) return 0;
    io.out(`rotated ${cluster} (revision ${answer.revision}): ${done.join(", ")}\n`);
    reportNotes(answer, io);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

const remove: Verb = {
  name: "clusters remove",
  summary: "remove a cluster from the function's registry: its credentials stop working",
  usage: `edgeadmit clusters remove ID ${TARGET_USAGE} [--if-revision N] [--dry-run]

Removes cluster ID's registration: within seconds its apiserver's reviews and
its sync job's pushes are refused (401), as for any unknown cluster. Its
snapshot stays stored; registered again, the cluster finds it, but it counts
only if a key of the new registration pushed it (reset-snapshot drops it).
--if-revision N refuses the removal if the registration changed since
edgeadmit clusters list showed revision N.
${DRY_RUN_HELP}
${TARGET_HELP}

Example:
  edgeadmit clusters remove prod-eu --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, "if-revision": { type: "string" }, ...DRY_RUN_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = clusterArg(this.name, args);
    const revision = ifRevision(args);
    const change: Change = { op: "remove", cluster, ...(revision !== undefined ? { ifRevision: revision } : {}) };
    const target = await targetOf(this.name, args, io);
    if (args.values["dry-run"] === true) {
      const found = await heldFor(target, cluster, revision);
      if ("refused" in found) return dryRun(target, change, undefined, found, io);
      return dryRun(target, change, found.held, {
        lines: [
          `would remove ${cluster} (revision ${found.held.revision}): ${credentials(registrationOf(found.held))}`,
          `  within seconds its apiserver's reviews and its sync job's pushes get 401, as an unknown cluster's; its stored snapshot stays`,
          ...(found.held.shadowedByClusters ? [`note: CLUSTERS registers ${cluster} too, and keeps serving it`] : []),
        ],
      }, io);
    }
    const answer = applied(await changeRegistry(target.endpoint, target.privateKeyPem, [change]), io);
    if (!answer) return 0;
    io.out(`removed ${cluster} (revision ${answer.revision})\n`);
    reportNotes(answer, io);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

const labelVerb: Verb = {
  name: "clusters label",
  summary: "set and remove a registered cluster's labels, which fleet policy sets select by",
  usage: `edgeadmit clusters label ID KEY=VALUE... KEY-... ${TARGET_USAGE} [--if-revision N] [--dry-run]

Sets (KEY=VALUE) and removes (KEY-) labels of cluster ID's registration in
one step, as kubectl label does; a value set again replaces the old one, and
a label to remove that the cluster lacks is said (label "KEY" not found.)
while the rest applies.
Fleet policy sets select clusters by these labels (docs/fleet.md): a change
moves the cluster into or out of a fleet binding within seconds; --dry-run
says which (the fleet policies it would get, lose, or enforce with other
actions).
--if-revision N refuses the change if the registration changed since
edgeadmit clusters list showed revision N.
${DRY_RUN_HELP}
${TARGET_HELP}

Example:
  edgeadmit clusters label prod-eu env=prod ring=canary legacy- --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, "if-revision": { type: "string" }, ...DRY_RUN_FLAG }, 1 + 2 * 32);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = clusterArg(this.name, args);
    const edits = args.positionals.slice(1);
    const remove = edits.filter((edit) => edit.endsWith("-") && !edit.includes("=")).map((edit) => edit.slice(0, -1));
    for (const key of remove) {
      const problem = labelKeyError(key);
      if (problem) throw new CliError(problem, EXIT_USAGE);
    }
    const set = labelFlags(edits.filter((edit) => !(edit.endsWith("-") && !edit.includes("="))));
    const revision = ifRevision(args);
    const change: LabelChange = {
      op: "label",
      cluster,
      ...(Object.keys(set).length > 0 ? { set } : {}),
      ...(remove.length > 0 ? { remove } : {}),
      ...(revision !== undefined ? { ifRevision: revision } : {}),
    };
    const empty = emptyLabelChange(change);
    if (empty) throw new CliError(`${empty}: give KEY=VALUE or KEY- (see edgeadmit ${this.name} --help)`, EXIT_USAGE);
    const target = await targetOf(this.name, args, io);
    // As kubectl label: a label to remove that the cluster lacks is said, and the rest applies.
    const labeled = (absent: ReadonlySet<string>, revision: number, dry = false) => {
      const lines = [...absent].map((key) => `label "${key}" not found.`);
      const removed = remove.filter((key) => !absent.has(key));
      const done = [Object.keys(set).length > 0 ? `set ${labelsText(set)}` : undefined, removed.length > 0 ? `removed ${removed.join(",")}` : undefined].filter((part) => part !== undefined);
      if (done.length === 0) return [...lines, `${cluster} ${dry ? "would not be" : "not"} labeled (revision ${revision}): no label to remove`];
      return [...lines, `${dry ? "would label" : "labeled"} ${cluster} (revision ${revision}): ${done.join(", ")}`];
    };
    if (args.values["dry-run"] === true) {
      const found = await heldFor(target, cluster, revision);
      if ("refused" in found) return dryRun(target, change, undefined, found, io);
      const before = registrationOf(found.held);
      const after = relabeled(before, change);
      if (typeof after === "string") return dryRun(target, change, found.held, { refused: { status: 409, reason: after } }, io);
      const fleet = await currentFleet(target.endpoint, target.privateKeyPem);
      const moves = relabelLines(fleet, before.labels ?? {}, after.labels ?? {});
      return dryRun(target, change, found.held, {
        lines: [
          ...labeled(new Set(remove.filter((key) => !Object.hasOwn(before.labels ?? {}, key))), found.held.revision, true),
          `  labels now: ${labelsText(before.labels ?? {}) || "none"}; after: ${labelsText(after.labels ?? {}) || "none"}`,
          `  fleet revision ${fleet.revision} on it: ${moves.length > 0 ? moves.join("; ") : "no fleet policy bound, removed or changed"}`,
          ...(found.held.shadowedByClusters ? [`note: CLUSTERS registers ${cluster} too, and its labels there are those in effect`] : []),
        ],
      }, io);
    }
    const answer = applied(await changeRegistry(target.endpoint, target.privateKeyPem, [change]), io);
    if (!answer) return 0;
    for (const line of labeled(new Set(answer.applied[0]?.absentLabels ?? []), answer.revision)) io.out(`${line}\n`);
    reportNotes(answer, io);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

function listedLine(entry: ListedCluster): string {
  const shadowed = entry.shadowedByClusters ? " [CLUSTERS registers it too and wins]" : "";
  return `${entry.cluster} revision ${entry.revision}: ${credentials(registrationOf(entry))}, updated ${entry.updatedAt}, ${syncJobOf(entry)}${shadowed}`;
}

/** `sync job 0.2.0 at <time>`, as kubectl get nodes shows each kubelet's version; flagged when the next release will not serve it. */
function syncJobOf(entry: ListedCluster): string {
  const seen = entry.lastSync;
  if (!seen) return "sync job not seen yet";
  const release = seen.release ?? UNNAMED_RELEASE;
  const named = seen.release === null ? `${UNNAMED_RELEASE} or older` : release;
  const next = nextMinorRelease();
  const behind = served(parseRelease(release) ?? parseRelease(UNNAMED_RELEASE)!, next) ? "" : ` [older than ${next.major}.${next.minor} serves: upgrade it before the function]`;
  return `${seen.verb ?? "sync job"} ${named} at ${seen.at}${behind}`;
}

const list: Verb = {
  name: "clusters list",
  summary: "list the function's registered clusters: ids, revisions, public keys and token hashes",
  usage: `edgeadmit clusters list ${TARGET_USAGE} [-l SELECTOR] [-o text|json|yaml]

Prints every registration in the registry (page by page), one line each:
id, revision, credentials, stance and labels, and the release its sync job
named when it last called, and when (as kubectl get nodes shows kubelets);
a sync job the next release will not serve is flagged: upgrade it before
the function (docs/operations.md, "Upgrading"). -o json (or yaml) prints
them whole (public keys and token hashes; the function holds nothing
secret). Then the
ids the function's CLUSTERS variable registers, which take precedence.
-l keeps the registrations whose labels the selector selects, in kubectl's
syntax: env=prod,tier!=system, ring in (canary,early), gpu, !legacy.
${TARGET_HELP}

Example:
  edgeadmit clusters list --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG, selector: { type: "string", short: "l" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const selected = selectorFlag(args);
    const target = await targetOf(this.name, args, io);
    const listing = await listRegistry(target.endpoint, target.privateKeyPem);
    if (selected) listing.clusters = listing.clusters.filter((entry) => selected(entry.labels));
    if (output !== "text") {
      printData(io, output, listing);
      return 0;
    }
    for (const entry of listing.clusters) io.out(`${listedLine(entry)}\n`);
    if (listing.clustersVariable.length > 0) io.out(`in CLUSTERS: ${listing.clustersVariable.join(", ")}\n`);
    io.err(`${plural(listing.clusters.length, "cluster")} in the registry at revision ${listing.revision}${listing.clustersVariable.length > 0 ? `, ${listing.clustersVariable.length} in CLUSTERS` : ""}\n`);
    return 0;
  },
};

const get: Verb = {
  name: "clusters get",
  summary: "show one registered cluster: its revision, credentials, stance, labels and sync job",
  usage: `edgeadmit clusters get ID ${TARGET_USAGE} [-o text|json|yaml]

Prints cluster ID's registration as clusters list prints each (one line), or
whole with -o json (or yaml), as kubectl get does for one object. An id the
function's CLUSTERS variable registers is said to be there (CLUSTERS
registrations are not listed; edgeadmit clusters check reads a CLUSTERS
value). Exits 1 when the function registers no cluster ID.
${TARGET_HELP}

Example:
  edgeadmit clusters get prod-eu -o yaml --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = clusterArg(this.name, args);
    const output = outputOf(args);
    const target = await targetOf(this.name, args, io);
    const { registration, inClustersVariable } = await getRegistration(target.endpoint, target.privateKeyPem, cluster);
    if (!registration && !inClustersVariable) throw new CliError(`cluster ${cluster} is not registered: not in the registry, nor in CLUSTERS (edgeadmit clusters list)`);
    if (output !== "text") printData(io, output, registration ?? { cluster, inClustersVariable });
    else if (registration) io.out(`${listedLine(registration)}\n`);
    else io.out(`${cluster}: in CLUSTERS, the function's variable, whose registrations are not listed (edgeadmit clusters check reads a CLUSTERS value)\n`);
    return 0;
  },
};

/** Registrations compared regardless of the order of their keys and hashes. */
function sameRegistration(a: ListedCluster, b: NormalRegistration): boolean {
  const canonical = (r: ListedCluster | NormalRegistration) =>
    JSON.stringify([[...r.publicKey].sort(), [...r.tokenHashes].sort(), r.anonymous === true, r.withoutSnapshot, r.maxAgeSeconds, Object.entries(r.labels ?? {}).sort()]);
  return canonical(a) === canonical(b);
}

const importVerb: Verb = {
  name: "clusters import",
  summary: "copy a CLUSTERS value into the function's registry (the migration off the variable)",
  usage: `edgeadmit clusters import [FILE|-] ${TARGET_USAGE} [--dry-run]

Reads a CLUSTERS value (JSON; a file, or stdin when FILE is - or absent),
checks it as edgeadmit clusters check does, and adds each cluster the registry
does not hold yet, ${MAX_CHANGES} per signed request. A cluster the registry
already holds with the same credentials is left as it is; one it holds
differently stops the import before anything is sent, as does an unusable
entry. CLUSTERS keeps precedence for the ids it names: once the import is
done, drop the variable (or those entries) and deploy, and the registry
serves them, with no moment when a credential fails.
${DRY_RUN_HELP}
${TARGET_HELP}

Example:
  edgeadmit clusters import clusters.json --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...DRY_RUN_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const target = await targetOf(this.name, args, io);
    const source = await readInput(args.positionals[0] ?? "-", io, "CLUSTERS file");
    const { problems } = await loadClusters(source);
    if (problems.length > 0)
      throw new CliError(
        `${plural(problems.length, "registration")} cannot be used (edgeadmit clusters check says why): ${problems.slice(0, 5).map((p) => `${p.cluster ?? "(CLUSTERS)"}: ${p.reason}`).join("; ")}; nothing imported`,
      );
    const wanted = Object.entries(JSON.parse(source) as Record<string, unknown>).map(([cluster, value]) => ({ cluster, registration: normalRegistration(registrationSchema.parse(value)) }));
    const held = new Map((await listRegistry(target.endpoint, target.privateKeyPem)).clusters.map((entry) => [entry.cluster, entry]));
    const differing = wanted.filter(({ cluster, registration }) => held.has(cluster) && !sameRegistration(held.get(cluster)!, registration)).map(({ cluster }) => cluster);
    if (differing.length > 0)
      throw new CliError(`the registry already holds ${differing.slice(0, 10).join(", ")}${differing.length > 10 ? ` and ${differing.length - 10} more` : ""} with other credentials: rotate or remove ${differing.length === 1 ? "it" : "them"} first; nothing imported`);
    const unchanged = wanted.filter(({ cluster }) => held.has(cluster));
    for (const { cluster } of unchanged) io.out(`unchanged ${cluster}: the registry holds the same registration\n`);
    const adds = wanted.filter(({ cluster }) => !held.has(cluster));
    const batches: Change[][] = [];
    for (let start = 0; start < adds.length; start += MAX_CHANGES) batches.push(adds.slice(start, start + MAX_CHANGES).map(({ cluster, registration }) => ({ op: "add", cluster, registration })));
    if (args.values["dry-run"] === true) {
      for (const batch of batches) {
        printRequest(target, batch, io);
        for (const { cluster } of batch) io.out(`would import ${cluster}\n`);
      }
      const note = await proposalNote(target, wideningsOf(batches.flat(), () => undefined));
      if (note) io.out(`${note}\n`);
      io.err(`dry run: nothing sent; would import ${adds.length}, unchanged ${unchanged.length}\n`);
      return 0;
    }
    let imported = 0;
    for (const batch of batches) {
      let answer: ChangeAnswer | undefined;
      try {
        answer = applied(await changeRegistry(target.endpoint, target.privateKeyPem, batch), io);
      } catch (e) {
        if (imported === 0) throw e;
        throw new CliError(`${(e as Error).message} (imported ${imported} of ${adds.length} before this: run the import again to add the rest)`);
      }
      if (!answer) continue;
      for (const { cluster } of batch) io.out(`imported ${cluster} (revision ${answer.revision})\n`);
      imported += batch.length;
    }
    io.err(
      `imported ${imported}, unchanged ${unchanged.length}; CLUSTERS takes precedence for the ids it names: drop them from it and deploy, and the registry serves them\n`,
    );
    return 0;
  },
};

const resetSnapshotVerb: Verb = {
  name: "clusters reset-snapshot",
  summary: "drop everything the function stores of a cluster's snapshot, until its sync job pushes again",
  usage: `edgeadmit clusters reset-snapshot ID ${TARGET_USAGE}

Drops every generation the function stores for cluster ID, committed or
staged, whoever pushed it: the cluster takes its withoutSnapshot stance until
its sync job pushes again (which it does at its next run). For a snapshot
that must stop counting now (pushed with a leaked key, or wrong), or an id
that is registered anew. Works for an id that is not registered, too. A
signed request: the function refuses the same request sent again.
${TARGET_HELP}

Example:
  edgeadmit clusters reset-snapshot prod-eu --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, TARGET_FLAGS, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = clusterArg(this.name, args);
    const target = await targetOf(this.name, args, io);
    const answer = await resetSnapshot(target.endpoint, target.privateKeyPem, cluster);
    io.out(answer.dropped === null ? `reset ${cluster}: no snapshot was stored\n` : `reset ${cluster}: dropped generation ${answer.dropped}; the cluster takes its withoutSnapshot stance until its sync job pushes\n`);
    return 0;
  },
};

export const clustersVerbs: readonly Verb[] = [check, add, rotate, remove, labelVerb, list, get, importVerb, resetSnapshotVerb];
