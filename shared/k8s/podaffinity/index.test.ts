import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { selectorMatches } from "../labels/index.js";
import type { PodAffinityTerm } from "../schemas/index.js";
import {
  coLocatingTerms,
  describeSelector,
  hasNodeConstraint,
  namesOneApplication,
  selectsEveryPod,
  selectsOwnPods,
  selectsPeerPods,
  termCoversNamespace,
} from "./index.js";

const term = (t: Partial<PodAffinityTerm> & Record<string, unknown>): PodAffinityTerm => ({ topologyKey: "kubernetes.io/hostname", ...t });
const web = { app: "web", "app.kubernetes.io/instance": "shop" };

describe("termCoversNamespace", () => {
  it("null namespaces and null namespaceSelector mean the pod's own namespace", () => {
    expect(termCoversNamespace(term({}), "shop")).toBe(true);
    expect(termCoversNamespace(term({ namespaces: [] }), undefined)).toBe(true);
  });
  it("an empty namespaceSelector means every namespace", () => {
    expect(termCoversNamespace(term({ namespaceSelector: {} }), "shop")).toBe(true);
  });
  it("a namespaces list covers only the namespaces it names", () => {
    expect(termCoversNamespace(term({ namespaces: ["shop", "db"] }), "shop")).toBe(true);
    expect(termCoversNamespace(term({ namespaces: ["db"] }), "shop")).toBe(false);
    expect(termCoversNamespace(term({ namespaces: ["db"] }), undefined)).toBeUndefined();
  });
  it("a namespaceSelector is judged on kubernetes.io/metadata.name; on other labels it cannot be decided", () => {
    expect(termCoversNamespace(term({ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "shop" } } }), "shop")).toBe(true);
    expect(termCoversNamespace(term({ namespaceSelector: { matchLabels: { team: "a" } } }), "shop")).toBeUndefined();
    expect(termCoversNamespace(term({ namespaces: ["db"], namespaceSelector: { matchLabels: { team: "a" } } }), "shop")).toBeUndefined();
  });
});

describe("selectsOwnPods and selectsPeerPods", () => {
  it("a null labelSelector selects no pod, an empty one every pod", () => {
    expect(selectsOwnPods(term({}), web, "shop")).toBe(false);
    expect(selectsOwnPods(term({ labelSelector: {} }), web, "shop")).toBe(true);
    expect(selectsEveryPod(term({ labelSelector: {} }))).toBe(true);
    expect(selectsEveryPod(term({ labelSelector: {}, matchLabelKeys: ["app"] }))).toBe(false);
    expect(selectsEveryPod(term({}))).toBe(false);
  });
  it("matchLabelKeys always hold for the pod's own pods and require the peer to carry the same value", () => {
    const t = term({ labelSelector: { matchLabels: { app: "web" } }, matchLabelKeys: ["pod-template-hash"] });
    expect(selectsOwnPods(t, web, "shop")).toBe(true);
    const keyed = term({ labelSelector: { matchExpressions: [{ key: "tier", operator: "Exists" }] }, matchLabelKeys: ["app.kubernetes.io/instance"] });
    expect(selectsPeerPods(keyed, { ...web, tier: "a" }, { tier: "b", "app.kubernetes.io/instance": "shop" }, "shop")).toBe(true);
    expect(selectsPeerPods(keyed, { ...web, tier: "a" }, { tier: "b", "app.kubernetes.io/instance": "blog" }, "shop")).toBe(false);
    // pod-template-hash is set by the controller, so the peer's value cannot be shown equal.
    expect(selectsPeerPods(t, web, { app: "web" }, "shop")).toBe(false);
  });
  it("mismatchLabelKeys exclude the pod's own pods when they carry the key", () => {
    const t = term({ labelSelector: { matchLabels: { app: "web" } }, mismatchLabelKeys: ["app.kubernetes.io/instance"] });
    expect(selectsOwnPods(t, web, "shop")).toBe(false);
    expect(selectsOwnPods(t, { app: "web" }, "shop")).toBe(true);
    expect(selectsPeerPods(t, web, { app: "web", "app.kubernetes.io/instance": "blog" }, "shop")).toBe(true);
    expect(selectsPeerPods(t, web, { app: "web", "app.kubernetes.io/instance": "shop" }, "shop")).toBe(false);
  });
  it("a term scoped to other namespaces does not select the pod's own pods", () => {
    expect(selectsOwnPods(term({ labelSelector: { matchLabels: { app: "web" } }, namespaces: ["db"] }), web, "shop")).toBe(false);
    expect(selectsPeerPods(term({ labelSelector: { matchLabels: { app: "web" } }, namespaces: ["db"] }), web, web, "shop")).toBe(false);
  });
  it("without (mis)matchLabelKeys, both agree with the selector itself (property)", () => {
    const labels = fc.dictionary(fc.constantFrom("app", "tier", "team"), fc.constantFrom("a", "b"));
    const requirement = fc.record({
      key: fc.constantFrom("app", "tier", "team"),
      operator: fc.constantFrom("In" as const, "NotIn" as const, "Exists" as const, "DoesNotExist" as const),
      values: fc.array(fc.constantFrom("a", "b"), { maxLength: 2 }),
    });
    const selector = fc.record({ matchLabels: labels, matchExpressions: fc.array(requirement, { maxLength: 3 }) });
    fc.assert(
      fc.property(selector, labels, labels, (labelSelector, own, peer) => {
        const t = term({ labelSelector });
        expect(selectsOwnPods(t, own, "shop")).toBe(selectorMatches(labelSelector, own));
        expect(selectsPeerPods(t, own, peer, "shop")).toBe(selectorMatches(labelSelector, peer));
      }),
    );
  });
});

describe("namesOneApplication", () => {
  it("is false for a label many applications may share", () => {
    expect(namesOneApplication(term({ labelSelector: { matchExpressions: [{ key: "volume-group", operator: "In", values: ["workspaces"] }] } }))).toBe(false);
    expect(namesOneApplication(term({ labelSelector: { matchExpressions: [{ key: "app", operator: "Exists" }] } }))).toBe(false);
    expect(namesOneApplication(term({ labelSelector: { matchExpressions: [{ key: "app", operator: "NotIn", values: ["x"] }] } }))).toBe(false);
  });
  it("is true when the selector pins a name or instance key, or matchLabelKeys add one", () => {
    expect(namesOneApplication(term({ labelSelector: { matchLabels: { "app.kubernetes.io/instance": "shop", tier: "a" } } }))).toBe(true);
    expect(namesOneApplication(term({ labelSelector: { matchExpressions: [{ key: "release", operator: "In", values: ["shop"] }] } }))).toBe(true);
    expect(namesOneApplication(term({ labelSelector: { matchLabels: { tier: "a" } }, matchLabelKeys: ["app.kubernetes.io/instance"] }))).toBe(true);
  });
});

describe("node constraints and co-location", () => {
  it("a nodeSelector or required node affinity constrains nodes; preferred does not", () => {
    expect(hasNodeConstraint({ nodeSelector: { tier: "low" } })).toBe(true);
    expect(hasNodeConstraint({ nodeSelector: {} })).toBe(false);
    expect(hasNodeConstraint({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "tier", operator: "In", values: ["low"] }] }] } } } })).toBe(true);
    expect(hasNodeConstraint({ affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{}] } } })).toBe(false);
  });
  it("co-locating terms are required, on the hostname topology and select the pod's own pods", () => {
    const own = term({ labelSelector: { matchLabels: { app: "web" } } });
    expect(coLocatingTerms({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [own] } } }, web, "shop")).toEqual([own]);
    expect(coLocatingTerms({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ ...own, topologyKey: "topology.kubernetes.io/zone" }] } } }, web, "shop")).toEqual([]);
    expect(coLocatingTerms({ affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: own }] } } }, web, "shop")).toEqual([]);
  });
});

it("describeSelector prints kubectl's selector syntax: the first few requirements and values, each capped", () => {
  expect(
    describeSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["a", "b"] },
        { key: "gpu", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    }),
  ).toBe("app=web,tier in (a,b),gpu,!legacy");
  expect(
    describeSelector({
      matchLabels: { app: "w".repeat(1_000) },
      matchExpressions: [
        { key: "zone", operator: "NotIn", values: Array.from({ length: 50_000 }, (_, i) => `z${i}`) },
        { key: "gpu", operator: "Exists" },
        { key: "spot", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    }),
  ).toBe(`app=${"w".repeat(62)}…,zone notin (z0,z1,z2,z3,…),gpu,spot,…`);
});
