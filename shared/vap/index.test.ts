// The cluster's own ValidatingAdmissionPolicies at the edge: what the
// apiserver would decide, with its messages, for policies, bindings and
// params given as the YAML a cluster holds.
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { decodeAdmissionReview } from "../admission/index.js";
import { wrapReview, type WrapOptions } from "../admission/wrap.js";
import { review } from "../review/index.js";
import { buildSnapshot, type KubeObject } from "../snapshot/builder/index.js";
import { SnapshotView } from "../snapshot/view.js";
import { compile, createEnv, RUNTIME_COST_BUDGET } from "../cel/index.js";
import { compilePolicySet } from "./index.js";

const yaml = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter(Boolean);

function snapshotOf(objects: KubeObject[]) {
  const { snapshot, problems } = buildSnapshot(objects, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
  return { snapshot, problems };
}

/** The webhook's decision and the per-policy results for `object` in a cluster holding `cluster`. */
function judge(cluster: KubeObject[], object: Record<string, unknown>, options: WrapOptions = {}) {
  const decoded = decodeAdmissionReview(JSON.stringify(wrapReview(object, { namespace: "shop", ...options })));
  if (!decoded.ok) throw new Error(decoded.error);
  const { snapshot } = snapshotOf(cluster);
  return review(decoded.review.request, { cluster: "c", policies: [], snapshot: { view: new SnapshotView(snapshot), pushedAt: Date.now() }, withoutSnapshot: "FailOpen", now: Date.now() });
}

const policy = (name: string, spec: string) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
${spec.replace(/^/gm, "  ")}
`;

const binding = (name: string, policyName: string, extra = "validationActions: [Deny]") => `
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${policyName}
${extra.replace(/^/gm, "  ")}
`;

const deployments = `matchConstraints:
  resourceRules:
  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}`;

const replicasPolicy = policy("max-replicas", `${deployments}
validations:
- expression: object.spec.replicas <= 5
  message: at most 5 replicas`);

const deployment = (replicas: number, labels: Record<string, string> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop", labels },
  spec: { replicas, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: "nginx" }] } } },
});

describe("a bound policy", () => {
  const cluster = yaml(replicasPolicy + "---" + binding("max-replicas-binding", "max-replicas"));

  it("denies with the apiserver's message and the validation's reason (Invalid: 422)", () => {
    expect(judge(cluster, deployment(10)).decision).toEqual({
      allowed: false,
      denial: { code: 422, reason: "Invalid", message: "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: at most 5 replicas" },
      warnings: [],
      auditAnnotations: {},
    });
  });

  it("admits what passes, and what its rules do not select", () => {
    expect(judge(cluster, deployment(3)).decision).toEqual({ allowed: true, warnings: [], auditAnnotations: {} });
    expect(judge(cluster, { ...deployment(10), kind: "StatefulSet" }).decision.allowed).toBe(true);
    expect(judge(cluster, deployment(10), { operation: "DELETE" }).decision.allowed).toBe(true);
  });

  it("is not bound by a binding named as the fleet's (fleet/<name>): skipped with a problem, as no cluster holds one", () => {
    const slashed = yaml(replicasPolicy + "---" + binding('"fleet/max-replicas"', "max-replicas"));
    expect(snapshotOf(slashed).problems).toEqual([`EdgeAdmissionPolicyBinding fleet/max-replicas: a name holds no "/" (a cluster's names are DNS subdomains; "fleet/<name>" names the fleet's): skipped`]);
    expect(snapshotOf(slashed).snapshot.policyBindings).toEqual({});
    expect(judge(slashed, deployment(10)).decision.allowed).toBe(true);
  });

  it("is not enforced without a binding, as in the apiserver", () => {
    expect(judge(yaml(replicasPolicy), deployment(10)).decision.allowed).toBe(true);
  });

  it("warns and audits as its binding's validationActions say, in the apiserver's words", () => {
    const warned = judge(yaml(replicasPolicy + "---" + binding("b", "max-replicas", "validationActions: [Warn, Audit]")), deployment(10));
    expect(warned.decision).toEqual({
      allowed: true,
      warnings: ["Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'b': at most 5 replicas"],
      auditAnnotations: {
        validation_failure: JSON.stringify([{ message: "at most 5 replicas", policy: "max-replicas", binding: "b", expressionIndex: 0, validationActions: ["Warn", "Audit"] }]),
      },
    });
    expect(warned.results.map((r) => [r.policy, r.binding, r.mode])).toEqual([
      ["max-replicas", "b", "Warn"],
      ["max-replicas", "b", "Audit"],
    ]);
  });
});

describe("messages", () => {
  const bound = (validations: string) => yaml(policy("p", `${deployments}\nvalidations:\n${validations}`) + "---" + binding("b", "p"));

  it("messageExpression first, then message, then the expression itself", () => {
    expect(judge(bound("- expression: object.spec.replicas < 2\n  messageExpression: \"'too many: ' + string(object.spec.replicas)\"\n  message: ignored"), deployment(3)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: too many: 3",
    );
    expect(judge(bound("- expression: object.spec.replicas < 2\n  messageExpression: \"''\"\n  message: the message"), deployment(3)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: the message",
    );
    expect(judge(bound("- expression: \"object.spec.replicas < 2 \""), deployment(3)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed expression: object.spec.replicas < 2",
    );
  });

  it("a reason sets the status: Forbidden 403, Unauthorized 401, RequestEntityTooLarge 413", () => {
    for (const [reason, code] of [["Forbidden", 403], ["Unauthorized", 401], ["RequestEntityTooLarge", 413]] as const) {
      expect(judge(bound(`- expression: "false"\n  reason: ${reason}`), deployment(3)).decision.denial).toMatchObject({ code, reason });
    }
  });

  it("only the first denial answers, as the apiserver's", () => {
    const denial = judge(bound("- expression: \"false\"\n  message: first\n- expression: \"false\"\n  message: second"), deployment(3)).decision.denial;
    expect(denial?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: first");
  });

  it("a runtime error names the expression, and failurePolicy Fail denies with it", () => {
    expect(judge(bound("- expression: object.spec.nothere == 1"), deployment(3)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.nothere == 1' resulted in error: no such key: nothere",
    );
  });
});

describe("failurePolicy", () => {
  const withAuthorizer = (failurePolicy: string) =>
    yaml(policy("p", `${deployments}\nfailurePolicy: ${failurePolicy}\nvalidations:\n- expression: authorizer.group('apps').resource('deployments').check('create').allowed()`) + "---" + binding("b", "p"));

  it("Fail: an expression that does not compile at the edge (authorizer) denies with the compile error", () => {
    const { decision } = judge(withAuthorizer("Fail"), deployment(1));
    expect(decision.denial?.message).toMatch(/^ValidatingAdmissionPolicy 'p' with binding 'b' denied request: compilation error: ERROR: <input>:1:1: undeclared reference to 'authorizer'/);
  });

  it("Ignore: the same policy admits", () => {
    expect(judge(withAuthorizer("Ignore"), deployment(1)).decision).toEqual({ allowed: true, warnings: [], auditAnnotations: {} });
  });

  it("reports the compile error once, when the policy set is compiled", () => {
    const { snapshot } = snapshotOf(withAuthorizer("Fail"));
    const set = compilePolicySet({ policies: snapshot.validatingAdmissionPolicies, bindings: snapshot.policyBindings });
    expect(set.problems).toEqual([expect.stringMatching(/^ValidatingAdmissionPolicy 'p': validations\[0\]\.expression: compilation error: ERROR: <input>:1:1: undeclared reference to 'authorizer'/)]);
  });
});

describe("matching", () => {
  const cluster = (matchConstraints: string, bindingExtra = "validationActions: [Deny]") =>
    yaml(policy("p", `matchConstraints:\n${matchConstraints.replace(/^/gm, "  ")}\nvalidations:\n- expression: "false"\n  message: matched`) + "---" + binding("b", "p", bindingExtra));
  const denied = (objects: KubeObject[], object: Record<string, unknown>, options: WrapOptions = {}) => !judge(objects, object, options).decision.allowed;

  it("excludeResourceRules win over resourceRules; resourceNames narrow a rule", () => {
    const objects = cluster(`resourceRules:
- {apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: ["*"]}
excludeResourceRules:
- {apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: [deployments], resourceNames: [web]}`);
    expect(denied(objects, deployment(1))).toBe(false);
    expect(denied(objects, { ...deployment(1), metadata: { name: "api", namespace: "shop" } })).toBe(true);
  });

  it("a binding's objectSelector on the object's or the old object's labels", () => {
    const objects = cluster(deployments.replace("matchConstraints:\n", ""), "validationActions: [Deny]\nmatchResources:\n  objectSelector: {matchLabels: {team: a}}");
    expect(denied(objects, deployment(1))).toBe(false);
    expect(denied(objects, deployment(1, { team: "a" }))).toBe(true);
    expect(denied(objects, deployment(1), { operation: "UPDATE", oldObject: deployment(1, { team: "a" }) })).toBe(true);
  });

  it("a namespaceSelector on the snapshot's namespace labels, and on a Namespace's own labels when it is written", () => {
    const objects = [
      ...cluster(`namespaceSelector: {matchLabels: {env: prod}}
resourceRules:
- {apiGroups: ["", apps], apiVersions: [v1], operations: [CREATE], resources: [deployments, namespaces]}`),
      ...yaml("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {env: prod}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: lab, labels: {env: dev}}"),
    ];
    expect(denied(objects, deployment(1))).toBe(true);
    expect(denied(objects, { ...deployment(1), metadata: { name: "web", namespace: "lab" } })).toBe(false);
    expect(denied(objects, { apiVersion: "v1", kind: "Namespace", metadata: { name: "new", labels: { env: "prod" } } })).toBe(true);
    expect(denied(objects, { apiVersion: "v1", kind: "Namespace", metadata: { name: "new2", labels: { env: "dev" } } })).toBe(false);
  });

  it("a namespace the snapshot does not know is a configuration error, under failurePolicy", () => {
    const objects = cluster(`namespaceSelector: {matchLabels: {env: prod}}\n${deployments.replace("matchConstraints:\n", "")}`);
    expect(judge(objects, { ...deployment(1), metadata: { name: "web", namespace: "brand-new" } }).decision.denial?.message).toBe(
      `ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: namespace "brand-new" is not in the snapshot, so only its name is known; the namespaceSelector needs its label env`,
    );
  });

  it("a namespace the snapshot does not know is known by its name: a selector on kubernetes.io/metadata.name alone decides", () => {
    const only = (selector: string) => cluster(`namespaceSelector: ${selector}\n${deployments.replace("matchConstraints:\n", "")}`);
    const inNamespace = (namespace: string) => ({ ...deployment(1), metadata: { name: "web", namespace } });
    const byName = only(`{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]}`);
    expect(denied(byName, inNamespace("brand-new"))).toBe(true);
    expect(denied(byName, inNamespace("kube-system"))).toBe(false);
    expect(denied(only(`{matchLabels: {kubernetes.io/metadata.name: shop}}`), inNamespace("lab"))).toBe(false);
    expect(judge(only(`{matchLabels: {kubernetes.io/metadata.name: shop, team: a}, matchExpressions: [{key: env, operator: Exists}]}`), inNamespace("shop")).decision.denial?.message).toBe(
      `ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: namespace "shop" is not in the snapshot, so only its name is known; the namespaceSelector needs its label team, env`,
    );
  });

  it("namespaceObject of a namespace the snapshot does not know is a configuration error only for a policy whose expressions read it", () => {
    const objects = (validation: string) => yaml(policy("p", `${deployments}\nvalidations:\n- ${validation}`) + "---" + binding("b", "p"));
    const newcomer = { ...deployment(1), metadata: { name: "web", namespace: "brand-new" } };
    expect(judge(objects(`{expression: "namespaceObject.metadata.name != 'x'"}`), newcomer).decision.denial?.message).toBe(
      `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: namespaces "brand-new" not found in the snapshot (created after the sync job last ran?)`,
    );
    // Named in a string and a message, not read: nothing to look up.
    expect(judge(objects(`{expression: "'namespaceObject' != ''", message: "needs namespaceObject"}`), newcomer).decision.allowed).toBe(true);
  });

  it("namespaceObject's timestamps are timestamps, as BuildNamespaceType declares them (compile.go:120-133)", () => {
    const namespace = "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop, creationTimestamp: '2024-05-01T10:00:00Z'}\nstatus: {phase: Active, conditions: [{type: Ready, status: 'True', lastTransitionTime: '2024-05-02T00:00:00Z'}]}\n";
    const objects = (expression: string) => yaml(policy("p", `${deployments}\nvalidations:\n- {expression: "${expression}", message: denied}`) + "---" + binding("b", "p") + namespace);
    expect(judge(objects("type(namespaceObject.metadata.creationTimestamp) == google.protobuf.Timestamp && namespaceObject.metadata.creationTimestamp.getFullYear() == 2024"), deployment(1)).decision.allowed).toBe(true);
    expect(judge(objects("namespaceObject.status.conditions[0].lastTransitionTime - namespaceObject.metadata.creationTimestamp == duration('14h')"), deployment(1)).decision.allowed).toBe(true);
    expect(judge(objects("namespaceObject.metadata.creationTimestamp > timestamp('2025-01-01T00:00:00Z')"), deployment(1)).decision.denial?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: denied");
  });

  it("subresources only match rules that name them", () => {
    const objects = cluster(`resourceRules:
- {apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [deployments/scale]}`);
    expect(denied(objects, deployment(1), { operation: "UPDATE", oldObject: deployment(1) })).toBe(false);
  });

  it("never judges the policies and their bindings themselves", () => {
    const objects = cluster(`resourceRules:\n- {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}`);
    const vap = yaml(replicasPolicy)[0]! as Record<string, unknown>;
    expect(denied(objects, vap)).toBe(false);
    expect(denied(objects, deployment(1))).toBe(true);
  });
});

describe("variables and matchConditions", () => {
  it("variables are computed once when used, and may name only those before them", () => {
    const objects = yaml(
      policy("p", `${deployments}
variables:
- {name: replicas, expression: object.spec.replicas}
- {name: doubled, expression: variables.replicas * 2}
validations:
- {expression: "variables.doubled <= 10", messageExpression: "'doubled: ' + string(variables.doubled)"}`) + "---" + binding("b", "p"),
    );
    expect(judge(objects, deployment(6)).decision.denial?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: doubled: 12");
    expect(judge(objects, deployment(5)).decision.allowed).toBe(true);
  });

  it("a variable that fails says which", () => {
    const objects = yaml(policy("p", `${deployments}\nvariables:\n- {name: v, expression: object.nothere}\nvalidations:\n- {expression: variables.v == 1}`) + "---" + binding("b", "p"));
    expect(judge(objects, deployment(1)).decision.denial?.message).toBe(
      `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'variables.v == 1' resulted in error: composited variable "v" fails to evaluate: no such key: nothere`,
    );
  });

  it("a false matchCondition skips the policy; an error with none false follows failurePolicy", () => {
    const objects = (condition: string) =>
      yaml(policy("p", `${deployments}\nmatchConditions:\n- {name: c, expression: "${condition}"}\nvalidations:\n- {expression: "false", message: judged}`) + "---" + binding("b", "p"));
    expect(judge(objects("object.spec.replicas > 3"), deployment(1)).decision.allowed).toBe(true);
    expect(judge(objects("object.spec.replicas > 3"), deployment(5)).decision.denial?.message).toMatch(/: judged$/);
    expect(judge(objects("object.spec.nothere"), deployment(5)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'object.spec.nothere' resulted in error: no such key: nothere",
    );
  });
});

describe("the review's edge budget inside a variable", () => {
  // `^[A-Z]{0,1000}$`: 15 code points, charged 4 per tenth of the input as the apiserver charges it; its program of some
  // 2,000 instructions adds ~497 per tenth to the edge's meter alone. On 200,000 characters: 80,004 units of cost, ~9.9M to the meter.
  const objects = (variables: string[]) =>
    yaml(
      policy("p", `${deployments}\nvariables:\n${variables.map((v) => `- {name: ${v}, expression: "object.metadata.annotations.big.matches('^[A-Z]{0,1000}$')"}`).join("\n")}\nvalidations:\n- {expression: "${variables.map((v) => `!variables.${v}`).join(" && ")}"}`) +
        "---" +
        binding("b", "p"),
    );
  const big = { ...deployment(1), metadata: { name: "web", namespace: "shop", annotations: { big: "a".repeat(200_000) } } };

  it("one such variable is within it and costs the apiserver's units: admitted", () => {
    expect(judge(objects(["a"]), big).decision.allowed).toBe(true);
  });

  it("a third one reaches it inside the variable (two take 19.9M): the policy is cut and its failurePolicy decides", () => {
    expect(judge(objects(["a", "b"]), big).decision.allowed).toBe(true);
    expect(judge(objects(["a", "b", "c"]), big).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: edgeadmit: this review reached the edge's cost limit of 20,000,000 units across all policies before this policy finished; failurePolicy Fail denies it",
    );
  });
});

describe("variables two policies share", () => {
  const twoPolicies = (variable: string, validationsA: string, validationsB: string, paramsB = "") =>
    yaml(
      policy("a", `${deployments}\nvariables:\n- {name: v, expression: "${variable}"}\nvalidations:\n${validationsA}`) +
        "---" +
        binding("a", "a") +
        "---" +
        policy("b", `${deployments}\n${paramsB}variables:\n- {name: v, expression: "${variable}"}\nvalidations:\n${validationsB}`) +
        "---" +
        binding("b", "b", paramsB ? "validationActions: [Deny]\nparamRef: {name: limits, parameterNotFoundAction: Deny}" : undefined),
    );

  it("each policy sees the request's value of a variable that reads only the request", () => {
    const objects = twoPolicies("object.spec.replicas * 2", `- {expression: "variables.v <= 10", message: a}`, `- {expression: "variables.v <= 6", message: b}`);
    expect(judge(objects, deployment(4)).results.map((r) => r.message)).toEqual(["b"]);
    expect(judge(objects, deployment(6)).results.map((r) => r.message)).toEqual(["a", "b"]);
  });

  it("a variable that reads params is each policy's own", () => {
    // Both declare a paramKind: without one, \`params\` is not declared (compile.go:258-260); b's binding has no paramRef, so its params are null.
    const limits = `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits, namespace: shop}\ndata: {max: "3"}\n`;
    const objects = yaml(
      policy("a", `${deployments}\nparamKind: {apiVersion: v1, kind: ConfigMap}\nvariables:\n- {name: v, expression: "params == null ? 100 : int(params.data.max)"}\nvalidations:\n- {expression: "object.spec.replicas <= variables.v", messageExpression: "'a ' + string(variables.v)"}`) +
        "---" +
        binding("a", "a", "validationActions: [Deny]\nparamRef: {name: limits, parameterNotFoundAction: Deny}") +
        "---" +
        policy("b", `${deployments}\nparamKind: {apiVersion: v1, kind: ConfigMap}\nvariables:\n- {name: v, expression: "params == null ? 100 : int(params.data.max)"}\nvalidations:\n- {expression: "object.spec.replicas <= variables.v", messageExpression: "'b ' + string(variables.v)"}`) +
        "---" +
        binding("b", "b") +
        limits,
    );
    expect(judge(objects, deployment(5)).results.map((r) => r.message)).toEqual(["a 3"]);
  });

  it("costs each policy what computing it would: a policy whose budget cannot pay for it runs out as the apiserver's would", () => {
    // One walk of the list costs a little under the per-expression limit; a policy's budget pays for ten.
    const walk = "object.spec.list.all(x, x >= 0)";
    const list = Array.from({ length: 150_000 }, (_, i) => i);
    const env = createEnv({ variables: ["object", "variables"] });
    const cost = (source: string) => {
      const compiled = compile(source, env);
      if (!compiled.ok) throw new Error(compiled.error);
      return compiled.program.evaluate({ object: { spec: { list } }, variables: { v: true } }).cost;
    };
    const variable = `${walk} == true`;
    const walks = Math.floor(RUNTIME_COST_BUDGET / cost(walk));
    // Without the variable's cost, policy b stays within its budget; with it, it does not.
    expect(walks * cost(walk) + cost("variables.v")).toBeLessThan(RUNTIME_COST_BUDGET);
    expect(walks * cost(walk) + cost(variable)).toBeGreaterThan(RUNTIME_COST_BUDGET);
    const object = { ...deployment(1), spec: { ...deployment(1).spec, list } };
    const results = (validationsB: string[]) => judge(twoPolicies(variable, `- {expression: "variables.v", message: a}`, validationsB.join("\n")), object).results.map((r) => `${r.policy}: ${r.message}`);
    const walked = Array<string>(walks).fill(`- {expression: "${walk}", message: walked}`);
    // Taken from policy a first, the value is still paid for: the walks after it run out.
    expect(results([`- {expression: "variables.v", message: b}`, ...walked])).toEqual(["b: validation failed due to running out of cost budget, no further validation rules will be run"]);
    // After the walks, too little is left to take it: the variable runs to its end on its own per-call limit, and
    // what it cost is more than the budget left (activation.go:166-174, composition.go:249).
    expect(results([...walked, `- {expression: "variables.v", message: b}`])).toEqual(["b: validation failed due to running out of cost budget, no further validation rules will be run"]);
  });
});

describe("params", () => {
  const withParams = (ref: string, params: string) =>
    yaml(
      policy("p", `${deployments}\nparamKind: {apiVersion: v1, kind: ConfigMap}\nvalidations:\n- {expression: "object.spec.replicas <= int(params.data.max)", messageExpression: "'max ' + params.data.max"}`) +
        "---" +
        binding("b", "p", `validationActions: [Deny]\nparamRef:\n${ref.replace(/^/gm, "  ")}`) +
        params,
    );
  const limits = (name: string, max: number, labels = "{}", namespace = "shop") => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${namespace}, labels: ${labels}}\ndata: {max: "${max}"}\n`;

  it("by name, in the request's namespace", () => {
    const objects = withParams("name: limits\nparameterNotFoundAction: Deny", limits("limits", 3) + limits("limits", 100, "{}", "lab"));
    expect(judge(objects, deployment(4)).decision.denial?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: max 3");
    expect(judge(objects, { ...deployment(4), metadata: { name: "web", namespace: "lab" } }).decision.allowed).toBe(true);
  });

  it("by selector: every param is evaluated, and any denial denies", () => {
    const objects = withParams("selector: {matchLabels: {limit: \"yes\"}}\nparameterNotFoundAction: Allow", limits("a", 10, "{limit: \"yes\"}") + limits("b", 3, "{limit: \"yes\"}") + limits("c", 1));
    expect(judge(objects, deployment(4)).decision.denial?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: max 3");
    expect(judge(objects, deployment(3)).decision.allowed).toBe(true);
  });

  it("by name among many, however many the namespace holds", () => {
    const many = Array.from({ length: 12 }, (_, i) => limits(`limits-${i}`, i)).join("");
    expect(judge(withParams("name: limits-7\nparameterNotFoundAction: Deny", many), deployment(8)).decision.denial?.message).toBe("ValidatingAdmissionPolicy 'p' with binding 'b' denied request: max 7");
    expect(judge(withParams("name: limits-11\nparameterNotFoundAction: Deny", many), deployment(8)).decision.allowed).toBe(true);
    expect(judge(withParams("name: limits-12\nparameterNotFoundAction: Deny", many), deployment(8)).decision.denial?.message).toMatch(/no params found for policy binding with `Deny` parameterNotFoundAction$/);
  });

  it("knows a ConfigMap is namespaced when the cluster holds none, as the apiserver's REST mapping does (policy/generic/policy_dispatcher.go:299, 334-336, 401)", () => {
    expect(judge(withParams("name: limits\nnamespace: shop\nparameterNotFoundAction: Deny", ""), deployment(4)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it("not found: Allow admits, Deny follows failurePolicy with the apiserver's message", () => {
    expect(judge(withParams("name: missing\nparameterNotFoundAction: Allow", ""), deployment(4)).decision.allowed).toBe(true);
    expect(judge(withParams("name: missing\nparameterNotFoundAction: Deny", limits("other", 1)), deployment(4)).decision.denial?.message).toBe(
      "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });
});

describe("cost", () => {
  it("a runaway expression is cut off by the per-expression limit and failurePolicy decides", () => {
    const objects = yaml(
      policy("p", `${deployments}\nvalidations:\n- expression: "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a + b + c + d + e + f > 0))))))"`) +
        "---" +
        binding("b", "p"),
    );
    expect(judge(objects, deployment(1)).decision.denial?.message).toMatch(/resulted in error: operation cancelled: actual cost limit exceeded$/);
  });
});
