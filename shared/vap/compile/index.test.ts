// The declarations a policy's expressions compile against, as the apiserver
// declares them (kubernetes/apiserver 24a394e516bf pkg/admission/plugin/cel
// compile.go, composition.go; pkg/cel/environment/base.go), with its exact
// compile errors.
import { describe, expect, it } from "vitest";
import { compilePolicies } from "./index.js";

function compiled(spec: Record<string, unknown>) {
  const policy = { metadata: { name: "p" }, spec: { matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] }, ...spec } };
  const { policies } = compilePolicies({ policies: { p: policy }, bindings: { b: { metadata: { name: "b" }, spec: { policyName: "p", validationActions: ["Deny"] } } } });
  return policies[0]!;
}
const errorOf = (expression: string, spec: Record<string, unknown> = {}) => compiled({ ...spec, validations: [{ expression }] }).validations[0]!.error;

describe("request, namespaceObject and params as the apiserver declares them", () => {
  it("refuses a field AdmissionRequest does not have (compile.go:48-89)", () => {
    expect(errorOf("request.foo1 == 'nope'")).toBe("ERROR: <input>:1:8: undefined field 'foo1'\n | request.foo1 == 'nope'\n | .......^");
    expect(errorOf("request.userInfo.foo5 == 'nope'")).toBe("ERROR: <input>:1:17: undefined field 'foo5'\n | request.userInfo.foo5 == 'nope'\n | ................^");
    expect(errorOf("request.userInfo.groups == ['system:authenticated'] && request.userInfo.extra == {'k': ['v']} && request.options == {'a': 1}")).toBeUndefined();
    expect(errorOf("has(request.foo1) || has(request.namespace)")).toContain("undefined field 'foo1'");
    expect(errorOf("has(request.namespace)")).toBeUndefined();
    expect(errorOf("request.name == 1")).toBe("ERROR: <input>:1:14: found no matching overload for '_==_' applied to '(string, int)'\n | request.name == 1\n | .............^");
  });

  it("refuses what BuildNamespaceType leaves out of namespaceObject (compile.go:94-139)", () => {
    expect(errorOf("size(namespaceObject.metadata.managedFields) == 1")).toBe(
      "ERROR: <input>:1:30: undefined field 'managedFields'\n | size(namespaceObject.metadata.managedFields) == 1\n | .............................^",
    );
    expect(errorOf("namespaceObject.status.conditions[0].lastTransitionTime == null && 'env' in namespaceObject.metadata.labels")).toBeUndefined();
  });

  it("declares params only with a paramKind (compile.go:258-260)", () => {
    expect(errorOf("params.x == 1")).toBe("ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^");
    expect(errorOf("params.x == 1", { paramKind: { apiVersion: "v1", kind: "ConfigMap" } })).toBeUndefined();
  });

  it("has no cel.bind: ext.Bindings is not in the base environment (pkg/cel/environment/base.go)", () => {
    expect(errorOf("cel.bind(x, 1, x == 1)")).toBe(
      [
        "ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(x, 1, x == 1)\n | ^",
        "ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')\n | cel.bind(x, 1, x == 1)\n | ........^",
        "ERROR: <input>:1:10: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x == 1)\n | .........^",
        "ERROR: <input>:1:16: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x == 1)\n | ...............^",
      ].join("\n"),
    );
  });

  it("keeps the runtime type test where a declared type is only a promise: a JSON timestamp is a string at the edge", () => {
    const policy = compiled({ validations: [{ expression: "namespaceObject.metadata.creationTimestamp.getFullYear() > 2000" }] });
    const program = policy.validations[0]!.program!;
    const result = program.evaluate({ object: null, oldObject: null, request: null, params: null, namespaceObject: { metadata: { creationTimestamp: "2024-01-01T00:00:00Z" } }, inventory: null, variables: null });
    expect(result).toMatchObject({ ok: false, error: "no such overload: getFullYear(string)" });
  });
});

describe("variables typed as their expressions (composition.go:141-146, 257-300)", () => {
  const variables = (...expressions: string[]) => expressions.map((expression, i) => ({ name: `v${i}`, expression }));

  it("gives each variable its expression's type: a list of ints is not a map", () => {
    expect(errorOf("variables.v0['invalid'] == 'invalid'", { variables: variables("[1, 2, 3, 4]") })).toBe(
      "ERROR: <input>:1:13: found no matching overload for '_[_]' applied to '(list(int), string)'\n | variables.v0['invalid'] == 'invalid'\n | ............^",
    );
    expect(errorOf("variables.v0[0] == 1", { variables: variables("['1', '2']") })).toBe(
      "ERROR: <input>:1:17: found no matching overload for '_==_' applied to '(string, int)'\n | variables.v0[0] == 1\n | ................^",
    );
    expect(errorOf("variables.v0.sum() == 10 && variables.v1['foo'].contains('bar')", { variables: variables("[1, 2, 3, 4]", "{'foo': 'bar'}") })).toBeUndefined();
  });

  it("lets a variable read only those before it, and names no variable the policy lacks", () => {
    const policy = compiled({ variables: variables("variables.v1", "1"), validations: [{ expression: "variables.v2 == 1" }] });
    expect(policy.variables[0]!.error).toBe("ERROR: <input>:1:10: undefined field 'v1'\n | variables.v1\n | .........^");
    expect(policy.validations[0]!.error).toBe("ERROR: <input>:1:10: undefined field 'v2'\n | variables.v2 == 1\n | .........^");
  });

  it("types a variable that does not compile as dyn: its error comes when it is read (composition.go:232-235)", () => {
    const policy = compiled({ variables: variables("1 == '1'"), validations: [{ expression: "variables.v0 == 'endpoints1'" }] });
    expect(policy.variables[0]!.error).toBe("ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'\n | 1 == '1'\n | ..^");
    expect(policy.validations[0]!.error).toBeUndefined();
  });

  it("types object-typed values and library values as dyn, as convertCelTypeToDeclType does", () => {
    expect(errorOf("variables.v0.foo == 1 && variables.v1.isLessThan(quantity('2'))", { variables: variables("namespaceObject.metadata", "quantity('1')") })).toBeUndefined();
  });
});
