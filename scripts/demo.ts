// The demo `npm start` serves: the function in workerd with the cluster "demo"
// registered, its snapshot (examples/demo/cluster.yaml) signed and pushed, and
// an operator key the registry accepts. The executable-docs test
// (test/node/docs.test.ts) starts the same demo, so the docs' commands run
// against exactly what `npm start` serves.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { loadClusters, type Registration } from "../shared/clusters/index.js";
import { generateKeyPair, publicKeyOf } from "../shared/signing/index.js";
import { buildSnapshot, type KubeObject } from "../shared/snapshot/builder/index.js";
import { generateToken, tokenHash } from "../shared/tokens/index.js";
import { pushSnapshot, type StoredSnapshot } from "../infra/client/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { startLocalWorker, type LocalWorker } from "./local-worker.js";

/** A variable's value in .dev.vars (git-ignored), if it sets it. */
function devVar(name: string): string | undefined {
  const devVars = join(PROJECT_ROOT, ".dev.vars");
  if (!existsSync(devVars)) return undefined;
  const line = readFileSync(devVars, "utf8").split("\n").find((l) => l.startsWith(`${name}=`));
  return line?.slice(name.length + 1).trim().replace(/^'(.*)'$/, "$1");
}

/** Clusters registered locally without editing tracked files: EDGEADMIT_CLUSTERS, or CLUSTERS in .dev.vars. */
function localClusters(): Record<string, Registration> {
  const source = process.env.EDGEADMIT_CLUSTERS || devVar("CLUSTERS");
  if (!source) return {};
  try {
    return JSON.parse(source) as Record<string, Registration>;
  } catch (e) {
    throw new Error(`local cluster registrations are not JSON (${(e as Error).message}): ${source}`);
  }
}

export interface DemoFiles {
  /** The directory holding the files below and the registry's state (.edgeadmit/ for npm start). */
  stateDir: string;
  demoKey: string;
  demoToken: string;
  operatorKey: string;
}

export function demoFiles(stateDir: string): DemoFiles {
  return { stateDir, demoKey: join(stateDir, "demo.key"), demoToken: join(stateDir, "demo.token"), operatorKey: join(stateDir, "operator.key") };
}

/**
 * The demo cluster's signing key and apiserver token, and the operator's key,
 * made once into the state directory (git-ignored) and kept across starts, as
 * the registry in its state/ is.
 */
async function demoCredentials(files: DemoFiles): Promise<{ pem: string; publicKey: string; token: string; operatorPublicKey: string }> {
  mkdirSync(files.stateDir, { recursive: true });
  for (const file of [files.demoKey, files.operatorKey]) if (!existsSync(file)) writeFileSync(file, (await generateKeyPair()).privateKeyPem, { mode: 0o600 });
  if (!existsSync(files.demoToken)) writeFileSync(files.demoToken, `${generateToken()}\n`, { mode: 0o600 });
  const pem = readFileSync(files.demoKey, "utf8");
  return { pem, publicKey: await publicKeyOf(pem), token: readFileSync(files.demoToken, "utf8").trim(), operatorPublicKey: await publicKeyOf(readFileSync(files.operatorKey, "utf8")) };
}

export interface Demo {
  worker: LocalWorker;
  clusters: string[];
  files: DemoFiles;
  stored: StoredSnapshot;
}

export interface DemoOptions {
  files: DemoFiles;
  port: number;
  /** The worker's console.log lines too ("log", npm start), or only its warnings. */
  logLevel: "warn" | "log";
  /** Called with each registration problem before the worker starts (the function would disable that cluster). */
  onProblem?(message: string): void;
}

export async function startDemo(options: DemoOptions): Promise<Demo> {
  const demo = await demoCredentials(options.files);
  const clusters = { ...localClusters(), demo: { publicKey: demo.publicKey, tokenHashes: [await tokenHash(demo.token)] } };
  for (const problem of (await loadClusters(JSON.stringify(clusters))).problems)
    options.onProblem?.(`cluster ${problem.cluster ?? "registrations"} disabled: ${problem.reason}`);
  const operatorKeys = [process.env.EDGEADMIT_OPERATOR_KEYS || devVar("OPERATOR_KEYS"), demo.operatorPublicKey].filter((keys) => keys).join(" ");
  const worker = await startLocalWorker({
    clusters,
    port: options.port,
    persistTo: join(options.files.stateDir, "state"),
    vars: { LOG_REVIEWS: "all", OPERATOR_KEYS: operatorKeys },
    logLevel: options.logLevel,
  });
  try {
    const objects = parseAllDocuments(readFileSync(join(PROJECT_ROOT, "examples/demo/cluster.yaml"), "utf8"))
      .map((doc) => doc.toJS() as KubeObject | null)
      .filter((o): o is KubeObject => o !== null);
    const { snapshot } = buildSnapshot(objects, { generation: Date.now(), builtAt: new Date().toISOString() });
    const { stored } = await pushSnapshot(worker.url, "demo", demo.pem, snapshot);
    return { worker, clusters: Object.keys(clusters), files: options.files, stored };
  } catch (e) {
    await worker.stop();
    throw e;
  }
}
