// The dispatcher: match → evaluate → decide, as separate steps (like the
// ValidatingAdmissionPolicy dispatcher). Policies report findings; only here
// does configuration turn a finding into Deny, Warn or Audit.
import type { AdmissionRequest, Decision } from "../admission/index.js";
import type { EnforcementMode, Finding, Policy } from "../policy/index.js";
import type { SnapshotView } from "../snapshot/view.js";

export type WithoutSnapshot = "FailOpen" | "FailClosed";

export interface ReviewContext {
  cluster: string;
  policies: readonly Policy[];
  snapshot: { view: SnapshotView; pushedAt: number } | undefined;
  /** The cluster's stance when no snapshot has been pushed yet. */
  withoutSnapshot: WithoutSnapshot;
  /** Milliseconds since the epoch; only the staleness check reads it, never a policy. */
  now: number;
}

export interface JudgedFinding extends Finding {
  policy: string;
  mode: EnforcementMode;
}

/** Policies the cluster has not turned Off and that look at this request. */
export function matchPolicies(request: AdmissionRequest, policies: readonly Policy[], view: SnapshotView | undefined): Policy[] {
  return policies.filter((policy) => view?.settings.policies[policy.id] !== "Off" && policy.matches(request));
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

export function evaluate(request: AdmissionRequest, policies: readonly Policy[], view: SnapshotView): JudgedFinding[] {
  return policies.flatMap((policy) =>
    policy.evaluate(request, view).map((finding) => ({ ...finding, policy: policy.id, mode: modeOf(policy, finding, view) })),
  );
}

const deny = (message: string, warnings: string[] = []): Decision => ({
  allowed: false,
  denial: { code: 403, reason: "Forbidden", message },
  warnings,
  auditAnnotations: {},
});

/** Findings → the verdict: any Deny denies; Warn becomes a warning; Audit an auditAnnotation under the policy id. */
export function decide(findings: readonly JudgedFinding[], warnings: string[] = []): Decision {
  const denials = findings.filter((f) => f.mode === "Deny").map((f) => f.message);
  const allWarnings = [...warnings, ...findings.filter((f) => f.mode === "Warn").map((f) => f.message)];
  const auditAnnotations: Record<string, string> = {};
  for (const finding of findings.filter((f) => f.mode === "Audit")) {
    auditAnnotations[finding.policy] = auditAnnotations[finding.policy] ? `${auditAnnotations[finding.policy]}; ${finding.message}` : finding.message;
  }
  if (denials.length > 0) return { ...deny(denials.join("; "), allWarnings), auditAnnotations };
  return { allowed: true, warnings: allWarnings, auditAnnotations };
}

/** The whole review of one request. */
export function review(request: AdmissionRequest, context: ReviewContext): Decision {
  const { cluster, snapshot } = context;
  const matched = matchPolicies(request, context.policies, snapshot?.view);
  if (matched.length === 0) return { allowed: true, warnings: [], auditAnnotations: {} };

  if (!snapshot) {
    const message = `edgeadmit: no snapshot has been pushed for cluster "${cluster}" yet`;
    return context.withoutSnapshot === "FailClosed"
      ? deny(`${message}; the cluster is configured fail-closed, run the sync job`)
      : { allowed: true, warnings: [`${message}; policies not enforced`], auditAnnotations: {} };
  }

  const { maxAgeSeconds, onStale } = snapshot.view.settings;
  const ageSeconds = Math.floor((context.now - snapshot.pushedAt) / 1000);
  const warnings: string[] = [];
  if (ageSeconds > maxAgeSeconds) {
    const message = `edgeadmit: snapshot for cluster "${cluster}" is stale since ${new Date(snapshot.pushedAt + maxAgeSeconds * 1000).toISOString()} (max age ${maxAgeSeconds}s)`;
    if (onStale === "Deny") return deny(`${message}; the cluster denies on stale data, check the sync job`);
    warnings.push(message);
  }
  return decide(evaluate(request, matched, snapshot.view), warnings);
}
