// snapshot build, push and sync refuse what would silently lose the cluster's
// data: an empty snapshot, objects nobody reads, settings nobody applies,
// snapshot fields the function would drop, a push the function would refuse,
// a policy asking for what never leaves the cluster; and they say what leaves.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { startFakeApiServer } from "../../test/node/support/fake-apiserver.js";
import { runBuild, runCli } from "../../test/node/support/test-io.js";


const ROOT = join(__dirname, "..", "..");
const DEMO = join(ROOT, "examples", "demo", "cluster.yaml");
const dir = mkdtempSync(join(tmpdir(), "edgeadmit-snapshot-"));
const EMPTY_HINT = "pushed, it replaces everything the function knows of the cluster; pass --allow-empty if that is meant";

const settings = (namespace: string, data: string) => `apiVersion: v1
kind: ConfigMap
metadata: { name: edgeadmit-settings, namespace: ${namespace} }
data: ${data}
`;

describe("snapshot build: an empty snapshot is an error unless --allow-empty", () => {
  it.each([
    ["/dev/null", () => "/dev/null"],
    ["a folder without manifests", () => {
      const empty = mkdtempSync(join(dir, "empty-"));
      writeFileSync(join(empty, "README.md"), "no YAML here\n");
      return empty;
    }],
  ])("%s", async (_, path) => {
    const input = path();
    expect(await runBuild(["snapshot", "build", "-f", input])).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit snapshot build: the snapshot would hold no objects (from ${input}): ${EMPTY_HINT}\n`,
    });
    const allowed = await runBuild(["snapshot", "build", "-f", input, "--allow-empty"]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ affinityClasses: {}, tenants: {}, applications: {}, volumeClaims: {} });
  });

  it("input whose every object is ignored: names them, then refuses", async () => {
    const ignored = `apiVersion: v1
kind: ConfigMap
metadata: { name: x }
---
apiVersion: example.com/v1
kind: Foo
metadata: { name: y, namespace: ns }
`;
    expect(await runBuild(["snapshot", "build", "-f", "-"], ignored)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "edgeadmit snapshot build: ignored 2 objects the policies do not use: ConfigMap default/x, Foo.example.com ns/y\n" +
        `edgeadmit snapshot build: the snapshot would hold no objects (from -): ${EMPTY_HINT}\n`,
    });
  });
});

describe("snapshot build: objects the snapshot does not use are named, never dropped silently", () => {
  it("one line: the first five, then how many more", async () => {
    const configMaps = Array.from({ length: 7 }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: cm-${i}, namespace: apps }\n`).join("---\n");
    const policy = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: { name: unbound }\nspec: {}\n";
    const { code, stderr } = await runBuild(["snapshot", "build", "-f", "-", "-f", DEMO], `${policy}---\n${configMaps}`);
    expect(code).toBe(0);
    expect(stderr).toBe(
      "edgeadmit snapshot build: ignored 8 objects the policies do not use: ValidatingAdmissionPolicy.admissionregistration.k8s.io unbound, ConfigMap apps/cm-0, ConfigMap apps/cm-1, ConfigMap apps/cm-2, ConfigMap apps/cm-3, … and 3 more\n",
    );
  });
});

describe("snapshot build: the settings ConfigMap", () => {
  it("warns of policy ids no policy has, naming the known ones, and still carries them", async () => {
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-f", "-", "-f", DEMO], settings("edgeadmit-system", "{ policy.nope: Deny, policy.rwo-shared: Deny }"));
    expect(code).toBe(0);
    expect(stderr).toBe(
      'warning: ConfigMap edgeadmit-settings data.policy.nope: no policy "nope" (known: affinity-class, affinity-class-references, affinity-class-definitions, rwo-rollout, rwo-shared, pod-affinity-deadlock, anti-affinity-drift, ha-spread); carried, but no policy here reads it\n',
    );
    expect(JSON.parse(stdout).settings.policies).toEqual({ nope: "Deny", "rwo-shared": "Deny" });
  });

  it("is read from --settings-namespace only (default edgeadmit-system); one elsewhere is named as ignored", async () => {
    const elsewhere = settings("default", "{ onStale: Deny }");
    const ignored = await runBuild(["snapshot", "build", "-f", "-", "-f", DEMO], elsewhere);
    expect(ignored.stderr).toBe("warning: ConfigMap default/edgeadmit-settings: not in the settings namespace edgeadmit-system; ignored\n");
    expect(JSON.parse(ignored.stdout).settings.onStale).toBe("Warn");
    const read = await runBuild(["snapshot", "build", "-f", "-", "-f", DEMO, "--settings-namespace", "default"], elsewhere);
    expect(read.stderr).toBe("");
    expect(JSON.parse(read.stdout).settings.onStale).toBe("Deny");
  });
});

describe("the settings profiles (examples/profiles)", () => {
  it.each(["default", "recommended", "strict"])("%s is the settings ConfigMap in edgeadmit-system, every key understood", async (profile) => {
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "-f", join(ROOT, "examples", "profiles", `${profile}.yaml`), "--allow-empty"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(stdout).settings.maxAgeSeconds).toBe(3600);
  });
});

describe("snapshot push and sync: refused before anything is sent", () => {
  // Nothing listens on port 1: a check that lets a push through fails with "cannot reach" instead.
  const endpoint = "http://127.0.0.1:1";
  let key: string;
  let built: Record<string, unknown>;
  beforeAll(async () => {
    expect((await runCli(["keygen", "--out", dir, "--cluster", "c"])).code).toBe(0);
    key = join(dir, "edgeadmit.key");
    built = JSON.parse((await runBuild(["snapshot", "build", "-f", DEMO])).stdout);
  });
  const push = (snapshot: unknown, ...flags: string[]) => runCli(["snapshot", "push", "--endpoint", endpoint, "--cluster", "c", "--key", key, ...flags], JSON.stringify(snapshot));

  it("a snapshot file with fields a snapshot does not have: names them", async () => {
    expect(await push({ ...built, volumes: { big: "x".repeat(1000) }, comment: "hi" })).toEqual({
      code: 1,
      stdout: "",
      stderr: "edgeadmit snapshot push: <stdin>: fields a snapshot does not have: volumes, comment (edgeadmit snapshot build writes snapshots)\n",
    });
  });

  it("a snapshot with no objects, unless --allow-empty", async () => {
    const empty = { ...built, affinityClasses: {}, tenants: {}, applications: {}, volumeClaims: {} };
    expect(await push(empty)).toEqual({ code: 1, stdout: "", stderr: `edgeadmit snapshot push: the snapshot holds no objects: ${EMPTY_HINT}\n` });
    expect((await push(empty, "--allow-empty")).stderr).toMatch(/^edgeadmit snapshot push: cannot reach http:\/\/127\.0\.0\.1:1\/v1\/c\/snapshot/);
  });

  it("a namespace whose shard is larger than one body the function takes (8 MiB)", async () => {
    const large = { ...built, namespaces: { big: { metadata: { name: "big", annotations: { padding: "x".repeat(9 * 1024 * 1024) } } } } };
    expect(await push(large)).toEqual({
      code: 1,
      stdout: "",
      stderr: "edgeadmit snapshot push: the shard of namespace big is 9.0 MiB; the function takes at most 8 MiB per body (docs/operations.md, Snapshots in shards)\n",
    });
  });

  it("sync: a cluster that gives no objects is not pushed, and the function is not asked", async () => {
    const server = await startFakeApiServer([]);
    const kubeconfig = process.env.KUBECONFIG;
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const result = await runCli(["sync", "--endpoint", endpoint, "--cluster", "c", "--key", key]);
      expect(result).toEqual({
        code: 1,
        stdout: "",
        // The webhook configuration is read on every sync: missing, it is a warning, never the failure.
        stderr: `warning: no ConfigMap edgeadmit-system/edgeadmit-settings: the snapshot carries the default settings\nwarning: no ValidatingWebhookConfiguration edgeadmit: the apiserver sends the function nothing, so no policy is enforced at the edge and the function's coverage stays unknown (edgeadmit webhook-config renders it)\nedgeadmit sync: the snapshot holds no objects: ${EMPTY_HINT}\n`,
      });
    } finally {
      if (kubeconfig === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = kubeconfig;
      await server.stop();
    }
  });
});


describe("what never leaves the cluster: a bound policy declaring a Secret's data is refused, naming it and the field", () => {
  const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: db-password
  annotations:
    edgeadmit.io/inventory: |
      kinds:
      - apiVersion: v1
        kind: Secret
        fields: [type, data]
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
  validations:
  - expression: "true"
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: db-password}
spec: {policyName: db-password, validationActions: [Deny]}
---
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop}
type: Opaque
data: {password: aHVudGVy}
`;
  const refusal = `ValidatingAdmissionPolicy db-password: metadata.annotations["edgeadmit.io/inventory"] kinds.0.fields.1: data of v1 Secret never leaves the cluster: of a Secret only metadata.name, metadata.namespace, metadata.labels and type do (docs/inventory.md, "What leaves the cluster")`;

  it("snapshot build: exit 1, nothing written", async () => {
    const output = join(dir, "refused.json");
    expect(await runCli(["snapshot", "build", "-f", "-", "-o", output], policy)).toEqual({ code: 2, stdout: "", stderr: `edgeadmit snapshot build: ${refusal}; refused, nothing was written\n` });
    expect(existsSync(output)).toBe(false);
  });

  it("snapshot push of a snapshot file edited to declare it: refused before anything is sent", async () => {
    const built = JSON.parse((await runCli(["snapshot", "build", "-f", join(ROOT, "examples", "inventory", "unique-ingress-host")])).stdout) as { validatingAdmissionPolicies: Record<string, { metadata: { annotations: Record<string, string> } }> };
    built.validatingAdmissionPolicies["unique-ingress-host"]!.metadata.annotations["edgeadmit.io/inventory"] = JSON.stringify({ kinds: [{ apiVersion: "v1", kind: "Secret", fields: ["data"] }] });
    expect((await runCli(["keygen", "--out", join(dir, "edited"), "--cluster", "c"])).code).toBe(0);
    // Nothing listens on port 1: a push that got through would fail with "cannot reach" instead.
    expect(await runCli(["snapshot", "push", "--endpoint", "http://127.0.0.1:1", "--cluster", "c", "--key", join(dir, "edited", "edgeadmit.key")], JSON.stringify(built))).toEqual({
      code: 1,
      stdout: "",
      stderr: `edgeadmit snapshot push: the cluster-wide part: ValidatingAdmissionPolicy unique-ingress-host: metadata.annotations["edgeadmit.io/inventory"] kinds.0.fields.0: data of v1 Secret never leaves the cluster: of a Secret only metadata.name, metadata.namespace, metadata.labels and type do (docs/inventory.md, "What leaves the cluster")\n`,
    });
  });

  it("check: nothing judged", async () => {
    const result = await runCli(["check", "-f", "-"], policy);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`edgeadmit check: ${refusal}; refused, nothing was judged\n`);
  });

  it("sync: nothing pushed, and the Secrets are never listed", async () => {
    const [vap, binding, secret] = parseAllDocuments(policy).map((doc) => doc.toJS() as KubeObject);
    const server = await startFakeApiServer([vap!, binding!, secret!]);
    const kubeconfig = process.env.KUBECONFIG;
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      expect((await runCli(["keygen", "--out", join(dir, "leak"), "--cluster", "c"])).code).toBe(0);
      const result = await runCli(["sync", "--endpoint", "http://127.0.0.1:1", "--cluster", "c", "--key", join(dir, "leak", "edgeadmit.key")]);
      expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: "" });
      expect(result.stderr.split("\n").at(-2)).toBe(`edgeadmit sync: ${refusal}; refused, nothing was pushed`);
      expect(server.requests.filter((path) => path.includes("secrets"))).toEqual([]);
    } finally {
      if (kubeconfig === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = kubeconfig;
      await server.stop();
    }
  });
});

describe("snapshot build says what leaves the cluster", () => {
  it("each kind, its fields, objects, bytes and the policies that asked; as one JSON line with --report json", async () => {
    const example = join(ROOT, "examples", "inventory", "unique-ingress-host");
    const { code, stderr } = await runCli(["snapshot", "build", "-f", example, "-o", join(dir, "leaving.json")]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/\n {2}networking\.k8s\.io\/v1 Ingress \(inventory\): 5 objects, \d+ bytes: apiVersion, kind, metadata\.name, metadata\.namespace, spec\.rules\[\*\]\.host; asked by unique-ingress-host\n/);
    expect(stderr).toContain("  never: a Secret's data, stringData and annotations");
    const json = await runCli(["snapshot", "build", "-f", example, "-o", join(dir, "leaving.json"), "--report", "json"]);
    const report = JSON.parse(json.stderr.split("\n").find((line) => line.startsWith("{"))!) as { leaving: Array<{ source: string; objects: number; policies: string[] }> };
    expect(report.leaving.find((entry) => entry.source === "networking.k8s.io/v1 Ingress (inventory)")).toEqual(
      expect.objectContaining({ objects: 5, policies: ["unique-ingress-host"], fields: ["apiVersion", "kind", "metadata.name", "metadata.namespace", "spec.rules[*].host"] }),
    );
  });
});
