// Who may change the registry and the fleet, and who did (shared/governance):
// GET /v1/registry/operators — the trusted operator keys, those revoked, the threshold.
// POST /v1/registry/operators — add a key (a widening change: the threshold's) or revoke one (one signature, at once).
// POST /v1/registry/operators/undo — plan (dryRun) or apply the undo of what revoked keys signed alone.
// GET /v1/registry/proposals[/:id] — changes waiting for approvals; POST …/:id/approve approves one.
// GET /v1/registry/changes — the change log with its signers, filtered by key, cluster and time.
// Every route is the operator's: signed with a trusted key (functions/auth).
import { Hono } from "hono/tiny";
import type { Context } from "hono";
import * as z from "zod/mini";
import { sha256Hex } from "../../shared/digest/index.js";
import { changeLogQuerySchema, type ChangeLogEntry } from "../../shared/governance/index.js";
import { CONTENT_SHA256_HEADER, PUBLIC_KEY_PREFIX } from "../../shared/signing/index.js";
import { describePeer } from "../../shared/version/index.js";
import { decodeJson } from "../../shared/zod/index.js";
import { operator, replayableUntil, unauthenticated, type OperatorEnv } from "../auth/index.js";
import { readBody } from "../body/index.js";
import { importPublicKey } from "../../shared/signing/index.js";
import { registryOf } from "../config/index.js";
import { fleetCacheOf } from "../fleet/cache.js";
import { log } from "../log/index.js";
import type { ProposalView } from "../registry/index.js";

export const governance = new Hono<OperatorEnv>();

const NO_REGISTRY = "this deployment has no cluster registry: wrangler.toml lacks the REGISTRY Durable Object binding (README, Deploy)";
const MAX_BODY_BYTES = 4 * 1024;
const requestId = z.string().check(z.regex(/^[A-Za-z0-9-]{16,64}$/, "must be 16-64 letters, digits and '-', new for every request"));
const keySchema = z.string().check(z.maxLength(200), z.startsWith(PUBLIC_KEY_PREFIX, `must be an operator public key, ${PUBLIC_KEY_PREFIX}…`));
const operatorChangeSchema = z.discriminatedUnion("op", [
  z.strictObject({ requestId, op: z.literal("add"), key: keySchema }),
  z.strictObject({ requestId, op: z.literal("revoke"), key: keySchema, since: z.optional(z.int().check(z.minimum(0))) }),
]);
const undoSchema = z.strictObject({ requestId, keys: z.array(keySchema).check(z.minLength(1), z.maxLength(16)), since: z.int().check(z.minimum(0)), dryRun: z.optional(z.boolean()) });
const approveSchema = z.strictObject({ requestId });

/** A proposal as answered to the operator: times as ISO text. */
export function proposalJson(view: ProposalView) {
  return { ...view, createdAt: new Date(view.createdAt).toISOString(), expiresAt: new Date(view.expiresAt).toISOString(), needs: Math.max(0, view.threshold - view.approvals.length) };
}

/** The 202 answer to a change that waits for more keys: what it widens, and how to approve it. */
export function proposedBody(view: ProposalView) {
  const needs = Math.max(0, view.threshold - view.approvals.length);
  return {
    proposal: proposalJson(view),
    message: `proposed as ${view.id}: it ${view.widens.join("; ")}, which needs ${view.threshold} operator keys; ${needs} more must approve (edgeadmit approve ${view.id}) before ${new Date(view.expiresAt).toISOString()}`,
  };
}

const entryJson = (entry: ChangeLogEntry) => ({ ...entry, at: new Date(entry.at).toISOString() });

/** The signed body of a route, checked against its signature and decoded, or the answer refusing it. */
async function bodyOf<T>(c: Context<OperatorEnv>, schema: z.ZodMiniType<T>, what: string): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const body = await readBody(c, MAX_BODY_BYTES, what);
  if (!body.ok) return { ok: false, response: c.json({ error: `${body.error}; nothing changed` }, body.status) };
  if ((await sha256Hex(body.bytes)) !== c.get("contentSha256"))
    return { ok: false, response: c.json({ error: `the body is not the one signed: its SHA-256 differs from ${CONTENT_SHA256_HEADER}; nothing changed` }, 403) };
  const decoded = decodeJson(new TextDecoder().decode(body.bytes), schema, what, "does not fit", 8);
  if (!decoded.ok) return { ok: false, response: c.json({ error: `${decoded.error}; nothing changed` }, 400) };
  return { ok: true, value: decoded.value };
}

governance.get("/registry/operators", operator("GET"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const state = await registry.governance().operatorKeys();
  const signing = c.get("signing");
  const revoked = new Set(state.revoked);
  return c.json({ threshold: signing.threshold, root: signing.rootKeys.map((key) => ({ key, revoked: revoked.has(key) })), added: state.added, revoked: state.revoked, you: signing.signer });
});

governance.post("/registry/operators", operator("POST"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const body = await bodyOf(c, operatorChangeSchema, "operator change");
  if (!body.ok) return body.response;
  const change = body.value;
  if (typeof (await importPublicKey(change.key)) === "string") return c.json({ error: "key: not an Ed25519 public key (edgeadmit operator keygen prints one); nothing changed" }, 400);
  const now = Date.now();
  const until = replayableUntil(c.get("signedAt"));
  const logged = (status: number, reason?: string) =>
    log({ event: "registry-change", status, peer: describePeer(c.get("peer")), changes: [`${change.op} operator key ${change.key.slice(0, 24)}…`], ...(reason ? { reason } : {}), durationMs: Date.now() - now });
  if (change.op === "revoke") {
    const result = await registry.governance().revoke(change.key, change.since ?? 0, c.get("changeId"), now, until, c.get("signing"));
    if (!result.ok) return result.status === 401 ? unauthenticated(c) : (logged(result.status, result.error), c.json({ error: `${result.error}; nothing changed` }, result.status));
    logged(200);
    return c.json({ revoked: change.key, change: result.seq, signed: result.signed.map(entryJson) });
  }
  const result = await registry.governance().submit({ kind: "operator-add", key: change.key }, c.get("changeId"), now, until, c.get("signing"));
  if (!result.ok) return result.status === 401 ? unauthenticated(c) : (logged(result.status, result.error), c.json({ error: `${result.error}; nothing changed` }, result.status));
  logged(result.state === "proposed" ? 202 : 200);
  if (result.state === "proposed") return c.json(proposedBody(result.proposal), 202);
  return c.json({ added: change.key, change: result.seq, signers: result.signers });
});

governance.post("/registry/operators/undo", operator("POST"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const body = await bodyOf(c, undoSchema, "undo request");
  if (!body.ok) return body.response;
  const { keys, since, dryRun } = body.value;
  const now = Date.now();
  const result = await registry.governance().undo(keys, since, dryRun === true, c.get("changeId"), now, replayableUntil(c.get("signedAt")), c.get("signing"));
  if (!result.ok) return result.status === 401 ? unauthenticated(c) : c.json({ error: `${result.error}; nothing changed` }, result.status);
  if (result.applied) {
    registry.cache.noteApplied(result.registrations ?? []);
    fleetCacheOf(c.env)?.cache.noteChanged();
    log({ event: "registry-change", status: 200, peer: describePeer(c.get("peer")), changes: [`undo ${keys.length} revoked keys since ${new Date(since).toISOString()}`], durationMs: Date.now() - now });
  }
  return c.json({ applied: result.applied, steps: result.lines, ...(result.seq !== undefined ? { change: result.seq } : {}) });
});

governance.get("/registry/proposals", operator("GET"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const sinceText = c.req.query("since");
  const since = sinceText === undefined ? undefined : /^\d{1,15}$/.test(sinceText) ? Number(sinceText) : NaN;
  if (Number.isNaN(since)) return c.json({ error: "since must be milliseconds since the epoch" }, 400);
  const views = await registry.governance().proposals(Date.now(), c.get("signing").threshold, since);
  return c.json({ threshold: c.get("signing").threshold, proposals: views.map(proposalJson) });
});

governance.get("/registry/proposals/:id", operator("GET"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const id = c.req.param("id");
  const view = /^[0-9a-f-]{36}$/.test(id) ? await registry.governance().proposal(id, Date.now(), c.get("signing").threshold) : null;
  if (!view) return c.json({ error: `no proposal ${id.slice(0, 40)} (edgeadmit proposals lists those waiting)` }, 404);
  return c.json(proposalJson(view));
});

governance.post("/registry/proposals/:id/approve", operator("POST"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const id = c.req.param("id");
  const body = await bodyOf(c, approveSchema, "approval");
  if (!body.ok) return body.response;
  if (!/^[0-9a-f-]{36}$/.test(id)) return c.json({ error: `no proposal ${id.slice(0, 40)}; nothing changed` }, 404);
  const now = Date.now();
  const result = await registry.governance().approve(id, c.get("changeId"), now, replayableUntil(c.get("signedAt")), c.get("signing"));
  log({ event: "registry-change", status: result.ok ? (result.state === "applied" ? 200 : 202) : result.status, peer: describePeer(c.get("peer")), changes: [`approve ${id}`], ...(result.ok ? {} : { reason: result.error }), durationMs: Date.now() - now });
  if (!result.ok) return result.status === 401 ? unauthenticated(c) : c.json({ error: `${result.error}; nothing changed` }, result.status);
  if (result.state === "proposed") return c.json(proposedBody(result.proposal), 202);
  if (result.registry) registry.cache.noteApplied(result.registry.applied);
  if (result.fleet) fleetCacheOf(c.env)?.cache.noteChanged();
  return c.json({ applied: id, change: result.seq, signers: result.signers, ...(result.registry ? { revision: result.registry.revision } : {}), ...(result.fleet ? { fleetRevision: result.fleet.revision } : {}) });
});

governance.get("/registry/changes", operator("GET"), async (c) => {
  const registry = registryOf(c.env);
  if (!registry) return c.json({ error: NO_REGISTRY }, 503);
  const number = (name: string) => {
    const text = c.req.query(name);
    return text === undefined ? undefined : /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  };
  const query = changeLogQuerySchema.safeParse({
    key: c.req.query("key"),
    cluster: c.req.query("cluster"),
    since: number("since"),
    until: number("until"),
    after: number("after"),
    limit: number("limit"),
  });
  if (!query.success) return c.json({ error: "key, cluster, since, until (ms), after and limit (1-1000) select the change log" }, 400);
  const page = await registry.governance().changeLog(query.data);
  return c.json({ entries: page.entries.map(entryJson), ...(page.next !== undefined ? { next: page.next } : {}) });
});
