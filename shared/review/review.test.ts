// review() with an injected clock: the stale-snapshot stance, and how modes
// (including informational findings) become the verdict.
import { describe, expect, it } from "vitest";
import type { AdmissionRequest } from "../admission/index.js";
import type { Finding, Policy } from "../policy/index.js";
import { snapshotSchema, SnapshotView, type SnapshotInput } from "../snapshot/index.js";
import { review } from "./index.js";

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
