// Which admission requests carry credentials, and rules without them: a
// rule's resources read as the apiserver's rules.Matcher reads them
// (k8s.io/apiserver pkg/admission/plugin/webhook/predicates/rules/rules.go:
// group() and version() exact or "*", resource() "res/sub" with "*" on either
// side, "*" alone no subresource).
import { describe, expect, it } from "vitest";
import { CREDENTIAL_GROUP_RESOURCES, credentialOf, describeCredential, onlyCredentialsProblem, withoutCredentials } from "./credentials.js";
import { admissionRequestSchema } from "./index.js";
import { wrapReview } from "./wrap.js";

const rule = (apiGroups: string[], resources: string[]) => ({ apiGroups, apiVersions: ["v1"], resources, operations: ["CREATE", "UPDATE"], scope: "*" as const, resourceNames: ["kept"] });
const requestOf = (object: Parameters<typeof wrapReview>[0]) => admissionRequestSchema.parse(wrapReview(object).request);
const core = CREDENTIAL_GROUP_RESOURCES[""]!;

describe("credentialOf", () => {
  it("names a Secret, a TokenReview and a serviceaccounts/token request by their resource, or by their object's kind", () => {
    const secret = requestOf({ apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop" }, data: { password: "aHVudGVyMg==" } });
    expect(credentialOf(secret)?.resource).toBe("secrets");
    const review = requestOf({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "eyJ" } });
    expect(describeCredential(credentialOf(review)!)).toBe("tokenreviews.authentication.k8s.io");
    // POST serviceaccounts/<name>/token: the resource is serviceaccounts, its kind TokenRequest (api/discovery/api__v1.json).
    const token = { ...requestOf({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "ci", namespace: "shop" } }), subResource: "token" };
    expect(describeCredential(credentialOf(token)!)).toBe("serviceaccounts/token");
    const byKind = { uid: "u", operation: "CREATE" as const, kind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" } };
    expect(describeCredential(credentialOf(byKind)!)).toBe("serviceaccounts/token");
  });

  it("names nothing else: a ServiceAccount, a ConfigMap, a CSR, pods/exec, a custom resource called secrets", () => {
    expect(credentialOf(requestOf({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "ci", namespace: "shop" } }))).toBeUndefined();
    expect(credentialOf(requestOf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop" } }))).toBeUndefined();
    expect(credentialOf(requestOf({ apiVersion: "certificates.k8s.io/v1", kind: "CertificateSigningRequest", metadata: { name: "csr" } }))).toBeUndefined();
    const exec = { ...requestOf({ apiVersion: "v1", kind: "PodExecOptions", metadata: { name: "web", namespace: "shop" } }), resource: { group: "", version: "v1", resource: "pods" }, subResource: "exec" };
    expect(credentialOf(exec)).toBeUndefined();
    expect(credentialOf(requestOf({ apiVersion: "example.com/v1", kind: "Secret", metadata: { name: "s", namespace: "shop" } }))).toBeUndefined();
  });
});

describe("withoutCredentials", () => {
  it("leaves a rule that reaches no credential as it is", () => {
    for (const unchanged of [rule([""], ["pods", "pods/status", "*/scale"]), rule(["apps"], ["*"]), rule(["*"], ["deployments"]), rule(["authentication.k8s.io"], ["selfsubjectreviews"])])
      expect(withoutCredentials(unchanged)).toEqual([unchanged]);
  });

  it("writes a wildcard of the core group out as the resources Kubernetes serves there, less secrets and serviceaccounts/token", () => {
    // api/discovery/api__v1.json's resources without a subresource, less secrets.
    const plain = ["bindings", "componentstatuses", "configmaps", "endpoints", "events", "limitranges", "namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes", "pods", "podtemplates", "replicationcontrollers", "resourcequotas", "serviceaccounts", "services"];
    expect(withoutCredentials(rule([""], ["*"]))).toEqual([rule([""], plain)]);
    expect(withoutCredentials(rule([""], ["*/*"]))).toEqual([rule([""], core.filter((name) => name !== "secrets" && name !== "serviceaccounts/token"))]);
    // serviceaccounts' one subresource is token; */token reaches nothing else in the core group.
    expect(withoutCredentials(rule([""], ["serviceaccounts/*", "*/token"]))).toEqual([rule([""], ["serviceaccounts"])]);
    expect(withoutCredentials(rule(["authentication.k8s.io"], ["*"]))).toEqual([rule(["authentication.k8s.io"], ["selfsubjectreviews"])]);
  });

  it("splits a rule by group: the others keep its resources, the core group loses the credentials it names", () => {
    expect(withoutCredentials(rule(["", "apps"], ["secrets", "pods", "deployments"]))).toEqual([rule(["apps"], ["secrets", "pods", "deployments"]), rule([""], ["pods", "deployments"])]);
  });

  it("keeps the wildcards of a rule over every group (the webhook's matchConditions keep credentials out of them) and drops the credentials it names", () => {
    expect(withoutCredentials(rule(["*"], ["*"]))).toEqual([rule(["*"], ["*"])]);
    expect(withoutCredentials(rule(["*", "apps"], ["secrets", "configmaps", "serviceaccounts/*", "tokenreviews"]))).toEqual([rule(["*"], ["configmaps", "serviceaccounts"])]);
  });

  it("leaves nothing of a rule that can only match credentials", () => {
    expect(withoutCredentials(rule([""], ["secrets", "serviceaccounts/token"]))).toEqual([]);
    expect(withoutCredentials(rule(["*"], ["secrets"]))).toEqual([]);
  });
});

describe("onlyCredentialsProblem", () => {
  it("says which credentials a policy's rules match when that is all they match", () => {
    expect(onlyCredentialsProblem([rule([""], ["secrets"]), rule(["authentication.k8s.io"], ["tokenreviews"])])).toBe(
      `spec.matchConstraints.resourceRules match only secrets, tokenreviews.authentication.k8s.io, whose admission requests carry credentials: edgeadmit never judges them, and its webhook configuration never sends them (docs/validating-admission-policies.md, "Credentials are never judged")`,
    );
    expect(onlyCredentialsProblem([rule([""], ["secrets"]), rule([""], ["configmaps"])])).toBeUndefined();
    expect(onlyCredentialsProblem([rule(["*"], ["*"])])).toBeUndefined();
    expect(onlyCredentialsProblem([])).toBeUndefined();
  });
});
