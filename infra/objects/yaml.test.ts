import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import type { CliIo } from "../base/io.js";
import { runBuild, runCli } from "../../test/node/support/test-io.js";
import { isClusterScoped } from "./namespaces.js";
import { documentsOf, fileChunks, objectsFromText, readObjects, sourceOf, TEMPLATE } from "./yaml.js";

/** The project's own reproduction of incident B: an RWO claim and a Deployment, neither naming a namespace. */
const INCIDENT_B = join(__dirname, "..", "..", "test", "fixtures", "hygiene", "b-before.yaml");
const DEMO = join(__dirname, "..", "..", "examples", "demo", "cluster.yaml");
const K8S = join(__dirname, "..", "k8s");
const IO: CliIo = { out: () => undefined, err: () => undefined, readStdin: async () => "" };

describe("objects from YAML", () => {
  it("reads every document and unpacks List and <Kind>List items", () => {
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: cozystack.io/v1alpha1
    kind: AffinityClass
    metadata: { name: dc1 }
    spec: { nodeSelector: { zone: dc1 } }
---
# a comment-only document is skipped
---
apiVersion: apps.cozystack.io/v1alpha1
kind: TenantList
items:
  - metadata: { name: acme, namespace: tenant-root }
    spec: {}
`;
    expect(objectsFromText(text, "x.yaml")).toEqual([
      { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" }, spec: { nodeSelector: { zone: "dc1" } } },
      { apiVersion: "apps.cozystack.io/v1alpha1", kind: "Tenant", metadata: { name: "acme", namespace: "tenant-root" }, spec: {} },
    ]);
  });

  it("names file, line and column of a syntax error, counting lines across documents", () => {
    expect(() => objectsFromText("a: 1\n---\nb: [1\nc: d\n", "bad.yaml")).toThrow(
      "bad.yaml:4:1: Flow sequence in block collection must be sufficiently indented and end with a ]",
    );
  });

  it("names file and line of a document that is not an object", () => {
    expect(() => objectsFromText("kind: A\n---\n- op: add\n  path: /x\n", "patch.yaml")).toThrow(
      "patch.yaml:3: a document is not a Kubernetes object (a mapping with apiVersion and kind)",
    );
  });

});

describe("documentsOf", () => {
  it("says which unreadable documents are Kubernetes objects (apiVersion and kind), and takes Go templates for templates, wherever they are", () => {
    const entries = [
      ...documentsOf(
        [
          "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  labels: {app: x, app: y}\n",
          "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n bad: indent\n",
          "on: [push\njobs: {}\n",
          // Go templates: one that does not parse, one that parses only with an action as a key, one naming itself with an action.
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n{{- if .X }}\ndata: {a: b}\n{{- end }}\n",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\n",
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ .Name }}"\n',
          // Not a template: an action inside a value, as alerting rules hold them.
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rules}\ndata: {summary: "{{ $labels.instance }} is down"}\n',
        ].join("---\n"),
        "t.yaml",
      ),
    ];
    expect(entries.map((entry) => (entry.error === undefined ? `object ${entry.object.kind}` : `${entry.error}${entry.kubernetes ? " (kubernetes)" : ""}`))).toEqual([
      "Map keys must be unique (kubernetes)",
      "All mapping items must start at the same column (kubernetes)",
      "Flow sequence in block collection must be sufficiently indented and end with a ]",
      TEMPLATE,
      TEMPLATE,
      TEMPLATE,
      "object ConfigMap",
    ]);
  });

  it("gives the same documents, lines and errors from a file read in pieces as from its whole text, a bad document not stopping the rest", () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-chunks-"));
    const file = join(dir, "many.yaml");
    const text = `${readFileSync(INCIDENT_B, "utf8")}\n---\nkind: A\nkind: B\n---\n# é, ü: multi-byte characters across pieces\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "naïve"}\n---\n${readFileSync(DEMO, "utf8")}`;
    writeFileSync(file, text);
    const whole = [...documentsOf(text, file)];
    // `kind` twice and no apiVersion: not what kubectl reads as an object.
    expect(whole.filter((entry) => entry.error !== undefined)).toEqual([{ source: { file, line: 32, column: 1 }, error: "Map keys must be unique", kubernetes: false }]);
    for (const size of [1, 7, 64, 4096]) expect([...documentsOf(fileChunks(file, size), file)], `pieces of ${size}`).toEqual(whole);
    expect(whole.map((entry) => entry.source.line)).toEqual([5, 12, 32, 35, ...whole.slice(4).map((entry) => entry.source.line)]);
  });
});

describe("readObjects", () => {
  const dir = mkdtempSync(join(tmpdir(), "edgeadmit-read-"));
  const file = join(dir, "objects.yaml");
  writeFileSync(
    file,
    `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-1 }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: elsewhere }
---
apiVersion: v1
kind: List
items:
  - apiVersion: cozystack.io/v1alpha1
    kind: AffinityClass
    metadata: { name: dc1 }
  - apiVersion: example.com/v1
    kind: Widget
    metadata: { name: w }
  - apiVersion: example.com/v1
    kind: Gadget
    metadata: { name: g }
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.example.com }
spec:
  group: example.com
  scope: Cluster
  names: { kind: Gadget, plural: gadgets }
  versions: []
`,
  );
  const namespaces = (objects: KubeObject[]) => objects.map((o) => `${String(o.kind)} ${String((o.metadata as { namespace?: string }).namespace)}`);

  it("puts namespaced objects without a namespace into the given one, default \"default\"; cluster-scoped kinds, built-in or by a CRD in the input, stay without", async () => {
    const expected = (ns: string) => [
      `PersistentVolumeClaim ${ns}`,
      "PersistentVolume undefined",
      "Deployment elsewhere",
      "AffinityClass undefined",
      `Widget ${ns}`,
      "Gadget undefined",
      "CustomResourceDefinition undefined",
    ];
    expect(namespaces(await readObjects([file], IO))).toEqual(expected("default"));
    expect(namespaces(await readObjects([file], IO, { namespace: "tenant-acme" }))).toEqual(expected("tenant-acme"));
  });

  it("remembers each object's file and line, list items at their own line, stdin as <stdin>", async () => {
    const objects = await readObjects([file, "-"], { ...IO, readStdin: async () => "\n\napiVersion: v1\nkind: Pod\nmetadata: { name: p }\n" });
    expect(objects.map((object) => sourceOf(object))).toEqual([
      { file, line: 1 },
      { file, line: 5 },
      { file, line: 9 },
      { file, line: 16 },
      { file, line: 19 },
      { file, line: 22 },
      { file, line: 26 },
      { file: "<stdin>", line: 3 },
    ]);
    expect(sourceOf({ kind: "Pod" })).toBeUndefined();
  });
});

describe("isClusterScoped", () => {
  it.each([
    ["v1", "Namespace", true],
    ["v1", "Pod", false],
    ["storage.k8s.io/v1", "StorageClass", true],
    ["rbac.authorization.k8s.io/v1", "ClusterRole", true],
    ["rbac.authorization.k8s.io/v1", "Role", false],
    ["admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", true],
    // Same kind, another group: the group decides.
    ["example.com/v1", "Namespace", false],
    ["example.com/v1", "Widget", false],
  ])("%s %s: %s", (apiVersion, kind, clusterScoped) => {
    expect(isClusterScoped(apiVersion, kind)).toBe(clusterScoped);
  });

  it("knows every cluster-scoped CRD this repository installs without being given it", () => {
    const crds = readdirSync(K8S).filter((name) => name.endsWith("-crd.yaml"));
    expect(crds.length).toBeGreaterThan(0);
    for (const name of crds) {
      const crd = parse(readFileSync(join(K8S, name), "utf8"));
      const apiVersion = `${crd.spec.group}/${crd.spec.versions[0].name}`;
      expect([name, isClusterScoped(apiVersion, crd.spec.names.kind)]).toEqual([name, crd.spec.scope === "Cluster"]);
    }
  });
});

describe("snapshot build -f", () => {
  it("builds the demo cluster: classes, the tenant chain with inherited defaults, the application", async () => {
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-f", DEMO]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const snapshot = JSON.parse(stdout);
    expect(snapshot.affinityClasses).toEqual({
      dc1: { nodeSelector: { "topology.kubernetes.io/zone": "dc1" } },
      dc2: { nodeSelector: { "topology.kubernetes.io/zone": "dc2" } },
      gpu: { nodeSelector: { "node.kubernetes.io/gpu": "true" } },
    });
    expect(snapshot.tenants["tenant-acme"]).toEqual({
      name: "acme",
      namespace: "tenant-root",
      chain: ["tenant-root", "tenant-acme"],
      allowedAffinityClasses: ["dc1", "dc2"],
      defaultAffinityClass: "dc1",
    });
    expect(snapshot.applications["tenant-acme/main-db"]).toEqual({ group: "apps.cozystack.io", kind: "Postgres", name: "main-db", affinityClass: "dc1" });
    expect(Number.isSafeInteger(snapshot.generation) && snapshot.generation > 1_700_000_000_000).toBe(true);
  });

  it("reads a directory and stdin together; incident B's RWO claim is mounted by its Deployment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-dir-"));
    writeFileSync(join(dir, "b-before.yaml"), readFileSync(INCIDENT_B, "utf8"));
    writeFileSync(join(dir, "service.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: gateway}\nspec: {ports: [{port: 80}]}\n");
    const tenants = "apiVersion: apps.cozystack.io/v1alpha1\nkind: Tenant\nmetadata: {name: acme, namespace: tenant-root}\nspec: {}\n";
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-n", "tenant-acme", "-f", dir, "-f", "-"], tenants);
    expect(stderr).toBe("edgeadmit snapshot build: ignored 1 object the policies do not use: Service tenant-acme/gateway\n");
    expect(code).toBe(0);
    const snapshot = JSON.parse(stdout);
    expect(snapshot.volumeClaims).toEqual({
      "tenant-acme/session-store": {
        accessModes: ["ReadWriteOnce"],
        pinnedToNode: false,
        mountedBy: [{ kind: "Deployment", name: "gateway", podLabels: { "app.kubernetes.io/name": "gateway" } }],
      },
    });
    expect(Object.keys(snapshot.tenants)).toEqual(["tenant-acme"]);
  });

  it("puts a claim that names no namespace into \"default\", or -n's namespace", async () => {
    const inDefault = await runBuild(["snapshot", "build", "-f", INCIDENT_B]);
    expect(inDefault.stderr).toBe("");
    expect(Object.keys(JSON.parse(inDefault.stdout).volumeClaims)).toEqual(["default/session-store"]);
    const inTenant = await runBuild(["snapshot", "build", "-f", INCIDENT_B, "-n", "tenant-acme"]);
    expect(Object.keys(JSON.parse(inTenant.stdout).volumeClaims)).toEqual(["tenant-acme/session-store"]);
  });

  it("warns on stderr about objects it skips, and still builds from the rest", async () => {
    const broken = "apiVersion: cozystack.io/v1alpha1\nkind: AffinityClass\nmetadata: { name: dc9 }\n---\n";
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-f", "-", "-f", DEMO], broken);
    expect(code).toBe(0);
    expect(stderr).toBe("warning: AffinityClass dc9: spec: Invalid input: expected object, received undefined\n");
    expect(Object.keys(JSON.parse(stdout).affinityClasses)).toEqual(["dc1", "dc2", "gpu"]);
  });

  it("writes -o FILE and says what it holds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-build-"));
    const out = join(dir, "snapshot.json");
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-f", DEMO, "-o", out]);
    expect(code).toBe(0);
    expect(stdout).toBe("");
    const snapshot = JSON.parse(readFileSync(out, "utf8"));
    expect(stderr).toBe(`wrote ${out}: generation ${snapshot.generation}, 3 AffinityClasses, 2 tenants, 1 applications, 0 RWO volume claims, 0 ValidatingAdmissionPolicies bound at the edge, 0 exceptions\n`);
  });

  it("fails with file and line for broken YAML in a directory, one line, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-yaml-"));
    mkdirSync(join(dir, "nested"));
    writeFileSync(join(dir, "nested", "broken.yml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n   bad: indent\n");
    writeFileSync(join(dir, "notes.txt"), "not a manifest: ignored");
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-f", dir]);
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toBe(`edgeadmit snapshot build: ${join(dir, "nested", "broken.yml")}:4:9: Nested mappings are not allowed in compact mappings\n`);
  });

  it("names a missing file", async () => {
    expect(await runBuild(["snapshot", "build", "-f", "/nonexistent/cluster.yaml"])).toEqual({ code: 2, stdout: "", stderr: "edgeadmit snapshot build: cannot read /nonexistent/cluster.yaml: no such file\n" });
  });
});
