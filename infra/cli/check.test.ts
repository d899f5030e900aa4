// `edgeadmit check` end to end in process: exact reports, exit codes, stdin,
// and the cluster facts from the input, a snapshot file, or bad input.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runCli } from "../../test/node/support/test-io.js";
import { yamlOf } from "./output-flag.js";
import { corePolicy, LABELLED, ONLY_SECRETS, PEEK } from "../../test/support/credentials.js";

const HYGIENE = "test/fixtures/hygiene";
const scratch = mkdtempSync(join(tmpdir(), "edgeadmit-check-"));

/** A ValidatingAdmissionPolicy bound for Deny, and two Deployments, as `helm template` might print them. */
const VAP_AND_DEPLOYMENTS = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= 5
    message: at most 5 replicas
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-binding}
spec:
  policyName: max-replicas
  validationActions: [Deny]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: big}
spec:
  replicas: 10
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: broken}
spec:
  template: not a pod template
`;

describe("edgeadmit check", () => {
  it("prints each result at its file:line with the webhook's message, then the counts; warnings alone exit 0", async () => {
    expect(await runCli(["check", "-f", `${HYGIENE}/b-before.yaml`, "-f", `${HYGIENE}/nodes.yaml`, "-n", "gateway"])).toEqual({
      code: 0,
      stdout: [
        "test/fixtures/hygiene/b-before.yaml:12  Deployment gateway/gateway  rwo-rollout  Warn  rwo-rollout: deploy/gateway: surge pod + RWO PVC session-store: Multi-Attach; use Recreate or maxSurge 0",
        "",
        "5 objects checked: 0 Deny, 1 Warn, 0 Audit",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("exits 1 when --fail-on warn and something warns, and when something is denied", async () => {
    expect((await runCli(["check", "-f", `${HYGIENE}/b-before.yaml`, "--fail-on", "warn"])).code).toBe(1);
    expect((await runCli(["check", "-f", `${HYGIENE}/b-before.yaml`, "--fail-on", "audit"])).code).toBe(1);
    expect((await runCli(["check", "-f", `${HYGIENE}/b-after.yaml`, "--fail-on", "audit"])).code).toBe(0);
    expect(await runCli(["check", "-f", `${HYGIENE}/a-before.yaml`, "-f", "examples/profiles/recommended.yaml", "-n", "notebooks"])).toEqual({
      code: 1,
      stdout: [
        "test/fixtures/hygiene/a-before.yaml:15  Deployment notebooks/notebook-ui      pod-affinity-deadlock  Deny  pod-affinity-deadlock: deploy/notebook-ui: required podAffinity on shared storage-group + nodeSelector: deadlock; select the app",
        "test/fixtures/hygiene/a-before.yaml:40  Deployment notebooks/notebook-worker  pod-affinity-deadlock  Deny  pod-affinity-deadlock: deploy/notebook-worker: required podAffinity on shared storage-group + nodeSelector: deadlock; select the app",
        "",
        "4 objects checked: 2 Deny, 0 Warn, 0 Audit",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("reads stdin, judges with the ValidatingAdmissionPolicies in it (as the apiserver words them, not judging them), and reports an unreadable object without stopping (exit 1: the Deny wins)", async () => {
    expect(await runCli(["check", "-f", "-"], VAP_AND_DEPLOYMENTS)).toEqual({
      code: 1,
      stdout: [
        "<stdin>:19  Deployment default/big     ha-spread     Audit  ha-spread: deploy/big: 10 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels",
        "<stdin>:19  Deployment default/big     max-replicas  Deny   ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: at most 5 replicas",
        "<stdin>:29  Deployment default/broken  -             Error  request.object is not a valid Deployment: spec.template: Invalid input: expected object, received string",
        "",
        "2 objects checked: 1 Deny, 0 Warn, 1 Audit, 1 unreadable",
        "",
      ].join("\n"),
      stderr: "warning: Deployment default/broken: spec.template: Invalid input: expected object, received string\n",
    });
  });

  it("judges no Secret, as the function judges none: a policy matching Secrets and ConfigMaps judges the ConfigMap only, one matching Secrets only is not bound", async () => {
    const policy = (name: string, resources: string, validation: string) => `${corePolicy(name, resources, validation)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}, validationActions: [Deny]}
---
`;
    const input = `${policy("labelled", "[configmaps, secrets]", LABELLED)}${policy("peek", "[secrets]", PEEK)}apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: shop}
---
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop}
data: {password: aHVudGVyMg==}
`;
    expect(await runCli(["check", "-f", "-"], input)).toEqual({
      code: 1,
      stdout: [
        "<stdin>:31  ConfigMap shop/settings  labelled  Deny  ValidatingAdmissionPolicy 'labelled' with binding 'labelled' denied request: needs labels",
        "",
        "2 objects checked: 1 Deny, 0 Warn, 0 Audit",
        "",
      ].join("\n"),
      stderr: `warning: ValidatingAdmissionPolicy 'peek': ${ONLY_SECRETS}; not enforced\n`,
    });
  });

  // pkg/cel/environment/base.go:179: ext.Lists v3 (sort) is in the environment from Kubernetes 1.34.
  it("--kubernetes-version compiles the policies with that version's CEL environment; without it, 1.34's", async () => {
    const yaml = VAP_AND_DEPLOYMENTS.replace("expression: object.spec.replicas <= 5", "expression: '[object.spec.replicas, 5].sort()[1] == 5'");
    const verdict = (message: string) => `<stdin>:19  Deployment default/big     max-replicas  Deny   ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: ${message}`;
    const run = async (...flags: string[]) => (await runCli(["check", "-f", "-", ...flags], yaml)).stdout.split("\n").find((line) => line.includes("max-replicas"));
    expect(await run("--kubernetes-version", "1.33")).toBe(
      verdict("compilation error: ERROR: <input>:1:31: undeclared reference to 'sort' (in container '') | [object.spec.replicas, 5].sort()[1] == 5 | ..............................^"),
    );
    expect(await run("--kubernetes-version", "1.35")).toBe(verdict("at most 5 replicas"));
    expect(await run()).toBe(verdict("at most 5 replicas"));
    expect(await runCli(["check", "-f", "-", "--kubernetes-version", "1.29"], yaml)).toEqual({
      code: 2,
      stdout: "",
      stderr: "edgeadmit check: --kubernetes-version 1.29: this build knows the CEL environments of Kubernetes 1.30 to 1.37\n",
    });
    expect((await runCli(["check", "-f", "-", "--kubernetes-version", "v1"], yaml)).stderr).toBe('edgeadmit check: --kubernetes-version must be MAJOR.MINOR, e.g. 1.33, not "v1"\n');
  });

  it("-o yaml: the json report as one YAML document, written object by object exactly as it would be whole", async () => {
    // Input errors and skipped documents too: a key written twice, a document that is no object.
    const odd = join(scratch, "odd.yaml");
    writeFileSync(odd, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, name: b}\n---\njust: a note\n");
    for (const files of [[`${HYGIENE}/b-before.yaml`], [`${HYGIENE}/b-before.yaml`, "examples/demo/cluster.yaml", odd]]) {
      const argv = ["check", ...files.flatMap((file) => ["-f", file])];
      const [json, yaml] = [await runCli([...argv, "-o", "json"]), await runCli([...argv, "-o", "yaml"])];
      expect([yaml.code, parse(yaml.stdout)]).toEqual([json.code, JSON.parse(json.stdout)]);
      expect(yaml.stdout).toBe(yamlOf(JSON.parse(json.stdout)));
    }
  });

  it("-o json: every object in input order with its results, messages as the webhook writes them, and what the apiserver would set on it", async () => {
    const { code, stdout } = await runCli(["check", "-f", `${HYGIENE}/b-before.yaml`, "-o", "json"]);
    expect(code).toBe(0);
    const template = "spec.template.spec";
    expect(JSON.parse(stdout)).toEqual({
      apiVersion: "edgeadmit.io/v1alpha1",
      kind: "CheckReport",
      summary: { objects: 2, unreadable: 0, Deny: 0, Warn: 1, Audit: 0, exempted: 0, inputErrors: 0, skippedInputs: 0, clusters: 1 },
      objects: [
        {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          namespace: "default",
          name: "session-store",
          file: "test/fixtures/hygiene/b-before.yaml",
          line: 5,
          allowed: true,
          results: [],
          // pkg/apis/core/v1/defaults.go SetDefaults_PersistentVolumeClaimSpec; plugin/pkg/admission/storage/storageobjectinuseprotection.
          defaulted: [
            { by: "SetDefaults_PersistentVolumeClaimSpec", fields: ["spec.volumeMode"] },
            { by: "StorageObjectInUseProtection", fields: ["metadata.finalizers[0]"] },
          ],
        },
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          namespace: "default",
          name: "gateway",
          file: "test/fixtures/hygiene/b-before.yaml",
          line: 12,
          allowed: true,
          results: [
            {
              policy: "rwo-rollout",
              mode: "Warn",
              message: "rwo-rollout: deploy/gateway: surge pod + RWO PVC session-store: Multi-Attach; use Recreate or maxSurge 0",
              field: "spec.strategy",
            },
          ],
          // pkg/apis/apps/v1/defaults.go SetDefaults_Deployment; pkg/apis/core/v1/defaults.go SetDefaults_PodSpec, SetDefaults_Container.
          defaulted: [
            {
              by: "SetDefaults_Deployment",
              fields: [
                "spec.strategy",
                "spec.strategy.type",
                "spec.strategy.rollingUpdate",
                "spec.strategy.rollingUpdate.maxUnavailable",
                "spec.strategy.rollingUpdate.maxSurge",
                "spec.revisionHistoryLimit",
                "spec.progressDeadlineSeconds",
              ],
            },
            { by: "SetDefaults_PodSpec", fields: ["dnsPolicy", "restartPolicy", "securityContext", "terminationGracePeriodSeconds", "schedulerName"].map((field) => `${template}.${field}`) },
            { by: "SetDefaults_Container", fields: ["imagePullPolicy", "terminationMessagePath", "terminationMessagePolicy"].map((field) => `${template}.containers[0].${field}`) },
            { by: "encoding/json", fields: [`${template}.containers[0].resources`] },
          ],
        },
      ],
      errors: [],
      skipped: [],
    });
  });

  it("judges the object the apiserver would validate: DefaultTolerationSeconds' tolerations admit a Pod that a matchCondition on object.spec.tolerations denies as written", async () => {
    // plugin/pkg/admission/defaulttolerationseconds/admission.go Admit: every Pod without them gets not-ready and unreachable NoExecute tolerations.
    const args = ["check", "-f", "test/fixtures/defaults/pod.yaml", "--policies", "test/fixtures/defaults/restrict-toleration.yaml"];
    expect(await runCli(args)).toEqual({ code: 0, stdout: "2 objects checked: 0 Deny, 0 Warn, 0 Audit\n", stderr: "" });
    // As written, the expression fails and failurePolicy Fail denies; the text line cuts the quoted expression, never the reason at its end.
    const asWritten = await runCli([...args, "--no-defaults"]);
    expect(asWritten.code).toBe(1);
    expect(asWritten.stdout).toBe(
      [
        "test/fixtures/defaults/pod.yaml:6  Pod shop/web  restrict-toleration  Deny  ValidatingAdmissionPolicy 'restrict-toleration' with binding 'restrict-toleration' denied request: expression 'object.spec.tolerations.exists(t, has(t.key) && t.key == 'cloud.example.com/dedicated-poo… (63 characters cut: -o json has the whole message) …ncy-critical-frontends', 'regulated-data-processing']))' resulted in error: no such key: tolerations",
        "",
        "2 objects checked: 1 Deny, 0 Warn, 0 Audit",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await runCli([...args, "-o", "json"])).stdout) as { objects: Array<{ kind: string; defaulted?: Array<{ by: string; fields: string[] }> }> };
    expect(json.objects[1]!.defaulted!.find((change) => change.by === "DefaultTolerationSeconds")).toEqual({ by: "DefaultTolerationSeconds", fields: ["spec.tolerations[0]", "spec.tolerations[1]"] });
  });

  it("a MutatingAdmissionPolicy, which Kubernetes runs before validation from 1.36: said once not to be applied offline, for those versions only", async () => {
    const map = join(scratch, "map.yaml");
    writeFileSync(map, "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: add-team-label}\nspec: {}\n");
    const args = ["check", "-f", "test/fixtures/defaults/pod.yaml", "--policies", map];
    expect(await runCli([...args, "--kubernetes-version", "1.36"])).toEqual({
      code: 0,
      stdout: "2 objects checked: 0 Deny, 0 Warn, 0 Audit\n",
      stderr: "warning: MutatingAdmissionPolicy add-team-label is not applied offline (Kubernetes 1.36 runs it before validation): objects are judged without its mutations\n",
    });
    expect((await runCli([...args, "--kubernetes-version", "1.35"])).stderr).toBe("");
  });

  it("scope auto: an application's claim in a subdirectory is its cluster's fact (kubernetes/examples' nfs-server and provisioner/)", async () => {
    const app = join(scratch, "nfs");
    mkdirSync(join(app, "provisioner"), { recursive: true });
    writeFileSync(join(app, "nfs-server-deployment.yaml"), readFileSync(`${HYGIENE}/b-before.yaml`, "utf8").split("---\n")[1]!);
    writeFileSync(join(app, "provisioner", "nfs-server-pvc.yaml"), readFileSync(`${HYGIENE}/b-before.yaml`, "utf8").split("---\n")[0]!);
    const finding = `${app}/nfs-server-deployment.yaml:1  Deployment default/gateway  rwo-rollout  Warn  rwo-rollout: deploy/gateway: surge pod + RWO PVC session-store: Multi-Attach; use Recreate or maxSurge 0`;
    expect(await runCli(["check", "-f", app])).toEqual({ code: 0, stdout: `${finding}\n\n2 objects checked: 0 Deny, 1 Warn, 0 Audit\n`, stderr: "" });
    // --scope dir keeps each directory apart, as before.
    expect((await runCli(["check", "-f", app, "--scope", "dir"])).stdout).toBe("2 objects checked as 2 separate clusters: 0 Deny, 0 Warn, 0 Audit\n");
  });

  it("takes the cluster facts from --snapshot as edgeadmit snapshot build writes it", async () => {
    const snapshotFile = join(scratch, "strict.json");
    expect((await runCli(["snapshot", "build", "-f", "examples/profiles/strict.yaml", "-f", `${HYGIENE}/b-before.yaml`, "-o", snapshotFile])).code).toBe(0);
    const { code, stdout } = await runCli(["check", "-f", `${HYGIENE}/b-before.yaml`, "--snapshot", snapshotFile]);
    expect({ code, stdout }).toEqual({
      code: 1,
      stdout: [
        "test/fixtures/hygiene/b-before.yaml:12  Deployment default/gateway  rwo-rollout  Deny  rwo-rollout: deploy/gateway: surge pod + RWO PVC session-store: Multi-Attach; use Recreate or maxSurge 0",
        "",
        "2 objects checked: 1 Deny, 0 Warn, 0 Audit",
        "",
      ].join("\n"),
    });
  });

  it("exits 2 with one line when the check cannot run", async () => {
    const notASnapshot = join(scratch, "not-a-snapshot.json");
    writeFileSync(notASnapshot, "{}");
    const cases: Array<[string[], string, string?]> = [
      [["check"], "edgeadmit check: -f PATH is required (see edgeadmit check --help)\n"],
      [["check", "-f", "missing.yaml"], "edgeadmit check: cannot read missing.yaml: no such file\n"],
      [["check", "-f", "-"], "edgeadmit check: no Kubernetes objects in -\n", "# nothing\n"],
      [["check", "-f", `${HYGIENE}/b-before.yaml`, "-o", "xml"], 'edgeadmit check: --output must be one of text, json, yaml, sarif, not "xml"\n'],
      [["check", "-f", `${HYGIENE}/b-before.yaml`, "--fail-on", "never"], 'edgeadmit check: --fail-on must be one of deny, warn, audit, not "never"\n'],
      [["check", "-f", `${HYGIENE}/b-before.yaml`, "--snapshot", notASnapshot, "--from-cluster"], "edgeadmit check: give --snapshot FILE or --from-cluster, not both\n"],
      [["check", "-f", "-", "--snapshot", "-"], "edgeadmit check: stdin can be read once: give - to one of -f, --policies and --snapshot\n"],
    ];
    for (const [argv, stderr, stdin] of cases) expect(await runCli(argv, stdin), argv.join(" ")).toEqual({ code: 2, stdout: "", stderr });
    expect(await runCli(["check", "-f", `${HYGIENE}/b-before.yaml`, "--snapshot", notASnapshot])).toEqual({
      code: 2,
      stdout: "",
      stderr: `edgeadmit check: ${notASnapshot}: snapshot does not match the schema: apiVersion: Invalid input: expected "edgeadmit.io/v1alpha1"; kind: Invalid input: expected "Snapshot"; generation: Invalid input: expected number, received undefined; builtAt: Invalid input: expected string, received undefined; affinityClasses: Invalid input: expected record, received undefined\n`,
    });
  });
});

describe("edgeadmit check with a policy that reads the inventory", () => {
  const example = "examples/inventory/unique-ingress-host";
  const ingress = (namespace: string, name: string, host: string) => `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  rules: [{host: ${host}}]
`;

  it("builds each scope's inventory from its own input, and never counts an object against itself", async () => {
    const tree = mkdtempSync(join(tmpdir(), "edgeadmit-inventory-"));
    const { mkdirSync } = await import("node:fs");
    for (const app of ["shop", "blog"]) mkdirSync(join(tree, app));
    // Each directory is a cluster of its own (--scope auto): the same host in two of them is no collision.
    writeFileSync(join(tree, "shop", "ingress.yaml"), ingress("shop", "web", "www.example.com"));
    writeFileSync(join(tree, "blog", "ingress.yaml"), `${ingress("blog", "blog", "www.example.com")}---\n${ingress("blog", "blog-copy", "www.example.com")}`);
    const denial = (name: string, other: string) =>
      `Ingress blog/${name}  unique-ingress-host  Deny  ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: host www.example.com is already served by Ingress blog/${other}: one host, one Ingress`;
    const { code, stdout, stderr } = await runCli(["check", "-f", tree, "--policies", `${example}/policy.yaml`]);
    expect({ code, stderr }).toEqual({ code: 1, stderr: "" });
    expect(stdout.split("\n").filter((line) => line.includes("Deny  ")).map((line) => line.replace(/^\S+ +/, "").replace(/ {2,}/g, "  "))).toEqual([denial("blog", "blog-copy"), denial("blog-copy", "blog")]);
    expect(stdout).toContain("3 objects checked as 2 separate clusters: 2 Deny, 0 Warn, 0 Audit");
  });
});
