// The webhook configuration sends the function what the built-in policies and
// the policies bound at the edge match; what it does not send is named.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { admissionRequestSchema } from "../../shared/admission/index.js";
import { CREDENTIAL_GROUP_RESOURCES } from "../../shared/admission/credentials.js";
import { wrapReview, type WrappableObject } from "../../shared/admission/wrap.js";
import { buildSnapshot } from "../../shared/snapshot/builder/index.js";
import { SnapshotView } from "../../shared/snapshot/view.js";
import { compilePolicySet, namedRuleSchema } from "../../shared/vap/index.js";
import { runCli } from "../../test/node/support/test-io.js";
import { credentialMatchConditions, PLACEHOLDER, uncoveredPolicyRules, webhookConfiguration, webhookRules } from "./index.js";

const rule = (fields: Record<string, unknown>) => namedRuleSchema.parse(fields);
const builtIn = webhookRules([]);

describe("webhookRules", () => {
  it("adds a bound policy's rule only when the built-in rules do not already send it", () => {
    const deployments = { policy: "replicas", rule: rule({ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], operations: ["CREATE"] }) };
    const services = { policy: "lb", rule: rule({ apiGroups: [""], apiVersions: ["v1"], resources: ["services"], operations: ["CREATE", "UPDATE"], scope: "Namespaced" }) };
    expect(webhookRules([deployments])).toEqual(builtIn);
    expect(webhookRules([deployments, services])).toEqual([...builtIn, { apiGroups: [""], apiVersions: ["v1"], resources: ["services"], operations: ["CREATE", "UPDATE"], scope: "Namespaced" }]);
  });
});

describe("no credential is sent to the edge", () => {
  const coreServed = CREDENTIAL_GROUP_RESOURCES[""]!.filter((name) => !name.includes("/") && name !== "secrets");

  it("renders no rule that names secrets, serviceaccounts/token, tokenreviews or tokenrequests: a wildcard in their group is written out as what Kubernetes serves there", () => {
    const everyCore = { policy: "labels", rule: rule({ apiGroups: [""], apiVersions: ["v1"], resources: ["*"], operations: ["CREATE"] }) };
    const named = { policy: "peek", rule: rule({ apiGroups: [""], apiVersions: ["v1"], resources: ["secrets", "serviceaccounts/token", "configmaps"], operations: ["CREATE"] }) };
    const tokens = { policy: "tokens", rule: rule({ apiGroups: ["authentication.k8s.io"], apiVersions: ["v1"], resources: ["tokenreviews", "tokenrequests", "selfsubjectreviews"], operations: ["CREATE"] }) };
    expect(webhookRules([everyCore, named, tokens]).slice(builtIn.length)).toEqual([
      { apiGroups: [""], apiVersions: ["v1"], resources: coreServed, operations: ["CREATE"], scope: "*" },
      { apiGroups: ["authentication.k8s.io"], apiVersions: ["v1"], resources: ["selfsubjectreviews"], operations: ["CREATE"], scope: "*" },
    ]);
    expect(webhookRules([named]).slice(builtIn.length)).toEqual([{ apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"], operations: ["CREATE"], scope: "*" }]);
    // A policy's rule that matched secrets is covered by the rules rendered for it: coverage never asks for a credential.
    expect(uncoveredPolicyRules(webhookRules([everyCore, named, tokens]), [everyCore, named, tokens])).toEqual([]);
    expect(uncoveredPolicyRules(builtIn, [named])).toEqual(["ValidatingAdmissionPolicy 'peek' matches CREATE configmaps/v1"]);
  });

  it("keeps a rule over every group, and skips every request of a credential kind by matchConditions", () => {
    const everything = { policy: "all", rule: rule({ apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], operations: ["*"] }) };
    const webhook = webhookConfiguration({ ...PLACEHOLDER, policyRules: [everything] }).webhooks[0]!;
    expect(webhook.rules.at(-1)).toEqual({ apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], operations: ["*"], scope: "*" });
    expect(webhook.matchConditions).toEqual([
      { name: "never-secret", expression: '!(request.kind.group == "" && request.kind.kind == "Secret")' },
      { name: "never-tokenrequest", expression: '!(request.kind.group == "authentication.k8s.io" && request.kind.kind == "TokenRequest")' },
      { name: "never-tokenreview", expression: '!(request.kind.group == "authentication.k8s.io" && request.kind.kind == "TokenReview")' },
    ]);
  });

  it("has matchConditions that compile in the apiserver's environment (a typed request) and are false exactly for the credential kinds", () => {
    // The same CEL a ValidatingAdmissionPolicy's matchConditions get: a webhook's are compiled with the same request type (KEP-3716).
    const set = compilePolicySet({
      policies: {
        probe: {
          metadata: { name: "probe" },
          spec: {
            matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], operations: ["*"] }] },
            matchConditions: credentialMatchConditions(),
            validations: [{ expression: "false", message: "sent" }],
          },
        },
      },
      bindings: { probe: { metadata: { name: "probe" }, spec: { policyName: "probe", validationActions: ["Deny"] } } },
    });
    expect(set.problems).toEqual([]);
    const view = new SnapshotView(buildSnapshot([{ apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }], { generation: 1, builtAt: "2026-01-01T00:00:00Z" }).snapshot);
    const sent = (object: WrappableObject, subResource?: string) => {
      const request = admissionRequestSchema.parse(wrapReview(object, { namespace: "shop" }).request);
      return set.evaluate(subResource === undefined ? request : { ...request, resource: { group: "", version: "v1", resource: "serviceaccounts" }, subResource }, view).outcomes.length > 0;
    };
    expect(sent({ apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data: { password: "aHVudGVyMg==" } })).toBe(false);
    expect(sent({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "eyJ" } })).toBe(false);
    expect(sent({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: { name: "ci" }, spec: { audiences: ["api"] } }, "token")).toBe(false);
    expect(sent({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } })).toBe(true);
    expect(sent({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "ci" } })).toBe(true);
    expect(sent({ apiVersion: "example.com/v1", kind: "Secret", metadata: { name: "s" } })).toBe(true);
  });
});

describe("uncoveredPolicyRules", () => {
  it("names each operation and resource not sent, wildcards only covered by wildcards", () => {
    const everything = { policy: "all", rule: rule({ apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], operations: ["*"] }) };
    expect(uncoveredPolicyRules(builtIn, [everything])).toEqual(["ValidatingAdmissionPolicy 'all' matches * *.*/*"]);
    expect(uncoveredPolicyRules([{ apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], operations: ["*"], scope: "*" }], [everything])).toEqual([]);
    const pods = { policy: "exec", rule: rule({ apiGroups: [""], apiVersions: ["v1"], resources: ["pods", "pods/exec"], operations: ["CREATE", "CONNECT"] }) };
    expect(uncoveredPolicyRules(builtIn, [pods])).toEqual(["ValidatingAdmissionPolicy 'exec' matches CONNECT pods/v1, CREATE pods/exec/v1, CONNECT pods/exec/v1"]);
    expect(uncoveredPolicyRules([{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods/*", "pods"], operations: ["*"], scope: "*" }], [pods])).toEqual([]);
  });

  it("treats only opposite explicit scopes as excluding each other", () => {
    const clusterScoped = { policy: "nodes", rule: rule({ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"], scope: "Cluster" }) };
    expect(uncoveredPolicyRules(builtIn, [clusterScoped])).toEqual(["ValidatingAdmissionPolicy 'nodes' matches CREATE pods/v1"]);
  });
});

describe("edgeadmit webhook-config --snapshot", () => {
  it("adds the rules of the policies bound in the snapshot", async () => {
    const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: lb}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [services]}]
  validations: [{expression: "object.spec.type != 'LoadBalancer'"}]
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: lb}
spec: {policyName: lb, validationActions: [Deny]}
`;
    const built = await runCli(["snapshot", "build", "-f", "-"], yaml);
    expect(built.code).toBe(0);
    const { code, stdout, stderr } = await runCli(["webhook-config", "--url", PLACEHOLDER.url, "--cluster", PLACEHOLDER.cluster, "--snapshot", "-"], built.stdout);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const rules = parse(stdout).webhooks[0].rules;
    expect(rules).toEqual([...webhookConfiguration(PLACEHOLDER).webhooks[0]!.rules, { apiGroups: [""], apiVersions: ["v1"], resources: ["services"], operations: ["CREATE", "UPDATE"], scope: "*" }]);
  });

  it("refuses a file that is not a snapshot, in one line", async () => {
    const { code, stdout, stderr } = await runCli(["webhook-config", "--url", PLACEHOLDER.url, "--cluster", PLACEHOLDER.cluster, "--snapshot", "-"], "[]");
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toMatch(/^edgeadmit webhook-config: <stdin>: snapshot does not match the schema: .*\n$/);
  });
});
