// Section 7: `edgeadmit check` over 10,000 objects in one run, in process
// through the verb itself (read YAML → snapshot of the input → judge every
// object → render), and what judging costs per object beside the function's
// own per-review figure from section 1.
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { stringify } from "yaml";
import { main } from "../infra/cli/main.js";
import { checkObjects } from "../infra/cli/check.js";
import { readObjects, sourceOf } from "../infra/objects/yaml.js";
import { buildSnapshot } from "../shared/snapshot/build/index.js";
import { PROJECT_ROOT } from "../scripts/local-worker.js";
import { clusterObjects } from "./cluster.js";
import { figure, type Section } from "./figures.js";
import { exact, nowMs, spread } from "./stats.js";

const RUNS = 3;
export const CHECK_OBJECTS = 10_000;
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
  const section: Section = { id: "check", title: "8. CLI: check over 10,000 objects, in process", figures: [], commands: [], notes: [] };
  const objects = clusterObjects(SHAPE, { workloads: true });
  if (objects.length !== CHECK_OBJECTS) throw new Error(`generated ${objects.length} objects, expected ${CHECK_OBJECTS}`);
  const input = join(dir, "objects.yaml");
  writeFileSync(input, objects.map((o) => stringify(o)).join("---\n"));
  const argv = ["check", "-f", input, "-o", "json"];

  const wholeMs: number[] = [];
  const readMs: number[] = [];
  const judgeMs: number[] = [];
  let findings = 0;
  for (let i = 0; i < RUNS; i++) {
    const { captured, io } = capturingIo();
    const start = nowMs();
    const code = await main(argv, io);
    wholeMs.push(nowMs() - start);
    if (code > 1) throw new Error(`edgeadmit check exited ${code}: ${captured.stderr.slice(0, 300)}`);
    const report = JSON.parse(captured.stdout) as { summary: { objects: number; Deny: number; Warn: number; Audit: number } };
    if (report.summary.objects !== CHECK_OBJECTS) throw new Error(`edgeadmit check judged ${report.summary.objects} objects, expected ${CHECK_OBJECTS}`);
    findings = report.summary.Deny + report.summary.Warn + report.summary.Audit;

    // Reading and judging alone, on the same objects and snapshot the verb builds.
    const readStart = nowMs();
    const read = await readObjects([input], io);
    readMs.push(nowMs() - readStart);
    const { snapshot } = buildSnapshot(read, { generation: 1, builtAt: new Date().toISOString() });
    const judgeStart = nowMs();
    checkObjects(read, snapshot, sourceOf);
    judgeMs.push(nowMs() - judgeStart);
  }
  const perObjectUs = wholeMs.map((ms) => (ms * 1000) / CHECK_OBJECTS);
  const judgedPerObjectUs = judgeMs.map((ms) => (ms * 1000) / CHECK_OBJECTS);
  section.figures.push(
    figure(`check -f (${CHECK_OBJECTS.toLocaleString("en")} objects, -o json): whole run`, "s", spread(wholeMs.map((ms) => ms / 1000))),
    figure("whole run per object", "µs", spread(perObjectUs)),
    figure("of which reading the YAML (readObjects) per object", "µs", spread(readMs.map((ms) => (ms * 1000) / CHECK_OBJECTS))),
    figure("of which judging (shared/judge, every policy) per object", "µs", spread(judgedPerObjectUs)),
    figure("the function's per review (section 1, 3 KB pod, median)", "µs", exact(inProcessReviewUs)),
    figure("judging per object / the function's per review", "×", spread(judgedPerObjectUs.map((us) => us / inProcessReviewUs))),
  );
  section.commands.push(`edgeadmit ${argv.slice(0, 2).join(" ")} ${relative(PROJECT_ROOT, input)} -o json   # in process via main(), ${RUNS} runs`);
  section.notes.push(
    `Input: the ${CHECK_OBJECTS.toLocaleString("en")} objects of section 5 (${SHAPE.applications.toLocaleString("en")} Deployments among them) in one YAML file; the cluster facts are the input itself. Each run found ${findings.toLocaleString("en")} results.`,
    "The whole run includes reading and parsing the YAML, building the snapshot and rendering JSON; reading and judging are timed apart on the same objects. Section 5 shows the YAML library slowing down on many documents in one file.",
  );
  return section;
}
