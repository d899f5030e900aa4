// Who may call: every route but /healthz and /readyz serves one cluster's
// kube-apiserver or its sync job, or the fleet's operator. The apiserver
// presents a bearer token, in the Authorization header or, on managed control
// planes that cannot set one, in the URL path; the sync job signs with the
// cluster's key; the operator signs registry changes with a key in
// OPERATOR_KEYS. An unknown cluster, an unknown operator key and a wrong
// credential get the same 401, after the same work, so the answer tells an
// outsider nothing, not even which cluster ids exist.
import type { Context, MiddlewareHandler } from "hono";
import { sha256, sha256Hex, timingSafeEqual } from "../../shared/digest/index.js";
import {
  CONTENT_SHA256_HEADER,
  MAX_CLOCK_SKEW_SECONDS,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  importRawPublicKey,
  signedMessage,
  verifyRequest,
  type OperatorMethod,
  type SignedMethod,
} from "../../shared/signing/index.js";
import { publicKeysOf, publicKeyTextsOf, tokenDigestsOf } from "../../shared/clusters/index.js";
import { TOKEN_PATTERN } from "../../shared/tokens/index.js";
import { clusterOf, operatorThresholdOf, trustedOperatorKeys, type Cluster, type Env } from "../config/index.js";
import type { Signing } from "../registry/index.js";
import { log } from "../log/index.js";
import { countsOf } from "../fleet/counts.js";
import { RegistryUnavailable, type Defer } from "../registry/cache.js";
import { describePeer, FUNCTION_RELEASE_HEADER, peerOf, RELEASE, skewProblem, USER_AGENT_HEADER, type Peer } from "../../shared/version/index.js";

const UNAUTHENTICATED = "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)";

/**
 * `signedBy`: the registered key (`ed25519:…`) whose signature a signed
 * request carries; `peer`: the release of edgeadmit that signed it (its sync
 * job or CLI), once held to the skew window.
 */
export type AuthEnv = { Bindings: Env; Variables: { cluster: Cluster; contentSha256: string; signedBy: string; peer: Peer } };

/**
 * An operator's signed request: the body's signed SHA-256, the request's
 * identity for replay detection, the CLI's release, and who signed it with
 * what the deployment asks of signers (the registry checks both again).
 */
export type OperatorEnv = { Bindings: Env; Variables: { contentSha256: string; changeId: string; signedAt: number; peer: Peer; signing: Signing } };

/** The only answer an unauthenticated caller gets, whatever was wrong. */
export function unauthenticated(c: Context) {
  c.header("WWW-Authenticate", 'Bearer realm="edgeadmit"');
  return c.json({ error: UNAUTHENTICATED }, 401);
}

/**
 * Checks a presented bearer token for a cluster. One kind today, the token
 * whose SHA-256 CLUSTERS lists; an apiserver-issued JWT (KEP-6060) would be
 * another verifier in BEARER_VERIFIERS, next to it, reading its own settings
 * from the cluster's registration.
 */
type BearerVerifier = (token: string, cluster: Cluster | undefined) => Promise<boolean>;

// Compared against when the cluster is unknown, so that case costs what a wrong token costs.
const NO_DIGEST = new Uint8Array(32);

const tokenHashVerifier: BearerVerifier = async (token, cluster) => {
  const digest = await sha256(token);
  let matched = false;
  const accepted = cluster ? tokenDigestsOf(cluster) : [];
  for (const expected of accepted.length > 0 ? accepted : [NO_DIGEST]) matched = timingSafeEqual(digest, expected) || matched;
  return matched && cluster !== undefined;
};

const BEARER_VERIFIERS: readonly BearerVerifier[] = [tokenHashVerifier];

async function bearerAccepted(token: string, cluster: Cluster | undefined): Promise<boolean> {
  if (!TOKEN_PATTERN.test(token)) return false;
  let accepted = false;
  for (const verify of BEARER_VERIFIERS) accepted = (await verify(token, cluster)) || accepted;
  return accepted;
}

function bearerOf(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const match = header === undefined ? null : /^Bearer +(\S{1,512})\s*$/i.exec(header);
  return match ? match[1] : undefined;
}

function refuse(c: Context, cluster: string, reason: string) {
  log({ event: "auth-refused", cluster, route: `${c.req.method} ${c.req.routePath}`, reason });
  return unauthenticated(c);
}

/** The request's waitUntil, where there is one (not when the app is called without an ExecutionContext). */
export function deferOf(c: Context): Defer | undefined {
  try {
    const context = c.executionCtx;
    return (work) => context.waitUntil(work);
  } catch {
    return undefined;
  }
}

/**
 * The registered cluster `id`, undefined for none, or the 503 answer when the
 * registry would have to say and cannot: the same for every such id.
 */
async function lookup(c: Context<AuthEnv>, id: string): Promise<Cluster | undefined | Response> {
  try {
    return await clusterOf(c.env, id, deferOf(c));
  } catch (e) {
    if (!(e instanceof RegistryUnavailable)) throw e;
    return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
  }
}

/**
 * The apiserver's credential for POST …/validate: the bearer token in the
 * header, or in the path (`/v1/<cluster>/token/<token>/validate`). A cluster
 * registered `anonymous: true` needs none, but a token it is shown must be right.
 */
export const reviewer: MiddlewareHandler<AuthEnv> = async (c, next) => {
  const id = c.req.param("cluster") ?? "";
  const cluster = await lookup(c, id);
  if (cluster instanceof Response) return cluster;
  const token = c.req.param("token") ?? bearerOf(c);
  if (token === undefined) {
    if (cluster?.anonymous) {
      c.set("cluster", cluster);
      return next();
    }
    return refuse(c, id, cluster ? "no bearer token" : "unknown cluster");
  }
  if (!(await bearerAccepted(token, cluster))) return refuse(c, id, cluster ? "wrong token" : "unknown cluster");
  c.set("cluster", cluster!);
  return next();
};

function signatureHeaders(c: Context) {
  return { signature: c.req.header(SIGNATURE_HEADER), timestamp: c.req.header(TIMESTAMP_HEADER), contentSha256: c.req.header(CONTENT_SHA256_HEADER) };
}

// Verified against when the cluster or the operator key is unknown, so that case costs what a wrong signature costs.
let decoyKey: Promise<CryptoKey> | undefined;
function decoy(): Promise<CryptoKey> {
  decoyKey ??= crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]).then((pair) => (pair as CryptoKeyPair).publicKey);
  return decoyKey;
}

// A cluster's keys are imported per signed request (an isolate keeps their bytes, not CryptoKeys):
// the decoy for an unknown cluster is imported the same way, so that step costs alike too.
let decoyBytes: Promise<Uint8Array> | undefined;
async function importedDecoy(): Promise<CryptoKey> {
  decoyBytes ??= decoy().then(async (key) => new Uint8Array((await crypto.subtle.exportKey("raw", key)) as ArrayBuffer));
  return importRawPublicKey(await decoyBytes);
}

/**
 * The sync job's credential: the request signed with the cluster's key
 * (shared/signing), checked before any body byte is read; the handler then
 * compares the body with the signed `contentSha256`. A signing time too far
 * from the clock is said plainly, but only once the signature verified.
 */
export function signer(method: SignedMethod): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    const id = c.req.param("cluster") ?? "";
    const cluster = await lookup(c, id);
    if (cluster instanceof Response) return cluster;
    const keys = cluster ? await Promise.all(publicKeysOf(cluster).map(importRawPublicKey)) : [await importedDecoy()];
    const check = await verifyRequest(keys, method, id, signatureHeaders(c), Math.floor(Date.now() / 1000));
    if (!cluster) return refuse(c, id, "unknown cluster");
    if (!check.ok) {
      if (check.refusal !== "clock-skew") return refuse(c, id, `${check.refusal}: ${check.detail}`);
      log({ event: "auth-refused", cluster: id, route: `${c.req.method} ${c.req.routePath}`, reason: check.detail });
      return c.json({ error: check.detail }, 403);
    }
    const peer = heldToWindow(c, id);
    if (peer instanceof Response) return peer;
    // What the registry lists of the cluster's sync job: its release, and when it last called.
    const counts = countsOf(c.env);
    if (counts) {
      const now = Date.now();
      counts.flusher.peers.see(cluster.id, peer, now);
      counts.flusher.maybeFlush(counts.writer, now, deferOf(c));
    }
    c.set("cluster", cluster);
    c.set("contentSha256", check.contentSha256);
    c.set("signedBy", publicKeyTextsOf(cluster)[check.keyIndex]!);
    c.set("peer", peer);
    return next();
  };
}

/**
 * The release of edgeadmit that signed an authenticated request, or the
 * answer refusing it: a peer outside the function's skew window is told
 * both releases and what to upgrade (shared/version). Only a caller who
 * proved its key learns the function's release.
 */
function heldToWindow(c: Context, who: string): Peer | Response {
  const peer = peerOf(c.req.header(USER_AGENT_HEADER));
  c.header(FUNCTION_RELEASE_HEADER, RELEASE);
  const skew = skewProblem(peer);
  if (skew === undefined) return peer;
  log({ event: "peer-refused", cluster: who, route: `${c.req.method} ${c.req.routePath}`, peer: describePeer(peer), reason: skew });
  return c.json({ error: `${skew}; nothing changed` }, 400);
}

/** GET …/snapshot: the sync job's signature, or what admits the apiserver (so ops can look with curl). */
export const reader: MiddlewareHandler<AuthEnv> = async (c, next) => {
  const signed = Object.values(signatureHeaders(c)).some((value) => value !== undefined);
  return signed ? signer("GET")(c, next) : reviewer(c, next);
};

/** The subject an operator signs: the path and query, so a signature for one request serves no other. */
function operatorSubject(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * The operator's credential: the request signed with a key in OPERATOR_KEYS
 * (domain `operator`, so no cluster's signature passes), checked before any
 * body byte is read. No key configured, an unknown key and a forged signature
 * get the generic 401; a signing time too far from the clock is said plainly,
 * with 403, once the signature verified.
 */
export function operator(method: OperatorMethod): MiddlewareHandler<OperatorEnv> {
  return async (c, next) => {
    let trusted: Awaited<ReturnType<typeof trustedOperatorKeys>>;
    try {
      trusted = await trustedOperatorKeys(c.env);
    } catch (e) {
      log({ event: "registry-unavailable", reason: `operator keys not read: ${e instanceof Error ? e.message : String(e)}` });
      return c.json({ error: "the cluster registry does not answer: try again shortly" }, 503);
    }
    const { keys } = trusted;
    const headers = signatureHeaders(c);
    const subject = operatorSubject(c.req.url);
    const check = await verifyRequest(keys.length > 0 ? keys : [await decoy()], method, subject, headers, Math.floor(Date.now() / 1000), "operator");
    const refused = (reason: string) => {
      log({ event: "auth-refused", cluster: "(operator)", route: `${c.req.method} ${c.req.routePath}`, reason });
      return unauthenticated(c);
    };
    if (keys.length === 0) return refused("no OPERATOR_KEYS configured, or every one revoked");
    if (!check.ok) {
      if (check.refusal !== "clock-skew") return refused(`${check.refusal}: ${check.detail}`);
      log({ event: "auth-refused", cluster: "(operator)", route: `${c.req.method} ${c.req.routePath}`, reason: check.detail });
      return c.json({ error: check.detail }, 403);
    }
    const peer = heldToWindow(c, "(operator)");
    if (peer instanceof Response) return peer;
    c.set("peer", peer);
    c.set("signing", { signer: trusted.texts[check.keyIndex]!, rootKeys: trusted.root, threshold: operatorThresholdOf(c.env).threshold, canPropose: peer.named });
    const signedAt = Number(headers.timestamp);
    c.set("contentSha256", check.contentSha256);
    c.set("signedAt", signedAt);
    c.set("changeId", await sha256Hex(signedMessage(method, subject, signedAt, check.contentSha256, "operator")));
    return next();
  };
}

/** Until when (ms) a request signed at `signedAt` (s) could still pass the clock check, so must be remembered to refuse its replay. */
export function replayableUntil(signedAt: number): number {
  return (signedAt + MAX_CLOCK_SKEW_SECONDS + 1) * 1000;
}
