// `edgeadmit operator keygen|keys|add|revoke|undo`: the operator's key pair,
// whose private key signs every change to the function's cluster registry
// and fleet (edgeadmit clusters …, fleet …; operator-flags.ts), the keys the
// function trusts, and what to do when one leaks (docs/operations.md, "What
// one operator key can do").
import { PUBLIC_KEY_PREFIX } from "../../shared/signing/index.js";
import { addOperatorKey, operatorKeysOf, revokeOperatorKey, undoOperatorKeys } from "../client/governance.js";
import { optionalString, parseVerbArgs, requiredString } from "./args.js";
import { confirmed, YES_FLAG } from "./confirm.js";
import { entryLine, keyArg, short, SINCE_HELP } from "./governance.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf } from "./operator-flags.js";
import { plural } from "./plural.js";
import { applied } from "./proposed.js";
import { timeFlag } from "./times.js";
import { writeKeyPair } from "./keygen.js";
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, ALLOW_UNIGNORED_HELP } from "./secrets.js";
import type { Verb } from "./verb.js";

const OPERATOR_PRIVATE_KEY_FILE = "operator.key";
const OPERATOR_PUBLIC_KEY_FILE = "operator.pub";

export const operatorKeygen: Verb = {
  name: "operator keygen",
  summary: "make the operator's key pair, which signs changes to the cluster registry",
  usage: `edgeadmit operator keygen --out DIR [--force] [--${ALLOW_UNIGNORED}]

Writes DIR/${OPERATOR_PRIVATE_KEY_FILE} (PKCS#8 PEM, mode 0600: keep it with whoever
registers clusters, never in a cluster) and DIR/${OPERATOR_PUBLIC_KEY_FILE}; an existing key
is kept unless --force. Prints the public key: put it in the function's
OPERATOR_KEYS (a var or a secret; several keys separated by spaces while one
rotates) and deploy once. From then on edgeadmit clusters add|rotate|remove
sign with DIR/${OPERATOR_PRIVATE_KEY_FILE}.

${ALLOW_UNIGNORED_HELP}

Example:
  edgeadmit operator keygen --out ./keys`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { out: { type: "string" }, force: { type: "boolean" }, ...ALLOW_UNIGNORED_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const dir = requiredString(this.name, args, "out");
    const { publicKey, privateFile, publicFile } = await writeKeyPair(dir, OPERATOR_PRIVATE_KEY_FILE, OPERATOR_PUBLIC_KEY_FILE, args.values.force === true, args.values[ALLOW_UNIGNORED] === true);
    io.out(`${publicKey}\n`);
    io.err(`wrote ${privateFile} (mode 0600) and ${publicFile}; add the public key above to the function's OPERATOR_KEYS and deploy (docs/operations.md, Running a fleet)\n`);
    return 0;
  },
};

const keys: Verb = {
  name: "operator keys",
  summary: "list the operator keys the function trusts, those revoked, and the threshold a widening change needs",
  usage: `edgeadmit operator keys ${TARGET_USAGE} [-o text|json|yaml]

Prints the root keys (the function's OPERATOR_KEYS), the keys added in the
registry, the revoked ones, and OPERATOR_THRESHOLD: how many distinct keys
must sign a change that widens access or changes what clusters enforce.
${TARGET_HELP}

Example:
  edgeadmit operator keys --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const target = await targetOf(this.name, args, io);
    const state = await operatorKeysOf(target.endpoint, target.privateKeyPem);
    if (output !== "text") {
      printData(io, output, state);
      return 0;
    }
    const you = (key: string) => (key === state.you ? " (you)" : "");
    for (const { key, revoked } of state.root) io.out(`root     ${key}${revoked ? " REVOKED" : ""}${you(key)}\n`);
    for (const key of state.added) io.out(`added    ${key}${you(key)}\n`);
    for (const key of state.revoked.filter((key) => !state.root.some((root) => root.key === key))) io.out(`revoked  ${key}\n`);
    io.err(`a change that widens access or changes enforcement needs ${plural(state.threshold, "distinct key")} (OPERATOR_THRESHOLD)\n`);
    return 0;
  },
};

const add: Verb = {
  name: "operator add",
  summary: "trust another operator key (a widening change: it needs the threshold's approvals)",
  usage: `edgeadmit operator add KEY ${TARGET_USAGE}

Adds KEY (${PUBLIC_KEY_PREFIX}…, or a file holding it: edgeadmit operator keygen's
operator.pub) to the keys the function trusts, without a deploy. Where the
deployment's OPERATOR_THRESHOLD is above 1 it is proposed, and applies once
that many distinct keys approved it (edgeadmit approve). A revoked key is
never trusted again.
${TARGET_HELP}

Example:
  edgeadmit operator add ./keys/alice/operator.pub --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, TARGET_FLAGS, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const key = await keyArg(this.name, args, io);
    const target = await targetOf(this.name, args, io);
    const answer = applied(await addOperatorKey(target.endpoint, target.privateKeyPem, key), io);
    if (answer) io.out(`trusted ${answer.added} (change ${answer.change}, signed by ${answer.signers.map(short).join(", ")})\n`);
    return 0;
  },
};

const revoke: Verb = {
  name: "operator revoke",
  summary: "stop trusting an operator key at once (one key may do it), and list what it signed",
  usage: `edgeadmit operator revoke KEY ${TARGET_USAGE} [--since TIME]

Revokes KEY, root keys (OPERATOR_KEYS) included: the function refuses its
signatures from this moment, in every isolate; what it proposed lapses and
its approvals stop counting. One key may do it, whatever the threshold: an
incident cannot wait. Prints every change KEY signed since --since; undo
those it signed alone with edgeadmit operator undo.
${SINCE_HELP}
${TARGET_HELP}

Example:
  edgeadmit operator revoke ed25519:AAAA… --since 7d --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, since: { type: "string" } }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const key = await keyArg(this.name, args, io);
    const sinceText = optionalString(args, "since");
    const since = sinceText === undefined ? 0 : timeFlag("since", sinceText, Date.now());
    const target = await targetOf(this.name, args, io);
    const answer = await revokeOperatorKey(target.endpoint, target.privateKeyPem, key, since);
    io.out(`revoked ${answer.revoked} (change ${answer.change}): its signatures are refused from now on\n`);
    for (const entry of answer.signed) io.out(`  signed ${entryLine(entry)}\n`);
    io.err(
      answer.signed.length > 0
        ? `it signed ${plural(answer.signed.length, "change")}${since > 0 ? ` since ${new Date(since).toISOString()}` : ""}: undo what it signed alone with edgeadmit operator undo ${short(key)}${since > 0 ? ` --since ${new Date(since).toISOString()}` : ""}\n`
        : "it signed no change on record\n",
    );
    return 0;
  },
};

const undo: Verb = {
  name: "operator undo",
  summary: "undo what revoked operator keys signed alone: shows the plan, then applies it in one step",
  usage: `edgeadmit operator undo KEY... ${TARGET_USAGE} [--since TIME] [--yes]

For revoked keys (edgeadmit operator revoke first), plans the undo of every
change they signed alone since --since: registrations back to what they
were (clusters they registered removed, keys and tokens they added gone,
stances they loosened restored), the fleet back to the newest revision a
trusted key signed, the operator keys they added revoked. A registration a
trusted key changed since is kept, and said. Prints the plan, asks (or
--yes), and applies it as one change, signed by your key alone.
${SINCE_HELP}
${TARGET_HELP}

Example:
  edgeadmit operator undo ed25519:AAAA… --since 7d --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...YES_FLAG, since: { type: "string" } }, 16);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const revoked: string[] = [];
    for (let index = 0; index < Math.max(1, args.positionals.length); index++) revoked.push(await keyArg(this.name, args, io, index));
    const sinceText = optionalString(args, "since");
    const since = sinceText === undefined ? 0 : timeFlag("since", sinceText, Date.now());
    const target = await targetOf(this.name, args, io);
    const plan = await undoOperatorKeys(target.endpoint, target.privateKeyPem, revoked, since, true);
    for (const step of plan.steps) io.out(`${step}\n`);
    if (plan.steps.length === 0) {
      io.err("nothing to undo: the revoked keys signed no change alone\n");
      return 0;
    }
    if (!(await confirmed(this.name, args, io, `apply these ${plural(plan.steps.length, "step")}`))) {
      io.err("nothing applied\n");
      return 1;
    }
    const done = await undoOperatorKeys(target.endpoint, target.privateKeyPem, revoked, since, false);
    io.out(`applied the undo (change ${done.change}): ${plural(done.steps.length, "step")}\n`);
    return 0;
  },
};

export const operatorVerbs: readonly Verb[] = [operatorKeygen, keys, add, revoke, undo];
