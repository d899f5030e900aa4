// Which cluster (scope) each file of a tree belongs to, and which files are
// kustomizations or patches, under each --scope rule.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { inputFiles, roleOf } from "./inputs.js";

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "edgeadmit-inputs-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const OBJECT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n";

describe("inputFiles", () => {
  const root = tree({
    "app/kustomization.yaml": "resources: [deploy/web.yaml, storage/data.yaml]\npatches:\n  - path: ../patches/replicas.yaml\npatchesStrategicMerge:\n  - |-\n    apiVersion: apps/v1\n    kind: Deployment\n",
    "app/deploy/web.yaml": OBJECT,
    "app/storage/data.yaml": OBJECT,
    "app/overlays/prod/kustomization.yml": "resources: [../..]\npatchesJson6902:\n  - path: ops.yaml\n",
    "app/overlays/prod/ops.yaml": "- op: replace\n  path: /spec/replicas\n  value: 3\n",
    "app/overlays/prod/extra.yaml": OBJECT,
    "patches/replicas.yaml": OBJECT,
    "examples/a/x.yaml": OBJECT,
    "examples/b/x.yaml": OBJECT,
    "README.md": "# not read",
  });
  const rows = (rule: Parameters<typeof inputFiles>[1]) =>
    inputFiles([root], rule).files.map((file) => [relative(root, file.path), relative(root, file.scope) || ".", file.skip?.replace(root, "ROOT") ?? ""]);

  it("auto: a kustomization's directory takes its subdirectories without one; directories without objects of their own do not; patches and kustomizations are skipped", () => {
    expect(rows("auto")).toEqual([
      ["app/deploy/web.yaml", "app", ""],
      ["app/kustomization.yaml", "app", "a kustomization"],
      ["app/overlays/prod/extra.yaml", "app/overlays/prod", ""],
      ["app/overlays/prod/kustomization.yml", "app/overlays/prod", "a kustomization"],
      ["app/overlays/prod/ops.yaml", "app/overlays/prod", "a patch listed in ROOT/app/overlays/prod/kustomization.yml"],
      ["app/storage/data.yaml", "app", ""],
      ["examples/a/x.yaml", "examples/a", ""],
      ["examples/b/x.yaml", "examples/b", ""],
      ["patches/replicas.yaml", "patches", "a patch listed in ROOT/app/kustomization.yaml"],
    ]);
  });

  it("auto: a directory with objects of its own takes the subdirectories that are no application of their own (kubernetes/examples' nfs: the claim in provisioner/)", () => {
    const nfs = tree({
      "nfs/nfs-server-deployment.yaml": OBJECT,
      "nfs/provisioner/nfs-server-pvc.yaml": OBJECT,
      "nfs/chart/Chart.yaml": "apiVersion: v2\nname: nfs\nversion: 0.1.0\n",
      "nfs/chart/crds/crd.yaml": OBJECT,
      "nfs/chart/templates/rc.yaml": "apiVersion: v1\nkind: {{ .Values.kind }}\n",
      "nfs/overlay/kustomization.yaml": "resources: [../nfs-server-deployment.yaml]\n",
      "nfs/overlay/extra.yaml": OBJECT,
      "ci/.github/workflow.yaml": "on: [push]\njobs: {}\n",
      "ci/.github/deploy/app.yaml": OBJECT,
      "examples/a/x.yaml": OBJECT,
      "examples/a/deeper/y.json": '{"apiVersion": "v1", "kind": "ConfigMap"}',
      "examples/b/x.yaml": OBJECT,
    });
    expect(inputFiles([nfs], "auto").files.map((file) => [relative(nfs, file.path), relative(nfs, file.scope)])).toEqual([
      ["ci/.github/deploy/app.yaml", "ci/.github/deploy"],
      ["ci/.github/workflow.yaml", "ci/.github"],
      ["examples/a/deeper/y.json", "examples/a"],
      ["examples/a/x.yaml", "examples/a"],
      ["examples/b/x.yaml", "examples/b"],
      ["nfs/chart/Chart.yaml", "nfs/chart"],
      ["nfs/chart/crds/crd.yaml", "nfs/chart"],
      ["nfs/chart/templates/rc.yaml", "nfs/chart"],
      ["nfs/nfs-server-deployment.yaml", "nfs"],
      ["nfs/overlay/extra.yaml", "nfs/overlay"],
      ["nfs/overlay/kustomization.yaml", "nfs/overlay"],
      ["nfs/provisioner/nfs-server-pvc.yaml", "nfs"],
    ]);
  });

  it("dir, input and one: every directory alone, each argument, everything", () => {
    expect(rows("dir").map(([file, scope]) => [file, scope])).toContainEqual(["app/deploy/web.yaml", "app/deploy"]);
    expect(new Set(rows("input").map(([, scope]) => scope))).toEqual(new Set(["."]));
    expect(new Set(inputFiles([root, "-"], "one").files.map((file) => file.scope))).toEqual(new Set(["(all input)"]));
    expect(inputFiles([join(root, "examples/a/x.yaml"), "-"], "auto").files.map((file) => [file.name.replace(root, "ROOT"), file.scope])).toEqual([
      ["ROOT/examples/a/x.yaml", "(command line)"],
      ["<stdin>", "(command line)"],
    ]);
  });

  it("a missing path stops the run with one line", () => {
    expect(() => inputFiles([join(root, "nowhere.yaml")], "auto")).toThrow(`cannot read ${join(root, "nowhere.yaml")}: no such file`);
  });
});

describe("roleOf", () => {
  it("tells resources, configuration, non-Kubernetes YAML and AdmissionReviews apart", () => {
    expect(roleOf({ apiVersion: "v2", name: "chart" })).toEqual({ role: "skip", reason: "not a Kubernetes object (no kind)" });
    expect(roleOf({ on: ["push"], jobs: {} })).toEqual({ role: "skip", reason: "not a Kubernetes object (no apiVersion and kind)" });
    expect(roleOf({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization" })).toEqual({ role: "skip", reason: "a kustomization" });
    expect(roleOf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "edgeadmit-settings" } }).role).toBe("policy");
    expect(roleOf({ apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionException" }).role).toBe("policy");
    const review = { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { namespace: "shop", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } } } };
    expect(roleOf(review)).toEqual({ role: "resource", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "shop" } } });
    expect(roleOf({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { operation: "DELETE", object: null } })).toEqual({
      role: "error",
      message: "an admission.k8s.io/v1 AdmissionReview without request.object (a DELETE, or a response): nothing to judge",
    });
  });
});
