// `edgeadmit dashboard`: the fleet's pages (Fleet, Policies and waves,
// Verdicts over time, Changes) served on 127.0.0.1 by this process, which
// reads the function with the operator's own key and endpoint, as `kubectl
// proxy` or `linkerd viz dashboard` do: no key or token reaches the browser,
// and the function gains no browser login (docs/dashboard.md).
import { spawn } from "node:child_process";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { serveDashboard } from "../dashboard/serve.js";
import { functionSource } from "../dashboard/source.js";
import { optionalString, parseVerbArgs } from "./args.js";
import { TARGET_FLAGS, TARGET_HELP, TARGET_USAGE, targetOf } from "./operator-flags.js";
import type { Verb } from "./verb.js";

const DEFAULT_PORT = 8790;

/** Opens `url` in the desktop's browser, when there is a desktop; failing to is not an error (the URL is printed). */
function openBrowser(url: string): void {
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    spawn(command, [url], { stdio: "ignore", detached: true }).on("error", () => undefined).unref();
  } catch {
    // no opener: the printed URL serves
  }
}

export const dashboard: Verb = {
  name: "dashboard",
  summary: "serve the fleet's dashboard on 127.0.0.1: clusters, waves, verdicts over time, changes",
  usage: `edgeadmit dashboard ${TARGET_USAGE} [--port N] [--no-open]

Serves the dashboard on http://127.0.0.1:N/ (default ${DEFAULT_PORT}; 0 picks a free
port) until interrupted, prints its URL and, on a desktop, opens it. Pages:
Fleet (every cluster's labels, snapshot and age, stance, coverage gaps and
findings, filtered by a label selector), Policies and waves (each fleet
binding's waves, the clusters each reaches, automatic promotion's due time
or the findings holding it back; promote and roll back after showing the
exact change), Verdicts over time (hourly counts by outcome, per policy and
per cluster, fleet revisions marked) and Changes (the change log with
signers, proposals awaiting approval). This process signs every read with
the operator key; the browser gets pages, never the key or a token.
${TARGET_HELP}

Example:
  edgeadmit dashboard --endpoint https://edgeadmit.example.com --operator-key ./keys/operator.key`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { ...TARGET_FLAGS, port: { type: "string" }, "no-open": { type: "boolean" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const portText = optionalString(args, "port") ?? String(DEFAULT_PORT);
    const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 0 && port <= 65535)) throw new CliError(`--port must be a whole number from 0 to 65535, not "${portText.slice(0, 20)}"`, EXIT_USAGE);
    const target = await targetOf(this.name, args, io);
    let running;
    try {
      running = await serveDashboard(functionSource(target.endpoint, target.privateKeyPem), target.endpoint, port);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CliError(code === "EADDRINUSE" ? `port ${port} on 127.0.0.1 is in use: choose another with --port (0 for any)` : `cannot listen on 127.0.0.1:${port}: ${e instanceof Error ? e.message : String(e)}`);
    }
    io.out(`dashboard for ${target.endpoint} on ${running.url} (Ctrl-C stops)\n`);
    if (args.values["no-open"] !== true) openBrowser(running.url);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        void running.close().then(resolve);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    return 0;
  },
};
