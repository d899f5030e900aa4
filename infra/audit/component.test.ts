// infra/k8s/components/audit holds what infra/audit assumes: RBAC for exactly
// what the audit lists and writes, a CronJob that runs it from the edgeadmit
// image (or, with the bundle component, the sync job's bundle), the report
// CRDs it writes. Checked on the files, and on `kubectl kustomize` of an
// overlay where kubectl is installed.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { parse, parseAllDocuments } from "yaml";
import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { BUNDLE_DIR, BUNDLE_PARTS, bundleCli, partFile, partsOf } from "../bundle/build.js";
import { checkBundled, EDGEADMIT_IMAGE } from "../../test/node/support/bundled.js";
import { LISTED_RESOURCES } from "../objects/cluster/listed.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { AUDITABLE_RESOURCES } from "./resources.js";

const K8S = join(__dirname, "..", "k8s");
const COMPONENT = join(K8S, "components", "audit");
const hasKubectl = spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;

const docSchema = z.looseObject({ apiVersion: z.string(), kind: z.string(), metadata: z.looseObject({ name: z.string(), namespace: z.optional(z.string()) }) });
type Doc = z.infer<typeof docSchema>;
const docsOf = (text: string): Doc[] => parseAllDocuments(text).map((d) => docSchema.parse(d.toJS()));
const kustomization = z.looseObject({ apiVersion: z.string(), kind: z.string(), resources: z.array(z.string()) }).parse(parse(readFileSync(join(COMPONENT, "kustomization.yaml"), "utf8")));
const sources = kustomization.resources.flatMap((file) => docsOf(readFileSync(join(COMPONENT, file), "utf8")));

const ruleSchema = z.looseObject({ apiGroups: z.array(z.string()), resources: z.array(z.string()), verbs: z.array(z.string()), resourceNames: z.optional(z.array(z.string())) });
const rulesOf = (docs: Doc[], kind: string, name: string) => z.array(ruleSchema).parse(docs.find((d) => d.kind === kind && d.metadata.name === name)?.["rules"]);
const cronJobSchema = z.looseObject({
  spec: z.looseObject({
    schedule: z.string(),
    concurrencyPolicy: z.string(),
    jobTemplate: z.looseObject({
      spec: z.looseObject({
        activeDeadlineSeconds: z.number(),
        template: z.looseObject({
          spec: z.looseObject({
            serviceAccountName: z.string(),
            containers: z.array(z.looseObject({ image: z.string(), args: z.array(z.string()) })),
            volumes: z.optional(z.array(z.looseObject({ name: z.string() }))),
          }),
        }),
      }),
    }),
  }),
});

/** What the component and a rendering of it must agree on; with the bundle component, the bundle's ConfigMaps it runs from. */
function checkComponent(docs: Doc[], bundleConfigMaps?: string[]) {
  const reads = rulesOf(docs, "ClusterRole", "edgeadmit-audit").filter((rule) => !rule.apiGroups.includes("wgpolicyk8s.io"));
  for (const rule of reads) expect(rule.verbs).toEqual(["get", "list"]);
  const granted = reads.flatMap((rule) => rule.resources.flatMap((resource) => rule.apiGroups.map((group) => `${resource}.${group}`)));
  const used = new Set([...LISTED_RESOURCES, ...AUDITABLE_RESOURCES].map((r) => `${r.resource}.${r.group}`));
  expect(granted.sort()).toEqual([...used].sort());
  expect(rulesOf(docs, "ClusterRole", "edgeadmit-audit").filter((rule) => rule.apiGroups.includes("wgpolicyk8s.io"))).toEqual([
    { apiGroups: ["wgpolicyk8s.io"], resources: ["policyreports", "clusterpolicyreports"], verbs: ["get", "list", "create", "update", "delete"] },
  ]);
  expect(rulesOf(docs, "Role", "edgeadmit-audit-settings-reader")).toEqual([{ apiGroups: [""], resources: ["configmaps"], resourceNames: ["edgeadmit-settings"], verbs: ["get"] }]);
  expect(JSON.stringify(docs)).not.toContain("secrets");

  const cronJob = cronJobSchema.parse(docs.find((d) => d.kind === "CronJob" && d.metadata.name.startsWith("edgeadmit-audit")));
  expect(cronJob.spec).toMatchObject({ schedule: "0 * * * *", concurrencyPolicy: "Forbid" });
  const job = cronJob.spec.jobTemplate.spec;
  expect(job.activeDeadlineSeconds).toBeLessThan(3600);
  expect(job.template.spec.serviceAccountName).toBe("edgeadmit-audit");
  const [container] = job.template.spec.containers;
  expect(container!.args).toEqual(["audit", "--settings-namespace", "$(POD_NAMESPACE)"]);
  if (bundleConfigMaps === undefined) expect(container!.image).toBe(EDGEADMIT_IMAGE);
  else checkBundled(cronJob, bundleConfigMaps);
  // No signing key: the audit never pushes.
  expect((job.template.spec.volumes ?? []).map((v) => v.name)).toEqual(bundleConfigMaps === undefined ? [] : ["bundle", "run"]);

  const crds = ["policyreports.wgpolicyk8s.io", "clusterpolicyreports.wgpolicyk8s.io"].map((name) => docs.find((d) => d.kind === "CustomResourceDefinition" && d.metadata.name === name)!);
  expect(crds.map((d) => [d.metadata.name, (d["spec"] as { scope: string }).scope])).toEqual([
    ["policyreports.wgpolicyk8s.io", "Namespaced"],
    ["clusterpolicyreports.wgpolicyk8s.io", "Cluster"],
  ]);
  const versionOf = (crd: Doc) => (crd["spec"] as { versions: Array<{ name: string; schema: unknown }> }).versions;
  expect(crds.map((crd) => versionOf(crd).map((v) => v.name))).toEqual([["v1alpha2"], ["v1alpha2"]]);
  // One schema for both, as upstream: only names and scope differ.
  const schemaText = (crd: Doc) => JSON.stringify(versionOf(crd)[0]!.schema).replace(/ClusterPolicyReport/g, "PolicyReport");
  expect(schemaText(crds[1]!)).toBe(schemaText(crds[0]!));
}

describe("infra/k8s/components/audit", () => {
  it("is a Component of files that exist, granting, running and defining what the audit uses", () => {
    expect(kustomization).toMatchObject({ apiVersion: "kustomize.config.k8s.io/v1alpha1", kind: "Component" });
    for (const file of kustomization.resources) expect(existsSync(join(COMPONENT, file)), file).toBe(true);
    checkComponent(sources);
  });

  it("the ServiceAccount the bindings name is the component's own, in the job's namespace", () => {
    expect(sources.find((d) => d.kind === "ServiceAccount")?.metadata.name).toBe("edgeadmit-audit");
    for (const binding of sources.filter((d) => d.kind === "ClusterRoleBinding" || d.kind === "RoleBinding"))
      expect(binding["subjects"]).toEqual([{ kind: "ServiceAccount", name: "edgeadmit-audit", namespace: JOB_NAMESPACE }]);
  });
});

describe.skipIf(!hasKubectl)("kubectl kustomize of an overlay with the audit component", () => {
  const render = async (components: string[]) => {
    const overlay = mkdtempSync(join(tmpdir(), "edgeadmit-audit-overlay-"));
    writeFileSync(join(overlay, "kustomization.yaml"), `resources: [${relative(overlay, K8S)}]\ncomponents: [${components.map((c) => relative(overlay, c)).join(", ")}]\n`);
    const { stdout } = await promisify(execFile)("kubectl", ["kustomize", "--load-restrictor", "LoadRestrictionsNone", overlay], { maxBuffer: 64 * 1024 * 1024 });
    return docsOf(stdout);
  };

  it("renders the audit beside the base, in the job's namespace, from the edgeadmit image", async () => {
    const docs = await render([COMPONENT]);
    checkComponent(docs);
    for (const doc of docs.filter((d) => d.metadata.name.startsWith("edgeadmit-audit"))) expect(doc.metadata.namespace, doc.metadata.name).toBe(doc.kind.startsWith("Cluster") ? undefined : JOB_NAMESPACE);
  }, 60_000);

  it("with the bundle component after it, runs the sync job's bundle from its generated ConfigMaps", async () => {
    // kustomize reads the parts npm run bundle:infra writes.
    mkdirSync(BUNDLE_DIR, { recursive: true });
    partsOf((await bundleCli()).gzip).forEach((part, i) => writeFileSync(partFile(i), part));
    const docs = await render([COMPONENT, join(K8S, "bundle")]);
    const bundles = docs.filter((d) => d.kind === "ConfigMap" && d.metadata.name.startsWith("edgeadmit-bundle-")).map((d) => d.metadata.name);
    expect(bundles).toHaveLength(BUNDLE_PARTS);
    checkComponent(docs, bundles);
  }, 60_000);
});
