// `npm start`: the function on http://127.0.0.1:8787 in workerd, with the
// demo cluster "demo" registered and its snapshot signed and pushed.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { generateKeyPair, publicKeyOf } from "../shared/signing/index.js";
import { buildSnapshot, type KubeObject } from "../shared/snapshot/build/index.js";
import { pushSnapshot } from "../infra/client/index.js";
import { PROJECT_ROOT, startLocalWorker, type ClusterRegistration } from "./local-worker.js";

const PORT = Number(process.env.PORT ?? 8787);
const stateDir = join(PROJECT_ROOT, ".edgeadmit");
const demoKeyFile = join(stateDir, "demo.key");

/** Clusters registered locally without editing tracked files: EDGEADMIT_CLUSTERS, or CLUSTERS in .dev.vars. */
function localClusters(): Record<string, ClusterRegistration> {
  let source = process.env.EDGEADMIT_CLUSTERS;
  const devVars = join(PROJECT_ROOT, ".dev.vars");
  if (!source && existsSync(devVars)) {
    const line = readFileSync(devVars, "utf8").split("\n").find((l) => l.startsWith("CLUSTERS="));
    source = line?.slice("CLUSTERS=".length).trim().replace(/^'(.*)'$/, "$1");
  }
  if (!source) return {};
  try {
    return JSON.parse(source) as Record<string, ClusterRegistration>;
  } catch (e) {
    throw new Error(`local cluster registrations are not JSON (${(e as Error).message}): ${source}`);
  }
}

async function demoKey(): Promise<{ pem: string; publicKey: string }> {
  mkdirSync(stateDir, { recursive: true });
  if (!existsSync(demoKeyFile)) writeFileSync(demoKeyFile, (await generateKeyPair()).privateKeyPem, { mode: 0o600 });
  const pem = readFileSync(demoKeyFile, "utf8");
  return { pem, publicKey: await publicKeyOf(pem) };
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

async function main(): Promise<void> {
  await ensurePortFree(PORT);
  const key = await demoKey();
  const clusters = { ...localClusters(), demo: { publicKey: key.publicKey } };
  const worker = await startLocalWorker({ clusters, port: PORT, persistTo: join(stateDir, "state") });

  const objects = parseAllDocuments(readFileSync(join(PROJECT_ROOT, "examples/demo/cluster.yaml"), "utf8"))
    .map((doc) => doc.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
  const { snapshot } = buildSnapshot(objects, { generation: Date.now(), builtAt: new Date().toISOString() });
  const stored = await pushSnapshot(worker.url, "demo", key.pem, JSON.stringify(snapshot));

  console.log(`edgeadmit is serving on ${worker.url}
  clusters: ${Object.keys(clusters).join(", ")}
  demo snapshot: generation ${stored.generation}, ${stored.bytes} bytes (examples/demo/cluster.yaml, signed with ${demoKeyFile})

Try:
  curl -s ${worker.url}/v1/demo/validate -H 'content-type: application/json' -d @examples/reviews/pod-main-db-denied.json
  curl -s ${worker.url}/v1/demo/validate -H 'content-type: application/json' -d @examples/reviews/pod-main-db-allowed.json
  curl -s ${worker.url}/v1/demo/snapshot

Ctrl-C stops.`);

  const stop = () => void worker.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e: unknown) => {
  console.error(`npm start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
