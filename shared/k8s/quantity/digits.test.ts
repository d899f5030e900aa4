import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDigits, divideDigitsExactly, multiplyDigits, subtractDigits } from "./digits.js";

// Short operands take the double path, long ones the chunked one: both must be BigInt's answer.
const digits = fc.oneof(fc.stringMatching(/^[0-9]{0,16}$/), fc.stringMatching(/^[0-9]{0,40}$/));
const big = (text: string) => BigInt(text === "" ? "0" : text);

describe("digit arithmetic", () => {
  it("adds and subtracts as BigInt does, printing no leading zeros", () => {
    fc.assert(
      fc.property(digits, digits, (a, b) => {
        expect(addDigits(a, b)).toBe(String(big(a) + big(b)));
        const [high, low] = big(a) >= big(b) ? [a, b] : [b, a];
        expect(subtractDigits(high, low)).toBe(String(big(high) - big(low)));
      }),
      { numRuns: 2000 },
    );
  });

  it("multiplies by a small factor and divides exactly as BigInt does", () => {
    fc.assert(
      fc.property(digits, fc.integer({ min: 1, max: 1024 }), (a, factor) => {
        expect(multiplyDigits(a, factor)).toBe(String(big(a) * BigInt(factor)));
        const divisible = multiplyDigits(a, factor);
        expect(divideDigitsExactly(divisible, factor)).toBe(String(big(a)));
        expect(divideDigitsExactly(a, factor)).toBe(big(a) % BigInt(factor) === 0n ? String(big(a) / BigInt(factor)) : undefined);
      }),
      { numRuns: 2000 },
    );
  });
});
