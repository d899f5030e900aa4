// check --from-cluster judges each object as that cluster's admission
// plugins would admit it: the LimitRanges, PriorityClasses and classes it
// lists; one it may not list is a warning, and the check goes on without it.
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../../test/node/support/test-io.js";
import { startFakeApiServer } from "../../../test/node/support/fake-apiserver.js";

const OBJECTS = [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
  { apiVersion: "v1", kind: "LimitRange", metadata: { name: "defaults", namespace: "shop" }, spec: { limits: [{ type: "Container", default: { memory: "256Mi" } }] } },
  { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "standard" }, value: 100, globalDefault: true },
];
const PRIORITY_CLASSES = { group: "scheduling.k8s.io", version: "v1", resource: "priorityclasses", kind: "PriorityClass", namespaced: false };
const POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers: [{name: web, image: nginx:1.27}]\n";

const kubeconfig = process.env.KUBECONFIG;
afterEach(() => {
  if (kubeconfig === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = kubeconfig;
});

type Report = { objects: Array<{ defaulted: Array<{ by: string; fields: string[] }> }> };
const byPlugin = (stdout: string, by: string) => (JSON.parse(stdout) as Report).objects[0]!.defaulted.find((change) => change.by === by)?.fields;

describe("check --from-cluster: the cluster's admission objects", () => {
  it("sets what the cluster's LimitRanger and Priority plugins would set, from its LimitRanges and PriorityClasses", async () => {
    const server = await startFakeApiServer(OBJECTS, { resources: [PRIORITY_CLASSES] });
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout } = await runCli(["check", "-f", "-", "--from-cluster", "-o", "json"], POD);
      expect(code).toBe(0);
      // plugin/pkg/admission/limitranger PodMutateLimitFunc (the stored LimitRange's defaultRequest comes from its default: SetDefaults_LimitRangeItem);
      // plugin/pkg/admission/priority admitPod (the global default class).
      expect(byPlugin(stdout, "LimitRanger")).toEqual([
        "spec.containers[0].resources.limits.memory",
        "spec.containers[0].resources.requests.memory",
        "metadata.annotations",
        'metadata.annotations["kubernetes.io/limit-ranger"]',
      ]);
      expect(byPlugin(stdout, "Priority")).toEqual(["spec.priorityClassName", "spec.priority", "spec.preemptionPolicy"]);
      expect(server.requests.filter((request) => request.includes("limitranges") || request.includes("priorityclasses"))).toEqual([
        "GET /api/v1/limitranges?limit=500",
        "GET /apis/scheduling.k8s.io/v1/priorityclasses?limit=500",
      ]);
    } finally {
      await server.stop();
    }
  });

  it("a kind it may not list: one warning, and the check goes on as a cluster without those objects", async () => {
    const server = await startFakeApiServer(OBJECTS, { resources: [PRIORITY_CLASSES], forbidden: ["priorityclasses.scheduling.k8s.io"] });
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runCli(["check", "-f", "-", "--from-cluster", "-o", "json"], POD);
      expect(code).toBe(0);
      expect(stderr).toContain("the Priority admission plugin reads priorityclasses.scheduling.k8s.io, so the check admits as a cluster without them would\n");
      expect(byPlugin(stdout, "Priority")).toEqual(["spec.priority", "spec.preemptionPolicy"]);
    } finally {
      await server.stop();
    }
  });
});
