// How hard a finding is enforced, apart from what a policy is: the snapshot's
// schema and the dispatcher read these without depending on the policy
// interface (which names the snapshot view).

export const ENFORCEMENT_MODES = ["Deny", "Warn", "Audit"] as const;
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];
export const POLICY_MODES = [...ENFORCEMENT_MODES, "Off"] as const;
