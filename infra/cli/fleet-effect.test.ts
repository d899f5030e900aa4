// What a fleet change does to the registered clusters (fleet-effect.ts):
// counted per policy over thousands of clusters, as fleet apply, promote and
// rollback print it before they send.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { fleetSetOf, fleetSetSchema, type FleetSet } from "../../shared/fleet/index.js";
import { effectLines, enforcedOn, fleetEffect, relabelLines } from "./fleet-effect.js";

const FLEET = join(__dirname, "..", "..", "examples", "fleet");
/** examples/fleet: require-team in waves (Audit on ring=canary, then Warn, then Deny, on env=prod), max-replicas Deny on env=prod but tier=system, a floor of rwo-rollout Deny on env=prod. */
const example: FleetSet = fleetSetSchema.parse(
  fleetSetOf(readdirSync(FLEET).flatMap((file) => parseAllDocuments(readFileSync(join(FLEET, file), "utf8")).map((doc) => doc.toJS() as unknown))),
);
const without = (set: FleetSet, policy: string): FleetSet => ({ ...set, policies: set.policies.filter((p) => (p as { metadata: { name: string } }).metadata.name !== policy), bindings: set.bindings.filter((b) => b.spec.policyName !== policy) });

/** 9,812 production clusters (40 of them canaries), 340 staging ones, 12 of the platform's own. */
const fleet = [
  ...Array.from({ length: 9_772 }, () => ({ env: "prod", ring: "main" })),
  ...Array.from({ length: 40 }, () => ({ env: "prod", ring: "canary" })),
  ...Array.from({ length: 340 }, () => ({ env: "staging" })),
  ...Array.from({ length: 12 }, () => ({ env: "prod", tier: "system", ring: "main" })),
  undefined,
];

describe("enforcedOn", () => {
  it("each fleet policy bound on a cluster with its wave's actions, and each built-in floor", () => {
    expect(enforcedOn({ set: example, stages: {} }, { env: "prod", ring: "canary" })).toEqual(new Map([["require-team", "Audit"], ["max-replicas", "Deny"], ["built-in rwo-rollout", "Deny"]]));
    expect(enforcedOn({ set: example, stages: { "baseline-team": 1 } }, { env: "prod", tier: "system" })).toEqual(new Map([["require-team", "Warn"], ["built-in rwo-rollout", "Deny"]]));
    expect(enforcedOn({ set: example }, { env: "staging" })).toEqual(new Map());
    expect(enforcedOn({}, { env: "prod" })).toEqual(new Map());
  });

  it("joins the actions of several bindings of one policy, and keeps the strictest floor of several", () => {
    const [binding] = example.bindings.filter((b) => b.spec.policyName === "max-replicas");
    const audit = { ...binding!, metadata: { name: "replicas-audit" }, spec: { ...binding!.spec, clusterSelector: {}, validationActions: ["Audit" as const] } };
    const [modes] = example.modes;
    const warnFloor = { ...modes!, metadata: { name: "warn-floor" }, spec: { clusterSelector: {}, policies: { "rwo-rollout": "Warn" as const, "ha-spread": "Audit" as const } } };
    const set = { ...example, bindings: [...example.bindings, audit], modes: [...example.modes, warnFloor] };
    expect(enforcedOn({ set }, { env: "prod", ring: "main" })).toEqual(new Map([["max-replicas", "Deny,Audit"], ["built-in rwo-rollout", "Deny"], ["built-in ha-spread", "Audit"]]));
  });
});

describe("fleetEffect and effectLines", () => {
  it("counts the clusters each policy leaves, reaches or enforces otherwise, the CLI's words", () => {
    const effect = fleetEffect({ set: example, stages: { "baseline-team": 2 } }, { set: without(example, "require-team"), stages: {} }, fleet);
    expect(effect.clusters).toBe(9_824);
    expect(effectLines(effect.policies)).toEqual(["removes require-team from 9,824 clusters (Deny)"]);

    const fromEmpty = fleetEffect({}, { set: example, stages: {} }, fleet);
    expect([fromEmpty.clusters, effectLines(fromEmpty.policies)]).toEqual([
      9_824,
      ["binds built-in rwo-rollout on 9,824 more clusters (Deny)", "binds max-replicas on 9,812 more clusters (Deny)", "binds require-team on 40 more clusters (Audit)"],
    ]);
  });

  it("a promotion: the clusters whose actions change, by what they change from and to", () => {
    const effect = fleetEffect({ set: example, stages: {} }, { set: example, stages: { "baseline-team": 1 } }, fleet);
    expect(effectLines(effect.policies)).toEqual(["binds require-team on 9,784 more clusters (Warn)", "changes require-team's actions on 40 clusters (Audit → Warn)"]);
    const toDeny = fleetEffect({ set: example, stages: { "baseline-team": 0 } }, { set: example, stages: { "baseline-team": 2 } }, [...fleet, ...fleet.slice(0, 3).map(() => ({ env: "prod", ring: "canary" }))]);
    expect(effectLines(toDeny.policies)).toEqual(["binds require-team on 9,784 more clusters (Deny)", "changes require-team's actions on 43 clusters (Audit → Deny)"]);
    expect(fleetEffect({ set: example, stages: {} }, { set: example, stages: {} }, fleet)).toEqual({ policies: [], clusters: 0 });
  });

  it("clusters that had or get different actions: each kind counted, the most first", () => {
    const [binding] = example.bindings.filter((b) => b.spec.policyName === "max-replicas");
    const canaries = { ...binding!, metadata: { name: "replicas-canary" }, spec: { ...binding!.spec, clusterSelector: { matchLabels: { ring: "canary" } }, validationActions: ["Audit" as const] } };
    const set = { ...example, bindings: [...example.bindings, canaries] };
    expect(effectLines(fleetEffect({ set }, { set: without(set, "max-replicas") }, fleet).policies)).toEqual(["removes max-replicas from 9,812 clusters (Deny on 9,772, Deny,Audit on 40)"]);
    expect(effectLines(fleetEffect({ set: example }, { set }, fleet).policies)).toEqual(["changes max-replicas's actions on 40 clusters (Deny → Deny,Audit)"]);
  });
});

describe("relabelLines", () => {
  it("what one cluster's new labels bind, remove and change", () => {
    const state = { set: example, stages: { "baseline-team": 0 } };
    expect(relabelLines(state, { env: "staging" }, { env: "prod", ring: "canary" })).toEqual(["binds built-in rwo-rollout (Deny)", "binds max-replicas (Deny)", "binds require-team (Audit)"]);
    expect(relabelLines(state, { env: "prod", ring: "canary" }, { env: "prod", ring: "canary", tier: "system" })).toEqual(["removes max-replicas (Deny)"]);
    expect(relabelLines({ set: example, stages: { "baseline-team": 1 } }, { env: "prod" }, { env: "prod", ring: "canary" })).toEqual([]);
    expect(relabelLines(state, { env: "prod" }, { env: "prod", ring: "canary" })).toEqual(["binds require-team (Audit)"]);
  });
});
