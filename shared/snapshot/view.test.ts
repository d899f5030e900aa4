import { describe, expect, it } from "vitest";
import { buildSnapshot } from "./builder/index.js";
import { SnapshotView } from "./view.js";

const { snapshot } = buildSnapshot(
  [
    { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" }, spec: { nodeSelector: { zone: "dc1" } } },
    { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc2" }, spec: { nodeSelector: { zone: "dc2" } } },
  ],
  { generation: 1, builtAt: "2026-11-22T00:00:00.000Z" },
);

describe("SnapshotView.derived", () => {
  it("computes once per view and keeps the result, separately for each view", () => {
    let calls = 0;
    const names = (view: SnapshotView) => {
      calls++;
      return view.affinityClassNames().sort();
    };
    const view = new SnapshotView(snapshot);
    expect(view.derived(names)).toEqual(["dc1", "dc2"]);
    expect(view.derived(names)).toBe(view.derived(names));
    expect(calls).toBe(1);
    new SnapshotView(snapshot).derived(names);
    expect(calls).toBe(2);
  });
});

describe("SnapshotView.applicationByLineage", () => {
  it("answers for namespaces the snapshot does not hold, of any length", () => {
    const view = new SnapshotView(snapshot);
    const lineage = { group: "apps.cozystack.io", kind: "Postgres", name: "db" };
    expect(view.applicationByLineage("n".repeat(1_000_000), lineage)).toBeUndefined();
    expect(view.applicationByLineage("", lineage)).toBeUndefined();
  });
});
