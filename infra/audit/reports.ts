// Verdicts → wgpolicyk8s.io/v1alpha2 PolicyReports, in the shape Kyverno
// writes them: one result per object and policy (per binding for the
// cluster's own policies), a summary per report, one report per namespace
// (ClusterPolicyReport for cluster-scoped objects), split when it grows past
// a bound. The verdicts are judgeObjects', so a report says what the webhook
// would say about creating the object today, in the webhook's words.
import { admissionRequestSchema, type AdmissionRequest } from "../../shared/admission/index.js";
import { wrapReview } from "../../shared/admission/wrap.js";
import { describeResult, exceptionOf, matchPolicies, type PolicyResult } from "../../shared/review/index.js";
import { exceptionFor } from "../../shared/exceptions/index.js";
import { fleetBindingName, stricter, type ClusterFleet, type FleetSet } from "../../shared/fleet/index.js";
import { judgeObjects, type JudgedObject } from "../../shared/judge/index.js";
import type { EnforcementMode, Policy } from "../../shared/policy/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import type { Snapshot } from "../../shared/snapshot/schema.js";
import { SnapshotView } from "../../shared/snapshot/view.js";
import { bindingObjectSchema, policyObjectSchema, type MatchResources, type ValidationAction } from "../../shared/vap/index.js";
import { matchResources, type NamespaceLabels } from "../../shared/vap/match/index.js";

export const REPORT_API_VERSION = "wgpolicyk8s.io/v1alpha2";
export const REPORT_GROUP = "wgpolicyk8s.io";
export const REPORT_VERSION = "v1alpha2";
export const MANAGED_BY = { "app.kubernetes.io/managed-by": "edgeadmit" } as const;
export const MANAGED_BY_SELECTOR = "app.kubernetes.io/managed-by=edgeadmit";
/** Name of the report of cluster-scoped objects (and prefix of its parts). */
export const CLUSTER_REPORT = "edgeadmit-cluster";

export type ResultValue = "pass" | "fail" | "warn" | "error" | "skip";

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export interface ReportResult {
  policy: string;
  rule: string;
  result: ResultValue;
  message: string;
  source: "edgeadmit";
  scored: true;
  timestamp: { seconds: number; nanos: number };
  resources: [ObjectReference];
  properties: Record<string, string>;
}

export type Summary = Record<ResultValue, number>;

export interface PolicyReport {
  apiVersion: typeof REPORT_API_VERSION;
  kind: "PolicyReport" | "ClusterPolicyReport";
  metadata: { name: string; namespace?: string; labels: Record<string, string>; resourceVersion?: string };
  summary: Summary;
  results: ReportResult[];
}

/**
 * Deny → fail and Warn → warn, as Kyverno reports Enforce and warning rules.
 * Audit → fail too: Audit is edgeadmit's "record, do not block", and a report
 * is that record; Kyverno reports an Audit-mode policy's violation as fail,
 * so Policy Reporter counts it as a violation. `properties.mode` tells them apart.
 */
const RESULT_OF_MODE: Readonly<Record<EnforcementMode, ResultValue>> = { Deny: "fail", Warn: "warn", Audit: "fail" };
const MODE_ORDER: readonly EnforcementMode[] = ["Deny", "Warn", "Audit"];

interface BoundPolicy {
  name: string;
  matchConstraints: MatchResources;
  bindings: Array<{ name: string; matchResources?: MatchResources; validationActions: ValidationAction[] }>;
}

/** Policies bound at the edge, as matching needs them: a policy or binding the function cannot read is its problem, not the audit's. */
function boundPolicies(policies: Readonly<Record<string, unknown>>, bindings: Readonly<Record<string, unknown>>): BoundPolicy[] {
  const byName = new Map<string, BoundPolicy>();
  for (const [name, object] of Object.entries(bindings).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const binding = bindingObjectSchema.safeParse(object);
    if (!binding.success) continue;
    const policyName = binding.data.spec.policyName;
    const policy = Object.hasOwn(policies, policyName) ? policyObjectSchema.safeParse(policies[policyName]) : undefined;
    if (!policy?.success) continue;
    const bound = byName.get(policyName) ?? { name: policyName, matchConstraints: policy.data.spec.matchConstraints, bindings: [] };
    bound.bindings.push({ name, ...(binding.data.spec.matchResources ? { matchResources: binding.data.spec.matchResources } : {}), validationActions: binding.data.spec.validationActions });
    byName.set(policyName, bound);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The fleet's bindings on this cluster, named as the webhook names them (`fleet/<name>`). */
function fleetBound(set: FleetSet): BoundPolicy[] {
  const policies = Object.fromEntries(set.policies.map((policy) => [(policy as { metadata: { name: string } }).metadata.name, policy]));
  return boundPolicies(policies, Object.fromEntries(set.bindings.map((binding) => [fleetBindingName(binding.metadata.name), binding])));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What a result of one object and one policy (or policy and binding) says. */
interface Verdict {
  policy: string;
  binding?: string;
  /** The policy's results on the object; [] for a pass. */
  results: PolicyResult[];
  /** How hard the policy is enforced, for a pass or an error, whose results say nothing. */
  mode: string;
  error?: string;
  /** The EdgeAdmissionException that exempts the object from the policy: the result is skip. */
  exception?: string;
}

/**
 * Judges objects and turns each verdict into report results: a result for
 * every policy that looks at the object, pass when it found nothing.
 */
export class ObjectAuditor {
  readonly #view: SnapshotView;
  readonly #bound: BoundPolicy[];
  readonly #namespaceLabels: NamespaceLabels;

  /** `fleet`: what the fleet binds on this cluster (GET /v1/:cluster/fleet, with the set it came as), judged as the webhook judges it. */
  constructor(
    private readonly snapshot: Snapshot,
    private readonly policies: readonly Policy[],
    private readonly timestamp: { seconds: number; nanos: number },
    private readonly fleet?: { policies: ClusterFleet; set: FleetSet },
  ) {
    this.#view = new SnapshotView(snapshot);
    this.#bound = [...boundPolicies(snapshot.validatingAdmissionPolicies, snapshot.policyBindings), ...(fleet ? fleetBound(fleet.set) : [])];
    this.#namespaceLabels = (name) => {
      const namespace = Object.hasOwn(snapshot.namespaces, name) ? snapshot.namespaces[name] : undefined;
      if (!isRecord(namespace) || !isRecord(namespace["metadata"])) return undefined;
      const labels = namespace["metadata"]["labels"];
      return isRecord(labels) ? (labels as Record<string, string>) : {};
    };
  }

  /** Report results for one page of objects: judged with judgeObjects, as `edgeadmit check` judges manifests. */
  audit(objects: readonly KubeObject[]): Array<{ namespace?: string; results: ReportResult[] }> {
    return judgeObjects(objects, this.snapshot, this.#options(this.policies)).map((judged) => ({
      ...(judged.ref.namespace !== undefined ? { namespace: judged.ref.namespace } : {}),
      results: this.#verdicts(judged).map((verdict) => this.#result(judged, verdict)),
    }));
  }

  #verdicts(judged: JudgedObject): Verdict[] {
    const decoded = admissionRequestSchema.safeParse(wrapReview(judged.object, { operation: "CREATE" }).request);
    if (!decoded.success) return [{ policy: "edgeadmit", mode: "Deny", results: [], error: judged.error ?? "not an admission request" }];
    const request = decoded.data;
    const fleet = this.fleet?.policies;
    const matched = matchPolicies(request, this.policies, this.#view, fleet);
    const verdicts: Verdict[] = [];
    // A fleet binding, and a built-in policy the fleet sets a mode for, are exempted by the fleet's exceptions only, as at the webhook.
    const exempted = (verdict: Verdict): Verdict => {
      const byFleet = fleet !== undefined && (verdict.binding?.startsWith(fleetBindingName("")) === true || (verdict.binding === undefined && fleet.modes[verdict.policy] !== undefined));
      const found = byFleet ? (fleet.exceptions.size === 0 ? undefined : exceptionFor(fleet.exceptions, verdict.policy, request)) : exceptionOf(this.#view, verdict.policy, request);
      const exception = found !== undefined && byFleet ? fleetBindingName(found) : found;
      return exception === undefined ? verdict : { ...verdict, exception };
    };
    if (judged.error === undefined) {
      for (const policy of matched) verdicts.push({ policy: policy.id, mode: this.#modeOf(policy), results: judged.results.filter((r) => r.origin === undefined && r.policy === policy.id) });
      verdicts.push(...this.#policyVerdicts(request, judged.results));
      return verdicts.map(exempted);
    }
    // The verdict names no policy: judge the object by each policy alone to tell which cannot read it.
    for (const policy of matched) {
      const [alone] = judgeObjects([judged.object], this.snapshot, this.#options([policy]));
      verdicts.push(
        alone!.error !== undefined
          ? { policy: policy.id, mode: this.#modeOf(policy), results: [], error: alone!.error }
          : { policy: policy.id, mode: this.#modeOf(policy), results: alone!.results.filter((r) => r.origin === undefined) },
      );
    }
    const [bySet] = judgeObjects([judged.object], this.snapshot, this.#options([]));
    verdicts.push(...this.#policyVerdicts(request, bySet!.results));
    return verdicts.map(exempted);
  }

  #options(policies: readonly Policy[]) {
    return { policies, view: this.#view, ...(this.fleet ? { fleet: this.fleet.policies } : {}) };
  }

  #modeOf(policy: Policy): string {
    const configured = this.#view.settings.policies[policy.id];
    const mode = configured === undefined || configured === "Off" ? policy.defaultMode : configured;
    const floor = this.fleet?.policies.modes[policy.id];
    return floor === undefined ? mode : stricter(mode, floor);
  }

  /** The cluster's own policies and the fleet's bound on it: their results per policy and binding, and a pass for each binding that selects the object and found nothing. */
  #policyVerdicts(request: AdmissionRequest, results: readonly PolicyResult[]): Verdict[] {
    const verdicts = new Map<string, Verdict>();
    for (const result of results.filter((r) => r.origin === "ValidatingAdmissionPolicy")) {
      const key = `${result.policy}\u0000${result.binding ?? ""}`;
      const verdict = verdicts.get(key) ?? { policy: result.policy, ...(result.binding !== undefined ? { binding: result.binding } : {}), mode: "", results: [] };
      verdict.results.push(result);
      verdicts.set(key, verdict);
    }
    for (const policy of this.#bound) {
      if (!matchResources(policy.matchConstraints, request, this.#namespaceLabels).matches) continue;
      for (const binding of policy.bindings) {
        if (binding.matchResources && !matchResources(binding.matchResources, request, this.#namespaceLabels).matches) continue;
        const key = `${policy.name}\u0000${binding.name}`;
        const verdict = verdicts.get(key) ?? { policy: policy.name, binding: binding.name, mode: "", results: [] };
        verdict.mode = binding.validationActions.join(",");
        verdicts.set(key, verdict);
      }
    }
    return [...verdicts.values()];
  }

  #result(judged: JudgedObject, verdict: Verdict): ReportResult {
    const modes = MODE_ORDER.filter((mode) => verdict.results.some((r) => r.mode === mode));
    const vap = verdict.binding !== undefined;
    const subject = vap ? `ValidatingAdmissionPolicy '${verdict.policy}' with binding '${verdict.binding}'` : verdict.policy;
    let result: ResultValue;
    let message: string;
    if (verdict.exception !== undefined) {
      result = "skip";
      message = `${subject}: skipped by EdgeAdmissionException ${verdict.exception}`;
    } else if (verdict.error !== undefined) {
      result = "error";
      message = `${subject}: cannot judge this object: ${verdict.error}`;
    } else if (modes.length === 0) {
      result = "pass";
      message = `${subject}: passed`;
    } else {
      result = modes.some((mode) => RESULT_OF_MODE[mode] === "fail") ? "fail" : "warn";
      message = verdict.results.map(describeResult).join("; ");
    }
    const metadata = isRecord(judged.object["metadata"]) ? judged.object["metadata"] : {};
    const uid = typeof metadata["uid"] === "string" ? metadata["uid"] : undefined;
    return {
      policy: verdict.policy,
      rule: verdict.binding ?? verdict.policy,
      result,
      message,
      source: "edgeadmit",
      scored: true,
      timestamp: this.timestamp,
      resources: [{ ...judged.ref, ...(uid !== undefined ? { uid } : {}) }],
      properties: {
        mode: modes.length > 0 ? modes.join(",") : verdict.mode,
        ...(vap ? { binding: verdict.binding! } : {}),
        ...(verdict.exception !== undefined ? { exception: verdict.exception } : {}),
      },
    };
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareResults(a: ReportResult, b: ReportResult): number {
  const [x, y] = [a.resources[0], b.resources[0]];
  return compare(x.kind, y.kind) || compare(x.name, y.name) || compare(x.apiVersion, y.apiVersion) || compare(a.policy, b.policy) || compare(a.rule, b.rule);
}

export function summaryOf(results: readonly ReportResult[]): Summary {
  const summary: Summary = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
  for (const result of results) summary[result.result] += 1;
  return summary;
}

/** `edgeadmit-<namespace>` (`edgeadmit-cluster` for cluster-scoped objects), then `-2`, `-3`… for the parts past the first. */
export function reportName(namespace: string | undefined, part: number): string {
  const base = namespace === undefined ? CLUSTER_REPORT : `edgeadmit-${namespace}`;
  return part === 0 ? base : `${base}-${part + 1}`;
}

/**
 * The results of one audit run, by namespace: what the reports will hold.
 * Holds results only, never objects, so the audit's memory grows with the
 * number of verdicts, not with the size of what it lists.
 */
export class ReportSet {
  readonly #byNamespace = new Map<string, ReportResult[]>();

  add(namespace: string | undefined, results: readonly ReportResult[]): void {
    if (results.length === 0) return;
    const key = namespace ?? "";
    const list = this.#byNamespace.get(key) ?? [];
    list.push(...results);
    this.#byNamespace.set(key, list);
  }

  /** Drops the results about one kind: its list restarted, and will hand them on again. */
  forget(apiVersion: string, kind: string): void {
    for (const [key, results] of this.#byNamespace) {
      const kept = results.filter((r) => r.resources[0].apiVersion !== apiVersion || r.resources[0].kind !== kind);
      if (kept.length > 0) this.#byNamespace.set(key, kept);
      else this.#byNamespace.delete(key);
    }
  }

  /** The reports, namespaces in name order and the cluster's report first, each at most `maxResults` long. */
  reports(maxResults: number): PolicyReport[] {
    const reports: PolicyReport[] = [];
    for (const key of [...this.#byNamespace.keys()].sort(compare)) {
      const namespace = key === "" ? undefined : key;
      const results = [...this.#byNamespace.get(key)!].sort(compareResults);
      for (let part = 0; part * maxResults < results.length; part++) {
        const slice = results.slice(part * maxResults, (part + 1) * maxResults);
        reports.push({
          apiVersion: REPORT_API_VERSION,
          kind: namespace === undefined ? "ClusterPolicyReport" : "PolicyReport",
          metadata: { name: reportName(namespace, part), ...(namespace !== undefined ? { namespace } : {}), labels: { ...MANAGED_BY } },
          summary: summaryOf(slice),
          results: slice,
        });
      }
    }
    return reports;
  }
}
