// `edgeadmit check` over a repository-shaped tree (test/fixtures/check-tree,
// its README says what each file reproduces): exact output for every input
// a real repository holds that the check once mishandled.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "./main.js";
import { runBuild, runCli } from "../../test/node/support/test-io.js";

const TREE = "test/fixtures/check-tree";
const POLICIES = "test/fixtures/check-policies";

const lines = (...text: string[]) => `${text.join("\n")}\n`;

describe("edgeadmit check over a tree", () => {
  it("judges each directory as its own cluster, reads number quantities, skips what is no object, reports bad input after every verdict (exit 1: findings win)", async () => {
    expect(await runCli(["check", "-f", TREE, "--policies", `${POLICIES}/vap`])).toEqual({
      code: 1,
      stdout: lines(
        // In a namespace the input does not define: its name decides max-replicas' namespaceSelector; trainer asks for all 8 TPUs (written as numbers) of the largest node, so its replicas cannot share one and ha-spread is quiet.
        `${TREE}/apps/shop/deployment.yaml:1       Deployment shop/trainer          max-replicas  Deny   ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 3 replicas`,
        `${TREE}/apps/shop/deployment.yaml:1       Deployment shop/trainer          prod-images   Deny   ValidatingAdmissionPolicy 'prod-images' denied request: failed to configure policy: namespace "shop" is not in the snapshot, so only its name is known; the namespaceSelector needs its label env`,
        `${TREE}/apps/shop/trainer-copy.yaml:2     Deployment shop/trainer          prod-images   Deny   ValidatingAdmissionPolicy 'prod-images' denied request: failed to configure policy: namespace "shop" is not in the snapshot, so only its name is known; the namespaceSelector needs its label env`,
        `${TREE}/examples/iscsi/deployment.yaml:1  Deployment default/iscsi-reader  prod-images   Deny   ValidatingAdmissionPolicy 'prod-images' denied request: failed to configure policy: namespace "default" is not in the snapshot, so only its name is known; the namespaceSelector needs its label env`,
        `${TREE}/examples/nfs/deployment.yaml:1    Deployment default/nfs-web       prod-images   Deny   ValidatingAdmissionPolicy 'prod-images' denied request: failed to configure policy: namespace "default" is not in the snapshot, so only its name is known; the namespaceSelector needs its label env`,
        `${TREE}/reviews/deployment.json:1         Deployment batch/crunch          ha-spread     Audit  ha-spread: deploy/crunch: 5 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels`,
        `${TREE}/reviews/deployment.json:1         Deployment batch/crunch          max-replicas  Deny   ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 3 replicas`,
        `${TREE}/apps/shop/broken.yaml:5:1         -                                -             Error  Map keys must be unique`,
        "",
        "8 objects checked as 4 separate clusters: 6 Deny, 0 Warn, 1 Audit, 1 input error",
        `skipped 7 inputs: 3 not Kubernetes objects (${TREE}/.github/workflows/ci.yaml:1, ${TREE}/chart/Chart.yaml:1, ${TREE}/chart/values.yaml:1); 1 variant of an object read before (judged, not a cluster fact) (${TREE}/apps/shop/trainer-copy.yaml:2); 1 kustomization (${TREE}/overlays/prod/kustomization.yaml); 2 kustomize patches (${TREE}/overlays/prod/memory.yaml, ${TREE}/overlays/prod/replicas.yaml)`,
        "missing facts: the labels of namespaces default, shop (not in the input: only their names are known); namespaceSelectors read them (prod-images needs env), so failurePolicy decided: define the Namespaces (--policies) or check against --snapshot or --from-cluster",
      ),
      stderr: "",
    });
  });

  it("keeps two unrelated examples that reuse a claim name apart; --one-cluster judges them together and names the duplicate claim", async () => {
    expect(await runCli(["check", "-f", `${TREE}/examples`])).toEqual({ code: 0, stdout: "4 objects checked as 2 separate clusters: 0 Deny, 0 Warn, 0 Audit\n", stderr: "" });
    const variant = `skipped 1 input: 1 variant of an object read before (judged, not a cluster fact) (${TREE}/examples/nfs/pvc.yaml:1)`;
    expect(await runCli(["check", "-f", `${TREE}/examples`, "--one-cluster"])).toEqual({
      code: 0,
      stdout: lines(
        `${TREE}/examples/iscsi/deployment.yaml:1  Deployment default/iscsi-reader  rwo-shared  Warn  rwo-shared: deploy/iscsi-reader: RWO PVC pvc0001 has 2 users: Multi-Attach; co-locate or use RWX`,
        `${TREE}/examples/nfs/deployment.yaml:1    Deployment default/nfs-web       rwo-shared  Warn  rwo-shared: deploy/nfs-web: RWO PVC pvc0001 has 2 users: Multi-Attach; co-locate or use RWX`,
        "",
        "4 objects checked: 0 Deny, 2 Warn, 0 Audit",
        variant,
      ),
      stderr: "",
    });
    // --strict: the variant is an input error, and the run exits 2.
    const strict = await runCli(["check", "-f", `${TREE}/examples`, "--one-cluster", "--strict"]);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain(
      `${TREE}/examples/nfs/pvc.yaml:1           PersistentVolumeClaim default/pvc0001  -           Error  the same group, kind, namespace and name as ${TREE}/examples/iscsi/pvc.yaml:1: one cluster holds one such object (the first is the cluster fact; give each its own scope with --scope, or remove one) (--strict)`,
    );
    // --scope input: each -f one cluster.
    expect((await runCli(["check", "-f", `${TREE}/examples/nfs`, "-f", `${TREE}/examples/iscsi`, "--scope", "input"])).stdout).toBe("4 objects checked as 2 separate clusters: 0 Deny, 0 Warn, 0 Audit\n");
    expect((await runCli(["check", "-f", `${TREE}/examples`, "--scope", "input"])).stdout).toContain(`4 objects checked: 0 Deny, 2 Warn, 0 Audit\n${variant}\n`);
  });

  it("refuses two settings ConfigMaps, naming both", async () => {
    expect(await runCli(["check", "-f", `${TREE}/examples`, "--policies", `${POLICIES}/profiles`])).toEqual({
      code: 2,
      stdout: "",
      stderr: `edgeadmit check: 2 settings ConfigMaps edgeadmit-system/edgeadmit-settings: ${POLICIES}/profiles/recommended.yaml:7 and ${POLICIES}/profiles/strict.yaml:6; they would override each other, give one\n`,
    });
  });

  it("judges an AdmissionReview's object, and lists what an EdgeAdmissionException set aside", async () => {
    expect(await runCli(["check", "-f", `${TREE}/reviews`, "--policies", `${POLICIES}/vap`, "--policies", `${POLICIES}/exception`])).toEqual({
      code: 0,
      stdout: lines(
        `${TREE}/reviews/deployment.json:1  Deployment batch/crunch  ha-spread     Skip  skipped by EdgeAdmissionException crunch-burst: ha-spread: deploy/crunch: 5 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels`,
        `${TREE}/reviews/deployment.json:1  Deployment batch/crunch  max-replicas  Skip  skipped by EdgeAdmissionException crunch-burst: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: at most 3 replicas`,
        "",
        "1 object checked: 0 Deny, 0 Warn, 0 Audit, 2 skipped by exceptions",
      ),
      stderr: "",
    });
  });

  it("--strict makes YAML that is no Kubernetes object an error; without objects at all the check cannot run", async () => {
    expect(await runCli(["check", "-f", `${TREE}/chart`, "--strict"])).toEqual({
      code: 2,
      stdout: lines(
        `${TREE}/chart/Chart.yaml:1   -  -  Error  not a Kubernetes object (no kind) (--strict)`,
        `${TREE}/chart/values.yaml:1  -  -  Error  not a Kubernetes object (no apiVersion and kind) (--strict)`,
        "",
        "0 objects checked: 0 Deny, 0 Warn, 0 Audit, 2 input errors",
      ),
      stderr: "",
    });
    expect(await runCli(["check", "-f", `${TREE}/chart`])).toEqual({
      code: 2,
      stdout: "",
      stderr: `edgeadmit check: no Kubernetes objects in ${TREE}/chart (skipped 2 inputs: 2 not Kubernetes objects (${TREE}/chart/Chart.yaml:1, ${TREE}/chart/values.yaml:1))\n`,
    });
  });

  it("-o=json as -o json: scopes, input errors, skipped inputs and the missing facts as fields", async () => {
    const { code, stdout } = await runCli(["check", "-f", `${TREE}/apps`, "--policies", `${POLICIES}/vap`, "-o=json", "--strict"]);
    expect(code).toBe(1); // Deny wins over the input errors, --strict or not
    const report = JSON.parse(stdout) as Record<string, unknown> & { objects: Array<Record<string, unknown>> };
    expect(report["summary"]).toEqual({ objects: 3, unreadable: 0, Deny: 3, Warn: 0, Audit: 0, exempted: 0, inputErrors: 2, skippedInputs: 0, clusters: 1 });
    expect(report.objects.map((object) => [object["kind"], object["name"], object["line"], object["scope"]])).toEqual([
      ["ConfigMap", "trainer-config", 8, undefined],
      ["Deployment", "trainer", 1, undefined],
      ["Deployment", "trainer", 2, undefined],
    ]);
    expect(report["errors"]).toEqual([
      { file: `${TREE}/apps/shop/broken.yaml`, line: 5, column: 1, message: "Map keys must be unique" },
      {
        file: `${TREE}/apps/shop/trainer-copy.yaml`,
        line: 2,
        object: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "trainer" },
        message: `the same group, kind, namespace and name as ${TREE}/apps/shop/deployment.yaml:1: one cluster holds one such object (the first is the cluster fact; give each its own scope with --scope, or remove one) (--strict)`,
      },
    ]);
    expect(report["missingFacts"]).toEqual({ namespaces: ["shop"], labels: [{ policy: "prod-images", labels: ["env"] }] });
  });

  it("snapshot build reads the same facts: number quantities, Namespaces labelled with their names, bound policies and exceptions counted", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "edgeadmit-tree-")), "snapshot.json");
    const { code, stderr } = await runBuild(["snapshot", "build", "-f", `${POLICIES}/vap`, "-f", `${POLICIES}/exception`, "-o", out]);
    const snapshot = JSON.parse(readFileSync(out, "utf8")) as Record<string, Record<string, unknown>> & { generation: number };
    expect({ code, stderr }).toEqual({
      code: 0,
      stderr: `wrote ${out}: generation ${snapshot.generation}, 0 AffinityClasses, 0 tenants, 0 applications, 0 RWO volume claims, 2 ValidatingAdmissionPolicies bound at the edge, 1 exceptions\n`,
    });
    expect(snapshot["largestAllocatable"]).toEqual({ cpu: "8", "google.com/tpu": "8", memory: "64Gi", pods: "110" });
    expect(snapshot["namespaces"]).toEqual({ batch: { metadata: { name: "batch", labels: { env: "dev", "kubernetes.io/metadata.name": "batch" } } } });
    expect(snapshot["exceptions"]).toEqual({
      "crunch-burst": { policies: ["max-replicas", "ha-spread"], match: [{ kinds: ["Deployment"], namespaces: ["batch"], names: ["crunch"] }], reason: "a batch job that needs the burst; ticket OPS-42" },
    });
  });

  describe("progress", () => {
    afterEach(() => void vi.restoreAllMocks());
    const run = async (stderrIsTerminal: boolean) => {
      // A clock that moves a second per look: the run seems long enough to report on.
      let now = Date.parse("2026-01-01T00:00:00Z");
      vi.spyOn(Date, "now").mockImplementation(() => (now += 1000));
      let stderr = "";
      const code = await main(["check", "-f", `${TREE}/examples`], { out: () => undefined, err: (text) => void (stderr += text), readStdin: async () => "", stderrIsTerminal });
      return { code, stderr };
    };

    it("is one line on a terminal, rewritten in place once the run passes 2 s, and cleared at the end", async () => {
      const { code, stderr } = await run(true);
      expect(code).toBe(0);
      expect(stderr.split("\r\x1b[K").filter(Boolean)).toEqual([
        "edgeadmit check: read 1 document",
        "edgeadmit check: read 2 documents",
        "edgeadmit check: read 3 documents",
        "edgeadmit check: read 4 documents",
        "edgeadmit check: judged 1 of 4 objects",
        "edgeadmit check: judged 2 of 4 objects",
        "edgeadmit check: judged 3 of 4 objects",
        "edgeadmit check: judged 4 of 4 objects",
      ]);
      expect(stderr.endsWith("\r\x1b[K")).toBe(true);
    });

    it("is nothing when stderr is not a terminal", async () => {
      expect(await run(false)).toEqual({ code: 0, stderr: "" });
    });
  });
});
