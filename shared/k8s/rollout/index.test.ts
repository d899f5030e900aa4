import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidObjectError } from "../workload/index.js";
import { deploymentRollout, resolveFenceposts, scaledValue } from "./index.js";

/** Exact ceil/floor of percent × total / 100 in integers: what float64 must agree with over the int32 range. */
function exactScaled(percent: number, total: number, roundUp: boolean): number {
  const product = BigInt(percent) * BigInt(total);
  const quotient = product / 100n;
  return Number(roundUp && product % 100n !== 0n ? quotient + 1n : quotient);
}

describe("scaledValue (intstr.GetScaledValueFromIntOrPercent)", () => {
  it.each([
    ["25%", 1, true, 1],
    ["25%", 1, false, 0],
    ["25%", 4, true, 1],
    ["25%", 5, true, 2],
    ["25%", 5, false, 1],
    ["50%", 3, true, 2],
    ["50%", 3, false, 1],
    ["100%", 7, false, 7],
    ["0%", 9, true, 0],
    ["10%", 3, true, 1],
    ["200%", 3, false, 6],
  ] as const)("%s of %i rounded %s is %i", (value, total, up, expected) => {
    expect(scaledValue(value, total, up)).toBe(expected);
  });

  it("takes an integer as it is, whatever the total", () => {
    expect(scaledValue(3, 1, true)).toBe(3);
    expect(scaledValue(0, 10, false)).toBe(0);
  });

  it("refuses a string that is not a percentage", () => {
    expect(() => scaledValue("25", 4, true)).toThrow('"25" is not an integer or a percentage');
  });

  it("agrees with exact integer arithmetic for every percentage and int32 total", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.boolean(), (percent, total, up) => {
        expect(scaledValue(`${percent}%`, total, up)).toBe(exactScaled(percent, total, up));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("resolveFenceposts (deployment util)", () => {
  it("rounds maxSurge up and maxUnavailable down", () => {
    expect(resolveFenceposts("25%", "25%", 1)).toEqual({ surge: 1, unavailable: 0 });
    expect(resolveFenceposts("25%", "25%", 10)).toEqual({ surge: 3, unavailable: 2 });
  });

  it("makes progress with maxUnavailable 1 when both come to 0", () => {
    expect(resolveFenceposts(0, "25%", 1)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts("0%", "10%", 5)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts("25%", "25%", 0)).toEqual({ surge: 0, unavailable: 1 });
  });

  it("never yields 0/0, and surge is 0 only when maxSurge scales to 0 (property)", () => {
    const intOrPercent = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`));
    fc.assert(
      fc.property(intOrPercent, intOrPercent, fc.integer({ min: 0, max: 1000 }), (maxSurge, maxUnavailable, replicas) => {
        const { surge, unavailable } = resolveFenceposts(maxSurge, maxUnavailable, replicas);
        expect(surge + unavailable).toBeGreaterThan(0);
        expect(surge).toBe(scaledValue(maxSurge, replicas, true));
      }),
    );
  });
});

describe("deploymentRollout", () => {
  it("defaults to RollingUpdate 25%/25% of 1 replica: one surge pod", () => {
    expect(deploymentRollout({})).toEqual({ type: "RollingUpdate", replicas: 1, maxSurge: "25%", maxUnavailable: "25%", surge: 1, unavailable: 0 });
    expect(deploymentRollout(undefined)).toMatchObject({ type: "RollingUpdate", replicas: 1, surge: 1 });
  });

  it("defaults a field the rollingUpdate block leaves out", () => {
    expect(deploymentRollout({ replicas: 4, strategy: { rollingUpdate: { maxUnavailable: 1 } } })).toMatchObject({ maxSurge: "25%", surge: 1, unavailable: 1 });
    expect(deploymentRollout({ replicas: 4, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0 } } })).toMatchObject({ surge: 0, unavailable: 1 });
  });

  it("reads Recreate, which never runs old and new pods together", () => {
    expect(deploymentRollout({ replicas: 3, strategy: { type: "Recreate" } })).toEqual({ type: "Recreate", replicas: 3 });
  });

  it("answers a malformed field with the field's path", () => {
    expect(() => deploymentRollout({ strategy: { rollingUpdate: { maxSurge: "one" } } })).toThrow(InvalidObjectError);
    expect(() => deploymentRollout({ strategy: { rollingUpdate: { maxSurge: "one" } } })).toThrow(/spec\.strategy\.rollingUpdate\.maxSurge/);
    expect(() => deploymentRollout({ replicas: -1 })).toThrow(/spec\.replicas/);
  });
});
