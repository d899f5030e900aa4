// Metrics tokens, from the operator's side: `edgeadmit metrics issue|revoke|
// tokens` sign their requests with the operator's key, as the registry verbs
// do. The token itself is made here and never sent: the function gets its SHA-256.
import * as z from "zod/mini";
import { answerOf, errorText, FunctionError } from "./index.js";
import { REFUSED_KEY, sendChange, signed, type Outcome } from "./registry.js";

export const METRICS_TOKENS_PATH = "/v1/registry/metrics/tokens";

const changedSchema = z.object({ issued: z.optional(z.string()), revoked: z.optional(z.string()), change: z.number(), signers: z.array(z.string()) });
export type MetricsTokenChanged = z.infer<typeof changedSchema>;

const listSchema = z.object({ tokens: z.array(z.object({ name: z.string(), issuedAt: z.string(), change: z.number() })) });
export type MetricsTokenList = z.infer<typeof listSchema>;

/** Issues metrics token `name` by its hash (or proposes it, when the deployment needs more keys). */
export function issueMetricsToken(endpoint: string, privateKeyPem: string, name: string, tokenHash: string): Promise<Outcome<MetricsTokenChanged>> {
  return sendChange(endpoint, privateKeyPem, METRICS_TOKENS_PATH, { op: "issue", name, tokenHash }, changedSchema, "metrics token");
}

export function revokeMetricsToken(endpoint: string, privateKeyPem: string, name: string): Promise<Outcome<MetricsTokenChanged>> {
  return sendChange(endpoint, privateKeyPem, METRICS_TOKENS_PATH, { op: "revoke", name }, changedSchema, "revocation");
}

export async function listMetricsTokens(endpoint: string, privateKeyPem: string): Promise<MetricsTokenList> {
  const { url, response } = await signed(endpoint, privateKeyPem, "GET", METRICS_TOKENS_PATH, new Uint8Array());
  if (response.status === 401) throw new FunctionError(`GET ${url} was refused (401): ${REFUSED_KEY}`, 401);
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return answerOf(url, response, listSchema);
}
