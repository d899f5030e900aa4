// The ValidatingWebhookConfiguration that points a cluster's kube-apiserver at
// the function. `edgeadmit webhook-config` prints it with the function's real
// URL; infra/k8s leaves it out, since a placeholder URL under failurePolicy
// Fail would block every pod.
import { clusterIdError } from "../../shared/clusters/index.js";
import type { NamedRule } from "../../shared/vap/index.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { uncoveredPolicyRules, type WebhookRule } from "../../shared/vap/coverage.js";
import { CREDENTIAL_RESOURCES, credentialsReached, describeCredential, withoutCredentials } from "../../shared/admission/credentials.js";

export { uncoveredPolicyRules, type WebhookRule };

export const FAILURE_POLICIES = ["Fail", "Ignore"] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

export const WEBHOOK_CONFIGURATION_NAME = "edgeadmit";
export const DEFAULT_TIMEOUT_SECONDS = 5;
/** What infra/k8s's sync job pushes to until an overlay sets the real URL and cluster. */
export const PLACEHOLDER = { url: "https://edgeadmit.example.com", cluster: "my-cluster" } as const;

export interface WebhookOptions {
  /** The function's base URL: https, no query, fragment or user info, not a route of it. */
  url: string;
  cluster: string;
  /** The token for the URL form (managed control planes, which cannot present one in a header). */
  token?: string;
  /** PEM certificates the apiserver trusts for the URL's TLS (a local function with a self-signed certificate); the system's roots when absent. */
  caBundle?: string;
  failurePolicy?: FailurePolicy;
  timeoutSeconds?: number;
  /** The resource rules of the cluster's policies bound at the edge (a snapshot's policySetOf(...).rules). */
  policyRules?: ReadonlyArray<{ policy: string; rule: NamedRule }>;
}

/** The rules the built-in policies need. */
function builtInRules(): WebhookRule[] {
  const write = ["CREATE", "UPDATE"];
  return [
    { apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "Namespaced" },
    { apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments", "statefulsets", "daemonsets", "replicasets"], operations: write, scope: "Namespaced" },
    { apiGroups: ["batch"], apiVersions: ["v1"], resources: ["jobs", "cronjobs"], operations: write, scope: "Namespaced" },
    { apiGroups: ["cozystack.io"], apiVersions: ["v1alpha1"], resources: ["affinityclasses"], operations: [...write, "DELETE"], scope: "Cluster" },
    { apiGroups: ["apps.cozystack.io"], apiVersions: ["*"], resources: ["*"], operations: write, scope: "*" },
  ];
}

/** A bound policy's rule as a webhook rule: the same lists (a VAP rule's resourceNames narrow it further, the function checks them). */
function asWebhookRule(rule: NamedRule): WebhookRule {
  return { apiGroups: rule.apiGroups, apiVersions: rule.apiVersions, resources: rule.resources, operations: rule.operations, scope: rule.scope };
}

/** Why `options` cannot make a configuration the kube-apiserver accepts, or undefined. */
export function webhookOptionsError(options: WebhookOptions): string | undefined {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return `--url "${options.url}" is not a URL`;
  }
  if (url.protocol !== "https:") return `--url must be https:// (the kube-apiserver calls webhooks over TLS only), not ${url.protocol}//`;
  if (url.search || url.hash || url.username || url.password || options.url.includes("?") || options.url.includes("#"))
    return "--url may not carry a query string, fragment or user info: the kube-apiserver refuses them in clientConfig.url";
  const routeError = routeInBaseUrl(url);
  if (routeError) return routeError;
  const idError = clusterIdError(options.cluster);
  if (idError) return `--cluster: ${idError}`;
  const timeout = options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30) return `--timeout must be a whole number of seconds from 1 to 30 (the kube-apiserver's range), not ${timeout}`;
  return undefined;
}

/**
 * The built-in policies' rules, then each bound policy's rules that they do
 * not already cover, each without the credential resources it reaches
 * (shared/admission/credentials.ts withoutCredentials: a wildcard in the core
 * group or authentication.k8s.io written out as what Kubernetes serves there).
 */
export function webhookRules(policyRules: ReadonlyArray<{ policy: string; rule: NamedRule }>): WebhookRule[] {
  const rules = builtInRules();
  for (const { policy, rule } of policyRules)
    for (const part of withoutCredentials(rule)) if (uncoveredPolicyRules(rules, [{ policy, rule: part }]).length > 0) rules.push(asWebhookRule(part));
  return rules;
}

/** One line per policy whose rules match credential resources: what the configuration does not send it, and why. */
export function credentialsNotSent(policyRules: ReadonlyArray<{ policy: string; rule: NamedRule }>): string[] {
  const byPolicy = new Map<string, Set<string>>();
  for (const { policy, rule } of policyRules)
    for (const credential of credentialsReached(rule)) byPolicy.set(policy, (byPolicy.get(policy) ?? new Set()).add(describeCredential(credential)));
  return [...byPolicy].map(
    ([policy, names]) =>
      `ValidatingAdmissionPolicy '${policy}' matches ${[...names].join(", ")}, which carry credentials: not sent to the edge, nor judged there (docs/validating-admission-policies.md, "Credentials are never judged")`,
  );
}

/**
 * The webhook's matchConditions: the apiserver calls the webhook only when
 * all are true, so it never sends a request whose object is of a kind that
 * carries credentials, whatever the rules say (a rule over every group keeps
 * its wildcards, and a rule added by hand is caught too). GA since
 * Kubernetes 1.30, the oldest edgeadmit supports (KEP-3716). They read
 * request.kind, which every AdmissionRequest has: an expression that cannot
 * fail, so failurePolicy never applies to them.
 */
export function credentialMatchConditions(): Array<{ name: string; expression: string }> {
  const kinds = new Map(CREDENTIAL_RESOURCES.map(({ kind }) => [`${kind.group}/${kind.kind}`, kind]));
  return [...kinds.values()].map(({ group, kind }) => ({
    name: `never-${kind.toLowerCase()}`,
    expression: `!(request.kind.group == ${JSON.stringify(group)} && request.kind.kind == ${JSON.stringify(kind)})`,
  }));
}


/** Why a --url that already holds the function's /v1/ route is not its base URL, with the one to pass; undefined for a base URL. */
export function routeInBaseUrl(url: URL, flag = "--url"): string | undefined {
  const route = url.pathname.indexOf("/v1/");
  if (route < 0 && !url.pathname.endsWith("/v1")) return undefined;
  const base = `${url.origin}${url.pathname.slice(0, route < 0 ? -"/v1".length : route)}`;
  return `${flag} is the function's base URL, and ${url.href} already holds its /v1/ route: pass ${flag} ${base}`;
}

/** The URL the apiserver sends reviews to: the cluster's route, with the token in the path when given (the URL form). */
export function validateUrl(base: string, cluster: string, token?: string): string {
  return `${base.replace(/\/+$/, "")}/v1/${cluster}${token === undefined ? "" : `/token/${token}`}/validate`;
}

export function webhookConfiguration(options: WebhookOptions) {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: WEBHOOK_CONFIGURATION_NAME, labels: { "app.kubernetes.io/name": "edgeadmit" } },
    webhooks: [
      {
        name: "validate.edgeadmit.io",
        // The cluster id is a path segment the apiserver shows in errors; a token there is seen too (docs/operations.md: the URL form).
        clientConfig: {
          url: validateUrl(options.url, options.cluster, options.token),
          // caBundle is []byte in the API: base64 in YAML and JSON.
          ...(options.caBundle === undefined ? {} : { caBundle: Buffer.from(options.caBundle).toString("base64") }),
        },
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: options.failurePolicy ?? "Fail",
        timeoutSeconds: options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
        matchPolicy: "Equivalent",
        // Never judge kube-system or the sync job's own namespace: whatever the function
        // says (or if it cannot be reached), the job that repairs it can always run.
        namespaceSelector: {
          matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", JOB_NAMESPACE] }],
        },
        rules: webhookRules(options.policyRules ?? []),
        // No Secret, TokenRequest or TokenReview is ever sent to the edge (docs/validating-admission-policies.md, "Credentials are never judged").
        matchConditions: credentialMatchConditions(),
      },
    ],
  };
}
