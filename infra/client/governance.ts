// Who may change the function's registry and fleet, from the operator's
// side (shared/governance): proposals and their approvals, operator keys
// added and revoked, the undo of a revoked key's changes, and the change log.
// Every request is signed with the operator's key (registry.ts).
import * as z from "zod/mini";
import { answerOf, errorText, FunctionError } from "./index.js";
import { proposalSchema, REFUSED_KEY, sendChange, signed } from "./registry.js";

async function read<T>(endpoint: string, privateKeyPem: string, path: string, schema: z.ZodMiniType<T>): Promise<T> {
  const { url, response } = await signed(endpoint, privateKeyPem, "GET", path, new Uint8Array());
  if (response.status === 401) throw new FunctionError(`GET ${url} was refused (401): ${REFUSED_KEY}`, 401);
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return answerOf(url, response, schema);
}

export const PROPOSALS_PATH = "/v1/registry/proposals";
export const OPERATORS_PATH = "/v1/registry/operators";
export const CHANGES_PATH = "/v1/registry/changes";

export const listProposals = (endpoint: string, privateKeyPem: string) =>
  read(endpoint, privateKeyPem, PROPOSALS_PATH, z.object({ threshold: z.number(), proposals: z.array(proposalSchema) }));

export const readProposal = (endpoint: string, privateKeyPem: string, id: string) => read(endpoint, privateKeyPem, `${PROPOSALS_PATH}/${encodeURIComponent(id)}`, proposalSchema);

const approvedSchema = z.object({ applied: z.string(), change: z.number(), signers: z.array(z.string()), revision: z.optional(z.number()), fleetRevision: z.optional(z.number()) });
export type Approved = z.infer<typeof approvedSchema>;

export const approveProposal = (endpoint: string, privateKeyPem: string, id: string) =>
  sendChange(endpoint, privateKeyPem, `${PROPOSALS_PATH}/${encodeURIComponent(id)}/approve`, {}, approvedSchema, "approval");

export const operatorKeysOf = (endpoint: string, privateKeyPem: string) =>
  read(
    endpoint,
    privateKeyPem,
    OPERATORS_PATH,
    z.object({ threshold: z.number(), root: z.array(z.object({ key: z.string(), revoked: z.boolean() })), added: z.array(z.string()), revoked: z.array(z.string()), you: z.string() }),
  );

const entrySchema = z.object({
  seq: z.number(),
  at: z.string(),
  kind: z.string(),
  summary: z.string(),
  clusters: z.array(z.string()),
  signers: z.array(z.string()),
  registryRevision: z.optional(z.number()),
  fleetRevision: z.optional(z.number()),
});
export type ChangeEntry = z.infer<typeof entrySchema>;

export const addOperatorKey = (endpoint: string, privateKeyPem: string, key: string) =>
  sendChange(endpoint, privateKeyPem, OPERATORS_PATH, { op: "add", key }, z.object({ added: z.string(), change: z.number(), signers: z.array(z.string()) }));

export async function revokeOperatorKey(endpoint: string, privateKeyPem: string, key: string, since: number) {
  const outcome = await sendChange(endpoint, privateKeyPem, OPERATORS_PATH, { op: "revoke", key, since }, z.object({ revoked: z.string(), change: z.number(), signed: z.array(entrySchema) }), "revocation");
  if ("proposed" in outcome) throw new FunctionError("the function made the revocation a proposal, which it never does: is the endpoint an edgeadmit function of this release?", 202);
  return outcome.applied;
}

export async function undoOperatorKeys(endpoint: string, privateKeyPem: string, keys: string[], since: number, dryRun: boolean) {
  const outcome = await sendChange(endpoint, privateKeyPem, `${OPERATORS_PATH}/undo`, { keys, since, dryRun }, z.object({ applied: z.boolean(), steps: z.array(z.string()), change: z.optional(z.number()) }), "undo");
  if ("proposed" in outcome) throw new FunctionError("the function made the undo a proposal, which it never does: is the endpoint an edgeadmit function of this release?", 202);
  return outcome.applied;
}

/** The change log, every page, as `query` selects it (key, cluster, since, until). */
export async function changeLog(endpoint: string, privateKeyPem: string, query: Record<string, string | number | undefined>): Promise<ChangeEntry[]> {
  const entries: ChangeEntry[] = [];
  let after: number | undefined;
  do {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...query, after })) if (value !== undefined) params.set(key, String(value));
    const page = await read(endpoint, privateKeyPem, `${CHANGES_PATH}${params.size > 0 ? `?${params}` : ""}`, z.object({ entries: z.array(entrySchema), next: z.optional(z.number()) }));
    entries.push(...page.entries);
    after = page.next;
  } while (after !== undefined);
  return entries;
}
