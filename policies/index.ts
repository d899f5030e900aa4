// Every policy edgeadmit serves. The webhook, the CLI and the audit all read this list.
import type { Policy } from "../shared/policy/index.js";
import { affinityClassPolicy } from "./affinity-class/index.js";
import { affinityClassReferencesPolicy } from "./affinity-class-references/index.js";
import { affinityClassDefinitionsPolicy } from "./affinity-class-definitions/index.js";
import { rwoRolloutPolicy } from "./rwo-rollout/index.js";
import { rwoSharedPolicy } from "./rwo-shared/index.js";
import { podAffinityDeadlockPolicy } from "./pod-affinity-deadlock/index.js";
import { antiAffinityDriftPolicy } from "./anti-affinity-drift/index.js";
import { haSpreadPolicy } from "./ha-spread/index.js";

export const POLICIES: readonly Policy[] = [
  affinityClassPolicy,
  affinityClassReferencesPolicy,
  affinityClassDefinitionsPolicy,
  rwoRolloutPolicy,
  rwoSharedPolicy,
  podAffinityDeadlockPolicy,
  antiAffinityDriftPolicy,
  haSpreadPolicy,
];

export function policyById(id: string): Policy | undefined {
  return POLICIES.find((policy) => policy.id === id);
}
