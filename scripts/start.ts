// `npm start`: the function on http://127.0.0.1:8787 in workerd, with the
// demo cluster "demo" registered and its snapshot signed and pushed, and an
// operator key that may register more clusters in the registry.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { loadClusters, type Registration } from "../shared/clusters/index.js";
import { generateKeyPair, publicKeyOf } from "../shared/signing/index.js";
import { buildSnapshot, type KubeObject } from "../shared/snapshot/build/index.js";
import { generateToken, tokenHash } from "../shared/tokens/index.js";
import { pushSnapshot } from "../infra/client/index.js";
import { PROJECT_ROOT, startLocalWorker } from "./local-worker.js";

const DEFAULT_PORT = 8787;
const stateDir = join(PROJECT_ROOT, ".edgeadmit");
const demoKeyFile = join(stateDir, "demo.key");
const demoTokenFile = join(stateDir, "demo.token");
const operatorKeyFile = join(stateDir, "operator.key");

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

/**
 * The demo cluster's signing key and apiserver token, and the operator's key,
 * made once into .edgeadmit/ (git-ignored) and kept across starts, as the
 * registry in .edgeadmit/state is.
 */
async function demoCredentials(): Promise<{ pem: string; publicKey: string; token: string; operatorPublicKey: string }> {
  mkdirSync(stateDir, { recursive: true });
  for (const file of [demoKeyFile, operatorKeyFile]) if (!existsSync(file)) writeFileSync(file, (await generateKeyPair()).privateKeyPem, { mode: 0o600 });
  if (!existsSync(demoTokenFile)) writeFileSync(demoTokenFile, `${generateToken()}\n`, { mode: 0o600 });
  const pem = readFileSync(demoKeyFile, "utf8");
  return { pem, publicKey: await publicKeyOf(pem), token: readFileSync(demoTokenFile, "utf8").trim(), operatorPublicKey: await publicKeyOf(readFileSync(operatorKeyFile, "utf8")) };
}

/** The function's JSON log line as one short line: `deny  demo CREATE Pod 3f1e… (affinity-class) 1 ms`. */
function shortLine(event: Record<string, unknown>): string {
  if (event.event === "review") {
    const policies = Array.isArray(event.policies) && event.policies.length > 0 ? ` (${event.policies.join(", ")})` : "";
    return `${String(event.verdict).padEnd(5)} ${event.cluster} ${event.operation} ${event.kind} ${event.uid}${policies} ${event.durationMs} ms`;
  }
  const { level, event: name, ...rest } = event;
  return `${level} ${name}: ${Object.entries(rest).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(" ")}`;
}

/**
 * wrangler prints the worker's console lines through Node's console (with
 * its own start-up banner and a line per request). Shown instead: the
 * function's JSON events as one short line each, once the demo is ready;
 * anything else wrangler says on the way is kept only if it is a warning.
 */
function showFunctionEvents(): { ready(): void } {
  let ready = false;
  for (const method of ["log", "warn", "error"] as const) {
    const print = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const text = args.map(String).join(" ");
      const json = /\{"level":.*\}/.exec(text)?.[0];
      if (json) return print(shortLine(JSON.parse(json) as Record<string, unknown>));
      if (method === "log" && (!ready || text.startsWith("[wrangler:info]"))) return;
      print(...args);
    };
  }
  return { ready: () => void (ready = true) };
}

/** wrangler waits silently for a port in use; say so at once instead. */
function ensurePortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === "EADDRINUSE" ? `port ${port} on 127.0.0.1 is in use (another npm start?); stop it or choose another with PORT=8788 npm start` : e.message)),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

/** PORT from the environment, or why it cannot be one (Node's own range error names no variable). */
function portFrom(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_PORT;
  const port = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new Error(`PORT must be a whole number from 1 to 65535, not "${value}"`);
  return port;
}

async function main(): Promise<void> {
  const port = portFrom(process.env.PORT);
  await ensurePortFree(port);
  const demo = await demoCredentials();
  const clusters = { ...localClusters(), demo: { publicKey: demo.publicKey, tokenHashes: [await tokenHash(demo.token)] } };
  // The function would disable these too; say so here, before anything else is blamed.
  for (const problem of (await loadClusters(JSON.stringify(clusters))).problems)
    console.error(`npm start: warning: cluster ${problem.cluster ?? "registrations"} disabled: ${problem.reason}`);
  const events = showFunctionEvents();
  const operatorKeys = [process.env.EDGEADMIT_OPERATOR_KEYS || devVar("OPERATOR_KEYS"), demo.operatorPublicKey].filter((keys) => keys).join(" ");
  const worker = await startLocalWorker({ clusters, port, persistTo: join(stateDir, "state"), vars: { LOG_REVIEWS: "all", OPERATOR_KEYS: operatorKeys }, logLevel: "log" });

  const objects = parseAllDocuments(readFileSync(join(PROJECT_ROOT, "examples/demo/cluster.yaml"), "utf8"))
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
  const { snapshot } = buildSnapshot(objects, { generation: Date.now(), builtAt: new Date().toISOString() });
  const { stored } = await pushSnapshot(worker.url, "demo", demo.pem, snapshot);

  events.ready();
  console.log(`edgeadmit is serving on ${worker.url}
  clusters: ${Object.keys(clusters).join(", ")}
  demo snapshot: generation ${stored.generation}, ${stored.bytes} bytes (examples/demo/cluster.yaml, signed with ${demoKeyFile})
  demo apiserver token: in ${demoTokenFile}

Try:
  TOKEN=$(cat .edgeadmit/demo.token)
  curl -s ${worker.url}/v1/demo/validate -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d @examples/reviews/pod-main-db-denied.json
  curl -s ${worker.url}/v1/demo/validate -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d @examples/reviews/pod-main-db-allowed.json
  curl -s ${worker.url}/v1/demo/snapshot -H "authorization: Bearer $TOKEN"
  npx edgeadmit clusters list --endpoint ${worker.url} --operator-key ${operatorKeyFile.slice(PROJECT_ROOT.length + 1)}   # the registry: clusters add|rotate|remove too

One line per review follows. Ctrl-C stops.`);

  const stop = () => void worker.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e: unknown) => {
  console.error(`npm start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
