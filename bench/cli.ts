// Section 5: `edgeadmit snapshot build -f <dir>` over 10,000 objects of YAML,
// as an operator runs it from the repository: wall time and peak memory of the
// whole process, from /usr/bin/time -v.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { clusterObjects } from "./cluster.js";
import { figure, type Section } from "./figures.js";
import { nowMs, spread } from "./stats.js";

export const TIME = "/usr/bin/time";
export const CLI = "bin/edgeadmit.mjs";
const RUNS = 3;
const OBJECTS_PER_FILE = 100;
/** Files concatenated into one, to see whether the cost per object depends on how many documents a file holds. */
const ONE_FILE_PARTS = 20;
/** 100 classes, 499 tenants, the settings ConfigMap, 3,133 HelmReleases and Deployments, 1,567 PVCs and their PVs: 10,000 objects. */
const SHAPE = { applications: 3_133, affinityClasses: 100, tenants: 499 };
const CLI_OBJECTS = 10_000;

/** One file per hundred objects, multi-document YAML, as `kubectl get -o yaml` exports split up would give. */
function writeYaml(dir: string): number {
  const objects = clusterObjects(SHAPE, { workloads: true });
  if (objects.length !== CLI_OBJECTS) throw new Error(`generated ${objects.length} objects, expected ${CLI_OBJECTS}`);
  let bytes = 0;
  for (let f = 0; f * OBJECTS_PER_FILE < objects.length; f++) {
    const text = objects
      .slice(f * OBJECTS_PER_FILE, (f + 1) * OBJECTS_PER_FILE)
      .map((o) => stringify(o))
      .join("---\n");
    writeFileSync(join(dir, `objects-${String(f).padStart(3, "0")}.yaml`), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** The YAML library's share: parsing 1,000 of the objects (ten files) in this process, as the CLI reads them. */
function yamlParseMs(input: string): number[] {
  const files = readdirSync(input).sort().slice(0, 1_000 / OBJECTS_PER_FILE).map((f) => readFileSync(join(input, f), "utf8"));
  return Array.from({ length: RUNS }, () => {
    const start = nowMs();
    for (const text of files) for (const doc of parseAllDocuments(text)) doc.toJS();
    return nowMs() - start;
  });
}

interface Measured {
  seconds: number;
  /** CPU time, user and system: what the process itself spent, however busy the machine was. */
  cpuSeconds: number;
  maxRssMb: number;
}

/** `/usr/bin/time -v` of one command (with `env` added to this process's): wall clock, CPU time and the largest resident set of the process (and its children). */
export async function timed(args: string[], env: Record<string, string> = {}): Promise<Measured> {
  // Its stdout goes to /dev/null: the figures are the command's, and a report (check -o json of 45,000 objects) runs past any buffer worth keeping.
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(TIME, ["-v", process.execPath, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let text = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    child.on("error", reject).on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`${args.join(" ")} exited ${code}: ${text.slice(-300)}`))));
  });
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  if (!wall || !user || !system || !rss) throw new Error(`cannot read /usr/bin/time output: ${stderr.slice(-300)}`);
  return {
    seconds: Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]),
    cpuSeconds: Number(user[1]) + Number(system[1]),
    maxRssMb: (Number(rss[1]) * 1024) / 2 ** 20,
  };
}

export async function cliSnapshotBuild(dir: string): Promise<Section> {
  const section: Section = { id: "cli", title: "5. CLI: snapshot build over 10,000 objects", figures: [], commands: [], notes: [] };
  if (!existsSync(join(PROJECT_ROOT, CLI)) || !existsSync(TIME)) {
    section.notes.push(`Not measured: ${existsSync(TIME) ? CLI : TIME} is missing.`);
    return section;
  }
  const input = join(dir, "objects");
  mkdirSync(input);
  const bytes = writeYaml(input);
  const output = join(dir, "snapshot.json");
  const build = [CLI, "snapshot", "build", "-f", input, "-o", output];
  const help = [CLI, "snapshot", "build", "--help"];

  // The first 2,000 objects twice: as 20 files and as one file of 2,000 documents (as `helm template` or a concatenated export gives).
  const parts = readdirSync(input).sort().slice(0, ONE_FILE_PARTS);
  const split = join(dir, "split");
  mkdirSync(split);
  const texts = parts.map((f) => readFileSync(join(input, f), "utf8"));
  texts.forEach((text, i) => writeFileSync(join(split, parts[i]!), text));
  const oneFile = join(dir, "one-file.yaml");
  writeFileSync(oneFile, texts.join("---\n"));
  const partial = (path: string) => [CLI, "snapshot", "build", "-f", path, "-o", join(dir, "partial.json")];

  const builds: Measured[] = [];
  const starts: Measured[] = [];
  const splits: Measured[] = [];
  const singles: Measured[] = [];
  for (let i = 0; i < RUNS; i++) {
    starts.push(await timed(help));
    builds.push(await timed(build));
    splits.push(await timed(partial(split)));
    singles.push(await timed(partial(oneFile)));
  }
  const snapshot = JSON.parse(readFileSync(output, "utf8")) as { applications: object; volumeClaims: Record<string, { mountedBy?: unknown[] }> };
  const applications = Object.keys(snapshot.applications).length;
  if (applications !== SHAPE.applications) throw new Error(`edgeadmit snapshot build produced ${applications} applications, expected ${SHAPE.applications}`);
  const mounted = Object.values(snapshot.volumeClaims).filter((c) => c.mountedBy).length;

  section.figures.push(
    figure("snapshot build: wall time", "s", spread(builds.map((m) => m.seconds))),
    figure("snapshot build: peak memory (max RSS)", "MB", spread(builds.map((m) => m.maxRssMb))),
    figure("of which CLI start-up (--help: tsrun bundling + load)", "s", spread(starts.map((m) => m.seconds))),
    figure("CLI start-up peak memory", "MB", spread(starts.map((m) => m.maxRssMb))),
    figure("YAML parsing per 1,000 objects (yaml parseAllDocuments + toJS, in process)", "s", spread(yamlParseMs(input).map((ms) => ms / 1000))),
    figure(`${(ONE_FILE_PARTS * OBJECTS_PER_FILE).toLocaleString("en")} objects in ${ONE_FILE_PARTS} files: wall time`, "s", spread(splits.map((m) => m.seconds))),
    figure(`the same ${(ONE_FILE_PARTS * OBJECTS_PER_FILE).toLocaleString("en")} objects in one file: wall time`, "s", spread(singles.map((m) => m.seconds))),
  );
  const rel = (p: string) => relative(PROJECT_ROOT, p);
  section.commands.push(
    `/usr/bin/time -v node ${CLI} snapshot build -f ${rel(input)} -o ${rel(output)}   # ${RUNS} runs`,
    `/usr/bin/time -v node ${CLI} snapshot build --help   # ${RUNS} runs, start-up alone`,
    `/usr/bin/time -v node ${CLI} snapshot build -f ${rel(split)} -o ${rel(join(dir, "partial.json"))}   # ${RUNS} runs`,
    `/usr/bin/time -v node ${CLI} snapshot build -f ${rel(oneFile)} -o ${rel(join(dir, "partial.json"))}   # ${RUNS} runs`,
  );
  section.notes.push(
    `Input: ${CLI_OBJECTS.toLocaleString("en")} objects (${SHAPE.affinityClasses} AffinityClasses, ${SHAPE.tenants} Tenants, 1 settings ConfigMap, ${SHAPE.applications.toLocaleString("en")} HelmReleases and Deployments, ${Math.ceil(SHAPE.applications / 2).toLocaleString("en")} RWO PVCs with their PVs) in ${Math.ceil(CLI_OBJECTS / OBJECTS_PER_FILE)} YAML files, ${(bytes / 2 ** 20).toFixed(1)} MB. Output checked: ${applications.toLocaleString("en")} applications, ${mounted.toLocaleString("en")} claims with mountedBy.`,
    "bin/edgeadmit.mjs bundles the TypeScript CLI with esbuild on every start (scripts/tsrun.mjs); the --help row shows that fixed part. MB = 2^20 bytes.",
  );
  const slowdown = spread(singles.map((m) => m.seconds)).median / spread(splits.map((m) => m.seconds)).median;
  section.notes.push(
    `Documents per file: the same ${(ONE_FILE_PARTS * OBJECTS_PER_FILE).toLocaleString("en")} objects take ${slowdown.toFixed(1)}× as long from one file as from ${ONE_FILE_PARTS} files.`,
  );
  return section;
}
