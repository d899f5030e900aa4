// The webhook configuration sends the function what the built-in policies and
// the policies bound at the edge match; what it does not send is named.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { namedRuleSchema } from "../../shared/vap/index.js";
import { runCli } from "../../test/node/support/test-io.js";
import { PLACEHOLDER, uncoveredPolicyRules, webhookConfiguration, webhookRules } from "./index.js";

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
