// Every policy edgeadmit serves. The webhook, the CLI and the audit all read this list.
import type { Policy } from "../shared/policy/index.js";
import { affinityClassPolicy } from "./affinity-class/index.js";

export const POLICIES: readonly Policy[] = [affinityClassPolicy];

export function policyById(id: string): Policy | undefined {
  return POLICIES.find((policy) => policy.id === id);
}
