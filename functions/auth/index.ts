// Who may call: every route but /healthz and /readyz serves one cluster's
// kube-apiserver or its sync job. The apiserver presents a bearer token, in
// the Authorization header or, on managed control planes that cannot set one,
// in the URL path; the sync job signs with the cluster's key. An unknown
// cluster and a wrong credential get the same 401 in the same time, so the
// answer tells an outsider nothing, not even which cluster ids exist.
import type { Context, MiddlewareHandler } from "hono";
import { sha256, timingSafeEqual } from "../../shared/digest/index.js";
import { CONTENT_SHA256_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyRequest, type SignedMethod } from "../../shared/signing/index.js";
import { TOKEN_PATTERN } from "../../shared/tokens/index.js";
import { clusterOf, type Cluster, type Env } from "../config/index.js";
import { log } from "../log/index.js";

export const UNAUTHENTICATED = "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)";

export type AuthEnv = { Bindings: Env; Variables: { cluster: Cluster; contentSha256: string } };

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
  for (const accepted of cluster?.tokenDigests.length ? cluster.tokenDigests : [NO_DIGEST]) matched = timingSafeEqual(digest, accepted) || matched;
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

/**
 * The apiserver's credential for POST …/validate: the bearer token in the
 * header, or in the path (`/v1/<cluster>/token/<token>/validate`). A cluster
 * registered `anonymous: true` needs none, but a token it is shown must be right.
 */
export const reviewer: MiddlewareHandler<AuthEnv> = async (c, next) => {
  const id = c.req.param("cluster") ?? "";
  const cluster = await clusterOf(c.env, id);
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

// Verified against when the cluster is unknown, so that case costs what a wrong signature costs.
let decoyKey: Promise<CryptoKey> | undefined;
function decoy(): Promise<CryptoKey> {
  decoyKey ??= crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]).then((pair) => (pair as CryptoKeyPair).publicKey);
  return decoyKey;
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
    const cluster = await clusterOf(c.env, id);
    const check = await verifyRequest(cluster?.publicKeys ?? [await decoy()], method, id, signatureHeaders(c), Math.floor(Date.now() / 1000));
    if (!cluster) return refuse(c, id, "unknown cluster");
    if (!check.ok) {
      if (check.refusal !== "clock-skew") return refuse(c, id, `${check.refusal}: ${check.detail}`);
      log({ event: "auth-refused", cluster: id, route: `${c.req.method} ${c.req.routePath}`, reason: check.detail });
      return c.json({ error: check.detail }, 403);
    }
    c.set("cluster", cluster);
    c.set("contentSha256", check.contentSha256);
    return next();
  };
}

/** GET …/snapshot: the sync job's signature, or what admits the apiserver (so ops can look with curl). */
export const reader: MiddlewareHandler<AuthEnv> = async (c, next) => {
  const signed = Object.values(signatureHeaders(c)).some((value) => value !== undefined);
  return signed ? signer("GET")(c, next) : reviewer(c, next);
};
