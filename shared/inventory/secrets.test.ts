// What never leaves the cluster (secrets.ts): refused in a declaration, a
// paramKind and a pushed unit; cut out of a kept whole value.
import { describe, expect, it } from "vitest";
import { buildSnapshot, type KubeObject } from "../snapshot/builder/index.js";
import { decodeUnit, splitSnapshot } from "../snapshot/units/index.js";
import { parseDeclaration, parseFieldPath, projection, type FieldPath } from "./index.js";

const WHY = `(docs/inventory.md, "What leaves the cluster")`;
const SECRET_RULE = `never leaves the cluster: of a Secret only metadata.name, metadata.namespace, metadata.labels and type do ${WHY}`;
const declare = (kind: string, apiVersion: string, ...fields: string[]) => parseDeclaration({ kinds: [{ apiVersion, kind, fields }] });

describe("a declaration of what never leaves the cluster is refused, naming the field", () => {
  it.each([
    ["data", `kinds.0.fields.0: data of v1 Secret ${SECRET_RULE}`],
    ["stringData", `kinds.0.fields.0: stringData of v1 Secret ${SECRET_RULE}`],
    ["metadata.annotations", `kinds.0.fields.0: metadata.annotations of v1 Secret ${SECRET_RULE}`],
    ["metadata", `kinds.0.fields.0: metadata of v1 Secret ${SECRET_RULE}`],
    ["data['password']", `kinds.0.fields.0: data.password of v1 Secret ${SECRET_RULE}`],
  ])("Secret %s", (field, error) => expect(declare("Secret", "v1", field)).toBe(error));

  it("whatever the spelling of the core group (v1, core/v1) or of the kind's case: each is read by a policy declaring that spelling", () => {
    const rule = (apiVersion: string, kind: string) => `never leaves the cluster: of a Secret only metadata.name, metadata.namespace, metadata.labels and type do ${WHY}`.replace(/^/, `data of ${apiVersion} ${kind} `);
    for (const [apiVersion, kind] of [["core/v1", "Secret"], ["v1", "SECRET"], ["core/v1beta1", "SECRET"]] as const)
      expect(declare(kind, apiVersion, "data")).toBe(`kinds.0.fields.0: ${rule(apiVersion, kind)}`);
    expect(declare("TokenRequest", "authentication.k8s.io/v1", "status")).toMatch(/it carries a bearer token/);
    expect(declare("TOKENREVIEW", "authentication.k8s.io/v1", "status")).toMatch(/it carries a bearer token/);
    // Another group's kind named Secret is not the core group's.
    expect(typeof declare("Secret", "example.com/v1", "data")).toBe("object");
  });

  it("a Secret's name, namespace, labels (or one label) and type are declared", () => {
    expect(typeof declare("Secret", "v1", "type", "metadata.labels['app']", "metadata.name")).toBe("object");
  });

  it("metadata.managedFields and last-applied-configuration, of any kind; TokenReview and TokenRequest whole", () => {
    const rule = `never leaves the cluster: metadata.managedFields and the annotation kubectl.kubernetes.io/last-applied-configuration of no kind do ${WHY}`;
    expect(declare("Ingress", "networking.k8s.io/v1", "spec.rules", "metadata.managedFields")).toBe(`kinds.0.fields.1: metadata.managedFields of networking.k8s.io/v1 Ingress ${rule}`);
    expect(declare("ConfigMap", "v1", "metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']")).toBe(
      `kinds.0.fields.0: metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] of v1 ConfigMap ${rule}`,
    );
    expect(declare("TokenReview", "authentication.k8s.io/v1", "status")).toBe(`kinds.0.fields.0: status of authentication.k8s.io/v1 TokenReview never leaves the cluster: it carries a bearer token ${WHY}`);
    // ConfigMaps are not secret by design: their data travels when declared.
    expect(typeof declare("ConfigMap", "v1", "data", "metadata.annotations")).toBe("object");
  });

  it("a kept whole metadata or annotations is cut of managedFields and last-applied, without changing the object", () => {
    const annotations = { "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"password":"aHVudGVy"}}', team: "shop" };
    const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n", managedFields: [{ manager: "kubectl" }], annotations }, data: { a: "1" } };
    const paths = (...texts: string[]) => texts.map((text) => parseFieldPath(text) as FieldPath);
    const kept = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n", annotations: { team: "shop" } } };
    expect(projection(paths("metadata"))(object)).toEqual(kept);
    expect(projection(paths("metadata.annotations"))(object)).toEqual(kept);
    expect(projection(paths("metadata.annotations.team", "data"))(object)).toEqual({ ...kept, data: { a: "1" } });
    expect(object.metadata.managedFields).toHaveLength(1);
    expect(Object.keys(annotations)).toHaveLength(2);
  });
});

const policy = (name: string, spec: Record<string, unknown>, declaration?: object): KubeObject[] => [
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name, ...(declaration ? { annotations: { "edgeadmit.io/inventory": JSON.stringify(declaration) } } : {}) },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] }, validations: [{ expression: "true" }], ...spec },
  },
  { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name, validationActions: ["Deny"] } },
];
const secret: KubeObject = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "db", namespace: "shop", labels: { app: "db" }, annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
  type: "Opaque",
  data: { password: "aHVudGVy" },
};
const build = (objects: KubeObject[]) => buildSnapshot(objects, { generation: 1, builtAt: "2026-11-26T00:00:00.000Z" });

describe("the builder refuses a bound policy that asks for it, and carries none of it", () => {
  it("a Secret data declaration: refused naming the policy and the field; the Secret is not in the inventory", () => {
    const built = build([...policy("db-password", {}, { kinds: [{ apiVersion: "v1", kind: "Secret", fields: ["type", "data"] }] }), secret]);
    expect(built.refused).toEqual([`ValidatingAdmissionPolicy db-password: metadata.annotations["edgeadmit.io/inventory"] kinds.0.fields.1: data of v1 Secret ${SECRET_RULE}`]);
    expect(built.snapshot.inventory).toEqual({});
    expect(JSON.stringify(built.snapshot)).not.toContain("aHVudGVy");
  });

  it("a Secret paramKind: refused, and no Secret among the params", () => {
    const built = build([...policy("by-secret", { paramKind: { apiVersion: "v1", kind: "Secret" } }), secret]);
    expect(built.refused).toEqual([`ValidatingAdmissionPolicy by-secret: spec.paramKind: the whole object of v1 Secret ${SECRET_RULE}`]);
    expect(built.snapshot.policyParams).toEqual({});
  });

  it("a Secret's labels and type travel; params and Namespaces never carry managedFields or last-applied", () => {
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", namespace: "shop", managedFields: [{}], annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}", a: "b" } }, data: { max: "3" } };
    const built = build([
      ...policy("labels", { paramKind: { apiVersion: "v1", kind: "ConfigMap" } }, { kinds: [{ apiVersion: "v1", kind: "Secret", fields: ["type", "metadata.labels"] }] }),
      secret,
      configMap,
    ]);
    expect(built.refused).toEqual([]);
    expect(built.snapshot.inventory["v1/Secret"]!.objects).toEqual({ "shop/db": { apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop", labels: { app: "db" } }, type: "Opaque" } });
    expect(built.snapshot.policyParams["v1/ConfigMap"]!.objects).toEqual([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "limits", namespace: "shop", annotations: { a: "b" } }, data: { max: "3" } }]);
  });
});

describe("a pushed unit carrying it is refused (the function's decodeUnit), whoever wrote it", () => {
  const clean = build([...policy("labels", {}, { kinds: [{ apiVersion: "v1", kind: "Secret", fields: ["type"] }] }), secret]).snapshot;
  const parts = splitSnapshot(clean);

  it("a cluster part whose policy declares a Secret's data", () => {
    const vap = clean.validatingAdmissionPolicies["labels"] as { metadata: { annotations: Record<string, string> } };
    const edited = { ...parts.cluster, validatingAdmissionPolicies: { labels: { ...vap, metadata: { ...vap.metadata, annotations: { "edgeadmit.io/inventory": '{"kinds":[{"apiVersion":"v1","kind":"Secret","fields":["data"]}]}' } } } } };
    expect(decodeUnit("", edited)).toEqual({ ok: false, error: `ValidatingAdmissionPolicy labels: metadata.annotations["edgeadmit.io/inventory"] kinds.0.fields.0: data of v1 Secret ${SECRET_RULE}` });
    expect(decodeUnit("", { ...parts.cluster, inventory: { "v1/Secret": { namespaced: true, fields: ["stringData"], index: [], objects: {} } } })).toEqual({
      ok: false,
      error: `inventory v1 Secret: stringData of v1 Secret ${SECRET_RULE}`,
    });
    expect(decodeUnit("", parts.cluster).ok).toBe(true);
  });

  it("a shard holding a Secret's data, or any object's managedFields", () => {
    const shard = parts.shards.get("shop")!;
    const withData = { ...shard, inventory: { "v1/Secret": { namespaced: true, objects: { "shop/db": { ...secret, annotations: undefined, metadata: { name: "db", namespace: "shop" } } } } } };
    expect(decodeUnit("shop", withData)).toEqual({ ok: false, error: `inventory v1 Secret shop/db: data of v1 Secret ${SECRET_RULE}` });
    const managed = { ...shard, policyParams: { "v1/ConfigMap": { namespaced: true, objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "shop", managedFields: [] } }] } } };
    expect(decodeUnit("shop", managed)).toEqual({
      ok: false,
      error: `policyParams v1 ConfigMap: metadata.managedFields of v1 ConfigMap never leaves the cluster: metadata.managedFields and the annotation kubectl.kubernetes.io/last-applied-configuration of no kind do ${WHY}`,
    });
    expect(decodeUnit("shop", shard).ok).toBe(true);
  });

  it("under any spelling of the core group or of the kind: core/v1, /v1, a lowercase kind", () => {
    const shard = parts.shards.get("shop")!;
    for (const [apiVersion, kind] of [["core/v1", "Secret"], ["/v1", "Secret"], ["v1", "secret"]] as const) {
      const withData = { ...shard, inventory: { [`${apiVersion}/${kind}`]: { namespaced: true, objects: { "shop/db": { apiVersion, kind, metadata: { name: "db", namespace: "shop" }, data: secret["data"] } } } } };
      expect(decodeUnit("shop", withData)).toEqual({ ok: false, error: `inventory ${apiVersion} ${kind} shop/db: data of ${apiVersion} ${kind} ${SECRET_RULE}` });
    }
  });
});
