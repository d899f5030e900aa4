// Section 8: `edgeadmit check` over 10,000 objects in one run, in process
// through the verb itself (read YAML → snapshot of the input → judge every
// object → render), and what judging costs per object beside the function's
// own per-review figure from section 1; then 45,000 objects as a user runs
// them: the CLI in a child process, its peak resident memory, and its
// throughput past the YAML parser.
import { existsSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { stringify } from "yaml";
import { main } from "../infra/cli/main.js";
import { checkObjects } from "../infra/cli/check/judge.js";
import { runCheck } from "../infra/cli/check/run.js";
import { documentsOf, fileChunks, readObjects, sourceOf } from "../infra/objects/yaml.js";
import { buildSnapshot } from "../shared/snapshot/builder/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { CLI, TIME, timed } from "./cli.js";
import { clusterObjects } from "./cluster.js";
import { figure, type Section } from "./figures.js";
import { exact, nowMs, spread } from "./stats.js";

const RUNS = 3;
const CHECK_OBJECTS = 10_000;
/** The scale: 45,000 objects in one file (applications, their Deployments, PVCs and PVs, classes and tenants), about 72 MB of YAML. */
const LARGE_CHECK_OBJECTS = 44_994;
const LARGE_SHAPE = { applications: 14_099, affinityClasses: 450, tenants: 2_245 };
const LARGE_RUNS = 2;
/** As section 5's input: classes, tenants, the settings, HelmReleases with their Deployments, RWO PVCs and PVs: 10,000 objects. */
const SHAPE = { applications: 3_133, affinityClasses: 100, tenants: 499 };

/** The verb's stdout and stderr, kept only to count and to check the run judged everything. */
function capturingIo() {
  const captured = { stdout: "", stderr: "" };
  const io = { out: (text: string) => void (captured.stdout += text), err: (text: string) => void (captured.stderr += text), readStdin: async () => "" };
  return { captured, io };
}

/** `inProcessReviewUs`: section 1's median for its 3 KB pod, the function's cost of one review. */
export async function checkScale(dir: string, inProcessReviewUs: number): Promise<Section> {
  const section: Section = { id: "check", title: "8. CLI: check over 10,000 objects in process, and 45,000 as a user runs it", figures: [], commands: [], notes: [] };
  const objects = clusterObjects(SHAPE, { workloads: true });
  if (objects.length !== CHECK_OBJECTS) throw new Error(`generated ${objects.length} objects, expected ${CHECK_OBJECTS}`);
  const input = join(dir, "objects.yaml");
  writeFileSync(input, objects.map((o) => stringify(o)).join("---\n"));
  const argv = ["check", "-f", input, "-o", "json"];

  const wholeMs: number[] = [];
  const readMs: number[] = [];
  const judgeMs: number[] = [];
  const judgeAsWrittenMs: number[] = [];
  let findings = 0;
  for (let i = 0; i < RUNS; i++) {
    const { captured, io } = capturingIo();
    const start = nowMs();
    const code = await main(argv, io);
    wholeMs.push(nowMs() - start);
    if (code > 1) throw new Error(`edgeadmit check exited ${code}: ${captured.stderr.slice(0, 300)}`);
    const report = JSON.parse(captured.stdout) as { summary: { objects: number; Deny: number; Warn: number; Audit: number } };
    // The settings ConfigMap configures the check; it is not judged.
    if (report.summary.objects !== CHECK_OBJECTS - 1) throw new Error(`edgeadmit check judged ${report.summary.objects} objects, expected ${CHECK_OBJECTS - 1}`);
    findings = report.summary.Deny + report.summary.Warn + report.summary.Audit;

    // Reading and judging alone, on the same objects and snapshot the verb builds.
    const readStart = nowMs();
    const read = await readObjects([input], io);
    readMs.push(nowMs() - readStart);
    const { snapshot } = buildSnapshot(read, { generation: 1, builtAt: new Date().toISOString() });
    // Judging as the apiserver would hand each object on (the default), then as written, interleaved: what the defaults add.
    for (const [defaults, times] of [[true, judgeMs], [false, judgeAsWrittenMs]] as const) {
      const judgeStart = nowMs();
      checkObjects(read, snapshot, sourceOf, { defaults });
      times.push(nowMs() - judgeStart);
    }
  }
  const perObjectUs = wholeMs.map((ms) => (ms * 1000) / CHECK_OBJECTS);
  const judgedPerObjectUs = judgeMs.map((ms) => (ms * 1000) / CHECK_OBJECTS);
  section.figures.push(
    figure(`check -f (${CHECK_OBJECTS.toLocaleString("en")} objects, -o json): whole run`, "s", spread(wholeMs.map((ms) => ms / 1000))),
    figure("whole run per object", "µs", spread(perObjectUs)),
    figure("of which reading the YAML (readObjects) per object", "µs", spread(readMs.map((ms) => (ms * 1000) / CHECK_OBJECTS))),
    figure("of which judging (shared/judge, every policy) per object", "µs", spread(judgedPerObjectUs)),
    figure("judging per object with --no-defaults (as written), interleaved", "µs", spread(judgeAsWrittenMs.map((ms) => (ms * 1000) / CHECK_OBJECTS))),
    figure("judging with the apiserver's defaults and admission / as written", "×", spread(judgeMs.map((ms, i) => ms / judgeAsWrittenMs[i]!))),
    figure("the function's per review (section 1, 3 KB pod, median)", "µs", exact(inProcessReviewUs)),
    figure("judging per object / the function's per review", "×", spread(judgedPerObjectUs.map((us) => us / inProcessReviewUs))),
  );
  section.commands.push(`edgeadmit ${argv.slice(0, 2).join(" ")} ${relative(PROJECT_ROOT, input)} -o json   # in process via main(), ${RUNS} runs`);
  await largeCheck(dir, section);
  section.notes.push(
    `Input: the ${CHECK_OBJECTS.toLocaleString("en")} objects of section 5 (${SHAPE.applications.toLocaleString("en")} Deployments among them) in one YAML file; the cluster facts are the input itself. Each run found ${findings.toLocaleString("en")} results.`,
    "The whole run includes reading and parsing the YAML, building the snapshot and rendering JSON; reading and judging are timed apart on the same objects. Section 5 shows the YAML library slowing down on many documents in one file.",
  );
  return section;
}

/**
 * 45,000 objects: the CLI as a user runs it (child process: wall clock, peak
 * RSS, -o text and -o json), and in process the YAML parse alone beside the
 * whole check, interleaved, so the throughput past the parser is the
 * difference measured side by side.
 */
async function largeCheck(dir: string, section: Section): Promise<void> {
  const objects = clusterObjects(LARGE_SHAPE, { workloads: true });
  if (objects.length !== LARGE_CHECK_OBJECTS) throw new Error(`generated ${objects.length} objects, expected ${LARGE_CHECK_OBJECTS}`);
  const input = join(dir, "objects-45k.yaml");
  writeFileSync(input, objects.map((o) => stringify(o)).join("---\n"));
  objects.length = 0;
  const judged = LARGE_CHECK_OBJECTS - 1; // the settings ConfigMap configures, it is not judged

  const parseMs: number[] = [];
  const wholeMs: number[] = [];
  const asWrittenMs: number[] = [];
  for (let i = 0; i < LARGE_RUNS; i++) {
    let start = nowMs();
    let documents = 0;
    for (const entry of documentsOf(fileChunks(input), input)) if (entry.object) documents++;
    parseMs.push(nowMs() - start);
    if (documents !== LARGE_CHECK_OBJECTS) throw new Error(`parsed ${documents} documents, expected ${LARGE_CHECK_OBJECTS}`);
    // With the apiserver's defaults and admission (the default), then as written (--no-defaults), interleaved: the same tree, side by side.
    for (const [defaults, times] of [[true, wholeMs], [false, asWrittenMs]] as const) {
      const { io } = capturingIo();
      start = nowMs();
      const report = await runCheck({ files: [input], policies: [], scope: "auto", strict: false, settingsNamespace: "cozy-system", defaults }, io);
      times.push(nowMs() - start);
      if (report.objects.length !== judged) throw new Error(`check judged ${report.objects.length} objects, expected ${judged}`);
    }
  }
  const afterParse = wholeMs.map((ms, i) => judged / (Math.max(ms - parseMs[i]!, 1) / 1000));
  const afterParseAsWritten = asWrittenMs.map((ms, i) => judged / (Math.max(ms - parseMs[i]!, 1) / 1000));

  const measured = { text: [] as Array<{ seconds: number; maxRssMb: number }>, json: [] as Array<{ seconds: number; maxRssMb: number }>, asWritten: [] as Array<{ seconds: number; maxRssMb: number }> };
  const canTime = existsSync(TIME);
  if (canTime) {
    for (let i = 0; i < LARGE_RUNS; i++) {
      measured.text.push(await timed([CLI, "check", "-f", input, "--settings-namespace", "cozy-system"]));
      measured.json.push(await timed([CLI, "check", "-f", input, "--settings-namespace", "cozy-system", "-o", "json"]));
      measured.asWritten.push(await timed([CLI, "check", "-f", input, "--settings-namespace", "cozy-system", "--no-defaults"]));
    }
  }
  section.figures.push(
    figure(`check of ${LARGE_CHECK_OBJECTS.toLocaleString("en")} objects in process: whole run (read, facts, judge)`, "s", spread(wholeMs.map((ms) => ms / 1000))),
    figure("of which parsing the YAML alone (documentsOf, same file, interleaved)", "s", spread(parseMs.map((ms) => ms / 1000))),
    figure("objects judged per second past the YAML parse", "objects/s", spread(afterParse), { op: ">=", value: 10_000 }),
    figure("the same tree with --no-defaults (judged as written), interleaved: whole run", "s", spread(asWrittenMs.map((ms) => ms / 1000))),
    figure("its objects judged per second past the YAML parse", "objects/s", spread(afterParseAsWritten)),
    figure("whole run with the apiserver's defaults and admission / as written", "×", spread(wholeMs.map((ms, i) => ms / asWrittenMs[i]!)), { op: "<=", value: 1.2 }),
  );
  if (canTime) {
    section.figures.push(
      figure(`edgeadmit check -f (${LARGE_CHECK_OBJECTS.toLocaleString("en")} objects, child process, -o text): wall clock`, "s", spread(measured.text.map((m) => m.seconds))),
      figure("its peak resident memory", "MB", spread(measured.text.map((m) => m.maxRssMb)), { op: "<=", value: 256 }),
      figure("the same with -o json: wall clock", "s", spread(measured.json.map((m) => m.seconds))),
      figure("its peak resident memory", "MB", spread(measured.json.map((m) => m.maxRssMb)), { op: "<=", value: 256 }),
      figure("the same with --no-defaults (-o text): wall clock", "s", spread(measured.asWritten.map((m) => m.seconds))),
      figure("its peak resident memory", "MB", spread(measured.asWritten.map((m) => m.maxRssMb))),
    );
    section.commands.push(`/usr/bin/time -v node ${CLI} check -f ${relative(PROJECT_ROOT, input)} --settings-namespace cozy-system [-o json | --no-defaults]   # child process, ${LARGE_RUNS} runs each`);
  } else section.notes.push(`Peak memory not measured: ${TIME} is missing.`);
  section.notes.push(
    `Then ${LARGE_CHECK_OBJECTS.toLocaleString("en")} objects in one 72 MB file (${LARGE_SHAPE.applications.toLocaleString("en")} applications with their Deployments, PVCs and PVs): the check reads it once, a document at a time, keeping each resource as deflated JSON until every scope's facts are in, then judges them in order; peak RSS is the whole process (Node, the CLI's code, the facts, the verdicts).`,
  );
}
