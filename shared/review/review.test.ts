// review() with an injected clock: the stale-snapshot stance, and how modes
// (including informational findings) become the verdict.
import { describe, expect, it } from "vitest";
import type { AdmissionRequest } from "../admission/index.js";
import type { Finding, Policy } from "../policy/index.js";
import { snapshotSchema, SnapshotView, type SnapshotInput } from "../snapshot/index.js";
import { review } from "./index.js";
import { buildSnapshot } from "../snapshot/builder/index.js";
import { FleetPolicies, fleetSetSchema } from "../fleet/index.js";

const PUSHED_AT = Date.parse("2026-03-01T12:00:00.000Z");
const request: AdmissionRequest = { uid: "u1", kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE" };

function viewOf(settings: SnapshotInput["settings"], extra: Partial<SnapshotInput> = {}): SnapshotView {
  return new SnapshotView(
    snapshotSchema.parse({
      apiVersion: "edgeadmit.io/v1alpha1",
      kind: "Snapshot",
      generation: 1,
      builtAt: "2026-03-01T12:00:00Z",
      settings,
      affinityClasses: {},
      tenants: {},
      applications: {},
      volumeClaims: {},
      ...extra,
    }),
  );
}

const policyFinding = (...findings: Finding[]): Policy => ({
  id: "test-policy",
  description: "reports what it is given",
  defaultMode: "Deny",
  matches: () => true,
  evaluate: () => findings,
});

const reviewAt = (now: number, view: SnapshotView, policy: Policy = policyFinding()) =>
  review(request, { cluster: "c1", policies: [policy], snapshot: { view, pushedAt: PUSHED_AT }, withoutSnapshot: "FailOpen", now }).decision;

describe("a stale snapshot", () => {
  it("is fresh up to and including maxAgeSeconds", () => {
    expect(reviewAt(PUSHED_AT + 600_000, viewOf({ maxAgeSeconds: 600, onStale: "Deny" }))).toEqual({ allowed: true, warnings: [], auditAnnotations: {} });
  });

  it("Warn stance: allowed with a warning that says since when, and policies still judge", () => {
    const view = viewOf({ maxAgeSeconds: 600, onStale: "Warn" });
    const stale = 'edgeadmit: snapshot for cluster "c1" is stale since 2026-03-01T12:10:00.000Z (max age 600s)';
    expect(reviewAt(PUSHED_AT + 601_000, view)).toEqual({ allowed: true, warnings: [stale], auditAnnotations: {} });
    expect(reviewAt(PUSHED_AT + 3_600_000, view, policyFinding({ message: "wrong" }))).toEqual({
      allowed: false,
      denial: { code: 403, reason: "Forbidden", message: "test-policy: wrong" },
      warnings: [stale],
      auditAnnotations: {},
    });
  });

  it("Deny stance: denied with a message that says since when", () => {
    expect(reviewAt(PUSHED_AT + 601_000, viewOf({ maxAgeSeconds: 600, onStale: "Deny" }))).toEqual({
      allowed: false,
      denial: {
        code: 403,
        reason: "Forbidden",
        message: 'edgeadmit: snapshot for cluster "c1" is stale since 2026-03-01T12:10:00.000Z (max age 600s); the cluster denies on stale data, check the sync job',
      },
      warnings: [],
      auditAnnotations: {},
    });
  });
});

describe("informational findings", () => {
  const notice: Finding = { message: "the default applies", informational: true };

  it("never deny: a Deny mode becomes a warning", () => {
    expect(reviewAt(PUSHED_AT, viewOf({}), policyFinding(notice))).toEqual({ allowed: true, warnings: ["test-policy: the default applies"], auditAnnotations: {} });
  });

  it("follow a quieter configured mode", () => {
    expect(reviewAt(PUSHED_AT, viewOf({ policies: { "test-policy": "Audit" } }), policyFinding(notice))).toEqual({
      allowed: true,
      warnings: [],
      auditAnnotations: { "test-policy": "the default applies" },
    });
  });
});

describe("messages", () => {
  it("a denial names each policy and joins its findings in order", () => {
    expect(reviewAt(PUSHED_AT, viewOf({}), policyFinding({ message: "first" }, { message: "second" })).denial).toEqual({
      code: 403,
      reason: "Forbidden",
      message: "test-policy: first; test-policy: second",
    });
  });

  it("a denial stays within 4,096 bytes and counts what it leaves out", () => {
    const findings = Array.from({ length: 100 }, (_, i) => ({ message: `finding ${i} ${"x".repeat(200)}` }));
    const message = reviewAt(PUSHED_AT, viewOf({}), policyFinding(...findings)).denial!.message;
    expect(new TextEncoder().encode(message).length).toBeLessThanOrEqual(4096);
    expect(message).toMatch(/^test-policy: finding 0 x+; test-policy: finding 1 x+;.*; and 82 more$/);
  });

  it("a single huge finding is cut in its middle, not dropped: its first and last 512 bytes stay", () => {
    const message = reviewAt(PUSHED_AT, viewOf({}), policyFinding({ message: `${"y".repeat(5_000)}the reason` })).denial!.message;
    expect(message).toBe(`test-policy: ${"y".repeat(512 - 3 - "test-policy: ".length)}...${"y".repeat(512 - "the reason".length)}the reason`);
  });
});

describe("one budget for the fleet's policies and the cluster's own (issue 33)", () => {
  // ~920,000 units each (test/worker/review-budget.test.ts COSTLY: matches() over 200,000 characters), never false.
  const BURN = `!object.data.big.matches('^${"A?".repeat(90)}$')`;
  const burner = (name: string, burns: number) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
      validations: Array.from({ length: burns }, () => ({ expression: BURN })),
    },
  });
  const binding = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name, validationActions: ["Deny"], ...extra } });
  const fleet = new FleetPolicies({
    revision: 3,
    set: fleetSetSchema.parse({ policies: [burner("fleet-burn", 10)], bindings: [binding("fleet-burn", { clusterSelector: {} })] }),
    stages: {},
    appliedAt: 0,
    change: "apply",
  }).forCluster({})!;
  const configMap: AdmissionRequest = {
    uid: "u2",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    operation: "CREATE",
    namespace: "shop",
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { big: "a".repeat(200_000) } },
  };
  const judge = (withFleet: boolean) => {
    const { snapshot } = buildSnapshot([burner("a-burn", 10), binding("a-burn"), burner("b-burn", 10), binding("b-burn")], { generation: 1, builtAt: "2026-03-01T12:00:00Z" });
    return review(configMap, { cluster: "c1", policies: [], snapshot: { view: new SnapshotView(snapshot), pushedAt: PUSHED_AT }, withoutSnapshot: "FailOpen", now: PUSHED_AT, ...(withFleet ? { fleet } : {}) }).decision;
  };

  it("the cluster's two policies (18.4M) fit the review's 20M alone", () => {
    expect(judge(false)).toEqual({ allowed: true, warnings: [], auditAnnotations: {} });
  });

  it("after the fleet's (9.2M, judged first), the cluster's second is cut by the edge's limit and its failurePolicy denies", () => {
    expect(judge(true).denial?.message).toBe(
      "ValidatingAdmissionPolicy 'b-burn' with binding 'b-burn' denied request: edgeadmit: this review reached the edge's cost limit of 20,000,000 units across all policies before this policy finished; failurePolicy Fail denies it",
    );
  });
});
