// review(), the whole review of one request: match → evaluate → decide, as
// separate steps (like the ValidatingAdmissionPolicy dispatcher of
// shared/vap/dispatcher, which it calls). Policies report findings; only here
// does configuration turn a finding into Deny, Warn or Audit.
import { truncateUtf8, utf8Length, MAX_WARNINGS_TOTAL_BYTES, type AdmissionRequest, type Decision } from "../admission/index.js";
import { credentialOf, describeCredential } from "../admission/credentials.js";
import type { WithoutSnapshot } from "../clusters/index.js";
import type { EnforcementMode, Finding, Policy } from "../policy/index.js";
import type { SnapshotView } from "../snapshot/view.js";
import { exceptionFor, indexExceptions, type ExceptionIndex } from "../exceptions/index.js";
import { policySetOf, ReviewSession, type PolicyOutcome } from "../vap/index.js";
import { fleetFacts, stricter, type ClusterFleet } from "../fleet/index.js";

export type { WithoutSnapshot };

export interface ReviewContext {
  cluster: string;
  policies: readonly Policy[];
  snapshot: { view: SnapshotView; pushedAt: number } | undefined;
  /** Why the cluster's stored snapshot cannot be used (integrity, version), when `snapshot` is undefined though one was pushed. */
  unusable?: string;
  /** The cluster's stance when no snapshot has been pushed yet. */
  withoutSnapshot: WithoutSnapshot;
  /** False to judge with `policies` only, without the cluster's own (the per-policy route of a built-in policy). */
  withPolicySet?: boolean;
  /** The one bound ValidatingAdmissionPolicy to judge with, by name (the per-policy route of a cluster's own policy). */
  edgePolicy?: string;
  /** Milliseconds since the epoch; only the staleness check reads it, never a policy. */
  now: number;
  /** What the fleet binds on this cluster (shared/fleet), judged beside the cluster's own policies; the cluster cannot weaken it. */
  fleet?: ClusterFleet | undefined;
  /** The review's one budget and its final evaluations, across the rounds the function judges it in (functions/routes/validate.ts); absent: this judgement alone. */
  session?: ReviewSession;
}

/**
 * One policy's verdict on one request: what the webhook encodes into its
 * response, `edgeadmit check` prints and the audit writes into reports.
 */
export interface PolicyResult {
  /** The policy's id (a ValidatingAdmissionPolicy's name). */
  policy: string;
  /** Set for the cluster's own ValidatingAdmissionPolicies, whose messages read as the apiserver writes them. */
  origin?: "ValidatingAdmissionPolicy";
  /** The binding that applied the policy, for ValidatingAdmissionPolicies. */
  binding?: string;
  mode: EnforcementMode;
  /** What is wrong and how to fix it, without the policy's name (rendering adds it). */
  message: string;
  /** The field to change, dotted. */
  field?: string;
  /** A denial's HTTP status when not 403 Forbidden (a ValidatingAdmissionPolicy's reason). */
  status?: { code: number; reason: string };
  /** The fleet revision that bound the policy (a fleet policy) or set its floor (a built-in one). */
  fleet?: number;
}

/** Policies the cluster has not turned Off (or the fleet enforces whatever the cluster says) and that look at this request. */
export function matchPolicies(request: AdmissionRequest, policies: readonly Policy[], view: SnapshotView | undefined, fleet?: ClusterFleet): Policy[] {
  return policies.filter((policy) => (view?.settings.policies[policy.id] !== "Off" || fleet?.modes[policy.id] !== undefined) && policy.matches(request));
}

/**
 * How hard a finding is enforced; the most specific configuration wins:
 * a tenant's override, then the AffinityClass's enforcement, then the
 * cluster's per-policy setting, then the policy's default. An informational
 * finding is capped at Warn.
 */
export function modeOf(policy: Policy, finding: Finding, view: SnapshotView): EnforcementMode {
  const { affinityClass, tenantNamespace } = finding.scope ?? {};
  const tenantMode = tenantNamespace ? view.tenant(tenantNamespace)?.affinityClassEnforcement : undefined;
  const classMode = affinityClass ? view.affinityClass(affinityClass)?.enforcement : undefined;
  const clusterMode = view.settings.policies[policy.id];
  const mode = tenantMode ?? classMode ?? (clusterMode === "Off" ? undefined : clusterMode) ?? policy.defaultMode;
  return finding.informational && mode === "Deny" ? "Warn" : mode;
}

export function evaluate(request: AdmissionRequest, policies: readonly Policy[], view: SnapshotView, fleet?: ClusterFleet): PolicyResult[] {
  return policies.flatMap((policy) => {
    const floor = fleet?.modes[policy.id];
    return policy.evaluate(request, view).map((finding): PolicyResult => ({
      policy: policy.id,
      // The fleet's mode is a floor: the cluster's settings, tenants and classes may only make it stricter.
      mode: floor === undefined ? modeOf(policy, finding, view) : stricter(modeOf(policy, finding, view), finding.informational && floor === "Deny" ? "Warn" : floor),
      message: finding.message,
      ...(finding.field ? { field: finding.field } : {}),
      ...(floor !== undefined ? { fleet: fleet!.revision } : {}),
    }));
  });
}

/** The audit annotation that says which of the cluster's settings a fleet policy ignored: a cluster cannot weaken a fleet policy. */
const FLEET_IGNORED_ANNOTATION = "fleet.ignored-settings";

/**
 * The fleet's policies on this request: results that name the fleet binding,
 * made stricter where the cluster's settings ask (Warn to Deny), never
 * weaker; a setting that would weaken one is named in `ignored`.
 */
function fleetResults(
  request: AdmissionRequest,
  fleet: ClusterFleet,
  view: SnapshotView,
  ignored: Set<string>,
  session: ReviewSession,
): { results: PolicyResult[]; skipped: SkippedResult[]; auditAnnotations: Record<string, string> } {
  const exemptedBy = (policy: string) => (fleet.exceptions.size === 0 ? undefined : exceptionFor(fleet.exceptions, policy, request));
  const outcome = fleet.set.evaluate(request, fleetFacts(fleet, view, view.settings.fleetInventory), (policy) => exemptedBy(policy) !== undefined, undefined, session);
  const results: PolicyResult[] = [];
  const skipped: SkippedResult[] = [];
  for (const raw of outcome.outcomes) {
    const setting = view.settings.policies[raw.policy];
    let action = raw.action;
    if (setting !== undefined && setting !== "Off" && stricter(setting, action) === setting) action = setting;
    else if (setting !== undefined && setting !== action) ignored.add(`${raw.policy}: ${setting}`);
    const fleetResult: PolicyResult = { ...vapResult({ ...raw, action }), fleet: fleet.revision };
    const exception = exemptedBy(raw.policy);
    if (exception === undefined) results.push(fleetResult);
    else skipped.push({ ...fleetResult, exception: `fleet/${exception}` });
  }
  return { results, skipped, auditAnnotations: outcome.auditAnnotations };
}

/** How a result reads in a denial or a warning: the policy first, so every message says who raised it. */
export function describeResult(result: PolicyResult): string {
  if (result.origin !== "ValidatingAdmissionPolicy") return `${result.policy}: ${result.message}`;
  const bound = result.binding === undefined ? "" : ` with binding '${result.binding}'`;
  return result.mode === "Deny"
    ? `ValidatingAdmissionPolicy '${result.policy}'${bound} denied request: ${result.message}`
    : `Validation failed for ValidatingAdmissionPolicy '${result.policy}'${bound}: ${result.message}`;
}

/** An edge policy's outcome as a result: a binding's validationActions are its modes. */
function vapResult(outcome: PolicyOutcome): PolicyResult {
  return {
    policy: outcome.policy,
    origin: "ValidatingAdmissionPolicy",
    ...(outcome.binding !== undefined ? { binding: outcome.binding } : {}),
    mode: outcome.action,
    message: outcome.message,
    ...(outcome.status && outcome.action === "Deny" ? { status: outcome.status } : {}),
  };
}

const vapResults = (outcomes: readonly PolicyOutcome[]): PolicyResult[] => outcomes.map(vapResult);

const deny = (message: string, warnings: string[] = []): Decision => ({
  allowed: false,
  denial: { code: 403, reason: "Forbidden", message },
  warnings,
  auditAnnotations: {},
});

/** One message's share of a joined text: a VAP's messageExpression may say a lot. */
const MAX_MESSAGE_BYTES = 1024;

/** What follows the quoted expression in the apiserver's words for an expression's error: the reason comes after it. */
const EXPRESSION_ERROR = "' resulted in error: ";

/** The longest end of `text` of at most `maxBytes` of UTF-8, starting at a character boundary. */
function lastUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    const c = text.charCodeAt(start - 1);
    const pair = c >= 0xdc00 && c <= 0xdfff && start > 1 && text.charCodeAt(start - 2) >= 0xd800 && text.charCodeAt(start - 2) <= 0xdbff;
    const size = pair ? 4 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    start -= pair ? 2 : 1;
  }
  return text.slice(start);
}

/**
 * A message cut to `maxBytes` in its middle, never its end: the reason comes
 * last ("expression '<long source>' resulted in error: operation cancelled:
 * actual cost limit exceeded"), so the quoted expression is shortened (or,
 * in any other message, the text before its last half).
 */
export function shortenMessage(message: string, maxBytes: number): string {
  if (message.length <= maxBytes / 3 || utf8Length(message) <= maxBytes) return message;
  const at = message.lastIndexOf(EXPRESSION_ERROR);
  let tail = at >= 0 ? message.slice(at) : "";
  if (tail === "" || utf8Length(tail) > maxBytes / 2) tail = lastUtf8(message, Math.floor(maxBytes / 2));
  return `${truncateUtf8(message.slice(0, message.length - tail.length), maxBytes - utf8Length(tail))}${tail}`;
}

/** Messages joined in order while they fit `maxBytes`; the rest are counted, so none vanishes unsaid. */
function joined(messages: readonly string[], maxBytes: number): string {
  let text = "";
  for (const [index, message] of messages.entries()) {
    const part = shortenMessage(message, MAX_MESSAGE_BYTES);
    const next = index === 0 ? part : `${text}; ${part}`;
    const reserve = index < messages.length - 1 ? utf8Length(`; and ${messages.length - index - 1} more`) : 0;
    if (utf8Length(next) + reserve > maxBytes) return `${text}; and ${messages.length - index} more`;
    text = next;
  }
  return text;
}

/**
 * Results → the verdict: any Deny denies; Warn becomes a warning; Audit an
 * auditAnnotation under the policy id. A ValidatingAdmissionPolicy's denial
 * answers alone, the first one only, with its own status, as the apiserver
 * (which runs them before any webhook) would answer.
 */
export function decide(results: readonly PolicyResult[], warnings: string[] = [], extraAnnotations: Record<string, string> = {}): Decision {
  const policyDenial = results.find((r) => r.mode === "Deny" && r.origin === "ValidatingAdmissionPolicy");
  const denials = policyDenial ? [policyDenial] : results.filter((r) => r.mode === "Deny");
  const allWarnings = [...warnings, ...results.filter((r) => r.mode === "Warn").map(describeResult)];
  const audited = new Map<string, string[]>();
  for (const result of results.filter((r) => r.mode === "Audit" && r.origin === undefined)) audited.set(result.policy, [...(audited.get(result.policy) ?? []), result.message]);
  const auditAnnotations = { ...Object.fromEntries([...audited].map(([policy, messages]) => [policy, joined(messages, MAX_WARNINGS_TOTAL_BYTES)])), ...extraAnnotations };
  if (denials.length > 0) {
    const status = denials[0]!.status ?? { code: 403, reason: "Forbidden" };
    return { allowed: false, denial: { ...status, message: joined(denials.map(describeResult), MAX_WARNINGS_TOTAL_BYTES) }, warnings: allWarnings, auditAnnotations };
  }
  return { allowed: true, warnings: allWarnings, auditAnnotations };
}

/** A result an EdgeAdmissionException set aside: it decides nothing, and reports name the exception. */
export interface SkippedResult extends PolicyResult {
  exception: string;
}

/** A review's verdict, and the per-policy results it came from (what `edgeadmit check` and the audit report). */
export interface ReviewOutcome {
  decision: Decision;
  results: PolicyResult[];
  /** Results of policies an exception exempts the request from: not enforced. */
  skipped: SkippedResult[];
}

const allowAll = (): ReviewOutcome => ({ decision: { allowed: true, warnings: [], auditAnnotations: {} }, results: [], skipped: [] });

const exceptionIndexOf = (view: SnapshotView): ExceptionIndex => indexExceptions(view.cluster.exceptions);

/** The EdgeAdmissionException that exempts the request from `policy` (a built-in id or a ValidatingAdmissionPolicy's name), if any. */
export function exceptionOf(view: SnapshotView, policy: string, request: AdmissionRequest): string | undefined {
  const index = view.derived(exceptionIndexOf);
  return index.size === 0 ? undefined : exceptionFor(index, policy, request);
}

/** The audit annotation that records what exceptions set aside, so the apiserver's audit log shows why a finding did not count. */
const EXCEPTIONS_ANNOTATION = "exceptions";

/**
 * Whether any policy looks at `request` (a built-in one the cluster has not
 * turned Off, or a bound ValidatingAdmissionPolicy whose rules name it):
 * only then does a review read the snapshot, so the function loads shards
 * for it. `view` may hold no namespace: matching reads only the cluster part.
 */
export function judged(request: AdmissionRequest, policies: readonly Policy[], view: SnapshotView | undefined, withPolicySet = true, edgePolicy?: string, fleet?: ClusterFleet): boolean {
  return (
    matchPolicies(request, policies, view, fleet).length > 0 ||
    (view !== undefined && withPolicySet && (policySetOf(view.cluster).mayMatch(request, edgePolicy) || fleet?.set.mayMatch(request) === true))
  );
}

/** The audit annotation that says why a request that carries credentials was allowed unjudged. */
const CREDENTIALS_ANNOTATION = "credentials-not-judged";

/**
 * The outcome of a request that carries credentials (shared/admission/credentials.ts):
 * allowed, judged by no policy, with why as a warning and an audit annotation;
 * undefined for any other request. It reads the request's resource and kind,
 * never its objects, and its words are fixed: nothing of the request in them.
 */
export function unjudgedCredentials(request: Pick<AdmissionRequest, "kind" | "resource" | "subResource">): ReviewOutcome | undefined {
  const credential = credentialOf(request);
  if (credential === undefined) return undefined;
  const why = `edgeadmit: allowed unjudged: ${describeCredential(credential)} carry credentials (${credential.carries}), which edgeadmit never judges; its ValidatingWebhookConfiguration should not send them: render it again with edgeadmit webhook-config`;
  return { decision: { allowed: true, warnings: [why], auditAnnotations: { [CREDENTIALS_ANNOTATION]: why } }, results: [], skipped: [] };
}

/**
 * The whole review of one request: the built-in policies, and the cluster's
 * own policies bound at the edge; a request that carries credentials none of them.
 */
export function review(request: AdmissionRequest, context: ReviewContext): ReviewOutcome {
  const unjudged = unjudgedCredentials(request);
  if (unjudged !== undefined) return unjudged;
  const { cluster, snapshot } = context;
  const fleet = context.fleet;
  const matched = matchPolicies(request, context.policies, snapshot?.view, fleet);
  const withPolicySet = context.withPolicySet !== false;
  const policySet = snapshot && withPolicySet ? policySetOf(snapshot.view.cluster) : undefined;
  const fleetMatches = withPolicySet && fleet?.set.mayMatch(request) === true;
  // What judged() decides, from the matches this review needs anyway.
  if (matched.length === 0 && !policySet?.mayMatch(request, context.edgePolicy) && !fleetMatches) return allowAll();

  if (!snapshot) {
    const message = context.unusable ? `edgeadmit: cluster "${cluster}": ${context.unusable}` : `edgeadmit: no snapshot has been pushed for cluster "${cluster}" yet`;
    const decision: Decision =
      context.withoutSnapshot === "FailClosed"
        ? deny(`${message}; the cluster is configured fail-closed, run the sync job`)
        : { allowed: true, warnings: [`${message}; policies not enforced`], auditAnnotations: {} };
    return { decision, results: [], skipped: [] };
  }

  const { maxAgeSeconds, onStale } = snapshot.view.settings;
  const ageSeconds = Math.floor((context.now - snapshot.pushedAt) / 1000);
  const warnings: string[] = [];
  if (ageSeconds > maxAgeSeconds) {
    const message = `edgeadmit: snapshot for cluster "${cluster}" is stale since ${new Date(snapshot.pushedAt + maxAgeSeconds * 1000).toISOString()} (max age ${maxAgeSeconds}s)`;
    if (onStale === "Deny") return { decision: deny(`${message}; the cluster denies on stale data, check the sync job`), results: [], skipped: [] };
    warnings.push(message);
  }
  const ignored = new Set<string>();
  // One budget for the fleet's policies (first: a cluster's own cannot spend what they need) and the cluster's, in every round.
  const session = context.session ?? new ReviewSession();
  session.missed = () => snapshot.view.missed;
  const fromFleet = fleet && fleetMatches ? fleetResults(request, fleet, snapshot.view, ignored, session) : undefined;
  const edge = policySet?.evaluate(request, snapshot.view, (policy) => exceptionOf(snapshot.view, policy, request) !== undefined, context.edgePolicy, session);
  const results: PolicyResult[] = [...(fromFleet?.results ?? [])];
  const skipped: SkippedResult[] = [...(fromFleet?.skipped ?? [])];
  for (const result of [...evaluate(request, matched, snapshot.view, fleet), ...vapResults(edge?.outcomes ?? [])]) {
    // A built-in policy the fleet enforces is set aside only by the fleet's exceptions, as a fleet policy is.
    const floored = result.fleet !== undefined;
    const exception = floored ? (fleet!.exceptions.size === 0 ? undefined : exceptionFor(fleet!.exceptions, result.policy, request)) : exceptionOf(snapshot.view, result.policy, request);
    if (floored) {
      const setting = snapshot.view.settings.policies[result.policy];
      if (setting !== undefined && (setting === "Off" || stricter(setting, result.mode) !== setting)) ignored.add(`${result.policy}: ${setting}`);
      if (exception === undefined && exceptionOf(snapshot.view, result.policy, request) !== undefined) ignored.add(`${result.policy}: its exception`);
    }
    if (exception === undefined) results.push(result);
    else skipped.push({ ...result, exception: floored ? `fleet/${exception}` : exception });
  }
  const annotations = { ...fromFleet?.auditAnnotations, ...edge?.auditAnnotations };
  if (ignored.size > 0) annotations[FLEET_IGNORED_ANNOTATION] = joined([...ignored].map((what) => `${what} (a cluster cannot weaken a fleet policy)`), MAX_WARNINGS_TOTAL_BYTES);
  if (skipped.length > 0) annotations[EXCEPTIONS_ANNOTATION] = joined([...new Set(skipped.map((r) => `${r.policy} by ${r.exception}`))], MAX_WARNINGS_TOTAL_BYTES);
  return { decision: decide(results, warnings, annotations), results, skipped };
}
