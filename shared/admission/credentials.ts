// The admission requests that carry credentials: never sent to the edge
// (edgeadmit webhook-config keeps them out of the rules and adds a
// matchCondition that skips them), never judged there (a review of one that
// arrives anyway is allowed unjudged, uncounted, unlogged), and no policy that
// can match only them is bound (docs/validating-admission-policies.md,
// "Credentials are never judged"). The snapshot's side of the same rule, what
// never leaves the cluster in a snapshot, is shared/inventory/secrets.ts,
// which takes its token kinds from here.
//
// Considered and left out, each for a reason upstream states:
// - CertificateSigningRequest (certificates.k8s.io): spec.request is a PKCS#10
//   request (a public key and a subject, signed); the private key never
//   leaves the requester, and status.certificate is the public certificate
//   (k8s.io/api certificates/v1 types.go, CertificateSigningRequestSpec.Request).
// - pods/exec, pods/attach, pods/portforward (CONNECT): the object is
//   PodExecOptions, PodAttachOptions or PodPortForwardOptions (a command,
//   a container, ports), no credential (k8s.io/api core/v1 types.go).
// - ConfigMaps: not secret by contract (core/v1 types.go: "ConfigMap holds
//   configuration data for pods to consume"; RBAC and encryption at rest treat
//   Secrets apart), as in secrets.ts.
// - SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview
//   (authorization.k8s.io) and SelfSubjectReview (authentication.k8s.io): a
//   user's name, groups and extra, who someone is, not what proves it.
// - ServiceAccount: its secrets and imagePullSecrets are references (names).
import type { AdmissionRequest } from "./index.js";

/** One resource whose admission requests carry credential material. */
export interface CredentialResource {
  /** The API group it is served in ("" for the core group). */
  group: string;
  resource: string;
  /** The subresource, "" for none. */
  subresource: string;
  /** The kind of the object its requests carry. */
  kind: { group: string; kind: string };
  /** Where the credential is, for messages. */
  carries: string;
}

export const CREDENTIAL_RESOURCES: readonly CredentialResource[] = [
  // k8s.io/api core/v1 types.go, type Secret: Data and StringData are the secret values (service account and bootstrap tokens are Secrets too).
  { group: "", resource: "secrets", subresource: "", kind: { group: "", kind: "Secret" }, carries: "data and stringData" },
  // k8s.io/api authentication/v1 types.go, TokenRequestStatus.Token: a bearer token, issued by POST serviceaccounts/<name>/token
  // (kubernetes pkg/registry/core/serviceaccount/storage/token.go, TokenREST.Create: the kind is authentication.k8s.io/v1 TokenRequest).
  // Admission sees the request before the token is issued, but the subresource exists to mint credentials: who may, is the cluster's.
  { group: "", resource: "serviceaccounts", subresource: "token", kind: { group: "authentication.k8s.io", kind: "TokenRequest" }, carries: "status.token" },
  // k8s.io/api authentication/v1 types.go, TokenReviewSpec.Token: the bearer token under review, in the object admission sees
  // (pkg/registry/authentication/tokenreview/storage.go, REST.Create calls createValidation with it).
  { group: "authentication.k8s.io", resource: "tokenreviews", subresource: "", kind: { group: "authentication.k8s.io", kind: "TokenReview" }, carries: "spec.token" },
  // Upstream serves TokenRequest only as serviceaccounts/token (api/discovery/api__v1.json); a rule naming this resource in
  // its own group would reach its objects should any server serve them so, so it is kept out too.
  { group: "authentication.k8s.io", resource: "tokenrequests", subresource: "", kind: { group: "authentication.k8s.io", kind: "TokenRequest" }, carries: "status.token" },
];

/**
 * What Kubernetes serves in the groups that hold credentials, with their
 * subresources: what a wildcard in those groups is written out as. Kubernetes
 * serves these groups itself (a CRD's group has a dot and is not a built-in
 * one; the core group is /api, which no aggregated server serves), so the list
 * is complete for the versions edgeadmit supports, 1.30 to 1.37; a name one
 * version does not serve never matches there. Sources:
 * kubernetes api/discovery/api__v1.json and apis__authentication.k8s.io__v1.json,
 * with pods/resize (InPlacePodVerticalScaling, 1.33) and pods/checkpoint.
 */
export const CREDENTIAL_GROUP_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  "": [
    "bindings",
    "componentstatuses",
    "configmaps",
    "endpoints",
    "events",
    "limitranges",
    "namespaces",
    "namespaces/finalize",
    "namespaces/status",
    "nodes",
    "nodes/proxy",
    "nodes/status",
    "persistentvolumeclaims",
    "persistentvolumeclaims/status",
    "persistentvolumes",
    "persistentvolumes/status",
    "pods",
    "pods/attach",
    "pods/binding",
    "pods/checkpoint",
    "pods/ephemeralcontainers",
    "pods/eviction",
    "pods/exec",
    "pods/log",
    "pods/portforward",
    "pods/proxy",
    "pods/resize",
    "pods/status",
    "podtemplates",
    "replicationcontrollers",
    "replicationcontrollers/scale",
    "replicationcontrollers/status",
    "resourcequotas",
    "resourcequotas/status",
    "secrets",
    "serviceaccounts",
    "serviceaccounts/token",
    "services",
    "services/proxy",
    "services/status",
  ],
  "authentication.k8s.io": ["selfsubjectreviews", "tokenreviews"],
};

/** `secrets`, `serviceaccounts/token`: a credential resource as a rule's resources name it. */
const credentialEntry = (credential: CredentialResource): string => (credential.subresource === "" ? credential.resource : `${credential.resource}/${credential.subresource}`);

/** How messages name a credential resource: `secrets`, `tokenreviews.authentication.k8s.io`. */
export const describeCredential = (credential: CredentialResource): string => `${credentialEntry(credential)}${credential.group === "" ? "" : `.${credential.group}`}`;

/** The credential resource an admission request is about, by its resource or by its object's kind; undefined for any other request. Reads neither object. */
export function credentialOf(request: Pick<AdmissionRequest, "kind" | "resource" | "subResource">): CredentialResource | undefined {
  const group = request.resource?.group ?? request.kind.group;
  const resource = request.resource?.resource;
  const subresource = request.subResource ?? "";
  return CREDENTIAL_RESOURCES.find(
    (credential) =>
      (credential.group === group && credential.resource === resource && credential.subresource === subresource) ||
      (credential.kind.group === request.kind.group && credential.kind.kind === request.kind.kind),
  );
}

/** The lists of a webhook rule or a policy's resource rule that say what it matches. */
interface RuleLists {
  apiGroups: string[];
  resources: string[];
}

/** A `resources` entry as [resource, subresource] ("" for none). */
const split = (entry: string): [string, string] => {
  const slash = entry.indexOf("/");
  return slash < 0 ? [entry, ""] : [entry.slice(0, slash), entry.slice(slash + 1)];
};

/** Whether a rule's `resources` entry matches `resource/subresource`, as the apiserver's rules.Matcher reads it (predicates/rules/rules.go, resource()). */
function entryMatches(entry: string, resource: string, subresource: string): boolean {
  const [res, sub] = split(entry);
  return (res === "*" || res === resource) && (sub === "*" || sub === subresource);
}

/** The credential resources a rule reaches (its groups and resources; versions, operations and scope aside). */
export function credentialsReached(rule: RuleLists): CredentialResource[] {
  return CREDENTIAL_RESOURCES.filter(
    (credential) =>
      (rule.apiGroups.includes("*") || rule.apiGroups.includes(credential.group)) && rule.resources.some((entry) => entryMatches(entry, credential.resource, credential.subresource)),
  );
}

const isCredential = (group: string, entry: string) => {
  const [resource, subresource] = split(entry);
  return CREDENTIAL_RESOURCES.some((credential) => credential.group === group && credential.resource === resource && credential.subresource === subresource);
};

/** A credential-holding group's `resources`, wildcards written out as what Kubernetes serves there, less the credentials. */
function writtenOut(group: string, resources: readonly string[]): string[] {
  const served = CREDENTIAL_GROUP_RESOURCES[group]!;
  const out: string[] = [];
  for (const entry of resources) {
    const [resource, subresource] = split(entry);
    const names = resource === "*" || subresource === "*" ? served.filter((name) => entryMatches(entry, ...split(name))) : [entry];
    for (const name of names) if (!isCredential(group, name) && !out.includes(name)) out.push(name);
  }
  return out;
}

/** The entries of a rule over every group (`apiGroups: ["*"]`) less those that name a credential resource; `serviceaccounts/*` is `serviceaccounts` (token is its only subresource). */
function withoutCredentialNames(resources: readonly string[]): string[] {
  const out: string[] = [];
  for (const entry of resources) {
    const name = entry === "serviceaccounts/*" ? "serviceaccounts" : entry;
    if (!CREDENTIAL_RESOURCES.some((credential) => credentialEntry(credential) === name) && !out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * `rule` without the credential resources it reaches: the same rule when it
 * reaches none; else a rule per part, without the parts left empty ([] when
 * it can only match credentials):
 * - its groups that hold no credential, with its resources unchanged;
 * - the core group and authentication.k8s.io, each with its resources
 *   written out (a wildcard as the resources Kubernetes serves there) less
 *   the credentials;
 * - or, for a rule over every group (`*`), one rule with its entries that
 *   name a credential left out. Its wildcards stay: written out, they would
 *   stop reaching the groups CRDs add after the render; the webhook's
 *   matchConditions (infra/webhook) keep the credentials out of them.
 */
export function withoutCredentials<R extends RuleLists>(rule: R): R[] {
  if (credentialsReached(rule).length === 0) return [rule];
  if (rule.apiGroups.includes("*")) {
    const resources = withoutCredentialNames(rule.resources);
    return resources.length > 0 ? [{ ...rule, apiGroups: ["*"], resources }] : [];
  }
  const parts: R[] = [];
  const plain = rule.apiGroups.filter((group) => CREDENTIAL_GROUP_RESOURCES[group] === undefined);
  if (plain.length > 0) parts.push({ ...rule, apiGroups: plain });
  for (const group of Object.keys(CREDENTIAL_GROUP_RESOURCES)) {
    const resources = rule.apiGroups.includes(group) ? writtenOut(group, rule.resources) : [];
    if (resources.length > 0) parts.push({ ...rule, apiGroups: [group], resources });
  }
  return parts;
}

/**
 * Why a policy whose `rules` (its matchConstraints.resourceRules) can match
 * only credential resources (each, without them, is left empty) is never
 * bound; undefined when they match anything else, or nothing at all.
 */
export function onlyCredentialsProblem(rules: readonly RuleLists[]): string | undefined {
  if (rules.length === 0 || rules.some((rule) => withoutCredentials(rule).length > 0)) return undefined;
  const reached = CREDENTIAL_RESOURCES.filter((credential) => rules.some((rule) => credentialsReached(rule).includes(credential)));
  return `spec.matchConstraints.resourceRules match only ${reached.map(describeCredential).join(", ")}, whose admission requests carry credentials: edgeadmit never judges them, and its webhook configuration never sends them (docs/validating-admission-policies.md, "Credentials are never judged")`;
}
