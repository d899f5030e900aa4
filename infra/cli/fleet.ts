// `edgeadmit fleet apply|diff|history|rollback|promote`: the fleet policy
// set (docs/fleet.md), one set for every registered cluster, selected by
// their labels, changed with requests signed by the operator's key. Every
// change is a new fleet revision, in effect in every isolate within seconds.
import { actionsFor, emptyFleetSet, fleetSetOf, fleetSetProblems, fleetSetSchema, promotedWave, stagesAfterApply, type FleetSet } from "../../shared/fleet/index.js";
import { fleetChangeWidens } from "../../shared/governance/index.js";
import { KEPT_HOURS, OUTCOMES } from "../../shared/counts/index.js";
import { describeZodError } from "../../shared/zod/index.js";
import { changeFleet, clusterCoverage, currentFleet, fleetHistory, fleetRevision, verdictCounts, type ClusterCoverage, type FleetChangeRequest, type FleetCurrent } from "../client/fleet.js";
import { listRegistry } from "../client/registry.js";
import { filesUnder, objectsFromText } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, stringList, type ParsedArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { labelsText, selectorFlag } from "./labels.js";
import { confirmed, YES_FLAG } from "./confirm.js";
import { clustersText, effectLines, fleetEffect, type FleetState } from "./fleet-effect.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf, type Target } from "./operator-flags.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import { applied, proposalNote } from "./proposed.js";
import { plural } from "./plural.js";
import type { Verb } from "./verb.js";

const EFFECT = "every isolate of the function enforces it within seconds (docs/fleet.md)";
const MANIFEST = /\.(ya?ml|json)$/i;

/** The set in the files and directories of -f, as the function will check it; a usage error names what is wrong. */
async function localSet(verb: string, args: ParsedArgs, io: CliIo): Promise<FleetSet> {
  const paths = stringList(args, "filename");
  if (paths.length === 0) throw new CliError(`-f is required: the files or directories of the fleet set (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  const objects: unknown[] = [];
  // Read as written: a param's namespace is the set's to give, never a default of the CLI's.
  for (const file of paths.flatMap((path) => (path === "-" ? [path] : filesUnder(path, (name) => MANIFEST.test(name)))))
    objects.push(...objectsFromText(await readInput(file, io, "file"), file === "-" ? "<stdin>" : file));
  const parsed = fleetSetSchema.safeParse(fleetSetOf(objects));
  if (!parsed.success) throw new CliError(`the fleet set cannot be applied: ${describeZodError(parsed.error)}`);
  const problems = fleetSetProblems(parsed.data);
  if (problems.length > 0) throw new CliError(`the fleet set cannot be applied: ${problems.slice(0, 10).join("; ")}${problems.length > 10 ? `; and ${problems.length - 10} more` : ""}`);
  return parsed.data;
}

/** JSON with object keys in order: two objects alike but for key order compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/** Each object of a set by `Kind name` (params by `apiVersion Kind namespace/name`). */
function objectsOf(set: FleetSet | undefined): Map<string, unknown> {
  const objects = new Map<string, unknown>();
  if (!set) return objects;
  const named = (kind: string, object: unknown) => objects.set(`${kind} ${(object as { metadata: { name: string } }).metadata.name}`, object);
  for (const policy of set.policies) named("ValidatingAdmissionPolicy", policy);
  for (const binding of set.bindings) named("EdgeAdmissionPolicyBinding", binding);
  for (const modes of set.modes) named("EdgeAdmissionPolicyModes", modes);
  for (const exception of set.exceptions) named("EdgeAdmissionException", exception);
  for (const param of set.params) objects.set(`${param.apiVersion} ${param.kind} ${param.metadata.namespace ? `${param.metadata.namespace}/` : ""}${param.metadata.name}`, param);
  return objects;
}

/** One line per object added (+), changed (~) or removed (-), in name order; a binding whose waves change starts again at wave 0. */
export function diffLines(current: FleetCurrent, next: FleetSet): string[] {
  const before = objectsOf(current.set);
  const after = objectsOf(next);
  const lines: string[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [old, now] = [before.get(key), after.get(key)];
    if (old === undefined) lines.push(`+ ${key}`);
    else if (now === undefined) lines.push(`- ${key}`);
    else if (canonical(old) !== canonical(now)) {
      const waves = (object: unknown) => canonical((object as { spec?: { waves?: unknown } }).spec?.waves);
      const restarts = key.startsWith("EdgeAdmissionPolicyBinding ") && waves(old) !== waves(now) && (current.stages?.[key.slice("EdgeAdmissionPolicyBinding ".length)] ?? 0) > 0;
      lines.push(`~ ${key}${restarts ? " (its waves change: it starts again at wave 0)" : ""}`);
    }
  }
  return lines;
}

const FILE_FLAGS = { ...TARGET_FLAGS, filename: { type: "string", short: "f", multiple: true } } as const;

/** The set in -f, the function it goes to, the revision in effect there, and what the set would change (fleet diff and apply alike). */
async function planned(verb: string, args: ParsedArgs, io: CliIo, { mayBeEmpty }: { mayBeEmpty: boolean }) {
  const set = await localSet(verb, args, io);
  // A typo in -f (an empty directory) must not take every fleet policy off every cluster.
  if (!mayBeEmpty && emptyFleetSet(set))
    throw new CliError(`the fleet set in ${stringList(args, "filename").join(", ")} is empty (no policy, binding, modes or exception): applied, it would remove every fleet policy from every cluster; pass --allow-empty if that is meant; nothing was sent`);
  const target = await targetOf(verb, args, io);
  const current = await currentFleet(target.endpoint, target.privateKeyPem);
  return { set, target, current, lines: diffLines(current, set) };
}

const GUARD_FLAGS = { ...YES_FLAG, "dry-run": { type: "boolean" } } as const;
const GUARD_USAGE = "[--dry-run] [--yes]";
const GUARD_HELP = `Before it sends, it prints what the change does to the clusters in the
registry: per fleet policy (and built-in policy an EdgeAdmissionPolicyModes
floors), on how many clusters it is removed, bound anew, or enforced with
other actions (clusters in the function's CLUSTERS variable are not counted:
the registry does not list their labels). A change that does any of that
goes ahead only with --yes, or a yes on a terminal (a proposal, where the
threshold asks for more keys, too). --dry-run prints the same and sends
nothing (client-side, as kubectl --dry-run=client).`;

/**
 * What going from `before` to `after` does to the registry's clusters, one
 * line per policy and kind of change (stdout); whether it changes what any
 * cluster enforces. `after` undefined: not known (a function older than
 * this CLI), which counts as a change.
 */
async function printEffect(target: Target, before: FleetState, after: FleetState | undefined, io: CliIo): Promise<number> {
  const listing = await listRegistry(target.endpoint, target.privateKeyPem);
  // A registration CLUSTERS shadows is served with CLUSTERS' labels, which are not listed.
  const counted = listing.clusters.filter((entry) => !entry.shadowedByClusters);
  const uncounted = listing.clustersVariable.length > 0 ? `not counted: ${clustersText(listing.clustersVariable.length)} in CLUSTERS (${listing.clustersVariable.slice(0, 10).join(", ")}${listing.clustersVariable.length > 10 ? ", …" : ""}), whose labels the registry does not list\n` : "";
  if (!after) {
    io.out(`on the ${clustersText(counted.length)} in the registry: not known (the function does not serve the revision's set: it is older than this CLI)\n${uncounted}`);
    return counted.length;
  }
  const effect = fleetEffect(before, after, counted.map((entry) => entry.labels));
  const lines = effectLines(effect.policies);
  io.out(`on the ${clustersText(counted.length)} in the registry: ${lines.length > 0 ? `changes what ${clustersText(effect.clusters)} enforce${effect.clusters === 1 ? "s" : ""}` : "no fleet policy is bound, removed or changed"}\n`);
  for (const line of lines) io.out(`  ${line}\n`);
  io.out(uncounted);
  return effect.clusters;
}

/**
 * The gate every fleet change passes before it is sent: --dry-run ends here
 * (0, with whether it would be a proposal); a change of what clusters
 * enforce needs --yes or a yes on a terminal (declined: 1). Undefined: send it.
 */
async function gate(verb: string, args: ParsedArgs, io: CliIo, target: Target, change: FleetChangeRequest, affected: number, current: number): Promise<number | undefined> {
  if (args.values["dry-run"] === true) {
    const note = await proposalNote(target, [fleetChangeWidens(change)]);
    if (note) io.out(`${note}\n`);
    io.err(`dry run: nothing sent; fleet revision ${current} stays in effect\n`);
    return 0;
  }
  if (affected > 0 && !(await confirmed(verb, args, io, `change what ${clustersText(affected)} enforce${affected === 1 ? "s" : ""}, at ${target.endpoint}`))) {
    io.err("nothing sent\n");
    return 1;
  }
  return undefined;
}

const diff: Verb = {
  name: "fleet diff",
  summary: "show what fleet apply would change in the function's fleet policy set",
  usage: `edgeadmit fleet diff -f DIR ${TARGET_USAGE}

Reads the fleet set from -f (files or directories of YAML or JSON, repeated;
- for stdin), checks it as the function will, and prints one line per object
added (+), changed (~) or removed (-) against the revision in effect.
Nothing is sent but a signed read.
${TARGET_HELP}

Example:
  edgeadmit fleet diff -f ./fleet --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, FILE_FLAGS);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const { current, lines } = await planned(this.name, args, io, { mayBeEmpty: true });
    for (const line of lines) io.out(`${line}\n`);
    io.err(`${lines.length === 0 ? "no change" : plural(lines.length, "object")} against fleet revision ${current.revision}\n`);
    return 0;
  },
};

const apply: Verb = {
  name: "fleet apply",
  summary: "apply a fleet policy set to every registered cluster its bindings select (a new revision)",
  usage: `edgeadmit fleet apply -f DIR ${TARGET_USAGE} ${GUARD_USAGE} [--allow-empty]

Reads the fleet set from -f (as fleet diff does), prints what changes, and
applies it as a new fleet revision, refused if the fleet moved on since it
was read. A set with no policy, binding, modes or exception (an empty or
wrong directory) would take every fleet policy off every cluster: it is
refused before anything is sent unless --allow-empty. A set holds ValidatingAdmissionPolicies (unchanged), their
EdgeAdmissionPolicyBindings with a spec.clusterSelector on the registered
clusters' labels (and spec.waves for a staged rollout), the param objects
they name, EdgeAdmissionPolicyModes for built-in policies and
EdgeAdmissionExceptions (docs/fleet.md). An unchanged set is not applied.
${GUARD_HELP}
${TARGET_HELP}

Example:
  edgeadmit fleet apply -f ./fleet --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...FILE_FLAGS, ...GUARD_FLAGS, "allow-empty": { type: "boolean" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const allowEmpty = args.values["allow-empty"] === true;
    const { set, target, current, lines } = await planned(this.name, args, io, { mayBeEmpty: allowEmpty });
    if (lines.length === 0 && current.revision > 0) {
      io.err(`no change against fleet revision ${current.revision}: nothing applied\n`);
      return 0;
    }
    for (const line of lines) io.out(`${line}\n`);
    const affected = await printEffect(target, current, { set, stages: stagesAfterApply(current.set && { set: current.set, stages: current.stages ?? {} }, set) }, io);
    const change: FleetChangeRequest = { op: "apply", set, ifRevision: current.revision, ...(allowEmpty ? { allowEmpty: true as const } : {}) };
    const stop = await gate(this.name, args, io, target, change, affected, current.revision);
    if (stop !== undefined) return stop;
    const answer = applied(await changeFleet(target.endpoint, target.privateKeyPem, change), io);
    if (!answer) return 0;
    io.out(`applied fleet revision ${answer.revision}: ${plural(set.policies.length, "policy", "policies")}, ${plural(set.bindings.length, "binding")}\n`);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

const history: Verb = {
  name: "fleet history",
  summary: "list the fleet policy set's revisions, newest first",
  usage: `edgeadmit fleet history ${TARGET_USAGE} [-o text|json|yaml]

Prints the revisions the function keeps (the last 100), newest first: when,
what made it (apply, promote BINDING to wave N, rollback to N) and its size.
${TARGET_HELP}

Example:
  edgeadmit fleet history --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const target = await targetOf(this.name, args, io);
    const answer = await fleetHistory(target.endpoint, target.privateKeyPem);
    if (output !== "text") {
      printData(io, output, answer);
      return 0;
    }
    for (const entry of answer.revisions)
      io.out(`${entry.revision}${entry.revision === answer.revision ? " (in effect)" : ""} ${entry.appliedAt} ${entry.change}: ${plural(entry.policies, "policy", "policies")}, ${plural(entry.bindings, "binding")}\n`);
    if (answer.revisions.length === 0) io.err("no fleet set has been applied\n");
    return 0;
  },
};

/** A positional whole number (a revision or a wave). */
function wholeNumber(verb: string, text: string | undefined, what: string): number {
  if (text === undefined || !/^\d{1,15}$/.test(text)) throw new CliError(`say which ${what}: edgeadmit ${verb} … (see edgeadmit ${verb} --help)${text === undefined ? "" : `, not "${text.slice(0, 40)}"`}`, EXIT_USAGE);
  return Number(text);
}

const rollback: Verb = {
  name: "fleet rollback",
  summary: "put an earlier fleet revision back in effect (as a new revision)",
  usage: `edgeadmit fleet rollback REVISION ${TARGET_USAGE} ${GUARD_USAGE}

Makes a new revision holding REVISION's set and wave stages (fleet history
lists them), so the rollback itself shows in the history and can be rolled
back. Refused if the fleet moved on since this command read it.
${GUARD_HELP}
${TARGET_HELP}

Example:
  edgeadmit fleet rollback 12 --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...GUARD_FLAGS }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const toRevision = wholeNumber(this.name, args.positionals[0], "revision");
    const target = await targetOf(this.name, args, io);
    const current = await currentFleet(target.endpoint, target.privateKeyPem);
    if (toRevision === current.revision) throw new CliError(`revision ${toRevision} is the one in effect: nothing to roll back to; nothing sent`);
    const restored = await fleetRevision(target.endpoint, target.privateKeyPem, toRevision);
    const affected = await printEffect(target, current, restored, io);
    const change: FleetChangeRequest = { op: "rollback", toRevision, ifRevision: current.revision };
    const stop = await gate(this.name, args, io, target, change, affected, current.revision);
    if (stop !== undefined) return stop;
    const answer = applied(await changeFleet(target.endpoint, target.privateKeyPem, change), io);
    if (!answer) return 0;
    io.out(`fleet revision ${answer.revision}: ${answer.change}\n`);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

/** Coverage reads in flight at once. */
const COVERAGE_READS = 8;

/** Each cluster's coverage, COVERAGE_READS signed reads at a time. */
async function coveragesOf(target: { endpoint: string; privateKeyPem: string }, clusters: readonly string[]): Promise<ClusterCoverage[]> {
  const coverages: ClusterCoverage[] = [];
  for (let start = 0; start < clusters.length; start += COVERAGE_READS)
    coverages.push(...(await Promise.all(clusters.slice(start, start + COVERAGE_READS).map((cluster) => clusterCoverage(target.endpoint, target.privateKeyPem, cluster)))));
  return coverages;
}

const RENDER_AGAIN = "render edgeadmit webhook-config --operator-key again and apply it (docs/fleet.md, Coverage)";
/** Clusters whose coverage fleet promote reads after a promotion. */
const MAX_PROMOTE_CHECKS = 200;

/**
 * After a promotion, the clusters the binding's new wave enforces its policy
 * on whose webhook rules, as their sync jobs pushed them, do not send what
 * the policy matches: one warning each; and those whose rules are unknown.
 */
async function warnUncovered(target: { endpoint: string; privateKeyPem: string }, current: FleetCurrent, name: string, wave: number, io: CliIo): Promise<void> {
  const binding = current.set?.bindings.find((b) => b.metadata.name === name);
  if (!binding) return;
  const policy = binding.spec.policyName;
  const listing = await listRegistry(target.endpoint, target.privateKeyPem);
  const enforced = listing.clusters.filter((entry) => actionsFor(binding, wave, entry.labels ?? {}) !== undefined).map((entry) => entry.cluster);
  const prefix = `ValidatingAdmissionPolicy '${policy}' matches `;
  const unknown: string[] = [];
  // A signed read per cluster: the first MAX_PROMOTE_CHECKS, the rest counted (fleet status reads every one).
  if (enforced.length > MAX_PROMOTE_CHECKS)
    io.err(`note: coverage checked on the first ${MAX_PROMOTE_CHECKS} of the ${enforced.length} clusters ${policy} now enforces on: edgeadmit fleet status ${policy} shows every one\n`);
  for (const coverage of await coveragesOf(target, enforced.slice(0, MAX_PROMOTE_CHECKS))) {
    if (coverage.coverage === "unknown") unknown.push(coverage.cluster);
    // The isolate that answers may still hold the revision before the promotion: the policy is then among the upcoming gaps.
    const missing = [...new Set([...coverage.gaps, ...coverage.upcoming])].filter((gap) => gap.startsWith(prefix)).map((gap) => gap.slice(prefix.length));
    if (missing.length > 0) io.err(`warning: ${coverage.cluster}: its webhook rules do not send the function ${missing.join(", ")}, which ${policy} now enforces there: ${RENDER_AGAIN}\n`);
  }
  if (unknown.length > 0) io.err(`warning: coverage unknown on ${plural(unknown.length, "cluster")} ${policy} now enforces on (no sync job pushed their webhook rules yet): ${unknown.join(", ")}\n`);
}

const promote: Verb = {
  name: "fleet promote",
  summary: "move a fleet binding's rollout to its next wave (as a new revision)",
  usage: `edgeadmit fleet promote BINDING ${TARGET_USAGE} [--to-wave N] ${GUARD_USAGE}

Activates BINDING's next wave (or wave N): each selected cluster then gets
the validationActions of the last active wave that selects it, say Audit on
ring=canary at wave 0, Deny everywhere at wave 1. Refused past the last wave
and backwards (fleet rollback moves back). Then warns of each cluster the
new wave enforces the policy on whose webhook rules (as its sync job pushed
them) do not send the function what the policy matches.
${GUARD_HELP}
${TARGET_HELP}

Example:
  edgeadmit fleet promote baseline-team --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...GUARD_FLAGS, "to-wave": { type: "string" } }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const binding = args.positionals[0];
    if (binding === undefined) throw new CliError(`say which binding: edgeadmit ${this.name} BINDING (see edgeadmit ${this.name} --help)`, EXIT_USAGE);
    const toWaveText = optionalString(args, "to-wave");
    const toWave = toWaveText === undefined ? undefined : wholeNumber(this.name, toWaveText, "wave (--to-wave)");
    const target = await targetOf(this.name, args, io);
    const current = await currentFleet(target.endpoint, target.privateKeyPem);
    const promoted = promotedWave(current.set && { set: current.set, stages: current.stages ?? {} }, binding, toWave);
    if ("error" in promoted) throw new CliError(`${promoted.error}; nothing sent`);
    const affected = await printEffect(target, current, { set: current.set, stages: { ...current.stages, [binding]: promoted.wave } }, io);
    const change: FleetChangeRequest = { op: "promote", binding, ifRevision: current.revision, ...(toWave !== undefined ? { toWave } : {}) };
    const stop = await gate(this.name, args, io, target, change, affected, current.revision);
    if (stop !== undefined) return stop;
    const answer = applied(await changeFleet(target.endpoint, target.privateKeyPem, change), io);
    if (!answer) return 0;
    io.out(`fleet revision ${answer.revision}: ${answer.change}\n`);
    io.err(`${EFFECT}\n`);
    await warnUncovered(target, current, binding, promoted.wave, io);
    return 0;
  },
};

type Tally = Record<(typeof OUTCOMES)[number], number>;
const emptyTally = (): Tally => ({ allow: 0, deny: 0, warn: 0, audit: 0, error: 0, exempted: 0 });
const tallyText = (tally: Tally) => OUTCOMES.map((outcome) => `${outcome} ${tally[outcome]}`).join(", ");

const snapshotText = (snapshot: ClusterCoverage["snapshot"]) => (snapshot ? `snapshot generation ${snapshot.generation}, ${snapshot.ageSeconds}s old` : "no snapshot");
const coverageText = (coverage: ClusterCoverage["coverage"], gaps: readonly string[], upcoming: readonly string[]) =>
  coverage === "unknown"
    ? "coverage unknown"
    : gaps.length === 0 && upcoming.length === 0
      ? "covered"
      : [gaps.length > 0 ? `not sent: ${gaps.join("; ")}` : "", upcoming.length > 0 ? `not sent once promoted: ${upcoming.join("; ")}` : ""].filter(Boolean).join("; ");

const status: Verb = {
  name: "fleet status",
  summary: "each registered cluster's labels, fleet bindings in effect and verdict counts; or one policy's",
  usage: `edgeadmit fleet status [POLICY] ${TARGET_USAGE} [-l SELECTOR] [--hours N] [-o text|json|yaml]

One line per registered cluster (-l keeps those the selector selects): its
labels, the fleet revision in effect and the fleet bindings it gets there
(each with the validationActions of the wave it is in), its snapshot's
generation and age, the fleet policies its webhook rules do not reach
(coverage gaps: "not sent", and "not sent once promoted" for a policy a later
wave binds there; unknown until its sync job pushes the rules), and its
reviews' verdicts over the last N hours (default 24, at most ${KEPT_HOURS}). With POLICY, the
same clusters with that policy's results (a built-in id, or a
ValidatingAdmissionPolicy's name, the cluster's own or the fleet's).
Counts reach the function from each isolate within 10 s.
${TARGET_HELP}

Example:
  edgeadmit fleet status -l env=prod --hours 168 --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, selector: { type: "string", short: "l" }, hours: { type: "string" }, ...OUTPUT_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const policy = args.positionals[0];
    const output = outputOf(args);
    const hoursText = optionalString(args, "hours") ?? "24";
    const hours = /^\d{1,3}$/.test(hoursText) ? Number(hoursText) : 0;
    if (hours < 1 || hours > KEPT_HOURS) throw new CliError(`--hours must be a whole number from 1 to ${KEPT_HOURS}, not "${hoursText.slice(0, 20)}"`, EXIT_USAGE);
    const selected = selectorFlag(args);
    const target = await targetOf(this.name, args, io);
    const [listing, current, counts] = await Promise.all([
      listRegistry(target.endpoint, target.privateKeyPem),
      currentFleet(target.endpoint, target.privateKeyPem),
      verdictCounts(target.endpoint, target.privateKeyPem, hours),
    ]);
    const tallies = new Map<string, Tally>();
    for (const row of counts.rows) {
      const wanted = policy === undefined ? row.origin === "review" : row.policy === policy && row.origin !== "review";
      if (!wanted || !(OUTCOMES as readonly string[]).includes(row.outcome)) continue;
      const tally = tallies.get(row.cluster) ?? emptyTally();
      tally[row.outcome as keyof Tally] += row.count;
      tallies.set(row.cluster, tally);
    }
    const listed = listing.clusters.filter((entry) => !selected || selected(entry.labels));
    const coverages = await coveragesOf(target, listed.map((entry) => entry.cluster));
    const clusters = listed
      .map((entry, index) => {
        const { snapshot, coverage, gaps, upcoming } = coverages[index]!;
        const labels = entry.labels ?? {};
        const bindings = (current.set?.bindings ?? []).flatMap((binding) => {
          const actions = actionsFor(binding, current.stages?.[binding.metadata.name] ?? 0, labels);
          return actions && (policy === undefined || binding.spec.policyName === policy) ? [`${binding.metadata.name}: ${actions.join(",")}`] : [];
        });
        return { cluster: entry.cluster, labels, fleetRevision: current.revision, fleetBindings: bindings, snapshot, coverage, gaps, upcoming, verdicts: tallies.get(entry.cluster) ?? emptyTally() };
      });
    if (output !== "text") {
      printData(io, output, { hours, ...(policy !== undefined ? { policy } : {}), fleetRevision: current.revision, clusters });
      return 0;
    }
    for (const entry of clusters)
      io.out(
        `${entry.cluster} [${labelsText(entry.labels) || "no labels"}] fleet revision ${entry.fleetRevision}: ${entry.fleetBindings.length > 0 ? entry.fleetBindings.join("; ") : "no fleet binding"}; ${snapshotText(entry.snapshot)}; ${coverageText(entry.coverage, entry.gaps, entry.upcoming)}; last ${hours}h: ${tallyText(entry.verdicts)}\n`,
      );
    io.err(`${plural(clusters.length, "cluster")}${policy !== undefined ? `, policy ${policy}` : ""}; fleet revision ${current.revision}\n`);
    const uncovered = clusters.filter((entry) => entry.gaps.length > 0 || entry.upcoming.length > 0).length;
    if (uncovered > 0) io.err(`warning: the webhook rules of ${plural(uncovered, "cluster")} miss fleet policies bound on them (not sent): for each, ${RENDER_AGAIN}\n`);
    return 0;
  },
};

export const fleetVerbs: readonly Verb[] = [apply, diff, history, rollback, promote, status];
