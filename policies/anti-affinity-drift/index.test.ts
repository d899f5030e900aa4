import { describe, expect, it } from "vitest";
import { judge, workload } from "../../test/support/judge.js";
import { antiAffinityDriftPolicy } from "./index.js";

const labels = { "app.kubernetes.io/name": "foo-proxy", "app.kubernetes.io/instance": "kafscale", "app.kubernetes.io/component": "proxy" };
const preferred = (labelSelector: unknown, extra: Record<string, unknown> = {}) => ({
  weight: 100,
  podAffinityTerm: { labelSelector, topologyKey: "kubernetes.io/hostname", ...extra },
});
const run = (podAntiAffinity: Record<string, unknown>, kind: "Deployment" | "DaemonSet" | "Pod" = "Deployment") =>
  judge(antiAffinityDriftPolicy, workload({ kind, name: "kafscale-foo-proxy", labels, pod: { affinity: { podAntiAffinity } } }));
const stale = { matchLabels: { "app.kubernetes.io/name": "kafscale-proxy" } };

describe("anti-affinity-drift", () => {
  it("warns of a selector that shares keys with the pod labels but not their values: case C", () => {
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [preferred(stale)] })).toEqual([
      "deploy/kafscale-foo-proxy: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/name=foo-proxy",
    ]);
    expect(run({ requiredDuringSchedulingIgnoredDuringExecution: [preferred(stale).podAffinityTerm] }, "Pod")).toEqual([
      "pod/kafscale-foo-proxy: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/name=foo-proxy",
    ]);
  });

  it("names every pinned key whose value drifted", () => {
    const both = { matchExpressions: [{ key: "app.kubernetes.io/name", operator: "In", values: ["kafscale-proxy"] }], matchLabels: { "app.kubernetes.io/instance": "old" } };
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [preferred(both)] })).toEqual([
      "deploy/kafscale-foo-proxy: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/instance=kafscale,app.kubernetes.io/name=foo-proxy",
    ]);
  });

  it("says nothing of terms that keep other pods away by NotIn or DoesNotExist on the pods' own keys", () => {
    const others = { matchExpressions: [{ key: "app.kubernetes.io/name", operator: "NotIn", values: ["foo-proxy"] }] };
    const absent = { matchExpressions: [{ key: "app.kubernetes.io/component", operator: "DoesNotExist" }] };
    expect(run({ requiredDuringSchedulingIgnoredDuringExecution: [preferred(others).podAffinityTerm], preferredDuringSchedulingIgnoredDuringExecution: [preferred(absent)] })).toEqual([]);
  });

  it("says nothing of a selector that selects its own pods: case D and the fixed chart", () => {
    expect(run({ requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: "kubernetes.io/hostname" }] })).toEqual([]);
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [preferred({ matchLabels: { "app.kubernetes.io/component": "proxy" } }, { matchLabelKeys: ["pod-template-hash"] })] })).toEqual([]);
  });

  it("says nothing of a term keeping another application's pods away on the pods' own key: it does not name this workload", () => {
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [preferred({ matchLabels: { "app.kubernetes.io/name": "postgres" } })] })).toEqual([]);
    expect(run({ requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { "app.kubernetes.io/name": "kafscale-broker" } }, topologyKey: "kubernetes.io/hostname" }] })).toEqual([]);
  });

  it("reports a few drifted terms and counts the rest", () => {
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: Array(1_000).fill(preferred(stale)) })).toEqual([
      ...Array(5).fill("deploy/kafscale-foo-proxy: podAntiAffinity misses its own pods (spreads nothing); use app.kubernetes.io/name=foo-proxy"),
      "deploy/kafscale-foo-proxy: and 995 more podAntiAffinity terms like these",
    ]);
  });

  it("says nothing of a selector for other applications on keys the pods do not carry", () => {
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [preferred({ matchLabels: { app: "etcd" } })] })).toEqual([]);
  });

  it("says nothing of a term that keeps away another app beside one that spreads its own pods", () => {
    expect(
      run({
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { "app.kubernetes.io/name": "foo-proxy" } }, topologyKey: "kubernetes.io/hostname" }],
        preferredDuringSchedulingIgnoredDuringExecution: [preferred({ matchLabels: { "app.kubernetes.io/name": "kafscale-broker" } })],
      }),
    ).toEqual([]);
  });

  it("says nothing of a term scoped to other namespaces, or one without a selector", () => {
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [preferred(stale, { namespaces: ["brokers"] })] })).toEqual([]);
    expect(run({ preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: "kubernetes.io/hostname" } }] })).toEqual([]);
  });
});
