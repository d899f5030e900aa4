// `edgeadmit metrics issue|revoke|tokens`: the read-only tokens a Prometheus
// presents to GET /v1/registry/metrics (docs/dashboard.md, "Metrics").
// A token is made here (256 random bits), written where git ignores it, and
// only its SHA-256 is sent; issuing one widens who may read the fleet's
// counts, so it needs the deployment's threshold of operator keys (a
// proposal otherwise); revoking takes one key and stops it at once.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { issueMetricsToken, listMetricsTokens, revokeMetricsToken } from "../client/metrics.js";
import { parseVerbArgs, requiredString } from "./args.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf } from "./operator-flags.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import { applied } from "./proposed.js";
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, ALLOW_UNIGNORED_HELP, refuseUnignoredSecrets } from "./secrets.js";
import type { Verb } from "./verb.js";

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function nameArg(verb: string, name: string | undefined): string {
  if (name === undefined) throw new CliError(`say which token: edgeadmit ${verb} NAME (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  if (!NAME.test(name)) throw new CliError(`NAME must be lowercase letters, digits and '-', at most 63, not "${name.slice(0, 40)}"`, EXIT_USAGE);
  return name;
}

const issue: Verb = {
  name: "metrics issue",
  summary: "issue a read-only token for GET /v1/registry/metrics (Prometheus), kept by the function as its hash",
  usage: `edgeadmit metrics issue NAME --out DIR ${TARGET_USAGE} [--${ALLOW_UNIGNORED}]

Makes a token (256 random bits) into DIR/NAME.token (mode 0600), sends the
function its SHA-256 only, and prints how Prometheus presents it. It reads
GET /v1/registry/metrics and nothing else. Issuing one widens who may read
the fleet's counts: with OPERATOR_THRESHOLD above 1 it is a proposal until
other keys approve it (edgeadmit approve). At most 16 tokens at once.
${TARGET_HELP}

${ALLOW_UNIGNORED_HELP}

Example:
  edgeadmit metrics issue prometheus --out ./keys/metrics --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, out: { type: "string" }, ...ALLOW_UNIGNORED_FLAG }, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const name = nameArg(this.name, args.positionals[0]);
    const dir = requiredString(this.name, args, "out");
    const file = join(dir, `${name}.token`);
    refuseUnignoredSecrets([file], args.values[ALLOW_UNIGNORED] === true, "a metrics token");
    if (existsSync(file)) throw new CliError(`${file} exists: a token is issued once; revoke it (edgeadmit metrics revoke ${name}) or choose another NAME`);
    const target = await targetOf(this.name, args, io);
    const token = generateToken();
    // Written before it is sent: an issued token whose only copy was lost would be a token nobody holds.
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
    } catch (e) {
      throw fileError("write", file, e);
    }
    let outcome;
    try {
      outcome = await issueMetricsToken(target.endpoint, target.privateKeyPem, name, await tokenHash(token));
    } catch (e) {
      // Refused or not sent: the file holds a token nobody accepts, and would block issuing it again.
      rmSync(file, { force: true });
      throw e;
    }
    const answer = applied(outcome, io);
    io.err(`wrote ${file} (mode 0600)\n`);
    if (!answer) return 0;
    io.out(`issued metrics token ${name} (change ${answer.change}): Prometheus presents it as a bearer token (authorization: credentials_file: ${file})\n`);
    return 0;
  },
};

const revoke: Verb = {
  name: "metrics revoke",
  summary: "revoke a metrics token: refused from the next scrape on",
  usage: `edgeadmit metrics revoke NAME ${TARGET_USAGE}

Revokes the metrics token NAME (edgeadmit metrics tokens lists them): every
isolate refuses it from its next scrape. One operator key suffices.
${TARGET_HELP}

Example:
  edgeadmit metrics revoke prometheus --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, TARGET_FLAGS, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const name = nameArg(this.name, args.positionals[0]);
    const target = await targetOf(this.name, args, io);
    const answer = applied(await revokeMetricsToken(target.endpoint, target.privateKeyPem, name), io);
    if (answer) io.out(`revoked metrics token ${name} (change ${answer.change})\n`);
    return 0;
  },
};

const tokens: Verb = {
  name: "metrics tokens",
  summary: "list the metrics tokens issued: names and when",
  usage: `edgeadmit metrics tokens ${TARGET_USAGE} [-o text|json|yaml]

Lists the metrics tokens the function accepts: each name, when it was
issued and the change that issued it (edgeadmit changes shows who signed it).
${TARGET_HELP}

Example:
  edgeadmit metrics tokens --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, ...OUTPUT_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const output = outputOf(args);
    const target = await targetOf(this.name, args, io);
    const answer = await listMetricsTokens(target.endpoint, target.privateKeyPem);
    if (output !== "text") printData(io, output, answer);
    else for (const entry of answer.tokens) io.out(`${entry.name} issued ${entry.issuedAt} (change ${entry.change})\n`);
    if (output === "text" && answer.tokens.length === 0) io.err("no metrics token is issued\n");
    return 0;
  },
};

export const metricsVerbs: readonly Verb[] = [issue, revoke, tokens];
