// The inventory's pieces on their own: field paths, declarations, and the
// library's rules (exclusion of the object under review, caps, cost, keys)
// through a policy judged offline against a snapshot built from objects.
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { decodeAdmissionReview } from "../admission/index.js";
import { wrapReview, type WrapOptions } from "../admission/wrap.js";
import { compile, createEnv, createBudget } from "../cel/index.js";
import { review } from "../review/index.js";
import { buildSnapshot, type KubeObject } from "../snapshot/builder/index.js";
import { SnapshotView } from "../snapshot/view.js";
import { compilePolicySet } from "../vap/index.js";
import { indexBucketOf, indexedValues, indexKey, InventoryValue, inventoryLibrary, MAX_LIST_NAMESPACES, parseDeclaration, parseFieldPath, projection, type FieldPath, type InventoryDeclaration } from "./index.js";

const path = (text: string) => parseFieldPath(text) as FieldPath;

describe("field paths", () => {
  it.each([
    ["spec.rules[*].host", "spec.rules[*].host"],
    ["spec['rules'][*][\"host\"]", "spec.rules[*].host"],
    ["metadata.labels['app.kubernetes.io/name']", "metadata.labels['app.kubernetes.io/name']"],
    ["spec.x-kubernetes_y$", "spec.x-kubernetes_y$"],
    ["['a b'].c", "['a b'].c"],
  ])("%s reads as %s", (text, canonical) => expect(path(text).text).toBe(canonical));

  it.each([
    ["", "a field path is not empty"],
    ["[*].a", '"[*].a": a path starts with a field, not [*]'],
    ["spec..x", '"spec..x": a name must follow "." at character 6'],
    ["spec[0]", '"spec[0]": unexpected "[" at character 5 (fields are .name, [\'key\'] or [*])'],
    ["spec['x", "\"spec['x\": [' at character 5 is not closed with ']"],
    ["1spec", '"1spec": a path starts with a field name'],
    [`a${".b".repeat(16)}`, `"a${".b".repeat(16)}": a path has at most 16 steps`],
    ["x".repeat(257), "a field path is at most 256 characters"],
    ["metadata['__proto__']", "\"metadata['__proto__']\": no field is named __proto__"],
  ])("%s is refused", (text, error) => expect(parseFieldPath(text)).toBe(error));

  it("a projection keeps the identity and the paths, lists' elements that hold a kept field, and shares the values", () => {
    const selector = { app: "web" };
    const ingress = {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "web", namespace: "shop", labels: { team: "a" }, uid: "1" },
      spec: { rules: [{ host: "a.example", http: {} }, { http: {} }, { host: "b.example" }], selector },
      status: {},
    };
    expect(projection([path("spec.rules[*].host"), path("spec.selector"), path("spec.missing.deep")])(ingress)).toEqual({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "web", namespace: "shop" },
      spec: { rules: [{ host: "a.example" }, { host: "b.example" }], selector },
    });
    expect((projection([path("spec.selector")])(ingress) as { spec: { selector: unknown } }).spec.selector).toBe(selector);
    expect(projection([path("spec.rules[*].host")])({ kind: "Ingress", metadata: { name: "x" }, spec: { defaultBackend: {} } })).toEqual({ kind: "Ingress", metadata: { name: "x" } });
  });

  it("an index keys strings, whole numbers and booleans by type, each value once", () => {
    const object = { spec: { ports: [{ port: 80 }, { port: "80" }, { port: 80 }, { port: 8.5 }, { port: true }, { port: null }, { port: [1] }] } };
    expect(indexedValues(object, path("spec.ports[*].port"))).toEqual(["i80", "s80", "btrue"]);
    expect([indexKey("x"), indexKey(3), indexKey(3n), indexKey(false), indexKey(2 ** 64), indexKey({})]).toEqual(["sx", "i3", "i3", "bfalse", undefined, undefined]);
  });
});

describe("declarations", () => {
  it("takes kinds with their fields and indexes (canonical, each once), and variables", () => {
    const declaration = parseDeclaration({
      kinds: [{ apiVersion: "networking.k8s.io/v1", kind: "Ingress", fields: ["spec.rules[*].host", "spec['rules'][*].host"], index: ["spec.rules[*].host"] }, { apiVersion: "v1", kind: "Service" }],
      variables: { taken: "inventory.list('v1', 'Service')" },
    }) as InventoryDeclaration;
    expect([...declaration.kinds.keys()]).toEqual(["networking.k8s.io/v1/Ingress", "v1/Service"]);
    expect(declaration.kinds.get("networking.k8s.io/v1/Ingress")!.fields.map((f) => f.text)).toEqual(["spec.rules[*].host"]);
    expect(declaration.kinds.get("v1/Service")).toEqual({ apiVersion: "v1", kind: "Service", fields: [], index: [] });
    expect([...declaration.variables]).toEqual([["taken", "inventory.list('v1', 'Service')"]]);
  });

  it.each([
    [{ kinds: [{ apiVersion: "v1", kind: "Service", index: ["spec.selector"] }] }, "kinds.0.index: spec.selector is not among the kind's fields, nor inside one (an index looks up kept values)"],
    [{ kinds: [{ apiVersion: "v1", kind: "Service" }, { apiVersion: "v1", kind: "Service" }] }, "kinds.1: v1 Service is declared twice"],
    [{ kinds: [{ apiVersion: "v1", kind: "Service", fields: ["spec..x"] }] }, 'kinds.0.fields.0: "spec..x": a name must follow "." at character 6'],
    [{ kinds: [{ apiVersion: "Apps/V1", kind: "Deployment" }] }, "kinds.0.apiVersion: must be an apiVersion: group/version, or v1 for the core group"],
    [{ kind: [] }, 'Unrecognized key: "kind"'],
    ["kinds: []", "Invalid input: expected object, received string"],
  ])("refuses %j", (value, error) => expect(parseDeclaration(value)).toBe(error));
});

const yaml = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as KubeObject).filter(Boolean);

/** A bound policy reading the inventory: `expression` must hold, else `message`. */
const policy = (declaration: string, expression: string, resources = "services", operations = "[CREATE, UPDATE]") =>
  yaml(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
  annotations: {edgeadmit.io/inventory: '${declaration}'}
spec:
  matchConstraints: {resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ${operations}, resources: [${resources}]}]}
  validations: [{expression: ${JSON.stringify(expression)}, messageExpression: "'found ' + string(${expression.replace(/ *[<=>!]=? *\d+$/, "")})"}]
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p, validationActions: [Deny]}
`);

const service = (namespace: string, name: string, selector: Record<string, string> = { app: name }) => ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace }, spec: { selector } });

function judge(cluster: KubeObject[], object: Record<string, unknown>, options: WrapOptions = {}) {
  const decoded = decodeAdmissionReview(JSON.stringify(wrapReview(object, options)));
  if (!decoded.ok) throw new Error(decoded.error);
  const { snapshot, problems } = buildSnapshot(cluster, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
  expect(compilePolicySet({ policies: snapshot.validatingAdmissionPolicies, bindings: snapshot.policyBindings }).problems).toEqual([]);
  const { decision } = review(decoded.review.request, { cluster: "c", policies: [], snapshot: { view: new SnapshotView(snapshot), pushedAt: Date.now() }, withoutSnapshot: "FailOpen", now: Date.now() });
  return { allowed: decision.allowed, message: decision.denial?.message.replace("ValidatingAdmissionPolicy 'p' with binding 'p' denied request: ", ""), problems };
}

const SERVICES = '{"kinds": [{"apiVersion": "v1", "kind": "Service", "fields": ["spec.selector"], "index": ["spec.selector.app"]}]}';

describe("the library", () => {
  it("lists one namespace, every namespace, gets by name, looks up by value; never the object under review", () => {
    const cluster = [service("a", "web"), service("a", "api"), service("b", "web"), service("c", "db", { app: "web" })];
    const listed = (expression: string, object = service("a", "new")) => judge([...policy(SERVICES, `${expression} == 0`), ...cluster], object).message;
    expect(listed("size(inventory.list('v1', 'Service', 'a'))")).toBe("found 2");
    expect(listed("size(inventory.list('v1', 'Service'))")).toBe("found 4");
    expect(listed("size(inventory.list('v1', 'Service'))", service("a", "web"))).toBe("found 3");
    expect(listed("size(inventory.index('v1', 'Service', 'spec.selector.app')['web'])")).toBe("found 3");
    expect(listed("size(inventory.index('v1', 'Service', 'spec.selector.app')['web'])", service("c", "db"))).toBe("found 2");
    expect(listed("size(inventory.index('v1', 'Service', 'spec.selector.app')[?'nobody'].orValue([]))")).toBeUndefined();
    expect(listed("inventory.get('v1', 'Service', 'b', 'web').hasValue() ? 1 : 0")).toBe("found 1");
    expect(listed("inventory.get('v1', 'Service', 'b', 'web').hasValue() ? 1 : 0", service("b", "web"))).toBeUndefined();
    // A namespace, or a value, nobody has.
    expect(listed("size(inventory.list('v1', 'Service', 'nowhere'))")).toBeUndefined();
    expect(listed("'web' in inventory.index('v1', 'Service', 'spec.selector.app') ? 1 : 0", service("x", "other"))).toBe("found 1");
  });

  it("says where a call does not fit the kind's scope, and what an index map cannot do", () => {
    const error = (expression: string) => judge([...policy(SERVICES, expression), service("a", "web")], service("a", "new")).message;
    expect(error("!inventory.get('v1', 'Service', '', 'web').hasValue()")).toContain("inventory: v1 Service is namespaced: get needs the namespace");
    expect(error("size(inventory.list('v1', 'Service', '')) == 0")).toContain("inventory: v1 Service is namespaced: name a namespace, or list every one without");
    expect(error("size(inventory.index('v1', 'Service', 'spec.selector.app')) == 0")).toContain(
      "inventory.index(v1 Service, spec.selector.app) is looked up by value (in, [ ], .?[ ]); to go through every object, use inventory.list",
    );
  });

  it("a list across more namespaces than one list reads is an error that says what to do instead", () => {
    const cluster = Array.from({ length: MAX_LIST_NAMESPACES + 1 }, (_, i) => service(`team-${i}`, "web"));
    expect(judge([...policy(SERVICES, "size(inventory.list('v1', 'Service')) == 0"), ...cluster], service("a", "new")).message).toBe(
      "expression 'size(inventory.list('v1', 'Service')) == 0' resulted in error: inventory: v1 Service spans 257 namespaces and 257 objects, more than one list reads (256 namespaces, 10000 objects): list one namespace, or look values up with inventory.index",
    );
  });

  it("cluster-scoped kinds live in the cluster part: list and get them with namespace ''", () => {
    const declaration = '{"kinds": [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass"}]}';
    const classes = ["fast", "slow"].map((name) => ({ apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name }, provisioner: "x" }));
    const claim = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data", namespace: "a" }, spec: {} };
    const found = (expression: string) => judge([...policy(declaration, `${expression} == 0`, "persistentvolumeclaims"), ...classes], claim).message;
    expect(found("size(inventory.list('storage.k8s.io/v1', 'StorageClass'))")).toBe("found 2");
    expect(found("size(inventory.list('storage.k8s.io/v1', 'StorageClass', ''))")).toBe("found 2");
    expect(found("inventory.get('storage.k8s.io/v1', 'StorageClass', '', 'fast').hasValue() ? 1 : 0")).toBe("found 1");
    expect(found("size(inventory.list('storage.k8s.io/v1', 'StorageClass', 'a'))")).toContain("inventory: storage.k8s.io/v1 StorageClass is cluster-scoped: list it without a namespace, or with ''");
  });

  it("a kind declared with no objects listed is empty; its scope comes from Kubernetes' built-in kinds", () => {
    const { snapshot } = buildSnapshot(policy('{"kinds": [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass"}, {"apiVersion": "v1", "kind": "Service"}]}', "true"), {
      generation: 1,
      builtAt: "2026-01-01T00:00:00Z",
    });
    expect(snapshot.inventory).toEqual({
      "storage.k8s.io/v1/StorageClass": { namespaced: false, fields: [], index: [], objects: {} },
      "v1/Service": { namespaced: true, fields: [], index: [], objects: {} },
    });
  });

  it("a list is charged as a traversal of what it returns, before it is built; a lookup as a call", () => {
    const declaration = parseDeclaration(JSON.parse(SERVICES)) as InventoryDeclaration;
    const env = createEnv({ variables: ["inventory"], libraries: [inventoryLibrary(declaration)] });
    const { snapshot } = buildSnapshot([...policy(SERVICES, "true"), ...Array.from({ length: 1000 }, (_, i) => service("a", `s${i}`))], { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
    const inventory = new InventoryValue(new SnapshotView(snapshot), declaration, undefined);
    const cost = (source: string) => {
      const compiled = compile(source, env);
      if (!compiled.ok) throw new Error(compiled.error);
      const result = compiled.program.evaluate({ inventory }, createBudget());
      if (!result.ok) throw new Error(result.error);
      return result.cost;
    };
    expect(cost("inventory.list('v1', 'Service', 'a')")).toBe(1 + 100);
    expect(cost("inventory.get('v1', 'Service', 'a', 's1')")).toBe(2);
    expect(cost("'x' in inventory.index('v1', 'Service', 'spec.selector.app')")).toBe(3);
  });

  it("an object left out for a limit fails only the lookups of its own values; without its values indexed (0.1.0's snapshots), every lookup", () => {
    // Its selector kept whole (padding and all) is a projection past 512 KiB: left out, its value `big` indexed as left out.
    const fat = service("tenant-a", "fat", { app: "big", padding: "x".repeat(600 * 1024) });
    const { snapshot } = buildSnapshot([...policy(SERVICES, "true"), fat, service("shop", "web")], { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
    expect(snapshot.inventory["v1/Service"]!.leftOut).toMatchObject({ total: 1, values: { "spec.selector.app": ["sbig"] } });
    const found = (value: string, edited = snapshot) => {
      const expression = `size(inventory.index('v1', 'Service', 'spec.selector.app')[?'${value}'].orValue([])) == 0`;
      const cluster = policy(SERVICES, expression);
      const { snapshot: withPolicy } = buildSnapshot(cluster, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });
      const decoded = decodeAdmissionReview(JSON.stringify(wrapReview(service("other", "new"))));
      if (!decoded.ok) throw new Error(decoded.error);
      const view = new SnapshotView({ ...edited, validatingAdmissionPolicies: withPolicy.validatingAdmissionPolicies, policyBindings: withPolicy.policyBindings });
      return review(decoded.review.request, { cluster: "c", policies: [], snapshot: { view, pushedAt: Date.now() }, withoutSnapshot: "FailOpen", now: Date.now() }).decision.denial?.message.split("resulted in error: ")[1];
    };
    const heldError = `inventory: an object of v1 Service whose spec.selector.app holds "big" was left out of the snapshot for breaking its limits, so this lookup could miss it; the sync job's output names it`;
    expect(found("big")).toBe(heldError);
    expect(found("web")).toBeUndefined();
    expect(found("nobody")).toBeUndefined();
    // A crowded bucket: every lookup there fails, whoever holds the value.
    const crowded = structuredClone(snapshot);
    crowded.inventory["v1/Service"]!.leftOut!.crowded = { "spec.selector.app": [indexBucketOf("v1/Service", "spec.selector.app", "sweb")] };
    expect(found("web", crowded)).toBe(
      "inventory: objects of v1 Service left out of the snapshot hold more values of spec.selector.app in this value's index bucket than the snapshot records, so this lookup could miss one; the sync job's output names them",
    );
    // Without the values (as 0.1.0 built and pushed it), any value may be the left-out object's.
    const coarse = structuredClone(snapshot);
    delete coarse.inventory["v1/Service"]!.leftOut!.values;
    const coarseError = "inventory: v1 Service tenant-a/fat was left out of the snapshot (its projection is 614532 bytes of JSON (at most 524288)), so this call could miss it; the sync job's output names it";
    expect([found("big", coarse), found("web", coarse), found("nobody", coarse)]).toEqual([coarseError, coarseError, coarseError]);
  });

  it("a kind or index the declaration does not name is a compile error at the constant", () => {
    const env = createEnv({ variables: ["inventory"], libraries: [inventoryLibrary(parseDeclaration(JSON.parse(SERVICES)) as InventoryDeclaration)] });
    const error = (source: string) => {
      const compiled = compile(source, env);
      return compiled.ok ? undefined : compiled.error.split("\n")[0];
    };
    expect(error("inventory.list('v1', 'Secret')")).toBe(`ERROR: <input>:1:22: inventory: v1 Secret is not declared in the policy's metadata.annotations["edgeadmit.io/inventory"]`);
    expect(error("inventory.index('v1', 'Service', 'spec.selector')")).toBe(
      `ERROR: <input>:1:34: inventory: spec.selector is not declared as an index of v1 Service in the policy's metadata.annotations["edgeadmit.io/inventory"]`,
    );
    expect(error("inventory.index('v1', 'Service', 'spec..x')")).toBe(`ERROR: <input>:1:34: inventory: "spec..x": a name must follow "." at character 6`);
    expect(error("inventory.list('v1', 'Service') + inventory.get('v1', 'Service', 'a', 'b').orValue([]) + [inventory.index('v1', 'Service', 'spec.selector.app')]")).toBeUndefined();
    // Arguments known only at run time are checked then.
    expect(error("inventory.list(object.apiVersion, object.kind)")).toBe("ERROR: <input>:1:16: undeclared reference to 'object' (in container '')");
  });
});
