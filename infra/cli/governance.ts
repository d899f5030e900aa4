// `edgeadmit proposals`, `edgeadmit approve` and `edgeadmit changes`: the
// changes waiting for more operator keys, approving one, and who did what
// (docs/operations.md, "What one operator key can do"); what operator.ts's
// verbs print of them.
import { PUBLIC_KEY_PREFIX } from "../../shared/signing/index.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import {
  approveProposal,
  changeLog,
  listProposals,
  readProposal,
  type ChangeEntry,
} from "../client/governance.js";
import type { ProposalAnswer } from "../client/registry.js";
import { optionalString, parseVerbArgs, type ParsedArgs } from "./args.js";
import { confirmed, YES_FLAG } from "./confirm.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf } from "./operator-flags.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import { plural } from "./plural.js";
import { applied } from "./proposed.js";
import { timeFlag } from "./times.js";
import type { Verb } from "./verb.js";

export const short = (key: string) => (key.length > 32 ? `${key.slice(0, 28)}…` : key);

/** An operator key given as itself (`ed25519:…`) or as a file holding it (operator.pub). */
export async function keyArg(verb: string, args: ParsedArgs, io: CliIo, index = 0): Promise<string> {
  const value = args.positionals[index];
  if (value === undefined) throw new CliError(`say which operator key: edgeadmit ${verb} KEY (${PUBLIC_KEY_PREFIX}… or a file holding it; see edgeadmit ${verb} --help)`, EXIT_USAGE);
  return value.startsWith(PUBLIC_KEY_PREFIX) ? value : (await readInput(value, io, "operator key")).trim();
}

/** One line per change log entry: `#12 2026-11-28T10:00:00.000Z registry add prod-eu [ed25519:…]`. */
export function entryLine(entry: ChangeEntry): string {
  return `#${entry.seq} ${entry.at} ${entry.kind} ${entry.summary} [${entry.signers.length > 0 ? entry.signers.map(short).join(", ") : "no signer recorded"}]`;
}

export const SINCE_HELP = "--since takes a time (2026-11-28T10:00:00Z) or how long ago (30m, 24h, 7d); default: ever.";

function proposalLines(proposal: ProposalAnswer): string[] {
  return [
    `${proposal.id} (${proposal.state}): ${proposal.widens.join("; ")}`,
    `  proposed by ${short(proposal.proposer)} at ${proposal.createdAt}, expires ${proposal.expiresAt}`,
    `  approved by ${proposal.approvals.map(short).join(", ")}: ${proposal.approvals.length} of ${proposal.threshold}${proposal.outcome ? `; ${proposal.outcome}` : ""}`,
  ];
}

const proposals: Verb = {
  name: "proposals",
  summary: "list the changes waiting for more operator keys to approve them",
  usage: `edgeadmit proposals ${TARGET_USAGE} [-o text|json|yaml]

Prints every proposal waiting for approvals: what it widens, who proposed
and approved it, when it lapses. edgeadmit approve ID shows one whole.
${TARGET_HELP}

Example:
  edgeadmit proposals --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const target = await targetOf(this.name, args, io);
    const listing = await listProposals(target.endpoint, target.privateKeyPem);
    if (output !== "text") {
      printData(io, output, listing);
      return 0;
    }
    for (const proposal of listing.proposals) io.out(`${proposalLines(proposal).join("\n")}\n`);
    io.err(`${plural(listing.proposals.length, "proposal")} waiting; a widening change needs ${plural(listing.threshold, "distinct key")}\n`);
    return 0;
  },
};

const approve: Verb = {
  name: "approve",
  summary: "approve a proposed change with your operator key, after showing it whole",
  usage: `edgeadmit approve ID ${TARGET_USAGE} [--yes]

Shows proposal ID whole (what it widens, the exact change, who proposed and
approved it), asks (or --yes), and signs your approval. With the threshold
reached the change applies at once, signed by every approving key.
${TARGET_HELP}

Example:
  edgeadmit approve 2f1c…-… --endpoint https://edgeadmit.example.com --operator-key ./keys/alice/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...YES_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const id = args.positionals[0];
    if (id === undefined) throw new CliError(`say which proposal: edgeadmit approve ID (edgeadmit proposals lists them)`, EXIT_USAGE);
    const target = await targetOf(this.name, args, io);
    const proposal = await readProposal(target.endpoint, target.privateKeyPem, id);
    io.out(`${proposalLines(proposal).join("\n")}\nthe change:\n${JSON.stringify(proposal.change, null, 2)}\n`);
    if (proposal.state !== "open") throw new CliError(`proposal ${proposal.id} is ${proposal.state}: nothing to approve`);
    if (!(await confirmed(this.name, args, io, `approve ${proposal.id}`))) {
      io.err("not approved\n");
      return 1;
    }
    const answer = applied(await approveProposal(target.endpoint, target.privateKeyPem, proposal.id), io);
    if (answer) io.out(`applied ${answer.applied} as change ${answer.change}, signed by ${answer.signers.map(short).join(", ")}\n`);
    return 0;
  },
};

const changes: Verb = {
  name: "changes",
  summary: "the change log: every registry and fleet change, with the operator keys that signed it",
  usage: `edgeadmit changes ${TARGET_USAGE} [--key KEY] [--cluster ID] [--since TIME] [--until TIME] [-o text|json|yaml]

Prints the function's change log, oldest first: every registry change, fleet
revision, operator key added or revoked, snapshot reset and undo, each with
the keys that signed it (kept a year, and at least the last 100,000).
--key and --cluster keep those a key signed or a cluster was part of.
--since and --until take a time (2026-11-28T10:00:00Z) or how long ago (24h).
${TARGET_HELP}

Example:
  edgeadmit changes --cluster prod-eu --since 7d --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG, key: { type: "string" }, cluster: { type: "string" }, since: { type: "string" }, until: { type: "string" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const now = Date.now();
    const at = (flag: string) => {
      const text = optionalString(args, flag);
      return text === undefined ? undefined : timeFlag(flag, text, now);
    };
    const query = { key: optionalString(args, "key"), cluster: optionalString(args, "cluster"), since: at("since"), until: at("until") };
    const target = await targetOf(this.name, args, io);
    const entries = await changeLog(target.endpoint, target.privateKeyPem, query);
    if (output !== "text") {
      printData(io, output, { entries });
      return 0;
    }
    for (const entry of entries) io.out(`${entryLine(entry)}\n`);
    io.err(`${plural(entries.length, "change")}\n`);
    return 0;
  },
};

export const governanceVerbs: readonly Verb[] = [proposals, approve, changes];
