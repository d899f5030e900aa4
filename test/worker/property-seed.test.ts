// npm test draws every property's cases from one seed (vitest.config.ts, fastCheckSeed): this project, in workerd, sets it up.
import fc from "fast-check";
import { expect, inject, it } from "vitest";

it("draws every property test's cases from the run's seed", () => {
  expect(fc.readConfigureGlobal().seed).toBe(inject("fastCheckSeed"));
});
