// `edgeadmit test`: declarative suites (as `kyverno test` and `gator verify`)
// that pin what check says about given manifests in given clusters, so a
// policy change that moves a verdict fails CI with the difference spelled out.
import { dirname, resolve } from "node:path";
import * as z from "zod/mini";
import { describeResult } from "../../shared/review/index.js";
import { POLICY_MODES } from "../../shared/policy/index.js";
import { POLICIES } from "../../policies/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { describeZodError } from "../../shared/zod/index.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { filesUnder, objectsFromText, readObjects, sourceOf, where } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs } from "./args.js";
import { cannotRun } from "./check/exit.js";
import { warnPolicyProblems } from "./check/facts.js";
import { checkObjects } from "./check/judge.js";
import { CliError, EXIT_FAILURE, EXIT_USAGE } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import type { CheckedObject, CheckReport } from "./output/index.js";
import { yamlOf } from "./output-flag.js";
import { KUBERNETES_VERSION_FLAG, KUBERNETES_VERSION_HELP, kubernetesVersionFlag, snapshotOf } from "./snapshot.js";
import type { Verb } from "./verb.js";

const SUITE_FILE = "edgeadmit-test.yaml";
const RESULTS = ["pass", "deny", "warn", "audit"] as const;
type ExpectedResult = (typeof RESULTS)[number];

const nonEmpty = z.string().check(z.minLength(1));

const suiteSchema = z.strictObject({
  apiVersion: z.literal("edgeadmit.io/v1alpha1"),
  kind: z.literal("EdgeAdmissionTest"),
  metadata: z.looseObject({ name: nonEmpty }),
  /** For namespaced objects in the files that name none (as check -n). */
  namespace: z.optional(nonEmpty),
  /** The manifests judged, relative to the suite file; they are cluster facts too, as in check. */
  resources: z.array(nonEmpty).check(z.minLength(1)),
  /** More cluster facts: files (relative to the suite file) and objects written inline, as written. */
  cluster: z.optional(z.strictObject({ files: z.optional(z.array(nonEmpty)), objects: z.optional(z.array(z.looseObject({ apiVersion: z.string(), kind: z.string() }))) })),
  /** Per-policy modes, over whatever settings the cluster facts hold (as the edgeadmit-settings ConfigMap's policy.<id>). */
  policies: z.optional(z.record(nonEmpty, z.enum(POLICY_MODES))),
  expect: z
    .array(
      z.strictObject({
        /** Kind/name, or Kind/namespace/name. */
        object: z.string().check(z.regex(/^[^/]+\/([^/]+\/)?[^/]+$/, "must be Kind/name or Kind/namespace/name")),
        policy: nonEmpty,
        result: z.enum(RESULTS),
        /** A part of the message, as the webhook writes it. */
        message: z.optional(nonEmpty),
      }),
    )
    .check(z.minLength(1)),
});
type Suite = z.infer<typeof suiteSchema>;
type Expectation = Suite["expect"][number];

interface SuiteFile {
  file: string;
  suite: Suite;
}

/** Suite files under each path: a file as given, a directory's edgeadmit-test.yaml files, recursively, in name order. */
const suiteFiles = (path: string): string[] => filesUnder(path, (name) => name === SUITE_FILE);

/** Every suite in `file` (one per YAML document); a bad one is named by file:line and field. */
async function readSuites(file: string, io: CliIo): Promise<SuiteFile[]> {
  const documents = objectsFromText(await readInput(file, io, "suite"), file);
  return documents.map((document) => {
    const parsed = suiteSchema.safeParse(document);
    const at = sourceOf(document);
    if (!parsed.success) throw new CliError(`${at ? where(at) : file}: not an EdgeAdmissionTest: ${describeZodError(parsed.error)}`);
    return { file, suite: parsed.data };
  });
}

const refMatches = (checked: CheckedObject, object: string): boolean => {
  const { kind, namespace, name } = checked.ref;
  return object === `${kind}/${name}` || object === `${kind}/${namespace ?? ""}/${name}`;
};

/** Why one expectation does not hold, or undefined when it does. */
function differenceOf(expectation: Expectation, objects: readonly CheckedObject[], knownPolicies: readonly string[]): string | undefined {
  if (!knownPolicies.includes(expectation.policy)) return `no policy ${expectation.policy}: the built-in policies and the suite's bound ValidatingAdmissionPolicies are ${knownPolicies.join(", ")}`;
  const found = objects.filter((checked) => refMatches(checked, expectation.object));
  if (found.length === 0) return `no object ${expectation.object} among the resources`;
  if (found.length > 1) return `${found.length} objects are ${expectation.object}: name the namespace (Kind/namespace/name)`;
  const judged = found[0]!;
  if (judged.error !== undefined) return `the object cannot be read: ${judged.error}`;
  const results = judged.results.filter((result) => result.policy === expectation.policy);
  const got = results.length === 0 ? "pass" : results.map((result) => `${result.mode.toLowerCase()}: ${describeResult(result)}`).join("; ");
  if (expectation.result === "pass") return results.length === 0 ? undefined : `expected pass, got ${got}`;
  const inMode = results.filter((result) => result.mode.toLowerCase() === expectation.result);
  if (inMode.length === 0) return `expected ${expectation.result}, got ${got}`;
  const { message } = expectation;
  if (message !== undefined && !inMode.some((result) => describeResult(result).includes(message))) return `expected a message containing "${message}", got ${got}`;
  return undefined;
}

/** One expectation's outcome: `difference` says why it failed; none, it held. */
interface ExpectationOutcome {
  object: string;
  policy: string;
  result: ExpectedResult;
  difference?: string;
}

interface SuiteOutcome {
  file: string;
  name: string;
  expectations: ExpectationOutcome[];
}

const OUTPUTS = ["text", "json", "yaml", "junit"] as const;

const countOf = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
const failedIn = (outcome: SuiteOutcome) => outcome.expectations.filter((e) => e.difference !== undefined).length;

function renderText(outcomes: readonly SuiteOutcome[]): string {
  const lines: string[] = [];
  for (const outcome of outcomes) {
    lines.push(`${outcome.file}: ${outcome.name}`);
    for (const { object, policy, result, difference } of outcome.expectations)
      lines.push(difference === undefined ? `  PASS  ${object}  ${policy}  ${result}` : `  FAIL  ${object}  ${policy}  ${result}\n        ${difference}`);
  }
  const total = outcomes.reduce((sum, outcome) => sum + outcome.expectations.length, 0);
  const failed = outcomes.reduce((sum, outcome) => sum + failedIn(outcome), 0);
  return `${lines.join("\n")}\n\n${countOf(outcomes.length, "suite")}, ${countOf(total, "expectation")}: ${total - failed} passed, ${failed} failed\n`;
}

/** For scripts: every suite and expectation, `passed` and the difference; fields are only ever added. */
function testReport(outcomes: readonly SuiteOutcome[]) {
  const total = outcomes.reduce((sum, outcome) => sum + outcome.expectations.length, 0);
  const failed = outcomes.reduce((sum, outcome) => sum + failedIn(outcome), 0);
  return {
    apiVersion: "edgeadmit.io/v1alpha1",
    kind: "TestReport",
    summary: { suites: outcomes.length, expectations: total, passed: total - failed, failed },
    suites: outcomes.map((outcome) => ({
      file: outcome.file,
      name: outcome.name,
      expectations: outcome.expectations.map(({ difference, ...rest }) => ({ ...rest, passed: difference === undefined, ...(difference !== undefined ? { difference } : {}) })),
    })),
  };
}

const xml = (text: string) => text.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`);

/** JUnit XML, as CI systems (GitLab, Jenkins, GitHub test reporters) read it: a testsuite per suite, a testcase per expectation. */
function renderJunit(outcomes: readonly SuiteOutcome[]): string {
  const total = outcomes.reduce((sum, outcome) => sum + outcome.expectations.length, 0);
  const failed = outcomes.reduce((sum, outcome) => sum + failedIn(outcome), 0);
  const suites = outcomes.map((outcome) => {
    const cases = outcome.expectations.map(({ object, policy, result, difference }) => {
      const open = `    <testcase classname="${xml(outcome.file)}" name="${xml(`${object} ${policy} ${result}`)}"`;
      return difference === undefined ? `${open}/>` : `${open}>\n      <failure message="${xml(difference)}"/>\n    </testcase>`;
    });
    return `  <testsuite name="${xml(outcome.name)}" tests="${outcome.expectations.length}" failures="${failedIn(outcome)}">\n${cases.join("\n")}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="edgeadmit test" tests="${total}" failures="${failed}">\n${suites.join("\n")}\n</testsuites>\n`;
}

const RENDERERS = {
  text: renderText,
  json: (outcomes: readonly SuiteOutcome[]) => `${JSON.stringify(testReport(outcomes), null, 2)}\n`,
  yaml: (outcomes: readonly SuiteOutcome[]) => yamlOf(testReport(outcomes)),
  junit: renderJunit,
} as const;

/** The suite's resources, judged against its cluster facts as check judges them. */
async function checkSuite({ file, suite }: SuiteFile, io: CliIo, kubernetesVersion: string | undefined, defaults: boolean, warned: Set<string>) {
  const relative = (paths: readonly string[]) => paths.map((path) => resolve(dirname(file), path));
  let objects: KubeObject[];
  let facts: KubeObject[];
  try {
    objects = await readObjects(relative(suite.resources), io, { namespace: suite.namespace });
    facts = [...objects, ...(await readObjects(relative(suite.cluster?.files ?? []), io, { namespace: suite.namespace })), ...(suite.cluster?.objects ?? [])];
  } catch (e) {
    throw e instanceof CliError ? new CliError(`${file}: ${suite.metadata.name}: ${e.message}`) : e;
  }
  const snapshot = snapshotOf("test", facts, io, JOB_NAMESPACE, { reportIgnored: false, kubernetesVersion });
  warnPolicyProblems(snapshot, io, warned);
  snapshot.settings.policies = { ...snapshot.settings.policies, ...suite.policies };
  const knownPolicies = [...POLICIES.map((policy) => policy.id), ...Object.keys(snapshot.validatingAdmissionPolicies)];
  return { report: checkObjects(objects, snapshot, sourceOf, { cluster: facts, defaults }), knownPolicies };
}

function outcomeOf({ file, suite }: SuiteFile, { report, knownPolicies }: { report: CheckReport; knownPolicies: readonly string[] }): SuiteOutcome {
  return {
    file,
    name: suite.metadata.name,
    expectations: suite.expect.map((expectation) => {
      const difference = differenceOf(expectation, report.objects, knownPolicies);
      return { object: expectation.object, policy: expectation.policy, result: expectation.result, ...(difference !== undefined ? { difference } : {}) };
    }),
  };
}

export const testVerb: Verb = {
  name: "test",
  summary: "run declarative suites of expected verdicts (EdgeAdmissionTest)",
  usage: `edgeadmit test [--kubernetes-version V] [--no-defaults] PATH... [-o text|json|yaml|junit]

Runs every suite in PATH: a suite file, or a directory's ${SUITE_FILE}
files (recursively). A suite (kind EdgeAdmissionTest, one per YAML document)
names its resources (the manifests judged, which are cluster facts too),
optional further cluster facts (files, or objects written inline) and
per-policy modes, and the expected result per object and policy: pass, deny,
warn or audit, with an optional part of the message. Paths are relative to the
suite file. Each expectation prints PASS or FAIL with the difference.
-o json (or yaml) prints every suite and expectation with passed and the
difference; -o junit prints JUnit XML for CI test reports (a testcase per expectation).
Each resource is judged as check judges it: as the apiserver would hand it
to validation (API defaults, built-in mutating admission, with the suite's
cluster objects); --no-defaults judges it as written.
Exits 0 when every expectation holds, 1 when one does not, 2 when a suite
cannot be read. See docs/check.md.
${KUBERNETES_VERSION_HELP}

Examples:
  edgeadmit test test/suites
  edgeadmit test test/suites -o junit > edgeadmit-test.xml`,
  async run(argv, io) {
    const args = parseVerbArgs("test", argv, { ...KUBERNETES_VERSION_FLAG, output: { type: "string", short: "o" }, "no-defaults": { type: "boolean" } }, Number.MAX_SAFE_INTEGER);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    if (args.positionals.length === 0) throw new CliError("PATH is required (see edgeadmit test --help)", EXIT_USAGE);
    const kubernetesVersion = kubernetesVersionFlag(args);
    const output = choice("output", optionalString(args, "output"), OUTPUTS, "text");
    let files: string[];
    try {
      files = args.positionals.flatMap(suiteFiles);
    } catch (e) {
      throw cannotRun(e);
    }
    if (files.length === 0) throw new CliError(`no ${SUITE_FILE} in ${args.positionals.join(", ")}`, EXIT_USAGE);
    // Every suite is read and every resource judged before anything prints: a broken suite is exit 2 alone.
    const outcomes: SuiteOutcome[] = [];
    const warned = new Set<string>();
    try {
      for (const file of files) for (const one of await readSuites(file, io)) outcomes.push(outcomeOf(one, await checkSuite(one, io, kubernetesVersion, args.values["no-defaults"] !== true, warned)));
    } catch (e) {
      throw cannotRun(e);
    }
    io.out(RENDERERS[output](outcomes));
    return outcomes.some((outcome) => failedIn(outcome) > 0) ? EXIT_FAILURE : 0;
  },
};
