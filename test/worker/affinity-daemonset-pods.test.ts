// Pods a DaemonSet creates under an OR-class: the controller replaces the
// template's node affinity with `matchFields metadata.name In [node]`, so only
// the node's labels (from the snapshot) can say whether the pod stays in its class.
import { beforeAll, describe, expect, it } from "vitest";
import { objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";
import { lineage, pod, reviewOf } from "../support/reviews.js";

const LINEAGE = lineage("Monitoring", "agents");

beforeAll(async () => {
  const objects = objectsFromYaml(`
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: dc1-or-dc2}
spec:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [dc1]}]
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [dc2]}]
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: agents
  namespace: tenant-ops
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Monitoring
    apps.cozystack.io/application.name: agents
    apps.cozystack.io/affinity-class: dc1-or-dc2
---
apiVersion: v1
kind: Node
metadata:
  name: worker-dc2-7
  labels: {topology.kubernetes.io/zone: dc2, kubernetes.io/hostname: worker-dc2-7}
---
apiVersion: v1
kind: Node
metadata:
  name: worker-dc3-1
  labels: {topology.kubernetes.io/zone: dc3, kubernetes.io/hostname: worker-dc3-1}
`);
  const snapshot = snapshotOf(objects);
  // Only the labels some class constrains travel in the snapshot.
  expect(snapshot.nodes).toEqual({ "worker-dc2-7": { "topology.kubernetes.io/zone": "dc2" }, "worker-dc3-1": { "topology.kubernetes.io/zone": "dc3" } });
  expect((await push("other", snapshot)).status).toBe(200);
});

const daemonSetPod = (node: string) =>
  pod({
    generateName: "agents-",
    namespace: "tenant-ops",
    labels: LINEAGE,
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }] } } },
  });

describe("a DaemonSet's pod under an OR-class", () => {
  it("is allowed on a node the snapshot knows to be inside the class", async () => {
    expect((await validate("other", reviewOf(daemonSetPod("worker-dc2-7")))).response.allowed).toBe(true);
  });

  it("is denied on a node outside the class, naming the pod's term and the class's terms", async () => {
    const { response } = await validate("other", reviewOf(daemonSetPod("worker-dc3-1")));
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toBe(
      'affinity-class: pod tenant-ops/agents-* (generateName) belongs to application with AffinityClass "dc1-or-dc2" but may run outside it: its node constraints {field:metadata.name=worker-dc3-1} are not within {topology.kubernetes.io/zone=dc1} or {topology.kubernetes.io/zone=dc2}',
    );
  });

  it("is denied on a node the snapshot does not know yet: it cannot be shown inside", async () => {
    expect((await validate("other", reviewOf(daemonSetPod("worker-new")))).response.allowed).toBe(false);
  });
});
