// `edgeadmit check`'s run: manifests judged before they reach a cluster, by the same
// code and with the same messages as the function, against cluster facts from
// the manifests themselves, a built snapshot, or the live cluster.
//
// It reads a tree twice, streaming: the first pass takes the cluster facts
// (each scope's snapshot, the policies, duplicates), the second judges one
// document at a time and keeps only its verdict, so memory holds the facts
// and the verdicts, never the whole input. The jobs are beside it: what is
// read and skipped (inputs.ts), the objects waiting (pending.ts), each
// scope's facts and judge (facts.ts), judging (judge.ts), progress
// (progress.ts); the verb (../check.ts) parses the flags, writes the report
// (report.ts) and picks the exit code (exit.ts).
import { refOf } from "../../../shared/judge/index.js";
import type { Snapshot } from "../../../shared/snapshot/index.js";
import type { KubeObject } from "../../../shared/snapshot/builder/index.js";
import { POLICIES } from "../../../policies/index.js";
import { CliError } from "../../base/errors.js";
import type { CliIo } from "../../base/io.js";
import { isSettingsConfigMap, roleOf, type ScopeRule } from "../../objects/inputs.js";
import { identityOf } from "../../objects/identity.js";
import { NamespaceDefaults } from "../../objects/namespaces.js";
import { documentsOf, where, type Source } from "../../objects/yaml.js";
import { skippedSummary, type CheckReport } from "../output/index.js";
import { buildOptionsOf } from "../snapshot.js";
import { newScopeFacts, scopeJudges, shareFacts, type ScopeFacts } from "./facts.js";
import { InputLog, inputPlans, textOf } from "./inputs.js";
import { judgePending } from "./judge.js";
import { PendingObjects } from "./pending.js";
import { count, progressOf } from "./progress.js";

/** The skip category of a second object with one identity in one scope. */
const VARIANTS = "variants of an object read before (judged, not cluster facts)";

export interface CheckOptions {
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
  /**
   * Judge each object as the apiserver would hand it to validation (API
   * defaults and built-in mutating admission, shared/apiserver); false
   * (--no-defaults): as written.
   */
  defaults?: boolean;
  /** The objects of the live cluster the admission plugins read (--from-cluster): LimitRanges, PriorityClasses, default classes. */
  clusterObjects?: () => Promise<KubeObject[]>;
  /** Keep what was defaulted on each object, for a report that shows it (-o json). */
  keepDefaulted?: boolean;
}

/** The check of a tree: see CheckOptions and the module's comment. */
export async function runCheck(options: CheckOptions, io: CliIo): Promise<CheckReport> {
  const plans = inputPlans(options.policies, options.files, options.scope);
  const log = new InputLog(plans.problems, options.strict);
  const progress = progressOf(io);
  const defaults = new NamespaceDefaults(options.namespace);
  const buildOptions = options.snapshot ? undefined : buildOptionsOf(options.settingsNamespace, options.kubernetesVersion);

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
  for (const file of plans.policyFiles) {
    if (log.skipFile(file)) continue;
    for (const entry of documentsOf(await textOf(file, io), file.name)) {
      if (entry.error !== undefined) log.unreadable(file, entry.source, entry.error, entry.kubernetes);
      else {
        const role = roleOf(entry.object);
        if (role.role === "skip") log.skipDocument(entry.source, role.reason);
        else if (role.role === "error") log.errors.push({ source: entry.source, message: role.message });
        else takePolicy(role.object, entry.source);
      }
    }
  }
  for (const file of plans.resourceFiles) {
    if (log.skipFile(file)) continue;
    for (const entry of documentsOf(await textOf(file, io), file.name)) {
      documents++;
      progress.tick(() => `read ${count(documents, "document")}`);
      if (entry.error !== undefined) {
        log.unreadable(file, entry.source, entry.error, entry.kubernetes);
        continue;
      }
      const role = roleOf(entry.object);
      if (role.role === "skip") log.skipDocument(entry.source, role.reason);
      else if (role.role === "error") log.errors.push({ source: entry.source, message: role.message });
      else if (role.role === "policy") takePolicy(role.object, entry.source);
      else {
        // Kept as JSON text until judged: a fraction of the parsed object's memory, and JSON.parse is many times faster than parsing YAML again.
        const text = pending.add(role.object, entry.source, file.scope);
        // The facts are taken from a copy made from that text: strings the YAML reader made are slices of the piece of file they came from, and one kept would keep the whole piece.
        const object = JSON.parse(text) as KubeObject;
        defaults.learn(object);
        defaults.apply(object);
        let facts = scopes.get(file.scope);
        if (!facts) scopes.set(file.scope, (facts = newScopeFacts(buildOptions, options.defaults !== false)));
        const namespace = refOf(object).namespace;
        if (namespace !== undefined) facts.namespaces.add(namespace);
        const identity = identityOf(object);
        const first = identity === undefined ? undefined : facts.identities.get(identity);
        if (first) {
          // Alternatives side by side (deployment.yaml and deployment-ha.yaml): each is judged, the first is the cluster fact; --strict makes it an error.
          const message = `the same group, kind, namespace and name as ${where(first)}: one cluster holds one such object (the first is the cluster fact; give each its own scope with --scope, or remove one)`;
          if (options.strict) log.errors.push({ source: entry.source, object: refOf(object), message: `${message} (--strict)` });
          else log.skipped.push({ source: entry.source, reason: VARIANTS });
          continue;
        }
        if (identity !== undefined) facts.identities.set(identity, entry.source);
        facts.builder?.add(object);
        facts.cluster?.add(object);
      }
    }
  }
  if (settings.length > 1)
    throw new CliError(`${settings.length} settings ConfigMaps ${options.settingsNamespace}/edgeadmit-settings: ${settings.map(where).join(" and ")}; they would override each other, give one`);

  // The snapshot of each scope: its own facts and every global one.
  const given = options.snapshot ? await options.snapshot() : undefined;
  if (!given) shareFacts(scopes, globals, pending, defaults, io);
  const listed = options.defaults !== false && options.clusterObjects ? await options.clusterObjects() : [];
  const { judges, missingFacts } = scopeJudges(scopes, globals, given, io, listed);
  scopes.clear();

  // Pass 2: every resource judged in input order.
  const checked = judgePending(pending, judges, defaults, progress, options.keepDefaulted === true);
  progress.done();
  if (checked.length === 0 && log.errors.length === 0) {
    const summary = skippedSummary(log.skipped);
    throw new CliError(`no Kubernetes objects in ${options.files.join(", ")}${summary ? ` (${summary})` : ""}`);
  }
  return { objects: checked, policies: POLICIES, errors: log.errors, skipped: log.skipped, scopes: Math.max(judges.size, 1), ...(missingFacts ? { missingFacts } : {}) };
}
