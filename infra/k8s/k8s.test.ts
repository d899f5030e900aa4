// infra/k8s holds what the rest of infra/ assumes: the same resources the
// job lists, the webhook the generator prints, the image the Dockerfile
// builds and the bundle (its ConfigMap path) the sources build.
// Checked on the files themselves, and on `kubectl kustomize` where kubectl is installed.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { parse, parseAllDocuments } from "yaml";
import { run, type CelInput } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { LISTED_RESOURCES } from "../objects/cluster/listed.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { PLACEHOLDER, WEBHOOK_CONFIGURATION_NAME } from "../webhook/index.js";
import { BUNDLE_PARTS, bundleCli, MAX_PART_BYTES, partFile, partsOf } from "../bundle/build.js";
import { checkBundled, EDGEADMIT_IMAGE, NODE_VERSION, nodeImage } from "../../test/node/support/bundled.js";

const DIR = __dirname;
const hasKubectl = spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;

type Doc = Record<string, any>;
const docsOf = (text: string): Doc[] => parseAllDocuments(text).map((d) => d.toJS() as Doc).filter((d) => d !== null);
const read = (file: string): Doc[] => docsOf(readFileSync(join(DIR, file), "utf8"));
const kustomization = parse(readFileSync(join(DIR, "kustomization.yaml"), "utf8")) as Doc;
const sources: Doc[] = (kustomization.resources as string[]).flatMap(read);
const find = (docs: Doc[], kind: string, name?: string) => docs.find((d) => d.kind === kind && (name === undefined || d.metadata.name === name || d.metadata.name.startsWith(`${name}-`)))!;
const container = (cronJob: Doc) => cronJob.spec.jobTemplate.spec.template.spec.containers[0];

/** What kustomize and the sources must agree on, whichever of the two is checked. */
function checkManifests(docs: Doc[]) {
  const role = find(docs, "ClusterRole", "edgeadmit-sync");
  const granted = (role.rules as Doc[]).flatMap((rule) => {
    expect(rule.verbs).toEqual(["get", "list"]);
    return (rule.resources as string[]).flatMap((resource) => (rule.apiGroups as string[]).map((group) => `${resource}.${group}`));
  });
  expect(granted.sort()).toEqual(LISTED_RESOURCES.map((r) => `${r.resource}.${r.group}`).sort());
  expect(find(docs, "ClusterRole", "edgeadmit-sync-webhook").rules).toEqual([
    { apiGroups: ["admissionregistration.k8s.io"], resources: ["validatingwebhookconfigurations"], resourceNames: [WEBHOOK_CONFIGURATION_NAME], verbs: ["get"] },
  ]);
  expect(find(docs, "Role", "edgeadmit-settings-reader").rules).toEqual([{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["edgeadmit-settings"], verbs: ["get"] }]);

  const cronJob = find(docs, "CronJob", "edgeadmit-sync");
  expect(cronJob.spec).toMatchObject({ schedule: "* * * * *", concurrencyPolicy: "Forbid" });
  const job = cronJob.spec.jobTemplate.spec;
  expect(job.activeDeadlineSeconds).toBeLessThan(60);
  expect(job.backoffLimit).toBeGreaterThanOrEqual(0);
  expect(job.template.spec.serviceAccountName).toBe("edgeadmit-sync");
  expect(job.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
  const sync = container(cronJob);
  expect(sync.image).toBe(EDGEADMIT_IMAGE);
  expect(sync.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
  expect(Object.keys(sync.resources.requests).sort()).toEqual(["cpu", "memory"]);
  expect(Object.keys(sync.resources.limits).sort()).toEqual(["cpu", "memory"]);
  // The image's entrypoint is the CLI: sync with the mounted key, every $(VAR) one of the container's env.
  expect(sync.args).toEqual(["sync", "--endpoint", "$(EDGEADMIT_ENDPOINT)", "--cluster", "$(EDGEADMIT_CLUSTER)", "--key", "/etc/edgeadmit/edgeadmit.key", "--settings-namespace", "$(POD_NAMESPACE)"]);
  const env = new Set((sync.env as Doc[]).map((e) => e.name));
  for (const arg of sync.args as string[]) for (const [, name] of arg.matchAll(/\$\((\w+)\)/g)) expect(env.has(name)).toBe(true);
  // Node's heap and glibc's malloc sized for the container (npm run bench measures the job with them): V8's old space
  // well inside the memory limit, room left for what lives outside it.
  const literal = Object.fromEntries((sync.env as Doc[]).filter((e) => typeof e.value === "string").map((e) => [e.name, e.value as string]));
  expect(literal).toEqual({ NODE_OPTIONS: "--max-old-space-size=128 --max-semi-space-size=16", GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" });
  expect(sync.resources.limits.memory).toBe("256Mi");
  const volumes: Doc[] = job.template.spec.volumes;
  expect(volumes.find((v) => v.name === "signing-key")?.secret.secretName).toBe("edgeadmit-signing-key");
  expect(sync.volumeMounts.find((m: Doc) => m.name === "signing-key")?.mountPath).toBe("/etc/edgeadmit");

  const crd = find(docs, "CustomResourceDefinition", "affinityclasses.cozystack.io");
  expect(crd.spec).toMatchObject({ group: "cozystack.io", scope: "Cluster", names: { kind: "AffinityClass", plural: "affinityclasses" } });
  const version = crd.spec.versions[0];
  expect(version.additionalPrinterColumns.map((c: Doc) => c.jsonPath)).toEqual([".spec.nodeSelector", ".spec.enforcement", ".metadata.creationTimestamp"]);
  expect(version.schema.openAPIV3Schema.properties.spec.properties.enforcement.enum).toEqual(["Deny", "Warn", "Audit"]);
  const bindingCrd = find(docs, "CustomResourceDefinition", "edgeadmissionpolicybindings.edgeadmit.io");
  expect(bindingCrd.spec).toMatchObject({ group: "edgeadmit.io", scope: "Cluster", names: { kind: "EdgeAdmissionPolicyBinding" } });
  // Cluster-scoped, so a tenant who writes only in its namespaces cannot exempt itself.
  expect(find(docs, "CustomResourceDefinition", "edgeadmissionexceptions.edgeadmit.io").spec).toMatchObject({ group: "edgeadmit.io", scope: "Cluster", names: { kind: "EdgeAdmissionException" } });

  // Safe to apply as is: no webhook aimed at a placeholder, no settings a re-apply would reset.
  expect(docs.filter((d) => d.kind === "ValidatingWebhookConfiguration" || d.kind === "MutatingWebhookConfiguration")).toEqual([]);
  expect(docs.filter((d) => d.kind === "ConfigMap" && d.metadata.name === "edgeadmit-settings")).toEqual([]);
}

describe("infra/k8s sources", () => {
  it("grant, run, define and register what the code expects", () => {
    expect(kustomization.namespace).toBe(JOB_NAMESPACE);
    checkManifests(sources);
  });

  it("both CronJobs size Node for their container: old space half the memory limit, Node 20's young generation, glibc giving buffers back", () => {
    const audit = container(find(read(join("components", "audit", "cronjob.yaml")), "CronJob", "edgeadmit-audit"));
    for (const job of [container(find(sources, "CronJob", "edgeadmit-sync")), audit]) {
      const env = Object.fromEntries((job.env as Doc[]).filter((e) => typeof e.value === "string").map((e) => [e.name, e.value as string]));
      const limitMi = Number(/^(\d+)Mi$/.exec(job.resources.limits.memory)![1]);
      expect(env).toEqual({ NODE_OPTIONS: `--max-old-space-size=${limitMi / 2} --max-semi-space-size=16`, GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" });
    }
    expect(audit.resources.limits.memory).toBe("512Mi");
  });

  it("the sync job pushes to the placeholder until an overlay sets the real URL and cluster", () => {
    const syncConfig = (kustomization.configMapGenerator as Doc[]).find((g) => g.name === "edgeadmit-sync")!;
    expect(syncConfig.literals).toEqual([`endpoint=${PLACEHOLDER.url}`, `cluster=${PLACEHOLDER.cluster}`]);
  });

  it("the CRD's label patterns accept Kubernetes label keys and values and refuse the rest", () => {
    const spec = find(sources, "CustomResourceDefinition").spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    const requirement = spec.nodeAffinity.properties.requiredDuringSchedulingIgnoredDuringExecution.properties.nodeSelectorTerms.items.properties.matchExpressions.items;
    const key = new RegExp(requirement.properties.key.pattern);
    const value = new RegExp(spec.nodeSelector.additionalProperties.pattern);
    // The nodeSelector's CEL rule carries the same key pattern.
    expect(spec.nodeSelector["x-kubernetes-validations"][0].rule).toContain(`key.matches('${requirement.properties.key.pattern.replace(/\\/g, "\\\\")}')`);
    for (const ok of ["zone", "topology.kubernetes.io/zone", "node.kubernetes.io/gpu", "a/B_c.d-e", "x".repeat(63)]) expect(key.test(ok)).toBe(true);
    for (const bad of ["", "-zone", "zone-", "Example.com/zone", "a//b", "/zone", "x".repeat(64), "my domain/zone"]) expect(key.test(bad)).toBe(false);
    for (const ok of ["", "dc1", "true", "A-b_c.d"]) expect(value.test(ok)).toBe(true);
    for (const bad of ["-dc1", "dc1.", "a b", "ü"]) expect(value.test(bad)).toBe(false);
  });
});

/** JSON → CEL values: objects become maps, as the apiserver hands `self` to a rule. */
function celValue(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(celValue);
  if (value !== null && typeof value === "object") return new Map(Object.entries(value).map(([k, v]) => [k, celValue(v)]));
  return value as CelInput;
}

/** Every schema node with its JSON path, for checks that must hold everywhere. */
function schemaNodes(node: Doc, path = ""): Array<[string, Doc]> {
  const children: Array<[string, Doc]> = [
    ...Object.entries((node.properties ?? {}) as Record<string, Doc>).map(([k, v]): [string, Doc] => [`${path}.${k}`, v]),
    ...(typeof node.additionalProperties === "object" ? [[`${path}.*`, node.additionalProperties] as [string, Doc]] : []),
    ...(node.items ? [[`${path}[]`, node.items] as [string, Doc]] : []),
  ];
  return [[path || ".", node], ...children.flatMap(([p, child]) => schemaNodes(child, p))];
}

describe("the AffinityClass CRD's schema", () => {
  const schema = find(sources, "CustomResourceDefinition").spec.versions[0].schema.openAPIV3Schema;
  const nodes = new Map(schemaNodes(schema));
  /** Whether every rule at `path` holds for `self`. */
  const holds = (path: string, self: unknown) =>
    (nodes.get(path)!["x-kubernetes-validations"] as Doc[]).every((rule) => {
      const result = run(rule.rule, { self: celValue(self) });
      if (typeof result !== "boolean") throw new Error(`${path}: ${rule.rule} gave ${String(result)}`);
      return result;
    });

  it("is structural: every node has a type, every object names its properties or their value type", () => {
    for (const [path, node] of nodes) {
      expect(node.type, path).toMatch(/^(object|array|string|integer|number|boolean)$/);
      if (node.type === "object" && path !== ".metadata") expect(node.properties ?? node.additionalProperties, path).toBeDefined();
      if (node.type === "array") expect(node.items, path).toBeDefined();
    }
  });

  it("bounds everything a CEL rule iterates, so the apiserver's cost estimate accepts the rules", () => {
    expect(nodes.get(".spec.nodeSelector")!.maxProperties).toBeLessThanOrEqual(64);
    expect(nodes.get(".spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[].values")!.maxItems).toBeLessThanOrEqual(64);
  });

  it("its CEL rules compile and judge like Kubernetes: a class needs a selector or affinity", () => {
    expect(holds(".spec", { nodeSelector: { zone: "dc1" } })).toBe(true);
    expect(holds(".spec", { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } })).toBe(true);
    expect(holds(".spec", { enforcement: "Warn" })).toBe(false);
  });

  it("nodeSelector keys must be label keys", () => {
    expect(holds(".spec.nodeSelector", { "topology.kubernetes.io/zone": "dc1", gpu: "true" })).toBe(true);
    expect(holds(".spec.nodeSelector", { "topology.kubernetes.io/zone": "dc1", "-gpu": "true" })).toBe(false);
    expect(holds(".spec.nodeSelector", { "Example.com/zone": "dc1" })).toBe(false);
    expect(holds(".spec.nodeSelector", { [`${"a".repeat(253)}/zone`]: "dc1" })).toBe(true);
    expect(holds(".spec.nodeSelector", { [`${"a".repeat(254)}/zone`]: "dc1" })).toBe(false);
  });

  it("node selector requirements carry the values their operator needs", () => {
    const requirement = ".spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[].matchExpressions[]";
    expect(holds(requirement, { key: "zone", operator: "In", values: ["dc1"] })).toBe(true);
    expect(holds(requirement, { key: "zone", operator: "NotIn", values: [] })).toBe(false);
    expect(holds(requirement, { key: "gpu", operator: "Exists" })).toBe(true);
    expect(holds(requirement, { key: "gpu", operator: "DoesNotExist", values: ["x"] })).toBe(false);
    expect(holds(requirement, { key: "cores", operator: "Gt", values: ["8"] })).toBe(true);
    expect(holds(requirement, { key: "cores", operator: "Lt", values: ["8", "16"] })).toBe(false);
    expect(holds(requirement, { key: `${"a".repeat(253)}/zone`, operator: "Exists" })).toBe(true);
    expect(holds(requirement, { key: `${"a".repeat(254)}/zone`, operator: "Exists" })).toBe(false);
  });
});

describe("the CLI bundle (npm run bundle:infra; built, never committed)", () => {
  const gzip = bundleCli().then((bundle) => bundle.gzip);

  it("fits its parts", async () => {
    expect(partsOf(await gzip).map((p) => p.length <= MAX_PART_BYTES)).toEqual(Array(BUNDLE_PARTS).fill(true));
  }, 60_000);

  it("runs on its own, with no node_modules beside it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-bundle-"));
    const file = join(dir, "edgeadmit.mjs");
    writeFileSync(file, gunzipSync(await gzip));
    const { stdout } = await promisify(execFile)(process.execPath, [file, "--help"], { cwd: dir });
    expect(stdout).toMatch(/^ {2}sync +build from the cluster and push/m);
    // The release and the commit are inlined at bundle time: no package.json or checkout beside the bundle.
    const version = (JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;
    const head = execFileSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: join(__dirname, "..", ".."), encoding: "utf8" }).trim();
    expect((await promisify(execFile)(process.execPath, [file, "--version"], { cwd: dir })).stdout).toBe(`edgeadmit ${version} (commit ${head})\n`);
    const failure = await promisify(execFile)(process.execPath, [file, "sync", "--endpoint", "https://x", "--cluster", "c", "--key", join(dir, "missing.key")], { cwd: dir }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure).toMatchObject({ code: 2, stderr: `edgeadmit sync: cannot read key ${join(dir, "missing.key")}: no such file\n` });
  }, 60_000);
});

describe("what the manifests and docs point to", () => {
  const ROOT = join(DIR, "..", "..");
  const headings = (file: string) => readFileSync(join(ROOT, file), "utf8").match(/^#+ .*$/gm)!.map((h) => h.replace(/^#+ /, ""));

  it("every README section wrangler.toml names exists", () => {
    const named = [...readFileSync(join(ROOT, "wrangler.toml"), "utf8").matchAll(/README "([^"]+)"/g)].map((m) => m[1]!);
    expect(named).toContain("Deploy");
    for (const section of named) expect(headings("README.md")).toContain(section);
  });

  it("operations.md types a size only where it says which npm run bench command measured it", () => {
    const sections = readFileSync(join(ROOT, "docs", "operations.md"), "utf8").split(/^(?=## )/m);
    expect(sections.some((section) => section.startsWith("## Install the in-cluster part"))).toBe(true);
    const unsourced = sections.filter((section) => /≈ ?[\d.]+ ?[KM]i?B|\| [\d.]+ [KM]B/.test(section) && !section.includes("npm run bench"));
    expect(unsourced.map((section) => section.split("\n")[0])).toEqual([]);
  });
});

describe("the image (Dockerfile) the CronJobs run", () => {
  const ROOT = join(DIR, "..", "..");
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  const instructions = dockerfile.split("\n").filter((line) => /^[A-Z]+ /.test(line));
  const runs = instructions.filter((line) => line.startsWith("RUN ")).map((line) => line.slice(4));

  it("copies files that exist and installs exactly what the lock file says", () => {
    for (const line of instructions.filter((l) => l.startsWith("COPY ") && !l.includes("--from"))) {
      for (const source of line.split(" ").slice(1, -1)) expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
    expect(runs[0]).toMatch(/^npm ci /);
  });

  it("its build step makes a CLI that runs on its own, where its entrypoint looks", async () => {
    const build = runs.find((r) => r.includes("infra/bundle/build.ts"))!;
    const [, out] = /--out (\S+)/.exec(build)!;
    const entrypoint = JSON.parse(instructions.find((l) => l.startsWith("ENTRYPOINT "))!.slice("ENTRYPOINT ".length)) as string[];
    expect(instructions).toContain(`COPY --from=build ${out} ${entrypoint[1]}`);
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-image-"));
    const file = join(dir, "edgeadmit.mjs");
    const [command, ...args] = build.replace(out!, file).split(" ");
    // The commit comes in as a build argument, which Docker puts in RUN's environment; the image names itself by it.
    expect(instructions).toContain('ARG EDGEADMIT_COMMIT=""');
    await promisify(execFile)(command === "node" ? process.execPath : command!, args, { cwd: ROOT, env: { ...process.env, EDGEADMIT_COMMIT: "1a2b3c4d5e6f" } });
    const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect((await promisify(execFile)(process.execPath, [file, "--version"], { cwd: dir })).stdout).toBe(`edgeadmit ${version} (commit 1a2b3c4d5e6f)\n`);
  }, 60_000);

  it("builds and runs on the Node the project pins and its tests run on", () => {
    expect(process.version).toBe(`v${NODE_VERSION}`);
    expect(instructions.filter((l) => l.startsWith("FROM "))).toEqual([`FROM ${nodeImage("full")} AS build`, `FROM ${nodeImage("slim")}`]);
  });

  it("runs as the user the CronJobs expect", () => {
    expect(instructions).toContain("USER node"); // uid 1000 in the node images
    expect(container(find(sources, "CronJob")).image).toBe(EDGEADMIT_IMAGE);
    expect(find(sources, "CronJob").spec.jobTemplate.spec.template.spec.securityContext.runAsUser).toBe(1000);
  });
});

describe("the bundle component (the ConfigMap path)", () => {
  const BUNDLE = join(DIR, "bundle");
  const component = parse(readFileSync(join(BUNDLE, "kustomization.yaml"), "utf8")) as Doc;

  it("generates one ConfigMap per part npm run bundle:infra writes, in the job's namespace", () => {
    expect(component).toMatchObject({ apiVersion: "kustomize.config.k8s.io/v1alpha1", kind: "Component" });
    expect((component.configMapGenerator as Doc[]).map((g) => [g.name, g.namespace, g.files])).toEqual(
      Array.from({ length: BUNDLE_PARTS }, (_, i) => [`edgeadmit-bundle-${i}`, JOB_NAMESPACE, [partFile(i).slice(BUNDLE.length + 1)]]),
    );
  });

  it("patches the sync job's and the audit's CronJobs to unpack and run it", () => {
    expect(component.patches).toEqual([{ path: "cronjob-patch.yaml", target: { kind: "CronJob", name: "edgeadmit-(sync|audit)" } }]);
    const [patch] = read("bundle/cronjob-patch.yaml");
    checkBundled(patch!, Array.from({ length: BUNDLE_PARTS }, (_, i) => `edgeadmit-bundle-${i}`));
  });
});

describe.skipIf(!hasKubectl)("kubectl kustomize infra/k8s", () => {
  const render = async (dir: string, restrictor: string[] = []) => docsOf((await promisify(execFile)("kubectl", ["kustomize", ...restrictor, dir], { maxBuffer: 64 * 1024 * 1024 })).stdout);

  it("renders everything in place: namespaced objects in the job's namespace, generated names wired, the image", async () => {
    const docs = await render(DIR);
    expect(docs.map((d) => d.kind).sort()).toEqual(
      ["ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "ConfigMap", "CronJob", "CustomResourceDefinition", "CustomResourceDefinition", "CustomResourceDefinition", "Namespace", "Role", "RoleBinding", "ServiceAccount"].sort(),
    );
    checkManifests(docs);
    const clusterScoped = new Set(["Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"]);
    for (const doc of docs) expect(doc.metadata.namespace, `${doc.kind} ${doc.metadata.name}`).toBe(clusterScoped.has(doc.kind) ? undefined : JOB_NAMESPACE);
    const configMaps = new Set(docs.filter((d) => d.kind === "ConfigMap").map((d) => d.metadata.name as string));
    for (const env of container(find(docs, "CronJob")).env.filter((e: Doc) => e.valueFrom?.configMapKeyRef)) expect(configMaps.has(env.valueFrom.configMapKeyRef.name)).toBe(true);
  }, 60_000);

  it("with the bundle component (listed after the audit's), both CronJobs run the bundle from its generated ConfigMaps as binaryData", async () => {
    // kustomize reads the parts npm run bundle:infra writes.
    mkdirSync(join(DIR, "bundle"), { recursive: true });
    partsOf((await bundleCli()).gzip).forEach((part, i) => writeFileSync(partFile(i), part));
    const overlay = mkdtempSync(join(tmpdir(), "edgeadmit-bundle-overlay-"));
    writeFileSync(join(overlay, "kustomization.yaml"), `resources: [${relative(overlay, DIR)}]\ncomponents: [${relative(overlay, join(DIR, "components", "audit"))}, ${relative(overlay, join(DIR, "bundle"))}]\n`);
    const docs = await render(overlay, ["--load-restrictor", "LoadRestrictionsNone"]);
    const configMaps = new Map(docs.filter((d) => d.kind === "ConfigMap").map((d) => [d.metadata.name as string, d]));
    const bundles = [...configMaps.keys()].filter((name) => name.startsWith("edgeadmit-bundle-"));
    expect(bundles).toHaveLength(BUNDLE_PARTS);
    const cronJobs = docs.filter((d) => d.kind === "CronJob");
    expect(cronJobs.map((c) => c.metadata.name).sort()).toEqual(["edgeadmit-audit", "edgeadmit-sync"]);
    for (const cronJob of cronJobs) {
      checkBundled(cronJob, bundles);
      expect(cronJob.metadata.namespace).toBe(JOB_NAMESPACE);
    }
    for (const name of bundles) {
      expect(Object.keys(configMaps.get(name)!.binaryData)).toHaveLength(1);
      // Client-side apply copies the object into an annotation; all annotations must fit 256 KiB.
      expect(JSON.stringify(configMaps.get(name)).length).toBeLessThan(256 * 1024);
    }
  }, 60_000);
});
