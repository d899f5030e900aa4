// How hard a finding is enforced, apart from what a policy is: the snapshot's
// settings carry these, so they live with the snapshot, below the policy
// interface (shared/policy, which names the snapshot view and re-exports them).

export const ENFORCEMENT_MODES = ["Deny", "Warn", "Audit"] as const;
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];
export const POLICY_MODES = [...ENFORCEMENT_MODES, "Off"] as const;
