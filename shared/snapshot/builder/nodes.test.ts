import { describe, expect, it } from "vitest";
import { decodeSnapshot } from "../index.js";
import { SnapshotView } from "../view.js";
import { buildSnapshot, type KubeObject } from "./index.js";

const node = (name: string, allocatable?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, labels: { "kubernetes.io/hostname": name } },
  ...(allocatable ? { status: { allocatable } } : {}),
});
const build = (objects: KubeObject[]) => buildSnapshot(objects, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });

describe("largestAllocatable", () => {
  it("keeps, per resource, the most any one node can give, exactly and in canonical form", () => {
    const { snapshot, problems } = build([
      node("a", { cpu: "7910m", memory: "32Gi", "nvidia.com/gpu": "1", pods: "110" }),
      node("b", { cpu: "15", memory: "31.5Gi", pods: "110" }),
      node("c"),
    ]);
    expect(problems).toEqual([]);
    expect(snapshot.largestAllocatable).toEqual({ cpu: "15", memory: "32Gi", "nvidia.com/gpu": "1", pods: "110" });
    const view = new SnapshotView(snapshot);
    expect(view.knowsNodeCapacity()).toBe(true);
    expect(view.largestAllocatable("memory")?.toString()).toBe("32Gi");
    expect(view.largestAllocatable("example.com/fpga")).toBeUndefined();
  });

  it("is absent when no Node was listed, so policies can tell unknown from none", () => {
    const { snapshot } = build([]);
    expect(snapshot.largestAllocatable).toBeUndefined();
    expect(new SnapshotView(snapshot).knowsNodeCapacity()).toBe(false);
  });

  it("skips a value that is not a quantity, saying so", () => {
    const { snapshot, problems } = build([node("a", { cpu: "lots", memory: "1Gi" })]);
    expect(snapshot.largestAllocatable).toEqual({ memory: "1Gi" });
    expect(problems).toEqual(["Node a: status.allocatable.cpu: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]);
  });

  it("is refused in a pushed snapshot when a value is not a quantity", () => {
    const { snapshot } = build([node("a", { cpu: "2" })]);
    const decoded = decodeSnapshot(JSON.stringify({ ...snapshot, largestAllocatable: { cpu: "two" } }));
    expect(decoded).toMatchObject({ ok: false, error: expect.stringContaining("largestAllocatable.cpu: must be a Kubernetes quantity") });
  });
});
