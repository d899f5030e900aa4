// `edgeadmit check`: manifests judged before they reach a cluster, by the same
// code and with the same messages as the function, against cluster facts from
// the manifests themselves, a built snapshot, or the live cluster.
//
// It reads a tree twice, streaming: the first pass takes the cluster facts
// (each scope's snapshot, the policies, duplicates), the second judges one
// document at a time and keeps only its verdict, so memory holds the facts
// and the verdicts, never the whole input.
import { judgeObjects, objectJudge, refOf, type JudgedObject } from "../../../shared/judge/index.js";
import { decodeSnapshot, type Snapshot } from "../../../shared/snapshot/index.js";
import { SnapshotBuilder, type KubeObject } from "../../../shared/snapshot/build/index.js";
import { boundNeeds } from "../../../shared/snapshot/build/policies.js";
import { POLICIES } from "../../../policies/index.js";
import { inputFiles, isSettingsConfigMap, roleOf, SCOPE_RULES, skipCategory, type InputFile, type ScopeRule } from "../../objects/inputs.js";
import { JOB_NAMESPACE } from "../../base/job.js";
import type { LabelSelector } from "../../../shared/k8s/schemas/index.js";
import { bindingObjectSchema, policyObjectSchema, policySetOf } from "../../../shared/vap/index.js";
import { NAMESPACE_NAME_LABEL, selectorKeys } from "../../../shared/k8s/labels/index.js";
import { resolve } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { documentsOf, fileChunks, groupKindOf, identityOf, NamespaceDefaults, NOT_AN_OBJECT, where, type Source } from "../../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, stringList, fileList } from "../args.js";
import { CliError, EXIT_FAILURE, EXIT_USAGE, firstLine } from "../../base/errors.js";
import { readInput, type CliIo } from "../../base/io.js";
import { countsOf, failingModes, FAIL_ON, skippedSummary, type CheckedObject, type CheckReport, type FailOn, type InputError, type SkippedInput } from "../output/index.js";
import { jsonChunks, renderJson } from "../output/json.js";
import { renderSarif } from "../output/sarif.js";
import { renderText } from "../output/text.js";
import { buildOptionsOf, CLUSTER_FLAGS, KUBERNETES_VERSION_FLAG, KUBERNETES_VERSION_HELP, kubernetesVersionFlag, refuseLeaks, snapshotFromCluster } from "../snapshot.js";
import type { Verb } from "../verb.js";

const RENDERERS = { text: renderText, json: renderJson, sarif: renderSarif } as const;
const OUTPUTS = Object.keys(RENDERERS) as Array<keyof typeof RENDERERS>;

/** A verdict without its object: what a report of many objects keeps. */
function checkedOf(judged: JudgedObject, source: Source | undefined, scope?: string): CheckedObject {
  return { ref: judged.ref, source, ...(scope !== undefined ? { scope } : {}), results: judged.results, skipped: judged.skipped, ...(judged.error !== undefined ? { error: judged.error } : {}) };
}

/** Every object judged by every built-in policy and the snapshot's own ValidatingAdmissionPolicies, as one cluster, each with where it was read. */
export function checkObjects(objects: readonly KubeObject[], snapshot: Snapshot, sourceOf: (object: KubeObject) => Source | undefined): CheckReport {
  const judged = judgeObjects(objects, snapshot, { policies: POLICIES });
  return { objects: judged.map((one) => checkedOf(one, sourceOf(one.object))), policies: POLICIES, errors: [], skipped: [], scopes: 1 };
}

/** 2 when some input could not be judged (a bad file or document, a duplicate, an unreadable object); else 1 when a result is in a mode `failOn` fails on; else 0. */
/**
 * Findings at an enforced level (--fail-on) exit 1, whatever else happened;
 * else input that could not be judged exits 2 under --strict, or when no
 * object at all could be judged; else 0 (the errors are still reported).
 */
function exitCodeOf(report: CheckReport, failOn: FailOn, strict: boolean): number {
  const counts = countsOf(report);
  if (failingModes(failOn).some((mode) => counts[mode] > 0)) return EXIT_FAILURE;
  const problems = counts.inputErrors + counts.unreadable;
  if (problems > 0 && (strict || counts.objects - counts.unreadable === 0)) return EXIT_USAGE;
  return 0;
}

/** The skip category of a second object with one identity in one scope. */
const VARIANTS = "variants of an object read before (judged, not cluster facts)";

/** Exit 1 says "denied" (or "an expectation failed"), so anything that stops the verb from running is 2, in one line. */
export function cannotRun(e: unknown): CliError {
  if (e instanceof CliError) return new CliError(e.message, EXIT_USAGE);
  return new CliError(firstLine(e instanceof Error ? e.message : String(e)), EXIT_USAGE);
}

interface CheckOptions {
  /** -f: the resources, judged. */
  files: readonly string[];
  /** --policies: policies, bindings, params, settings, exceptions and any other cluster facts, for every scope; never judged. */
  policies: readonly string[];
  namespace?: string | undefined;
  scope: ScopeRule;
  /** Documents that are no Kubernetes object are errors, not skipped. */
  strict: boolean;
  settingsNamespace: string;
  /** --kubernetes-version: the CEL environment of the policies read from the input; DEFAULT_VERSION's when absent. */
  kubernetesVersion?: string | undefined;
  /** The cluster facts, when not from the input (--snapshot, --from-cluster): one cluster for every scope. */
  snapshot?: () => Promise<Snapshot>;
}

/** Progress on stderr, only when it is a terminal and the run has taken over 2 s: a line rewritten in place, cleared at the end. */
function progressOf(io: CliIo) {
  const start = Date.now();
  let last = 0;
  let shown = false;
  return {
    tick(text: () => string) {
      if (!io.stderrIsTerminal) return;
      const now = Date.now();
      if (now - start < 2000 || now - last < 200) return;
      last = now;
      shown = true;
      io.err(`\r\x1b[Kedgeadmit check: ${text()}`);
    },
    done() {
      if (shown) io.err("\r\x1b[K");
    },
  };
}

/** Objects kept for the policies when building from a stream: the policies and bindings, what could be a param (a ConfigMap, a custom resource), Namespaces, CRDs; never the workloads. */
function mayServePolicies(object: KubeObject): boolean {
  const groupKind = groupKindOf(object);
  const group = groupKind.slice(0, groupKind.indexOf("/"));
  return (
    groupKind === "/Namespace" ||
    groupKind === "/ConfigMap" ||
    group === "apiextensions.k8s.io" ||
    group === "admissionregistration.k8s.io" ||
    (group.includes(".") && !group.endsWith(".k8s.io"))
  );
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** The label keys other than the namespace's name that the namespaceSelectors of a snapshot's bound policies and their bindings read, by policy. */
function selectorNeeds(snapshot: Snapshot): Map<string, Set<string>> {
  const needs = new Map<string, Set<string>>();
  const take = (policy: string, selector: LabelSelector | undefined) => {
    for (const key of selector ? selectorKeys(selector) : []) if (key !== NAMESPACE_NAME_LABEL) needs.set(policy, (needs.get(policy) ?? new Set()).add(key));
  };
  for (const object of Object.values(snapshot.validatingAdmissionPolicies)) {
    const policy = policyObjectSchema.safeParse(object);
    if (policy.success) take(policy.data.metadata.name, policy.data.spec.matchConstraints.namespaceSelector);
  }
  for (const object of Object.values(snapshot.policyBindings)) {
    const binding = bindingObjectSchema.safeParse(object);
    if (binding.success && Object.hasOwn(snapshot.validatingAdmissionPolicies, binding.data.spec.policyName)) take(binding.data.spec.policyName, binding.data.spec.matchResources?.namespaceSelector);
  }
  return needs;
}

/**
 * Objects waiting to be judged, in order, as JSON text deflated in batches:
 * a tenth or so of the parsed objects' memory, and parsing JSON back is far
 * cheaper than parsing the YAML again. Each batch is dropped once drained.
 */
class PendingObjects {
  static readonly BATCH_BYTES = 256 * 1024;
  readonly #batches: Array<Buffer | undefined> = [];
  readonly #places: Array<{ source: Source; scope: string; batch: number }> = [];
  #texts: string[] = [];
  #bytes = 0;

  get count(): number {
    return this.#places.length;
  }

  /** Keeps the object's JSON text, and returns it. */
  add(object: KubeObject, source: Source, scope: string): string {
    // JSON text has no raw newline: one per line.
    const text = JSON.stringify(object);
    this.#texts.push(text);
    this.#bytes += text.length;
    this.#places.push({ source, scope, batch: this.#batches.length });
    if (this.#bytes >= PendingObjects.BATCH_BYTES) this.#seal();
    return text;
  }

  #seal(): void {
    if (this.#texts.length === 0) return;
    this.#batches.push(deflateRawSync(this.#texts.join("\n"), { level: 1 }));
    this.#texts = [];
    this.#bytes = 0;
  }

  /** Every object in order; `keep` reads them without dropping any (a second pass follows). */
  *drain({ keep = false } = {}): Generator<{ object: KubeObject; source: Source; scope: string }> {
    this.#seal();
    let texts: string[] = [];
    let at = 0;
    let batch = -1;
    for (const place of this.#places) {
      if (place.batch !== batch) {
        batch = place.batch;
        texts = inflateRawSync(this.#batches[batch]!).toString("utf8").split("\n");
        if (!keep) this.#batches[batch] = undefined;
        at = 0;
      }
      yield { object: JSON.parse(texts[at++]!) as KubeObject, source: place.source, scope: place.scope };
    }
  }
}

interface ScopeFacts {
  builder: SnapshotBuilder | undefined;
  /** Identity (group, kind, namespace, name) → where the first object with it was read. */
  identities: Map<string, Source>;
  /** The namespaces the scope's resources are in. */
  namespaces: Set<string>;
}

/**
 * The object as the inventory of `declared` kinds holds it, or undefined.
 * The apiserver serves an object at every served version of its kind, so the
 * sync job lists it at the version a policy declares whatever version it was
 * written at; offline, an object of a declared group and kind written at
 * another version is read at the declared one (counted in `converted`, by
 * `<apiVersion> <kind>` written, for one note).
 */
function servedAs(declared: ReadonlyMap<string, unknown>): ((object: KubeObject) => KubeObject | undefined) & { converted: Map<string, number> } {
  const versions = new Map<string, string[]>();
  for (const key of declared.keys()) {
    const slash = key.lastIndexOf("/");
    const apiVersion = key.slice(0, slash);
    const groupKind = groupKindOf({ apiVersion, kind: key.slice(slash + 1) });
    versions.set(groupKind, [...(versions.get(groupKind) ?? []), apiVersion]);
  }
  const converted = new Map<string, number>();
  const inventoryOf = (object: KubeObject): KubeObject | undefined => {
    if (declared.has(`${String(object.apiVersion)}/${String(object.kind)}`)) return object;
    const declaredAt = versions.get(groupKindOf(object));
    if (declaredAt === undefined) return undefined;
    const written = `${String(object.apiVersion)} ${String(object.kind)}`;
    converted.set(written, (converted.get(written) ?? 0) + 1);
    return { ...object, apiVersion: declaredAt[0]! };
  };
  return Object.assign(inventoryOf, { converted });
}

/**
 * Each problem of the snapshot's bound policies (what the function's push
 * answer lists as policyProblems: a declaration that does not hold, an
 * expression that does not compile), warned once: such a policy follows its
 * failurePolicy, here as in the function.
 */
export function warnPolicyProblems(snapshot: Snapshot, io: CliIo, warned: Set<string>): void {
  for (const problem of policySetOf(snapshot).problems) {
    if (warned.has(problem)) continue;
    warned.add(problem);
    io.err(`warning: ${problem}\n`);
  }
}

/** The check of a tree: see CheckOptions and the module's comment. */
export async function runCheck(options: CheckOptions, io: CliIo): Promise<CheckReport> {
  const policyPlan = inputFiles(options.policies, "one");
  // A file under both --policies and -f is read once, as configuration.
  const asPolicies = new Set(policyPlan.files.filter((file) => file.path !== "-").map((file) => resolve(file.path)));
  const resourcePlan = inputFiles(options.files, options.scope);
  resourcePlan.files = resourcePlan.files.filter((file) => file.path === "-" || !asPolicies.has(resolve(file.path)));
  const errors: InputError[] = [...policyPlan.problems, ...resourcePlan.problems];
  const skipped: SkippedInput[] = [];
  const textOf = async (file: InputFile): Promise<string | Iterable<string>> => (file.path === "-" ? io.readStdin() : fileChunks(file.path));
  const progress = progressOf(io);
  const defaults = new NamespaceDefaults(options.namespace);
  const buildOptions = buildOptionsOf(options.settingsNamespace, options.kubernetesVersion);

  // Pass 1: the cluster facts.
  const globals: KubeObject[] = [];
  const settings: Source[] = [];
  const scopes = new Map<string, ScopeFacts>();
  let documents = 0;
  /** The resources to judge, in input order. */
  const pending = new PendingObjects();
  const takePolicy = (object: KubeObject, source: Source) => {
    defaults.learn(object);
    defaults.apply(object);
    globals.push(object);
    const metadata = object["metadata"] as { namespace?: unknown } | undefined;
    if (isSettingsConfigMap(object) && metadata?.namespace === options.settingsNamespace) settings.push(source);
  };
  // A document no role takes: a kustomization is skipped as such; anything else is no Kubernetes object (an error under --strict).
  const skipDocument = (source: Source, reason: string) => {
    if (reason === "a kustomization") skipped.push({ source, reason: "kustomizations" });
    else if (options.strict) errors.push({ source, message: `${reason} (--strict)` });
    else skipped.push({ source, reason: "not Kubernetes objects" });
  };
  /**
   * A document that cannot be read as an object: one that parses but is no
   * mapping (a JSON array), or a .json file that is not JSON a YAML reader
   * takes (a tsconfig with comments), is no Kubernetes object, skipped; so is
   * a file in a Helm chart that does not parse (a template outside
   * templates/); any other is an input error, with its line and column.
   */
  const unreadable = (file: InputFile, source: Source, error: string) => {
    if (error === NOT_AN_OBJECT) skipDocument(source, "not a Kubernetes object (not a mapping)");
    else if (file.chart !== undefined && !options.strict) skipped.push({ source, reason: "Helm templates" });
    else if (/\.json$/i.test(file.name)) skipDocument(source, `not a Kubernetes object (not JSON: ${error})`);
    else errors.push({ source, message: error });
  };
  /** Whether the whole file is skipped (a kustomization or a patch it lists), noting it. */
  const skipFile = (file: InputFile): boolean => {
    if (file.skip === undefined) return false;
    if (options.strict && file.skip === "a dangling symlink") errors.push({ source: { file: file.name }, message: `${file.skip} (--strict)` });
    else skipped.push({ source: { file: file.name }, reason: skipCategory(file.skip) });
    return true;
  };
  for (const file of policyPlan.files) {
    if (skipFile(file)) continue;
    for (const entry of documentsOf(await textOf(file), file.name)) {
      if (entry.error !== undefined) unreadable(file, entry.source, entry.error);
      else {
        const role = roleOf(entry.object);
        if (role.role === "skip") skipDocument(entry.source, role.reason);
        else if (role.role === "error") errors.push({ source: entry.source, message: role.message });
        else takePolicy(role.object, entry.source);
      }
    }
  }
  for (const file of resourcePlan.files) {
    if (skipFile(file)) continue;
    for (const entry of documentsOf(await textOf(file), file.name)) {
      documents++;
      progress.tick(() => `read ${count(documents, "document")}`);
      if (entry.error !== undefined) {
        unreadable(file, entry.source, entry.error);
        continue;
      }
      const role = roleOf(entry.object);
      if (role.role === "skip") skipDocument(entry.source, role.reason);
      else if (role.role === "error") errors.push({ source: entry.source, message: role.message });
      else if (role.role === "policy") takePolicy(role.object, entry.source);
      else {
        // Kept as JSON text until judged: a fraction of the parsed object's memory, and JSON.parse is many times faster than parsing YAML again.
        const text = pending.add(role.object, entry.source, file.scope);
        // The facts are taken from a copy made from that text: strings the YAML reader made are slices of the piece of file they came from, and one kept would keep the whole piece.
        const object = JSON.parse(text) as KubeObject;
        defaults.learn(object);
        defaults.apply(object);
        let facts = scopes.get(file.scope);
        if (!facts) scopes.set(file.scope, (facts = { builder: options.snapshot ? undefined : new SnapshotBuilder({ ...buildOptions, retain: mayServePolicies }), identities: new Map(), namespaces: new Set() }));
        const namespace = refOf(object).namespace;
        if (namespace !== undefined) facts.namespaces.add(namespace);
        const identity = identityOf(object);
        const first = identity === undefined ? undefined : facts.identities.get(identity);
        if (first) {
          // Alternatives side by side (deployment.yaml and deployment-ha.yaml): each is judged, the first is the cluster fact; --strict makes it an error.
          const message = `the same group, kind, namespace and name as ${where(first)}: one cluster holds one such object (the first is the cluster fact; give each its own scope with --scope, or remove one)`;
          if (options.strict) errors.push({ source: entry.source, object: refOf(object), message: `${message} (--strict)` });
          else skipped.push({ source: entry.source, reason: VARIANTS });
          continue;
        }
        if (identity !== undefined) facts.identities.set(identity, entry.source);
        facts.builder?.add(object);
      }
    }
  }
  if (settings.length > 1)
    throw new CliError(`${settings.length} settings ConfigMaps ${options.settingsNamespace}/edgeadmit-settings: ${settings.map(where).join(" and ")}; they would override each other, give one`);

  // The snapshot of each scope: its own facts and every global one.
  const given = options.snapshot ? await options.snapshot() : undefined;
  // A scope's objects of the kinds bound policies declare are its inventory: known only now that every policy is read.
  const bound = given ? undefined : boundNeeds(globals);
  const declared = bound?.inventoryKinds ?? new Map();
  // A bound policy's params belong with the policy: the policy (from -f or --policies) judges every scope, so its param objects are every scope's facts too.
  const paramKinds = bound?.paramKinds ?? new Map();
  if (paramKinds.size > 0)
    for (const { object, scope } of pending.drain({ keep: true })) {
      if (!paramKinds.has(`${String(object.apiVersion)}/${String(object.kind)}`)) continue;
      defaults.apply(object);
      for (const [other, facts] of scopes) if (other !== scope) facts.builder?.add(object);
    }
  if (declared.size > 0) {
    const inventoryOf = servedAs(declared);
    for (const { object, scope } of pending.drain({ keep: true })) {
      defaults.apply(object);
      const inventory = inventoryOf(object);
      if (inventory) scopes.get(scope)?.builder?.addInventory(inventory);
    }
    // Cluster objects given with --policies are every scope's inventory too (docs/inventory.md), as they are every scope's facts.
    const globalInventory = globals.map(inventoryOf).filter((object): object is KubeObject => object !== undefined);
    for (const facts of scopes.values()) for (const object of globalInventory) facts.builder?.addInventory(object);
    for (const [written, count] of inventoryOf.converted)
      io.err(
        `note: ${count} object${count === 1 ? "" : "s"} written as ${written} read into the inventory at the version the policies declare: offline there is no apiserver to convert between served versions, so the fields are taken as written\n`,
      );
  }
  const warned = new Set<string>();
  const judges = new Map<string, (object: KubeObject) => JudgedObject>();
  // What a namespaceSelector would need to know of namespaces the facts lack (known by name only).
  const unknownNamespaces = new Set<string>();
  const needs = new Map<string, Set<string>>();
  const addNeeds = (snapshot: Snapshot) => {
    for (const [policy, keys] of selectorNeeds(snapshot)) for (const key of keys) needs.set(policy, (needs.get(policy) ?? new Set()).add(key));
  };
  if (given) addNeeds(given);
  // A given snapshot is every scope's: one judge, so what policies derive from it is derived once.
  const givenJudge = given ? objectJudge(given, { policies: POLICIES }) : undefined;
  for (const [scope, facts] of scopes) {
    let snapshot = given;
    if (!snapshot) {
      for (const object of globals) facts.builder!.add(object);
      const built = facts.builder!.build();
      refuseLeaks("check", built.refused, io);
      // The global objects' problems would repeat once per scope: each is said once.
      for (const problem of built.problems.filter((problem) => !warned.has(problem))) {
        warned.add(problem);
        io.err(`warning: ${problem}\n`);
      }
      snapshot = built.snapshot;
      addNeeds(snapshot);
    }
    warnPolicyProblems(snapshot, io, warned);
    judges.set(scope, givenJudge ?? objectJudge(snapshot, { policies: POLICIES }));
    for (const name of facts.namespaces) if (!Object.hasOwn(snapshot.namespaces, name)) unknownNamespaces.add(name);
  }
  scopes.clear();

  // Pass 2: every resource judged in input order, its text dropped once its verdict is kept.
  const checked: CheckedObject[] = [];
  const separate = judges.size > 1;
  const total = pending.count;
  for (const { object, source, scope } of pending.drain()) {
    defaults.apply(object);
    checked.push(checkedOf(judges.get(scope)!(object), source, separate ? scope : undefined));
    progress.tick(() => `judged ${checked.length.toLocaleString("en")} of ${count(total, "object")}`);
  }
  progress.done();
  if (checked.length === 0 && errors.length === 0) {
    const summary = skippedSummary(skipped);
    throw new CliError(`no Kubernetes objects in ${options.files.join(", ")}${summary ? ` (${summary})` : ""}`);
  }
  const missing = [...unknownNamespaces].sort();
  const missingFacts =
    missing.length > 0 && needs.size > 0 ? { namespaces: missing, labels: [...needs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([policy, keys]) => ({ policy, labels: [...keys] })) } : undefined;
  return { objects: checked, policies: POLICIES, errors, skipped, scopes: Math.max(judges.size, 1), ...(missingFacts ? { missingFacts } : {}) };
}

export const check: Verb = {
  name: "check",
  summary: "judge Kubernetes YAML with every policy, as the webhook would",
  usage: `edgeadmit check -f PATH... [--policies PATH...] [-n NS] [--scope auto|dir|input | --one-cluster]
                [--snapshot FILE | --from-cluster [--context NAME] | --kubernetes-version V] [--strict] [-o text|json|sarif] [--fail-on deny|warn|audit]

Judges each object in PATH (files, directories walked recursively, - for
stdin: the output of kubectl kustomize or helm template) as the webhook would
judge its creation: the built-in policies and the cluster's own
ValidatingAdmissionPolicies, with the webhook's messages. Namespaced objects
without a namespace go to -n (default: default).

What is not judged: --policies PATH holds the policies, their bindings and
params, the settings ConfigMap, EdgeAdmissionExceptions and any other cluster
facts (Namespaces, Nodes, AffinityClasses) for every cluster; policies,
bindings, exceptions and the settings found under -f count the same way.
YAML that is no Kubernetes object (no apiVersion/kind: workflows, Chart.yaml,
values.yaml) is skipped and named in one line (--strict: an error), and so are
kustomizations and the patch files they list. An AdmissionReview is judged by
its request.object.

Which objects are one cluster (--scope): auto (default) makes each directory
a cluster of its own files, a directory with a kustomization one cluster with
its subdirectories that have none, and the files named on the command line
(and stdin) one cluster together; dir makes every directory its own; input
makes each -f its own; --one-cluster judges everything as one. Two objects with
the same group, kind, namespace and name in one cluster are an error naming
both places; neither is merged into the other.

The cluster facts come from each cluster's own input (with --policies), or
from --snapshot FILE (as edgeadmit snapshot build writes it), or from the live
cluster (--from-cluster, through the kubeconfig, as the sync job lists it).
${KUBERNETES_VERSION_HELP}
-o text (default) prints file:line, object, policy, mode and message per
result, input errors after every verdict, then the counts and what was
skipped; json prints every object with its results; sarif prints SARIF 2.1.0.
Exits 0 when nothing is denied, 1 when something is (--fail-on warn: or
warned; --fail-on audit: or audited), 2 when some input could not be judged
(reported after every verdict) or the check cannot run.

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
          ...(fromCluster ? { snapshot: () => snapshotFromCluster("check", args, io) } : snapshotFile !== undefined ? { snapshot: () => snapshotFromFile(snapshotFile, io) } : {}),
        },
        io,
      );
    } catch (e) {
      throw cannotRun(e);
    }
    // JSON goes out in pieces, each once the one before has left: the report of a large tree is never one string, nor queued whole on a slow pipe.
    if (output === "json") {
      let piece = "";
      for (const chunk of jsonChunks(report)) {
        piece += chunk;
        if (piece.length < 256 * 1024) continue;
        io.out(piece);
        piece = "";
        await io.drained?.();
      }
      io.out(piece);
    } else io.out(output === "text" ? renderText(report, { colour: io.colour === true }) : RENDERERS[output](report));
    return exitCodeOf(report, failOn, args.values.strict === true);
  },
};

async function snapshotFromFile(file: string, io: CliIo): Promise<Snapshot> {
  const decoded = decodeSnapshot(await readInput(file, io, "snapshot"));
  if (!decoded.ok) throw new CliError(`${file === "-" ? "<stdin>" : file}: ${decoded.error}`);
  return decoded.snapshot;
}
