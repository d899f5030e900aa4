// What never leaves the cluster, whatever a policy declares: the one list
// the builder (snapshot build, sync), check and the function's push all
// refuse by (docs/inventory.md, "What leaves the cluster").
//
// - A Secret travels as its identity, metadata.labels and type, never more:
//   data and stringData are the values; metadata.annotations can hold them
//   again (kubectl's last-applied-configuration of a Secret is its data).
//   Service account tokens and bootstrap tokens (kube-system
//   bootstrap-token-*) are Secrets, so this covers them.
// - TokenRequest and TokenReview (authentication.k8s.io) carry bearer
//   tokens in spec.token / status.token; nothing of them travels.
// - Of any kind, metadata.managedFields (who wrote which field: for a
//   Secret, the names of its keys) and the annotation
//   kubectl.kubernetes.io/last-applied-configuration (the whole object as
//   last applied) are never projected: declaring them is refused, and a
//   declared `metadata` or `metadata.annotations` is kept without them.
//
// ConfigMaps are not secret by Kubernetes' design (RBAC and encryption at
// rest treat them as plain data), so their data travels when declared.
import { CREDENTIAL_RESOURCES } from "../admission/credentials.js";

/** A field path as paths.ts parses it (its steps: names, or a symbol for [*]). */
interface Path {
  readonly text: string;
  readonly steps: readonly unknown[];
}

/** Where every refusal points: the documented rule. */
const WHERE = `docs/inventory.md, "What leaves the cluster"`;

export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/** Paths never projected from any kind (kept out of a whole `metadata` or `metadata.annotations`). */
export const NEVER_PROJECTED: readonly (readonly string[])[] = [
  ["metadata", "managedFields"],
  ["metadata", "annotations", LAST_APPLIED_ANNOTATION],
];

/** The only paths of a Secret that travel (besides apiVersion and kind), and whatever lies inside them. */
const SECRET_KEPT: readonly (readonly string[])[] = [["apiVersion"], ["kind"], ["metadata", "name"], ["metadata", "namespace"], ["metadata", "labels"], ["type"]];
/** Kinds of which nothing but the identity travels: they carry bearer tokens (the credential kinds but Secret, shared/admission/credentials.ts; group/kind, the kind lowercased). */
const TOKEN_KINDS = new Set(CREDENTIAL_RESOURCES.filter(({ kind }) => kind.group !== "").map(({ kind }) => `${kind.group}/${kind.kind.toLowerCase()}`));

/**
 * The group and kind this rule keys on, whatever the spelling: the core
 * group is `v1`, `/v1` or `core/v1` (the name Kubernetes' API reference gives
 * it), and a kind is compared without its case. An object stored under any
 * spelling is read by a policy declaring that spelling, so each is refused.
 */
function groupKindOf(apiVersion: string, kind: string): string {
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return `${group === "core" ? "" : group}/${kind.toLowerCase()}`;
}
const startsWith = (steps: readonly unknown[], prefix: readonly string[]) => prefix.length <= steps.length && prefix.every((step, at) => steps[at] === step);

/**
 * Why `path` of kind `apiVersion`/`kind` may not leave the cluster, or
 * undefined. `path` undefined is the whole object (a paramKind's objects
 * travel whole).
 */
export function neverLeaves(apiVersion: string, kind: string, path: Path | undefined): string | undefined {
  const groupKind = groupKindOf(apiVersion, kind);
  const steps = path?.steps ?? [];
  const what = path ? path.text : "the whole object";
  if (groupKind === "/secret" && !SECRET_KEPT.some((kept) => startsWith(steps, kept)))
    return `${what} of ${apiVersion} ${kind} never leaves the cluster: of a Secret only metadata.name, metadata.namespace, metadata.labels and type do (${WHERE})`;
  if (TOKEN_KINDS.has(groupKind)) return `${what} of ${apiVersion} ${kind} never leaves the cluster: it carries a bearer token (${WHERE})`;
  if (path && NEVER_PROJECTED.some((never) => startsWith(steps, never)))
    return `${path.text} of ${apiVersion} ${kind} never leaves the cluster: metadata.managedFields and the annotation ${LAST_APPLIED_ANNOTATION} of no kind do (${WHERE})`;
  return undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What an object as it travels (projected, or a param) holds that never
 * leaves the cluster, or undefined: the function's check of a push, which
 * reads every top-level and metadata key, and the last-applied annotation.
 */
export function objectLeak(apiVersion: string, kind: string, object: unknown): string | undefined {
  if (!isRecord(object)) return undefined;
  const paths: Path[] = [];
  for (const key of Object.keys(object)) if (key !== "metadata") paths.push({ text: key, steps: [key] });
  const metadata = object["metadata"];
  if (isRecord(metadata)) {
    for (const key of Object.keys(metadata)) paths.push({ text: `metadata.${key}`, steps: ["metadata", key] });
    const annotations = metadata["annotations"];
    if (isRecord(annotations) && Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION))
      paths.push({ text: `metadata.annotations['${LAST_APPLIED_ANNOTATION}']`, steps: NEVER_PROJECTED[1]! });
  }
  for (const path of paths) {
    const refused = neverLeaves(apiVersion, kind, path);
    if (refused) return refused;
  }
  return undefined;
}
