// `npm start`: the function on http://127.0.0.1:8787 in workerd, with the
// demo cluster "demo" registered and its snapshot signed and pushed, and an
// operator key that may register more clusters in the registry.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { bannerOf } from "./banner.js";
import { demoFiles, startDemo } from "./demo.js";
import { listRegistry } from "../infra/client/registry.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { RELEASE } from "../shared/version/index.js";
import { localStateProblem, RESET_LOCAL_STATE, STATE_RELEASE_FILE } from "./local-state.js";

const DEFAULT_PORT = 8787;

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
  const files = demoFiles(join(PROJECT_ROOT, ".edgeadmit"));
  const releaseFile = join(files.stateDir, "state", STATE_RELEASE_FILE);
  const problem = localStateProblem(existsSync(releaseFile) ? readFileSync(releaseFile, "utf8").trim() : undefined);
  if (problem) throw new Error(problem);
  const events = showFunctionEvents();
  // The function would disable these too; say so here, before anything else is blamed.
  const { worker, clusters, stored } = await startDemo({ files, port, logLevel: "log", onProblem: (problem) => console.error(`npm start: warning: ${problem}`) }).catch((e: unknown) => {
    throw new Error(`${e instanceof Error ? e.message : String(e)}; if the local state is the cause, ${RESET_LOCAL_STATE}`);
  });

  // This release served the state: the next start, of whatever checkout, knows whose it is.
  writeFileSync(releaseFile, `${RELEASE}\n`);
  // What the registry kept from earlier starts is served too: the banner names it.
  const registry = await listRegistry(worker.url, readFileSync(files.operatorKey, "utf8")).then(
    (listing) => listing.clusters.map((entry) => entry.cluster),
    (e: unknown) => ({ unread: e instanceof Error ? e.message : String(e) }),
  );
  events.ready();
  const local = (path: string) => relative(PROJECT_ROOT, path);
  console.log(
    bannerOf({
      url: worker.url,
      clustersVariable: clusters,
      registry,
      snapshot: stored,
      files: { demoKey: local(files.demoKey), demoToken: local(files.demoToken), operatorKey: local(files.operatorKey), state: local(join(files.stateDir, "state")) },
    }),
  );

  const stop = () => void worker.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e: unknown) => {
  console.error(`npm start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
