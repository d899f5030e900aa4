import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSnapshot } from "./builder/index.js";
import { SnapshotView, type Application } from "./index.js";

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

describe("SnapshotView", () => {
  const view = new SnapshotView(snapshot);

  it("finds an application by its lineage labels and by its HelmRelease, in its namespace only", () => {
    const expected = { group: "apps.cozystack.io", kind: "Postgres", name: "db", affinityClass: "dc1", namespace: "tenant-a", helmRelease: "postgres-db" };
    expect(view.applicationByLineage("tenant-a", { group: "apps.cozystack.io", kind: "Postgres", name: "db" })).toEqual(expected);
    expect(view.applicationByHelmRelease("tenant-a", "postgres-db")).toEqual(expected);
    expect(view.applicationByLineage("tenant-b", { group: "apps.cozystack.io", kind: "Postgres", name: "db" })).toBeUndefined();
  });

  it("does not mistake inherited object properties for entries", () => {
    expect(view.affinityClass("constructor")).toBeUndefined();
    expect(view.tenant("__proto__")).toBeUndefined();
    expect(view.applicationByHelmRelease("tenant-a", "toString")).toBeUndefined();
  });

  it("finds by lineage exactly what a scan of every application finds, whatever the key order (namespaces that prefix each other included)", () => {
    const namespace = fc.constantFrom("tenant-a", "tenant-a-b", "tenant-ab", "tenant-b", "t");
    const entry = fc.record({
      namespace,
      helmRelease: fc.constantFrom("db", "postgres-db", "cache", "x"),
      application: fc.record({ group: fc.constant("apps.cozystack.io"), kind: fc.constantFrom("Postgres", "Redis"), name: fc.constantFrom("db", "cache") }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), namespace, fc.constantFrom("Postgres", "Redis"), fc.constantFrom("db", "cache"), (entries, ns, kind, name) => {
        const applications: Record<string, Application> = {};
        for (const e of entries) applications[`${e.namespace}/${e.helmRelease}`] = e.application;
        const found = new SnapshotView({ ...snapshot, applications }).applicationByLineage(ns, { group: "apps.cozystack.io", kind, name });
        // Two HelmReleases claiming one application: the index keeps one of them; a scan lists both.
        const matches = Object.entries(applications).filter(([key, a]) => key.startsWith(`${ns}/`) && a.kind === kind && a.name === name);
        if (matches.length === 0) expect(found).toBeUndefined();
        else expect(matches.map(([key]) => key)).toContain(`${found?.namespace}/${found?.helmRelease}`);
      }),
      { numRuns: 2000 },
    );
  });
});
