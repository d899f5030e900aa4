import { describe, expect, it } from "vitest";
import { buildSnapshot } from "./build/index.js";
import { decodeSnapshot, decodeStoredSnapshot, SnapshotView } from "./index.js";

const { snapshot } = buildSnapshot(
  [
    { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" }, spec: { nodeSelector: { zone: "dc1" } } },
    {
      apiVersion: "helm.toolkit.fluxcd.io/v2",
      kind: "HelmRelease",
      metadata: {
        name: "postgres-db",
        namespace: "tenant-a",
        labels: {
          "apps.cozystack.io/application.group": "apps.cozystack.io",
          "apps.cozystack.io/application.kind": "Postgres",
          "apps.cozystack.io/application.name": "db",
          "apps.cozystack.io/affinity-class": "dc1",
        },
      },
    },
  ],
  { generation: 7, builtAt: "2026-11-22T00:00:00.000Z" },
);

describe("decodeStoredSnapshot", () => {
  it("takes the stored schema output as it is", () => {
    expect(decodeStoredSnapshot(JSON.stringify(snapshot))).toEqual({ ok: true, snapshot });
  });

  it("sends any other form through the schema, which fills defaults or names the problem", () => {
    const { nodes: _nodes, settings: _settings, ...withoutDefaults } = snapshot;
    expect(decodeStoredSnapshot(JSON.stringify(withoutDefaults))).toEqual({ ok: true, snapshot });
    expect(decodeStoredSnapshot(JSON.stringify({ ...snapshot, apiVersion: "edgeadmit.io/v0" }))).toEqual(
      decodeSnapshot(JSON.stringify({ ...snapshot, apiVersion: "edgeadmit.io/v0" })),
    );
    expect(decodeStoredSnapshot("{")).toMatchObject({ ok: false, error: expect.stringMatching(/^snapshot is not JSON/) });
  });
});

describe("SnapshotView", () => {
  const view = new SnapshotView(snapshot);

  it("finds an application by its lineage labels and by its HelmRelease, in its namespace only", () => {
    const expected = { group: "apps.cozystack.io", kind: "Postgres", name: "db", affinityClass: "dc1", namespace: "tenant-a", helmRelease: "postgres-db" };
    expect(view.applicationByLineage("tenant-a", { group: "apps.cozystack.io", kind: "Postgres", name: "db" })).toEqual(expected);
    expect(view.applicationByHelmRelease("tenant-a", "postgres-db")).toEqual(expected);
    expect(view.applicationByLineage("tenant-b", { group: "apps.cozystack.io", kind: "Postgres", name: "db" })).toBeUndefined();
    expect(view.applications()).toEqual([expected]);
  });

  it("does not mistake inherited object properties for entries", () => {
    expect(view.affinityClass("constructor")).toBeUndefined();
    expect(view.tenant("__proto__")).toBeUndefined();
    expect(view.applicationByHelmRelease("tenant-a", "toString")).toBeUndefined();
  });
});
