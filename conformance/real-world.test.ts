// Every file in conformance/data/real-world (npm run conformance) gets the verdict of its README
// table through the HTTP function: objects wrapped as `edgeadmit review` wraps
// them, against a snapshot built from the same manifests (PVCs and the
// workloads that mount them, as the sync job would list them), under the
// settings profiles shipped in examples/profiles.
import { describe, expect, it } from "vitest";
import aBeforeRendered from "./data/real-world/A/before/RENDERED-overlays-prod.yaml?raw";
import aBeforeCleanup from "./data/real-world/A/before/cleanup-cronjob.yaml?raw";
import aBeforeKustomization from "./data/real-world/A/before/kustomization.yaml?raw";
import aBeforeHighKustomization from "./data/real-world/A/before/overlays/memory-tier-high-kustomization.yaml?raw";
import aBeforeHighNodeSelector from "./data/real-world/A/before/overlays/memory-tier-high-nodeselector.yaml?raw";
import aBeforeLowKustomization from "./data/real-world/A/before/overlays/memory-tier-low-kustomization.yaml?raw";
import aBeforeLowNodeSelector from "./data/real-world/A/before/overlays/memory-tier-low-nodeselector.yaml?raw";
import aBeforeProdKustomization from "./data/real-world/A/before/overlays/overlays-prod-kustomization.yaml?raw";
import aBeforeRqWorker from "./data/real-world/A/before/rq-worker-deployment.yaml?raw";
import aBeforeStreamlit from "./data/real-world/A/before/streamlit-deployment.yaml?raw";
import aBeforePvc from "./data/real-world/A/before/workspace-pvc.yaml?raw";
import aAfterRendered from "./data/real-world/A/after/RENDERED-overlays-prod.yaml?raw";
import aAfterCleanup from "./data/real-world/A/after/cleanup-cronjob.yaml?raw";
import aAfterKustomization from "./data/real-world/A/after/kustomization.yaml?raw";
import aAfterHighKustomization from "./data/real-world/A/after/overlays/memory-tier-high-kustomization.yaml?raw";
import aAfterHighNodeSelector from "./data/real-world/A/after/overlays/memory-tier-high-nodeselector.yaml?raw";
import aAfterLowKustomization from "./data/real-world/A/after/overlays/memory-tier-low-kustomization.yaml?raw";
import aAfterLowNodeSelector from "./data/real-world/A/after/overlays/memory-tier-low-nodeselector.yaml?raw";
import aAfterProdKustomization from "./data/real-world/A/after/overlays/overlays-prod-kustomization.yaml?raw";
import aAfterRqWorker from "./data/real-world/A/after/rq-worker-deployment.yaml?raw";
import aAfterStreamlit from "./data/real-world/A/after/streamlit-deployment.yaml?raw";
import aAfterPvc from "./data/real-world/A/after/workspace-pvc.yaml?raw";
import bBeforeBackend from "./data/real-world/B/before/backend-deployment.yaml?raw";
import bBeforePvc from "./data/real-world/B/before/workspace-pvc.yaml?raw";
import bAfterBackend from "./data/real-world/B/after/backend-deployment.yaml?raw";
import bAfterPvc from "./data/real-world/B/after/workspace-pvc.yaml?raw";
import bExtraMinio from "./data/real-world/B/extra/minio-deployment.yaml?raw";
import bExtraPostgresql from "./data/real-world/B/extra/postgresql-deployment.yaml?raw";
import cBeforeDefault from "./data/real-world/C/before/rendered-default-names.yaml?raw";
import cBeforeOverride from "./data/real-world/C/before/rendered-nameOverride-foo.yaml?raw";
import cBeforeValues from "./data/real-world/C/before/values.pre-PR-e8e8052.yaml?raw";
import cBeforeValuesExcerpt from "./data/real-world/C/before/values.proxy-excerpt.RECONSTRUCTED.yaml?raw";
import cAfterChart from "./data/real-world/C/after/Chart.yaml?raw";
import cAfterDefault from "./data/real-world/C/after/rendered-default-names.yaml?raw";
import cAfterOverride from "./data/real-world/C/after/rendered-nameOverride-foo.yaml?raw";
import cAfterValues from "./data/real-world/C/after/values.yaml?raw";
import dReader from "./data/real-world/D/as-is/reader.yaml?raw";
import dWriter from "./data/real-world/D/as-is/writer.yaml?raw";
import eSchedulingClasses from "./data/real-world/E/extracted__schedulingclasses.yaml?raw";
import eTenants from "./data/real-world/E/extracted__tenants.yaml?raw";
import eLineageWebhook from "./data/real-world/E/lineage-mutatingwebhookconfiguration.yaml?raw";
import eCrd from "./data/real-world/E/schedulingclasses-crd.yaml?raw";
import type { KubeObject } from "../shared/snapshot/builder/index.js";
import { objectsFromYaml } from "../test/support/worker.js";
import { judgeManifests, type Expected, type Profile, type Verdict } from "../test/support/reviews.js";

const CLUSTER = "other";

interface FileCase {
  /** Path under conformance/data/real-world. */
  file: string;
  text: string;
  namespace: string;
  /** Manifests the snapshot is built from: the PVCs and the workloads that mount them. */
  cluster: string[];
  profile: Profile;
  verdict: Verdict;
  /** Findings by `Kind/name`; any other object of the file must raise none. */
  findings?: Record<string, Expected[]>;
  /** Documents to apply instead of the file's own (a base patched by its overlay). */
  objects?: KubeObject[];
}

const judgeFile = (fileCase: FileCase) =>
  judgeManifests(CLUSTER, {
    objects: fileCase.objects ?? objectsFromYaml(fileCase.text),
    namespace: fileCase.namespace,
    cluster: fileCase.cluster.flatMap(objectsFromYaml),
    profile: fileCase.profile,
    verdict: fileCase.verdict,
    findings: fileCase.findings,
  });

/** Kustomize's JSON 6902 `add` of the overlay's nodeSelector to every Deployment, as the memory-tier components do. */
function withNodeSelectorPatch(objects: KubeObject[], patchYaml: string): KubeObject[] {
  const [ops] = objectsFromYaml(patchYaml) as unknown as Array<Array<{ op: string; path: string; value: Record<string, string> }>>;
  expect(ops).toEqual([{ op: "add", path: "/spec/template/spec/nodeSelector", value: expect.any(Object) }]);
  return objects.map((object) => {
    if (object.kind !== "Deployment") return object;
    const spec = object.spec as { template: { spec: Record<string, unknown> } };
    return { ...object, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, nodeSelector: ops![0]!.value } } } };
  });
}

const A_DEADLOCK = (name: string): Expected => ({
  policy: "pod-affinity-deadlock",
  message: `deploy/${name}: required podAffinity on shared volume-group + nodeSelector: deadlock; select the app`,
});
const A_SURGE = (name: string, claim: string): Expected => ({ policy: "rwo-rollout", message: `deploy/${name}: surge pod + RWO PVC ${claim}: Multi-Attach; use Recreate or maxSurge 0` });
const A_SHARED = (ref: string, claim: string): Expected => ({ policy: "rwo-shared", message: `${ref}: RWO PVC ${claim} has 3 users: Multi-Attach; co-locate or use RWX` });
const A_BEFORE_BASE = [aBeforePvc, aBeforeStreamlit, aBeforeRqWorker, aBeforeCleanup];
const A_AFTER_BASE = [aAfterPvc, aAfterStreamlit, aAfterRqWorker, aAfterCleanup];
// streamlit runs two replicas on the claim: that is rwo-shared's finding, rollout or not.
const A_AFTER_BASE_FINDINGS: Record<string, Expected[]> = {
  "Deployment/streamlit": [A_SHARED("deploy/streamlit", "workspaces-pvc")],
  "Deployment/rq-worker": [A_SURGE("rq-worker", "workspaces-pvc"), A_SHARED("deploy/rq-worker", "workspaces-pvc")],
  "CronJob/workspace-cleanup": [A_SHARED("cj/workspace-cleanup", "workspaces-pvc")],
};

const B_SURGE = (name: string, claim: string): Expected => ({ policy: "rwo-rollout", message: `deploy/${name}: surge pod + RWO PVC ${claim}: Multi-Attach; use Recreate or maxSurge 0` });
const C_DRIFT: Expected = {
  policy: "anti-affinity-drift",
  message: "deploy/kafscale-foo-proxy: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/name=foo-proxy",
};
const C_SPREAD: Expected = {
  policy: "ha-spread",
  message: "deploy/kafscale-foo-proxy: 2 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels",
};

const CASES: FileCase[] = [
  // A before: the rendered prod overlay is what reached the cluster.
  {
    file: "A/before/RENDERED-overlays-prod.yaml",
    text: aBeforeRendered,
    namespace: "openms",
    cluster: [aBeforeRendered],
    profile: "recommended",
    verdict: "deny",
    findings: { "Deployment/template-app-streamlit": [A_DEADLOCK("template-app-streamlit")], "Deployment/template-app-rq-worker": [A_DEADLOCK("template-app-rq-worker")] },
  },
  {
    file: "A/before/RENDERED-overlays-prod.yaml",
    text: aBeforeRendered,
    namespace: "openms",
    cluster: [aBeforeRendered],
    profile: "default",
    verdict: "warn",
    findings: { "Deployment/template-app-streamlit": [A_DEADLOCK("template-app-streamlit")], "Deployment/template-app-rq-worker": [A_DEADLOCK("template-app-rq-worker")] },
  },
  // The base alone has no node tier yet: its shared-label affinity co-locates
  // every user of the volume and cannot deadlock. The tier comes from the overlay.
  ...[aBeforeStreamlit, aBeforeRqWorker, aBeforeCleanup, aBeforePvc].map(
    (text, i): FileCase => ({
      file: `A/before/${["streamlit-deployment", "rq-worker-deployment", "cleanup-cronjob", "workspace-pvc"][i]}.yaml`,
      text,
      namespace: "openms",
      cluster: A_BEFORE_BASE,
      profile: "recommended",
      verdict: "allow",
    }),
  ),
  ...(
    [
      ["memory-tier-low", aBeforeLowNodeSelector, "low"],
      ["memory-tier-high", aBeforeHighNodeSelector, "high"],
    ] as const
  ).map(
    ([component, patch]): FileCase => ({
      file: `A/before/overlays/${component}-nodeselector.yaml (applied to the base Deployments)`,
      text: patch,
      objects: withNodeSelectorPatch([...objectsFromYaml(aBeforeStreamlit), ...objectsFromYaml(aBeforeRqWorker)], patch),
      namespace: "openms",
      cluster: A_BEFORE_BASE,
      profile: "recommended",
      verdict: "deny",
      findings: { "Deployment/streamlit": [A_DEADLOCK("streamlit")], "Deployment/rq-worker": [A_DEADLOCK("rq-worker")] },
    }),
  ),
  // A after: no affinity left, one RWO volume for three workloads.
  {
    file: "A/after/RENDERED-overlays-prod.yaml",
    text: aAfterRendered,
    namespace: "openms",
    cluster: [aAfterRendered],
    profile: "recommended",
    verdict: "warn",
    findings: {
      "Deployment/template-app-streamlit": [A_SHARED("deploy/template-app-streamlit", "template-app-workspaces-pvc")],
      "Deployment/template-app-rq-worker": [A_SURGE("template-app-rq-worker", "template-app-workspaces-pvc"), A_SHARED("deploy/template-app-rq-worker", "template-app-workspaces-pvc")],
      "CronJob/template-app-workspace-cleanup": [A_SHARED("cj/template-app-workspace-cleanup", "template-app-workspaces-pvc")],
    },
  },
  ...[aAfterStreamlit, aAfterRqWorker, aAfterCleanup, aAfterPvc].map((text, i): FileCase => {
    const name = ["streamlit-deployment", "rq-worker-deployment", "cleanup-cronjob", "workspace-pvc"][i]!;
    const ref = ["Deployment/streamlit", "Deployment/rq-worker", "CronJob/workspace-cleanup"][i];
    return {
      file: `A/after/${name}.yaml`,
      text,
      namespace: "openms",
      cluster: A_AFTER_BASE,
      profile: "recommended",
      verdict: ref ? "warn" : "allow",
      findings: ref ? { [ref]: A_AFTER_BASE_FINDINGS[ref]! } : {},
    };
  }),
  ...(
    [
      ["memory-tier-low", aAfterLowNodeSelector],
      ["memory-tier-high", aAfterHighNodeSelector],
    ] as const
  ).map(
    ([component, patch]): FileCase => ({
      file: `A/after/overlays/${component}-nodeselector.yaml (applied to the base Deployments)`,
      text: patch,
      objects: withNodeSelectorPatch([...objectsFromYaml(aAfterStreamlit), ...objectsFromYaml(aAfterRqWorker)], patch),
      namespace: "openms",
      cluster: A_AFTER_BASE,
      profile: "recommended",
      verdict: "warn",
      findings: { "Deployment/streamlit": A_AFTER_BASE_FINDINGS["Deployment/streamlit"]!, "Deployment/rq-worker": A_AFTER_BASE_FINDINGS["Deployment/rq-worker"]! },
    }),
  ),
  // B: the backend's RWO state volume and the default RollingUpdate.
  {
    file: "B/before/backend-deployment.yaml",
    text: bBeforeBackend,
    namespace: "ambient-code",
    cluster: [bBeforePvc, bBeforeBackend],
    profile: "recommended",
    verdict: "warn",
    findings: { "Deployment/backend-api": [B_SURGE("backend-api", "backend-state-pvc")] },
  },
  {
    file: "B/before/backend-deployment.yaml",
    text: bBeforeBackend,
    namespace: "ambient-code",
    cluster: [bBeforePvc, bBeforeBackend],
    profile: "strict",
    verdict: "deny",
    findings: { "Deployment/backend-api": [B_SURGE("backend-api", "backend-state-pvc")] },
  },
  { file: "B/before/workspace-pvc.yaml", text: bBeforePvc, namespace: "ambient-code", cluster: [bBeforePvc, bBeforeBackend], profile: "recommended", verdict: "allow" },
  { file: "B/after/backend-deployment.yaml", text: bAfterBackend, namespace: "ambient-code", cluster: [bAfterPvc, bAfterBackend], profile: "recommended", verdict: "allow" },
  { file: "B/after/backend-deployment.yaml", text: bAfterBackend, namespace: "ambient-code", cluster: [bAfterPvc, bAfterBackend], profile: "strict", verdict: "allow" },
  { file: "B/after/workspace-pvc.yaml", text: bAfterPvc, namespace: "ambient-code", cluster: [bAfterPvc, bAfterBackend], profile: "recommended", verdict: "allow" },
  {
    file: "B/extra/minio-deployment.yaml",
    text: bExtraMinio,
    namespace: "ambient-code",
    cluster: [bExtraMinio],
    profile: "recommended",
    verdict: "warn",
    findings: { "Deployment/minio": [B_SURGE("minio", "minio-data")] },
  },
  { file: "B/extra/postgresql-deployment.yaml", text: bExtraPostgresql, namespace: "ambient-code", cluster: [bExtraPostgresql], profile: "recommended", verdict: "allow" },
  { file: "B/extra/postgresql-deployment.yaml", text: bExtraPostgresql, namespace: "ambient-code", cluster: [bExtraPostgresql], profile: "strict", verdict: "allow" },
  // C: the hard-coded anti-affinity selector after nameOverride.
  { file: "C/before/rendered-default-names.yaml", text: cBeforeDefault, namespace: "kafscale", cluster: [], profile: "recommended", verdict: "allow" },
  {
    file: "C/before/rendered-nameOverride-foo.yaml",
    text: cBeforeOverride,
    namespace: "kafscale",
    cluster: [],
    profile: "recommended",
    verdict: "warn",
    findings: { "Deployment/kafscale-foo-proxy": [C_DRIFT, C_SPREAD] },
  },
  {
    file: "C/before/rendered-nameOverride-foo.yaml",
    text: cBeforeOverride,
    namespace: "kafscale",
    cluster: [],
    profile: "strict",
    verdict: "deny",
    findings: { "Deployment/kafscale-foo-proxy": [C_DRIFT, C_SPREAD] },
  },
  { file: "C/after/rendered-default-names.yaml", text: cAfterDefault, namespace: "kafscale", cluster: [], profile: "strict", verdict: "allow" },
  { file: "C/after/rendered-nameOverride-foo.yaml", text: cAfterOverride, namespace: "kafscale", cluster: [], profile: "strict", verdict: "allow" },
  // D: a correct one-per-node pairing. Strict denies any finding, so allow means none at all.
  { file: "D/as-is/reader.yaml", text: dReader, namespace: "default", cluster: [dReader, dWriter], profile: "strict", verdict: "allow" },
  { file: "D/as-is/writer.yaml", text: dWriter, namespace: "default", cluster: [dReader, dWriter], profile: "strict", verdict: "allow" },
  // E: CozyStack reference objects; none is a workload, so none has anything to judge.
  { file: "E/extracted__schedulingclasses.yaml", text: eSchedulingClasses, namespace: "tenant-root", cluster: [], profile: "strict", verdict: "allow" },
  { file: "E/extracted__tenants.yaml", text: eTenants, namespace: "tenant-root", cluster: [], profile: "strict", verdict: "allow" },
  { file: "E/lineage-mutatingwebhookconfiguration.yaml", text: eLineageWebhook, namespace: "cozy-system", cluster: [], profile: "strict", verdict: "allow" },
  { file: "E/schedulingclasses-crd.yaml", text: eCrd, namespace: "cozy-system", cluster: [], profile: "strict", verdict: "allow" },
  // Kustomize's own objects are build input, not cluster objects: nothing to judge.
  ...(
    [
      ["A/before/kustomization.yaml", aBeforeKustomization],
      ["A/before/overlays/memory-tier-high-kustomization.yaml", aBeforeHighKustomization],
      ["A/before/overlays/memory-tier-low-kustomization.yaml", aBeforeLowKustomization],
      ["A/before/overlays/overlays-prod-kustomization.yaml", aBeforeProdKustomization],
      ["A/after/kustomization.yaml", aAfterKustomization],
      ["A/after/overlays/memory-tier-high-kustomization.yaml", aAfterHighKustomization],
      ["A/after/overlays/memory-tier-low-kustomization.yaml", aAfterLowKustomization],
      ["A/after/overlays/overlays-prod-kustomization.yaml", aAfterProdKustomization],
    ] as const
  ).map(([file, text]): FileCase => ({ file, text, namespace: "openms", cluster: [], profile: "strict", verdict: "allow" })),
];

describe("real-world fixtures through POST /v1/:cluster/validate", () => {
  for (const fileCase of CASES) {
    it(`${fileCase.file} under the ${fileCase.profile} profile: ${fileCase.verdict}`, () => judgeFile(fileCase));
  }
});

describe("fixture files that are not Kubernetes objects", () => {
  // Helm values and chart metadata are inputs to `helm template`; the rendered files above are what gets applied.
  it.each([
    ["C/before/values.pre-PR-e8e8052.yaml", cBeforeValues],
    ["C/before/values.proxy-excerpt.RECONSTRUCTED.yaml", cBeforeValuesExcerpt],
    ["C/after/values.yaml", cAfterValues],
    ["C/after/Chart.yaml", cAfterChart],
  ])("%s has no kind: nothing to admit", (_file, text) => {
    for (const document of objectsFromYaml(text)) expect(document.kind).toBeUndefined();
  });

  it("the memory-tier nodeSelector patches are JSON 6902 operations, judged above once applied", () => {
    for (const text of [aBeforeLowNodeSelector, aBeforeHighNodeSelector, aAfterLowNodeSelector, aAfterHighNodeSelector]) {
      expect(Array.isArray(objectsFromYaml(text)[0])).toBe(true);
    }
  });
});
