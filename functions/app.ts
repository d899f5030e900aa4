// The HTTP surface: Hono on Web-standard Request/Response.
// Hono's tiny preset (PatternRouter): RegExpRouter refuses /v1/registry/… beside /v1/:cluster/…,
// so the default SmartRouter only fell back to TrieRouter after a failed build.
import { Hono } from "hono/tiny";
import { truncateUtf8 } from "../shared/admission/index.js";
import { clustersOf, operatorKeysOf, operatorThresholdOf, registryStatus, trustedOperatorKeys, type Env } from "./config/index.js";
import { registry } from "./routes/registry.js";
import { governance } from "./routes/governance.js";
import { clusterFleet, fleet } from "./routes/fleet.js";
import { snapshot } from "./routes/snapshot.js";
import { validate } from "./routes/validate.js";

export const app = new Hono<{ Bindings: Env }>();

/** Liveness: the function answers. */
app.get("/healthz", (c) => c.json({ ok: true }));

/**
 * Readiness: every registration in CLUSTERS and every OPERATOR_KEYS entry is
 * usable, the cluster registry answers, and some cluster is registered. Which
 * entries are not usable, and why, is in the log, not here. The registry is
 * asked at most once per isolate per few seconds, however often this is called.
 */
app.get("/readyz", async (c) => {
  const { clusters, problems } = await clustersOf(c.env);
  if (problems.length > 0)
    return c.json({ ok: false, error: "CLUSTERS holds unusable registrations, disabled until fixed: see the function's log (wrangler tail) or run edgeadmit clusters check" }, 503);
  const operatorKeys = await operatorKeysOf(c.env);
  if (operatorKeys.problems.length > 0)
    return c.json({ ok: false, error: "OPERATOR_KEYS holds an entry that is not an ed25519: public key, ignored until fixed: see the function's log (wrangler tail)" }, 503);
  const { threshold, problem } = operatorThresholdOf(c.env);
  if (problem) return c.json({ ok: false, error: "OPERATOR_THRESHOLD is not a whole number from 1 to 16, taken as 1 until fixed: see the function's log (wrangler tail)" }, 503);
  if (threshold > 1) {
    const trusted = await trustedOperatorKeys(c.env).catch(() => undefined);
    if (trusted && trusted.texts.length < threshold)
      return c.json({ ok: false, error: `OPERATOR_THRESHOLD is ${threshold} but ${trusted.texts.length} operator keys are trusted: no widening change can gather its approvals until keys are added` }, 503);
  }
  const registry = await registryStatus(c.env);
  if (registry && !registry.answering) return c.json({ ok: false, error: "the cluster registry does not answer: see the function's log (wrangler tail)" }, 503);
  if (clusters.size === 0 && !registry?.clusters)
    return c.json({ ok: false, error: "no cluster is registered: add one with edgeadmit clusters add, or set CLUSTERS (docs/operations.md)" }, 503);
  return c.json({ ok: true });
});

app.route("/v1", registry);
app.route("/v1", governance);
app.route("/v1", fleet);
app.route("/v1", validate);
app.route("/v1", snapshot);
app.route("/v1", clusterFleet);

app.notFound((c) => c.json({ error: `no route for ${c.req.method} ${truncateUtf8(new URL(c.req.url).pathname, 100)}` }, 404));
app.onError((error, c) => {
  console.error(JSON.stringify({ level: "error", event: "internal-error", message: truncateUtf8(String(error instanceof Error ? (error.stack ?? error.message) : error), 2000) }));
  return c.json({ error: "internal error" }, 500);
});
