// Tenant keys and inheritance as buildSnapshot resolves them.
import { describe, expect, it } from "vitest";
import { buildSnapshot, tenantNamespaceOf, type KubeObject } from "./index.js";

const tenant = (name: string, namespace: string, spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: "apps.cozystack.io/v1alpha1",
  kind: "Tenant",
  metadata: { name, namespace },
  spec,
  ...(status ? { status } : {}),
});

const build = (objects: KubeObject[]) => buildSnapshot(objects, { generation: 1, builtAt: "2026-01-01T00:00:00Z" });

describe("tenantNamespaceOf (CozyStack naming)", () => {
  it("flattens children of tenant-root and appends below it", () => {
    expect(tenantNamespaceOf("root", "tenant-root")).toBe("tenant-root");
    expect(tenantNamespaceOf("alpha", "tenant-root")).toBe("tenant-alpha");
    expect(tenantNamespaceOf("beta", "tenant-alpha")).toBe("tenant-alpha-beta");
    expect(tenantNamespaceOf("gamma", "tenant-alpha-beta")).toBe("tenant-alpha-beta-gamma");
  });
});

describe("resolveTenants", () => {
  it("keys by owned namespace and lets children inherit allowed list, default and enforcement along the chain", () => {
    const { snapshot, problems } = build([
      tenant("root", "tenant-root", { allowedAffinityClasses: ["dc1", "dc2", "gpu"], defaultAffinityClass: "dc1", affinityClassEnforcement: "Warn" }),
      tenant("alpha", "tenant-root", { allowedAffinityClasses: ["dc1", "dc2"] }),
      tenant("beta", "tenant-alpha", { allowedAffinityClasses: [], defaultAffinityClass: "dc2", affinityClassEnforcement: "Deny" }),
      tenant("gamma", "tenant-alpha-beta", null as unknown as Record<string, unknown>),
    ]);
    expect(problems).toEqual([]);
    expect(snapshot.tenants).toEqual({
      "tenant-root": { name: "root", namespace: "tenant-root", chain: ["tenant-root"], allowedAffinityClasses: ["dc1", "dc2", "gpu"], defaultAffinityClass: "dc1", affinityClassEnforcement: "Warn" },
      "tenant-alpha": { name: "alpha", namespace: "tenant-root", chain: ["tenant-root", "tenant-alpha"], allowedAffinityClasses: ["dc1", "dc2"], defaultAffinityClass: "dc1", affinityClassEnforcement: "Warn" },
      "tenant-alpha-beta": {
        name: "beta",
        namespace: "tenant-alpha",
        chain: ["tenant-root", "tenant-alpha", "tenant-alpha-beta"],
        allowedAffinityClasses: ["dc1", "dc2"],
        defaultAffinityClass: "dc2",
        affinityClassEnforcement: "Deny",
      },
      "tenant-alpha-beta-gamma": {
        name: "gamma",
        namespace: "tenant-alpha-beta",
        chain: ["tenant-root", "tenant-alpha", "tenant-alpha-beta", "tenant-alpha-beta-gamma"],
        allowedAffinityClasses: ["dc1", "dc2"],
        defaultAffinityClass: "dc2",
        affinityClassEnforcement: "Deny",
      },
    });
  });

  it("resolves a child listed before its parent, and one whose parent is not in the objects", () => {
    const { snapshot } = build([tenant("beta", "tenant-alpha"), tenant("alpha", "tenant-root", { defaultAffinityClass: "dc1" }), tenant("orphan", "tenant-gone")]);
    expect(snapshot.tenants["tenant-alpha-beta"]).toEqual({ name: "beta", namespace: "tenant-alpha", chain: ["tenant-alpha", "tenant-alpha-beta"], defaultAffinityClass: "dc1" });
    expect(snapshot.tenants["tenant-gone-orphan"]).toEqual({ name: "orphan", namespace: "tenant-gone", chain: ["tenant-gone-orphan"] });
  });

  it("prefers the namespace a Tenant reports in status.namespace", () => {
    const { snapshot } = build([tenant("alpha", "tenant-root", { defaultAffinityClass: "dc1" }, { namespace: "tenant-alpha-custom" })]);
    expect(Object.keys(snapshot.tenants)).toEqual(["tenant-alpha-custom"]);
  });

  it("never lets a child widen its parent's classes, and drops a default outside the allowed list", () => {
    const { snapshot, problems } = build([
      tenant("alpha", "tenant-root", { allowedAffinityClasses: ["dc1", "dc2"], defaultAffinityClass: "dc1" }),
      tenant("beta", "tenant-alpha", { allowedAffinityClasses: ["dc2", "gpu"] }),
      tenant("delta", "tenant-alpha", { defaultAffinityClass: "gpu" }),
    ]);
    expect(snapshot.tenants["tenant-alpha-beta"]).toMatchObject({ allowedAffinityClasses: ["dc2"] });
    expect(snapshot.tenants["tenant-alpha-beta"]?.defaultAffinityClass).toBeUndefined();
    expect(snapshot.tenants["tenant-alpha-delta"]?.defaultAffinityClass).toBeUndefined();
    expect(problems).toEqual([
      "Tenant tenant-alpha/beta: spec.allowedAffinityClasses gpu not allowed by its parent tenant; dropped",
      'Tenant tenant-alpha/beta: defaultAffinityClass "dc1" (inherited) is not among its allowed classes dc2; no default applies',
      'Tenant tenant-alpha/delta: defaultAffinityClass "gpu" is not among its allowed classes dc1, dc2; no default applies',
    ]);
  });

  it("skips a second Tenant claiming a namespace already owned", () => {
    const { snapshot, problems } = build([tenant("alpha", "tenant-root"), tenant("alpha", "tenant-root", {}, { namespace: "tenant-alpha" })]);
    expect(Object.keys(snapshot.tenants)).toEqual(["tenant-alpha"]);
    expect(problems).toEqual(["Tenant tenant-root/alpha: owns namespace tenant-alpha, as does Tenant tenant-root/alpha; skipped"]);
  });
});
