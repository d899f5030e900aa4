// `edgeadmit check` on what real repositories hold beside their manifests
// (issue 27): each shape is skipped and counted in one summary line, an error
// only under --strict, and the run exits 0 when the manifests are clean.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckReport } from "./output/index.js";
import { renderJson } from "./output/json.js";
import { renderText, TEXT_MESSAGE_CHARS, TEXT_MESSAGE_END_CHARS } from "./output/text.js";
import { runCli } from "../../test/node/support/test-io.js";

/** A fresh tree of `files` (path → text) holding one clean Deployment beside them. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "edgeadmit-noise-"));
  const all = { "app/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n", ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("noise a repository holds, skipped and counted", () => {
  it("Helm templates: a chart's templates/, and a file of the chart that does not parse", async () => {
    const root = tree({
      "chart/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
      "chart/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n  labels: {{ toYaml .Values.labels | nindent 4 }}\n{{- end }}\n",
      "chart/files/config.yaml": "{{- range .Values.items }}\n- {{ . }}\n{{- end }}\n",
    });
    const { code, stdout, stderr } = await runCli(["check", "-f", root]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toBe(
      `1 object checked: 0 Deny, 0 Warn, 0 Audit\nskipped 3 inputs: 1 not a Kubernetes object (${root}/chart/Chart.yaml:1); 2 Helm templates (${root}/chart/files/config.yaml:1, ${root}/chart/templates/deployment.yaml)\n`,
    );
    // --strict: what did not parse is an error again; templates/ stays skipped (never YAML until rendered).
    const strict = await runCli(["check", "-f", root, "--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain(`${root}/chart/files/config.yaml:1  -  -  Error  a Go template ({{ … }} actions): not YAML until it is rendered (--strict)`);
  });

  it("Go templates outside a chart (a project's pkg/ or hack/): skipped wherever they are, never a failure but under --strict", async () => {
    const root = tree({
      "pkg/operator/template/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Name }}\n  namespace: {{ .Namespace }}\nspec:\n  selector: {{ .Selector }}\n",
      "hack/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ebs\n{{- if .Debug }}\nspec:\n  replicas: 1\n{{- end }}\n",
    });
    const { code, stdout } = await runCli(["check", "-f", root]);
    expect({ code, stdout }).toEqual({ code: 0, stdout: `1 object checked: 0 Deny, 0 Warn, 0 Audit\nskipped 2 inputs: 2 Go templates (${root}/hack/patch.yaml:1, ${root}/pkg/operator/template/service.yaml:1)\n` });
    expect((await runCli(["check", "-f", root, "--strict"])).code).toBe(2);
  });

  it("JSON that is no object: an array, a tsconfig with comments", async () => {
    const root = tree({ "renovate/list.json": '["a", "b"]\n', "web/tsconfig.json": '{\n  // strict mode\n  "compilerOptions": {"strict": true}\n}\n' });
    const { code, stdout } = await runCli(["check", "-f", root]);
    expect(code).toBe(0);
    expect(stdout).toBe(`1 object checked: 0 Deny, 0 Warn, 0 Audit\nskipped 2 inputs: 2 not Kubernetes objects (${root}/renovate/list.json:1, ${root}/web/tsconfig.json:1)\n`);
    const strict = await runCli(["check", "-f", root, "--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain(`${root}/renovate/list.json:1  -  -  Error  not a Kubernetes object (not a mapping) (--strict)`);
  });

  it("kustomize replacements: the file a kustomization lists under replacements", async () => {
    const root = tree({
      "overlay/kustomization.yaml": "resources: [../app]\nreplacements:\n- path: replace-image.yaml\n",
      "overlay/replace-image.yaml": "source: {kind: ConfigMap, name: images, fieldPath: data.web}\ntargets:\n- select: {kind: Deployment}\n  fieldPaths: [spec.template.spec.containers.0.image]\n",
    });
    const { code, stdout } = await runCli(["check", "-f", root]);
    expect(code).toBe(0);
    expect(stdout).toBe(`1 object checked: 0 Deny, 0 Warn, 0 Audit\nskipped 2 inputs: 1 kustomization (${root}/overlay/kustomization.yaml); 1 kustomize replacement (${root}/overlay/replace-image.yaml)\n`);
  });

  it("a dangling symlink: skipped, not the end of the run; an error under --strict", async () => {
    const root = tree({});
    symlinkSync(join(root, "nowhere.yaml"), join(root, "app", "gone.yaml"));
    expect(await runCli(["check", "-f", root])).toEqual({ code: 0, stdout: `1 object checked: 0 Deny, 0 Warn, 0 Audit\nskipped 1 input: 1 dangling symlink (${root}/app/gone.yaml)\n`, stderr: "" });
    const strict = await runCli(["check", "-f", root, "--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toBe(`${root}/app/gone.yaml  -  -  Error  a dangling symlink (--strict)\n\n1 object checked: 0 Deny, 0 Warn, 0 Audit, 1 input error\n`);
  });

  it("a long value: cut in the middle of the text line, its end kept; whole in -o json", () => {
    const message = `ValidatingAdmissionPolicy 'x' denied request: value ${"x".repeat(3777)} is not allowed`;
    const report: CheckReport = {
      objects: [{ ref: { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "big" }, source: { file: "big.yaml", line: 1 }, results: [{ policy: "x", mode: "Deny", message }], skipped: [] }],
      policies: [],
      errors: [],
      skipped: [],
      scopes: 1,
    };
    const line = renderText(report).split("\n")[0]!;
    const whole = `x: ${message}`; // a built-in policy's message, as describeResult writes it
    const head = whole.slice(0, TEXT_MESSAGE_CHARS - TEXT_MESSAGE_END_CHARS);
    const tail = whole.slice(-TEXT_MESSAGE_END_CHARS);
    expect(tail.endsWith("x is not allowed")).toBe(true);
    expect(line).toBe(`big.yaml:1  ConfigMap shop/big  x  Deny  ${head}… (${whole.length - TEXT_MESSAGE_CHARS} characters cut: -o json has the whole message) …${tail}`);
    expect((JSON.parse(renderJson(report)) as { objects: Array<{ results: Array<{ message: string }> }> }).objects[0]!.results[0]!.message).toBe(whole);
  });
});

describe("exit codes: findings win; a Kubernetes object that cannot be read fails the run; what is skipped never does, but under --strict", () => {
  it("a manifest with a key twice (kubectl refuses it) beside clean objects: 2, reported; YAML of another tool that does not parse: skipped, 0", async () => {
    const root = tree({
      "broken/x.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: twice\n  name: again\nspec: {}\n",
      "ci/workflow.yaml": "on: [push\njobs: {}\n",
    });
    const plain = await runCli(["check", "-f", root]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toContain(`${root}/broken/x.yaml:5:3  -  -  Error  Map keys must be unique\n`);
    expect(plain.stdout).toContain(`skipped 1 input: 1 not a Kubernetes object (${root}/ci/workflow.yaml:2:1)\n`);
    const foreign = tree({ "ci/workflow.yaml": "on: [push\njobs: {}\n" });
    expect((await runCli(["check", "-f", foreign])).code).toBe(0);
    expect((await runCli(["check", "-f", foreign, "--strict"])).code).toBe(2);
  });

  it("a Deny wins over an input error: 1", async () => {
    const root = tree({
      "broken/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nmetadata: {name: b}\n",
      "shop/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n    spec: {containers: [{name: big, image: nginx}]}\n",
    });
    // ha-spread audits the unspread 2 replicas: --fail-on audit makes it a failing finding.
    expect((await runCli(["check", "-f", root])).code).toBe(2);
    expect((await runCli(["check", "-f", root, "--fail-on", "audit"])).code).toBe(1);
  });
});

describe("colour", () => {
  const report: CheckReport = {
    objects: [{ ref: { apiVersion: "v1", kind: "Pod", namespace: "a", name: "p" }, source: { file: "p.yaml", line: 1 }, results: [{ policy: "x", mode: "Deny", message: "no" }, { policy: "y", mode: "Warn", message: "hm" }], skipped: [] }],
    policies: [],
    errors: [],
    skipped: [],
    scopes: 1,
  };

  it("colours the mode column on a terminal, after padding; none otherwise", () => {
    expect(renderText(report, { colour: true }).split("\n").slice(0, 2)).toEqual(["p.yaml:1  Pod a/p  x  \u001b[31mDeny\u001b[0m  x: no", "p.yaml:1  Pod a/p  y  \u001b[33mWarn\u001b[0m  y: hm"]);
    expect(renderText(report)).not.toContain("\u001b");
  });

  it("the CLI colours only when its io says so (a TTY without NO_COLOR); a test io, like a pipe, gets none", async () => {
    const root = tree({ "bad/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nmetadata: {name: b}\n" });
    expect((await runCli(["check", "-f", root])).stdout).not.toContain("\u001b");
    const { main } = await import("./main.js");
    let out = "";
    await main(["check", "-f", root], { out: (text) => void (out += text), err: () => undefined, readStdin: async () => "", colour: true });
    expect(out).toContain("\u001b[31mError\u001b[0m");
  });

  it("the process's io: colour on a TTY, off with NO_COLOR set (no-color.org: any value but the empty string)", async () => {
    const { processIo } = await import("../base/io.js");
    const tty = process.stdout.isTTY;
    const noColor = process.env.NO_COLOR;
    try {
      process.stdout.isTTY = true;
      delete process.env.NO_COLOR;
      expect(processIo.colour).toBe(true);
      process.env.NO_COLOR = "1";
      expect(processIo.colour).toBe(false);
      process.env.NO_COLOR = "";
      expect(processIo.colour).toBe(true);
      process.stdout.isTTY = false;
      expect(processIo.colour).toBe(false);
    } finally {
      process.stdout.isTTY = tty;
      if (noColor === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = noColor;
    }
  });
});

describe("a policy and its params", () => {
  it("a ValidatingAdmissionPolicy, its binding and its param in one directory judge another directory with that param", async () => {
    const root = tree({
      "policies/policy.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= int(params.data.max)
    messageExpression: "'at most ' + params.data.max + ' replicas'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec:
  policyName: max-replicas
  paramRef: {name: replica-limit, namespace: policies, parameterNotFoundAction: Deny}
  validationActions: [Deny]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: replica-limit, namespace: policies}
data: {max: "3"}
`,
      "big/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: shop}\nspec:\n  replicas: 5\n  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n    spec: {containers: [{name: big, image: nginx}]}\n",
    });
    const { code, stdout } = await runCli(["check", "-f", root]);
    expect(code).toBe(1);
    expect(stdout).toContain(`${root}/big/deployment.yaml:1  Deployment shop/big  max-replicas  Deny   ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 3 replicas`);
    expect(stdout).not.toContain("failed to configure binding");
  });
});
