// The shapes an outsider used to stall the function or read back its input,
// at moderate sizes, through POST /validate: the verdict each must get, every
// message capped. Their times against benign reviews of the same size are
// bench/adversarial.ts's (npm run bench), never a test's.
import { beforeAll, describe, expect, it } from "vitest";
import { wrapReview } from "../../shared/admission/wrap.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import * as shapes from "../fixtures/adversarial/index.js";
import { push, snapshotOf, validate } from "../support/worker.js";

const CLUSTER = "other";

async function judge(object: KubeObject, operation: "CREATE" | "DELETE" = "CREATE") {
  const { response } = await validate(CLUSTER, wrapReview(object, { namespace: shapes.NAMESPACE, operation }));
  const messages = [response.status?.message ?? "", ...(response.warnings ?? []), ...Object.values(response.auditAnnotations ?? {})];
  for (const warning of response.warnings ?? []) expect(new TextEncoder().encode(warning).length).toBeLessThanOrEqual(256);
  for (const message of messages) expect(new TextEncoder().encode(message).length).toBeLessThanOrEqual(4096);
  return response;
}

beforeAll(async () => {
  expect((await push(CLUSTER, snapshotOf(shapes.adversarialCluster()))).status).toBe(200);
});

describe("adversarial reviews get their verdicts, every message capped", () => {
  it("pod-affinity-deadlock: 300 terms × 300 nodeSelector keys, five findings named and the rest counted", async () => {
    const finding = "pod-affinity-deadlock: deploy/deadlock: required podAffinity on shared t + nodeSelector: deadlock; select the app";
    expect((await judge(shapes.deadlockTerms(300, 300))).warnings).toEqual([...Array(5).fill(finding), "pod-affinity-deadlock: deploy/deadlock: and 295 more required podAffinity terms like these"]);
  });

  it("affinity-class: many In splits inside an OR class pass; one key outside it is denied, the constraints summarised", async () => {
    expect(await judge(shapes.splitTerms(20, 256, 100))).toMatchObject({ allowed: true });
    const outside = await judge(shapes.splitTerms(20, 256, 100, true));
    expect(outside.allowed).toBe(false);
    expect(outside.status?.message).toMatch(/^affinity-class: pod tenant-acme\/or-\* \(generateName\) belongs to application with AffinityClass "dc-or" but may run outside it: its node constraints \{example\.org\/k0=v, .*…and 97 more\} are not within \{topology\.kubernetes\.io\/zone=dc1\} or \{topology\.kubernetes\.io\/zone=dc2\}$/);
  });

  it("affinity-class: a pod against a class of 1,000 ORed terms, inside and outside", async () => {
    expect(await judge(shapes.wideClassPod())).toMatchObject({ allowed: true });
    const outside = await judge(shapes.wideClassPod(true));
    expect(outside.allowed).toBe(false);
    expect(outside.status?.message).toMatch(/or \{topology\.kubernetes\.io\/zone=zone-3, node\.cozystack\.io\/pool=pool-3\} or 996 more terms$/);
  });

  it("affinity-class-definitions: a 100 KB enforcement is quoted capped; 2,000 invalid keys give ten problems", async () => {
    expect((await judge(shapes.enforcementClass(100_000))).status?.message).toBe(
      `affinity-class-definitions: AffinityClass "echo": spec.enforcement: "${"x".repeat(61)}… is not one of Deny, Warn, Audit`,
    );
    const invalid = await judge(shapes.invalidKeysClass(2_000));
    expect(invalid.allowed).toBe(false);
    expect(invalid.status?.message).toMatch(/^affinity-class-definitions: AffinityClass "bad": spec\.nodeSelector: label key "-bad-0-": /);
    expect(invalid.status?.message).not.toContain("-bad-10-");
  });

  it("affinity-class-definitions: deleting an unused class is allowed", async () => {
    expect(await judge(shapes.deletedClass("unused"), "DELETE")).toMatchObject({ allowed: true });
  });

  it("affinity-class-references: 1,000 missing classes are counted, a 100 KB class name is capped", async () => {
    expect((await judge(shapes.tenantAllowingMissing(1_000))).status?.message).toBe(
      'affinity-class-references: Tenant tenant-acme/big: spec.allowedAffinityClasses names "missing-0", "missing-1", "missing-2", "missing-3", "missing-4" and 995 more, which do not exist; existing classes: dc-or, dc1, wide',
    );
    expect((await judge(shapes.applicationNamingClass(100_000))).status?.message).toBe(
      `affinity-class-references: Postgres tenant-acme/db: AffinityClass "${"c".repeat(62)}…" does not exist; allowed in tenant acme: dc1, dc-or, wide`,
    );
  });

  it("selectors of 1,000 values, 1,000 anti-affinity terms, 200 co-location terms and a 100,000-digit request", async () => {
    expect(await judge(shapes.selectingOthers(1_000))).toMatchObject({ allowed: true });
    expect((await judge(shapes.driftedTerms(1_000))).auditAnnotations).toEqual({
      "ha-spread": "deploy/new-name: 2 replicas may share one node; add podAntiAffinity or topologySpreadConstraints on its labels",
    });
    expect((await judge(shapes.coLocationTerms(200))).warnings).toEqual(["rwo-shared: deploy/mine: RWO PVC data has 51 users: Multi-Attach; co-locate or use RWX"]);
    const huge = await judge(shapes.hugeRequest(100_000));
    expect(huge).toMatchObject({ allowed: true });
    expect(huge.warnings).toBeUndefined();
  });
});
