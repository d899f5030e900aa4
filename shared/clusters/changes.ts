// Changes to the cluster registry: what `edgeadmit clusters add|rotate|remove|
// import` sends, signed with the operator's key, to POST /v1/registry/clusters,
// and how the registry applies one to what it holds. A request carries up to
// MAX_CHANGES changes, applied in order, all or none.
import * as z from "zod/mini";
import { labelKeyError } from "../k8s/labels/index.js";
import { CLUSTER_ID, MAX_CLUSTER_ID_LENGTH, MAX_CLUSTER_LABELS, MAX_CREDENTIALS, WITHOUT_SNAPSHOT, clusterLabelsError, clusterLabelsSchema, credentialProblem, maxAgeSecondsSchema, registrationSchema, tokenHashSchema, type NormalRegistration } from "./index.js";

/** Changes one request may carry: an import goes in batches of this many. */
export const MAX_CHANGES = 100;
/** A request of MAX_CHANGES of the largest registrations (8 keys, 8 hashes) is about 110 KB. */
export const MAX_CHANGE_BYTES = 256 * 1024;
/** Clusters the registry holds at most: every isolate keeps a directory of their ids (about 100 bytes each). */
export const MAX_REGISTERED_CLUSTERS = 100_000;

const clusterIdSchema = z.string().check(
  z.maxLength(MAX_CLUSTER_ID_LENGTH, `must be at most ${MAX_CLUSTER_ID_LENGTH} characters`),
  z.regex(CLUSTER_ID, "must be lowercase letters, digits and '-', starting and ending with a letter or digit"),
);
const revisionSchema = z.int().check(z.minimum(1));
const keyList = z.optional(z.array(z.string().check(z.maxLength(200))).check(z.minLength(1), z.maxLength(MAX_CREDENTIALS)));
const hashList = z.optional(z.array(tokenHashSchema).check(z.minLength(1), z.maxLength(MAX_CREDENTIALS)));

const addSchema = z.strictObject({ op: z.literal("add"), cluster: clusterIdSchema, registration: registrationSchema });

/** Credentials added and removed in one step, so a rotation needs no window; the stance may change with them. */
const rotateSchema = z.strictObject({
  op: z.literal("rotate"),
  cluster: clusterIdSchema,
  /** Refuse unless the cluster's registration is still at this revision (what `list` showed). */
  ifRevision: z.optional(revisionSchema),
  addPublicKeys: keyList,
  removePublicKeys: keyList,
  addTokenHashes: hashList,
  removeTokenHashes: hashList,
  withoutSnapshot: z.optional(z.enum(WITHOUT_SNAPSHOT)),
  anonymous: z.optional(z.boolean()),
  maxAgeSeconds: z.optional(maxAgeSecondsSchema),
});

const removeSchema = z.strictObject({ op: z.literal("remove"), cluster: clusterIdSchema, ifRevision: z.optional(revisionSchema) });

/** Labels set and removed in one step, as `kubectl label` does (`key=value`, `key-`). */
const labelSchema = z.strictObject({
  op: z.literal("label"),
  cluster: clusterIdSchema,
  ifRevision: z.optional(revisionSchema),
  set: z.optional(clusterLabelsSchema),
  remove: z.optional(
    z.array(z.string().check(z.refine((key) => labelKeyError(key) === undefined, { error: (issue) => labelKeyError(issue.input as string) ?? "invalid label key" }))).check(z.maxLength(MAX_CLUSTER_LABELS)),
  ),
});

const changeSchema = z.discriminatedUnion("op", [addSchema, rotateSchema, removeSchema, labelSchema]);
export type Change = z.infer<typeof changeSchema>;
export type RotateChange = z.infer<typeof rotateSchema>;
export type LabelChange = z.infer<typeof labelSchema>;

export const changeRequestSchema = z.strictObject({
  /**
   * Random, new for every request (newRequestId): the registry refuses a signed
   * request it has applied, and this keeps two alike changes signed in the same
   * second (add, remove, add again) two requests.
   */
  requestId: z.string().check(z.regex(/^[A-Za-z0-9-]{16,64}$/, "must be 16-64 letters, digits and '-', new for every request")),
  changes: z.array(changeSchema).check(z.minLength(1), z.maxLength(MAX_CHANGES)),
});

export function newRequestId(): string {
  return crypto.randomUUID();
}

/** `change 2 (rotate prod-eu): ` in a request of several changes; nothing in a request of one. */
export function changeLabel(change: Change, index: number, count: number): string {
  return count > 1 ? `change ${index + 1} (${change.op} ${change.cluster}): ` : "";
}

/** Why a rotate says nothing to do, or undefined. */
export function emptyRotation(change: RotateChange): string | undefined {
  const fields = [change.addPublicKeys, change.removePublicKeys, change.addTokenHashes, change.removeTokenHashes, change.withoutSnapshot, change.anonymous, change.maxAgeSeconds];
  return fields.every((field) => field === undefined) ? "a rotate must add or remove a key or token hash, or set withoutSnapshot, anonymous or maxAgeSeconds" : undefined;
}

function edited(current: readonly string[], add: readonly string[] = [], remove: readonly string[] = [], cluster: string, what: [one: string, many: string]): string[] | string {
  for (const value of remove) if (!current.includes(value)) return `cluster ${cluster} has no ${what[0]} ${value}`;
  for (const value of add) if (current.includes(value) || add.indexOf(value) !== add.lastIndexOf(value)) return `cluster ${cluster} already has ${what[0]} ${value}`;
  const result = [...current.filter((value) => !remove.includes(value)), ...add];
  if (result.length > MAX_CREDENTIALS) return `cluster ${cluster} would have ${result.length} ${what[1]}, more than ${MAX_CREDENTIALS}: remove one first`;
  return result;
}

/**
 * `current` with `change` applied, or why that cannot be done against what
 * is registered (the registry answers 409). Fields of `current` this release
 * does not know (a later release's, read back after a rollback) are kept.
 */
export function rotated(current: NormalRegistration, change: RotateChange): NormalRegistration | string {
  const publicKey = edited(current.publicKey, change.addPublicKeys, change.removePublicKeys, change.cluster, ["signing key", "signing keys"]);
  if (typeof publicKey === "string") return publicKey;
  if (publicKey.length === 0) return `cluster ${change.cluster} would have no signing key left: add the new one in the same rotate`;
  const tokenHashes = edited(current.tokenHashes, change.addTokenHashes, change.removeTokenHashes, change.cluster, ["token hash", "token hashes"]);
  if (typeof tokenHashes === "string") return tokenHashes;
  const anonymous = change.anonymous ?? current.anonymous === true;
  const noCredential = credentialProblem({ tokenHashes, anonymous });
  if (noCredential) return `cluster ${change.cluster} would be left with ${noCredential}`;
  const { anonymous: _anonymous, ...kept } = current;
  return {
    ...kept,
    publicKey,
    tokenHashes,
    ...(anonymous ? { anonymous: true as const } : {}),
    withoutSnapshot: change.withoutSnapshot ?? current.withoutSnapshot,
    maxAgeSeconds: change.maxAgeSeconds ?? current.maxAgeSeconds,
  };
}

/** Why a label change says nothing to do, or undefined. */
export function emptyLabelChange(change: LabelChange): string | undefined {
  if (Object.keys(change.set ?? {}).length === 0 && (change.remove ?? []).length === 0) return "a label change must set or remove a label";
  const both = (change.remove ?? []).find((key) => Object.hasOwn(change.set ?? {}, key));
  return both === undefined ? undefined : `label ${both} is both set and removed`;
}

/**
 * `current` with `change`'s labels set and removed, or why not (the registry
 * answers 409). Removing a label the cluster does not have is no error, and
 * the rest applies, as in kubectl label (RunLabel, k8s.io/kubectl
 * pkg/cmd/label/label.go: `label "x" not found.`, then the patch). Fields it
 * does not know are kept, as by `rotated`.
 */
export function relabeled(current: NormalRegistration, change: LabelChange): NormalRegistration | string {
  const labels: Record<string, string> = { ...current.labels };
  for (const key of change.remove ?? []) delete labels[key];
  Object.assign(labels, change.set);
  const problem = clusterLabelsError(labels);
  if (problem) return `cluster ${change.cluster} would have ${problem}`;
  const { labels: _old, ...rest } = current;
  return Object.keys(labels).length > 0 ? { ...rest, labels } : rest;
}
