// `edgeadmit`: dispatches to a verb and turns every failure into one line on
// stderr and a non-zero exit (EDGEADMIT_DEBUG=1 adds the stack).
import { CliError, EXIT_FAILURE, EXIT_USAGE, firstLine, uncaughtFsError, uncaughtFsExit } from "../base/errors.js";
import { processIo, type CliIo } from "../base/io.js";
import { releaseCommit, releaseLine } from "../base/release.js";
import { identifyAs } from "../client/index.js";
import { audit } from "./audit.js";
import { check } from "./check.js";
import { clustersVerbs } from "./clusters.js";
import { configVerbs } from "./config.js";
import { contextVerbs } from "./context.js";
import { completionVerb } from "./completion.js";
import { install } from "./install.js";
import { keyPublic } from "./key.js";
import { keygen } from "./keygen.js";
import { operatorVerbs } from "./operator.js";
import { fleetVerbs } from "./fleet.js";
import { dashboard } from "./dashboard.js";
import { metricsVerbs } from "./metrics.js";
import { governanceVerbs } from "./governance.js";
import { review } from "./review.js";
import { snapshotVerbs } from "./snapshot.js";
import { testVerb } from "./test-verb.js";
import { sync } from "./sync.js";
import { token } from "./token.js";
import type { Verb } from "./verb.js";
import { webhookConfig } from "./webhook-config.js";

const VERBS: readonly Verb[] = [keygen, keyPublic, token, ...clustersVerbs, ...operatorVerbs, ...contextVerbs, ...governanceVerbs, ...fleetVerbs, dashboard, ...metricsVerbs, ...snapshotVerbs, sync, audit, review, check, testVerb, webhookConfig, install, ...configVerbs, completionVerb(() => VERBS)];

function help(): string {
  const width = Math.max(...VERBS.map((v) => v.name.length));
  const examples = VERBS.map((v) => v.usage.split("\n").find((line) => line.startsWith("  edgeadmit ")))
    .filter((line): line is string => line !== undefined)
    .join("\n");
  return `edgeadmit: Kubernetes validating admission at the edge: the cluster side

Usage: edgeadmit <verb> [flags]      (edgeadmit <verb> --help for its flags; --version)

${VERBS.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`).join("\n")}

Examples:
${examples}

Docs: docs/operations.md
`;
}

/** The verb `argv` names (one or two words) and the arguments after it. */
function verbOf(argv: readonly string[]): { verb: Verb; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const verb = VERBS.find((v) => v.name === name);
    if (verb) return { verb, rest: argv.slice(words) };
  }
  return undefined;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const first = argv[0];
  // Asked for, the help is the output (stdout, 0); without a verb it is the error (stderr, 2), as kubectl does.
  if (first === undefined) {
    io.err(help());
    return EXIT_USAGE;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    io.out(help());
    return 0;
  }
  if (first === "--version" || first === "-V") {
    io.out(`${releaseLine()}\n`);
    return 0;
  }
  const found = verbOf(argv);
  if (!found) {
    const group = VERBS.filter((v) => v.name.startsWith(`${first} `)).map((v) => v.name);
    if (group.length > 0 && (argv[1] === "--help" || argv[1] === "-h")) {
      io.out(`${VERBS.filter((v) => group.includes(v.name)).map((v) => v.usage).join("\n\n")}\n`);
      return 0;
    }
    io.err(
      group.length > 0 && (argv.length === 1 || argv[1]!.startsWith("-"))
        ? `edgeadmit ${first}: say which: ${group.join(", ")}\n`
        : `edgeadmit: unknown verb "${argv.slice(0, group.length > 0 ? 2 : 1).join(" ")}" (edgeadmit --help lists them)\n`,
    );
    return EXIT_USAGE;
  }
  const prefix = `edgeadmit ${found.verb.name}: `;
  identifyAs(found.verb.name, releaseCommit());
  try {
    return await found.verb.run(found.rest, io);
  } catch (e) {
    if (process.env.EDGEADMIT_DEBUG && e instanceof Error && e.stack) io.err(`${e.stack}\n`);
    if (e instanceof CliError) {
      io.err(`${prefix}${e.message}\n`);
      return e.exitCode;
    }
    // The function's refusal (FunctionError), an fs error nobody caught, or
    // anything else not foreseen: still one line, with what the error says.
    const fsMessage = uncaughtFsError(e);
    io.err(`${prefix}${fsMessage ?? firstLine(e instanceof Error ? e.message : String(e))}\n`);
    return fsMessage !== undefined ? uncaughtFsExit(e) : EXIT_FAILURE;
  }
}
