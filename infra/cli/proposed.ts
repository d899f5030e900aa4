// A change the function keeps as a proposal (its deployment needs more
// operator keys to sign it: docs/operations.md, "What one operator key can
// do"): said on stdout with how to approve it, and the verb ends there, 0.
// A dry run says beforehand whether it would be one.
import type { CliIo } from "../base/io.js";
import { FunctionError } from "../client/index.js";
import { operatorKeysOf } from "../client/governance.js";
import type { Outcome } from "../client/registry.js";
import type { Target } from "./operator-flags.js";
import { plural } from "./plural.js";

/** The change's answer when it applied; undefined once a proposal has been said. */
export function applied<T>(outcome: Outcome<T>, io: CliIo): T | undefined {
  if ("applied" in outcome) return outcome.applied;
  io.out(`${outcome.proposed.message}\n`);
  return undefined;
}

/**
 * For a dry run: that a change widening what `widens` says would wait as a
 * proposal, or undefined when one key applies it (a threshold of 1, or a
 * function of 0.1.0, which has no operator routes and no threshold).
 */
export async function proposalNote(target: Target, widens: readonly string[]): Promise<string | undefined> {
  if (widens.length === 0) return undefined;
  let threshold: number;
  try {
    threshold = (await operatorKeysOf(target.endpoint, target.privateKeyPem)).threshold;
  } catch (e) {
    if (e instanceof FunctionError && e.status === 404) return undefined;
    throw e;
  }
  return threshold > 1 ? `it would be proposed, not applied: it ${widens.join("; ")}, which needs ${plural(threshold, "operator key")} (edgeadmit approve)` : undefined;
}
