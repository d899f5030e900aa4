// A change the function keeps as a proposal (its deployment needs more
// operator keys to sign it: docs/operations.md, "What one operator key can
// do"): said on stdout with how to approve it, and the verb ends there, 0.
import type { CliIo } from "../base/io.js";
import type { Outcome } from "../client/registry.js";

/** The change's answer when it applied; undefined once a proposal has been said. */
export function applied<T>(outcome: Outcome<T>, io: CliIo): T | undefined {
  if ("applied" in outcome) return outcome.applied;
  io.out(`${outcome.proposed.message}\n`);
  return undefined;
}
