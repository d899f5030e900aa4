// `edgeadmit fleet apply|diff|history|rollback|promote`: the fleet policy
// set (docs/fleet.md), one set for every registered cluster, selected by
// their labels, changed with requests signed by the operator's key. Every
// change is a new fleet revision, in effect in every isolate within seconds.
import { actionsFor, fleetSetOf, fleetSetProblems, fleetSetSchema, type FleetSet } from "../../shared/fleet/index.js";
import { KEPT_HOURS, OUTCOMES } from "../../shared/counts/index.js";
import { describeZodError } from "../../shared/zod/index.js";
import { changeFleet, clusterCoverage, currentFleet, fleetHistory, verdictCounts, type ClusterCoverage, type FleetCurrent } from "../client/fleet.js";
import { listRegistry } from "../client/registry.js";
import { filesUnder, objectsFromText } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, stringList, type ParsedArgs } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { labelsText, selectorFlag } from "./labels.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf } from "./operator-flags.js";
import { applied } from "./proposed.js";
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
async function planned(verb: string, args: ParsedArgs, io: CliIo) {
  const set = await localSet(verb, args, io);
  const target = await targetOf(verb, args, io);
  const current = await currentFleet(target.endpoint, target.privateKeyPem);
  return { set, target, current, lines: diffLines(current, set) };
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
    const { current, lines } = await planned(this.name, args, io);
    for (const line of lines) io.out(`${line}\n`);
    io.err(`${lines.length === 0 ? "no change" : plural(lines.length, "object")} against fleet revision ${current.revision}\n`);
    return 0;
  },
};

const apply: Verb = {
  name: "fleet apply",
  summary: "apply a fleet policy set to every registered cluster its bindings select (a new revision)",
  usage: `edgeadmit fleet apply -f DIR ${TARGET_USAGE}

Reads the fleet set from -f (as fleet diff does), prints what changes, and
applies it as a new fleet revision, refused if the fleet moved on since it
was read. A set holds ValidatingAdmissionPolicies (unchanged), their
EdgeAdmissionPolicyBindings with a spec.clusterSelector on the registered
clusters' labels (and spec.waves for a staged rollout), the param objects
they name, EdgeAdmissionPolicyModes for built-in policies and
EdgeAdmissionExceptions (docs/fleet.md). An unchanged set is not applied.
${TARGET_HELP}

Example:
  edgeadmit fleet apply -f ./fleet --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, FILE_FLAGS);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const { set, target, current, lines } = await planned(this.name, args, io);
    if (lines.length === 0 && current.revision > 0) {
      io.err(`no change against fleet revision ${current.revision}: nothing applied\n`);
      return 0;
    }
    for (const line of lines) io.out(`${line}\n`);
    const answer = applied(await changeFleet(target.endpoint, target.privateKeyPem, { op: "apply", set, ifRevision: current.revision }), io);
    if (!answer) return 0;
    io.out(`applied fleet revision ${answer.revision}: ${plural(set.policies.length, "policy", "policies")}, ${plural(set.bindings.length, "binding")}\n`);
    io.err(`${EFFECT}\n`);
    return 0;
  },
};

const history: Verb = {
  name: "fleet history",
  summary: "list the fleet policy set's revisions, newest first",
  usage: `edgeadmit fleet history ${TARGET_USAGE} [-o text|json]

Prints the revisions the function keeps (the last 100), newest first: when,
what made it (apply, promote BINDING to wave N, rollback to N) and its size.
${TARGET_HELP}

Example:
  edgeadmit fleet history --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, output: { type: "string", short: "o" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = choice("output", optionalString(args, "output"), ["text", "json"] as const, "text");
    const target = await targetOf(this.name, args, io);
    const answer = await fleetHistory(target.endpoint, target.privateKeyPem);
    if (output === "json") {
      io.out(`${JSON.stringify(answer, null, 2)}\n`);
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
  usage: `edgeadmit fleet rollback REVISION ${TARGET_USAGE}

Makes a new revision holding REVISION's set and wave stages (fleet history
lists them), so the rollback itself shows in the history and can be rolled
back. Refused if the fleet moved on since this command read it.
${TARGET_HELP}

Example:
  edgeadmit fleet rollback 12 --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, TARGET_FLAGS, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const toRevision = wholeNumber(this.name, args.positionals[0], "revision");
    const target = await targetOf(this.name, args, io);
    const current = await currentFleet(target.endpoint, target.privateKeyPem);
    const answer = applied(await changeFleet(target.endpoint, target.privateKeyPem, { op: "rollback", toRevision, ifRevision: current.revision }), io);
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
  usage: `edgeadmit fleet promote BINDING ${TARGET_USAGE} [--to-wave N]

Activates BINDING's next wave (or wave N): each selected cluster then gets
the validationActions of the last active wave that selects it, say Audit on
ring=canary at wave 0, Deny everywhere at wave 1. Refused past the last wave
and backwards (fleet rollback moves back). Then warns of each cluster the
new wave enforces the policy on whose webhook rules (as its sync job pushed
them) do not send the function what the policy matches.
${TARGET_HELP}

Example:
  edgeadmit fleet promote baseline-team --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, "to-wave": { type: "string" } }, 1);
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
    const answer = applied(await changeFleet(target.endpoint, target.privateKeyPem, { op: "promote", binding, ifRevision: current.revision, ...(toWave !== undefined ? { toWave } : {}) }), io);
    if (!answer) return 0;
    io.out(`fleet revision ${answer.revision}: ${answer.change}\n`);
    io.err(`${EFFECT}\n`);
    await warnUncovered(target, current, binding, toWave ?? (current.stages?.[binding] ?? 0) + 1, io);
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
  usage: `edgeadmit fleet status [POLICY] ${TARGET_USAGE} [-l SELECTOR] [--hours N] [-o text|json]

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
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, selector: { type: "string", short: "l" }, hours: { type: "string" }, output: { type: "string", short: "o" } }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const policy = args.positionals[0];
    const output = choice("output", optionalString(args, "output"), ["text", "json"] as const, "text");
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
    if (output === "json") {
      io.out(`${JSON.stringify({ hours, ...(policy !== undefined ? { policy } : {}), fleetRevision: current.revision, clusters }, null, 2)}\n`);
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
