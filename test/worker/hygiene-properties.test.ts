// Generated workloads through the hygiene policies: never a crash, always
// one-line findings, and the correct patterns never raise anything.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidObjectError } from "../../shared/k8s/workload/index.js";
import { antiAffinityDriftPolicy } from "../../policies/anti-affinity-drift/index.js";
import { haSpreadPolicy } from "../../policies/ha-spread/index.js";
import { podAffinityDeadlockPolicy } from "../../policies/pod-affinity-deadlock/index.js";
import { rwoRolloutPolicy } from "../../policies/rwo-rollout/index.js";
import { rwoSharedPolicy } from "../../policies/rwo-shared/index.js";
import { claim, judge, workload, type WorkloadSpec } from "../support/judge.js";

const HYGIENE = [rwoRolloutPolicy, rwoSharedPolicy, podAffinityDeadlockPolicy, antiAffinityDriftPolicy, haSpreadPolicy];
const key = fc.constantFrom("app", "app.kubernetes.io/instance", "tier", "volume-group");
const value = fc.constantFrom("web", "db", "a");
const labels = fc.dictionary(key, value, { minKeys: 1 });
const selector = fc.record(
  {
    matchLabels: fc.dictionary(key, value),
    matchExpressions: fc.array(fc.record({ key, operator: fc.constantFrom("In", "NotIn", "Exists", "DoesNotExist"), values: fc.array(value, { maxLength: 2 }) }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const term = fc.record(
  {
    labelSelector: selector,
    topologyKey: fc.constantFrom("kubernetes.io/hostname", "topology.kubernetes.io/zone"),
    namespaces: fc.array(fc.constantFrom("shop", "db"), { maxLength: 2 }),
    namespaceSelector: selector,
    matchLabelKeys: fc.array(key, { maxLength: 1 }),
    mismatchLabelKeys: fc.array(key, { maxLength: 1 }),
  },
  { requiredKeys: ["topologyKey"] },
);
const terms = fc.record({ requiredDuringSchedulingIgnoredDuringExecution: fc.array(term, { maxLength: 2 }), preferredDuringSchedulingIgnoredDuringExecution: fc.array(fc.record({ weight: fc.constant(1), podAffinityTerm: term }), { maxLength: 2 }) }, { requiredKeys: [] });
const intOrPercent = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`));
const spec: fc.Arbitrary<WorkloadSpec> = fc.record({
  kind: fc.constantFrom("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"),
  labels,
  spec: fc.record({ replicas: fc.integer({ min: 0, max: 4 }), strategy: fc.oneof(fc.constant({ type: "Recreate" }), fc.record({ rollingUpdate: fc.record({ maxSurge: intOrPercent, maxUnavailable: intOrPercent }, { requiredKeys: [] }) })) }, { requiredKeys: [] }),
  pod: fc.record({ nodeSelector: fc.dictionary(fc.constant("tier"), value), affinity: fc.record({ podAffinity: terms, podAntiAffinity: terms }, { requiredKeys: [] }) }, { requiredKeys: [] }),
  claims: fc.array(fc.constantFrom("data", "other"), { maxLength: 2 }),
});
const cluster = [claim("data"), claim("rwop", ["ReadWriteOncePod"]), workload({ name: "worker", claims: ["data"], labels: { app: "worker" } })];

describe("hygiene policies on generated workloads", () => {
  it("answer one-line findings or an invalid-object error, nothing else", () => {
    fc.assert(
      fc.property(spec, (w) => {
        for (const policy of HYGIENE) {
          try {
            for (const message of judge(policy, workload(w), cluster) ?? []) expect(message).toMatch(/^[a-z]+\/[^\n]+: [^\n]+$/);
          } catch (e) {
            if (!(e instanceof InvalidObjectError)) throw e;
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it("never call a self-selecting anti-affinity drift, nor a self-selecting app-scoped affinity a deadlock", () => {
    fc.assert(
      fc.property(spec, fc.constantFrom("kubernetes.io/hostname", "topology.kubernetes.io/zone"), (w, topologyKey) => {
        const own = { ...w.labels, "app.kubernetes.io/instance": "shop" };
        const self = { labelSelector: { matchLabels: own }, topologyKey };
        const pod = { ...w.pod, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [self] }, podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: self }] } } };
        const object = workload({ ...w, labels: own, pod });
        expect(judge(antiAffinityDriftPolicy, object, cluster)).toEqual([]);
        expect(judge(podAffinityDeadlockPolicy, object, cluster)).toEqual([]);
        expect(judge(haSpreadPolicy, object, cluster) ?? []).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("never warn of a rollout that cannot surge", () => {
    fc.assert(
      fc.property(spec, fc.integer({ min: 0, max: 100 }), (w, percent) => {
        const strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: `${percent}%` } };
        expect(judge(rwoRolloutPolicy, workload({ ...w, kind: "Deployment", claims: ["data"], spec: { ...w.spec, strategy } }), cluster)).toEqual([]);
        expect(judge(rwoRolloutPolicy, workload({ ...w, kind: "Deployment", claims: ["data"], spec: { ...w.spec, strategy: { type: "Recreate" } } }), cluster)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
