import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isQuantity, MAX_RESULT_DIGITS, parseQuantity, QuantityError } from "./index.js";

const canonical = (text: string) => parseQuantity(text).toString();
const q = parseQuantity;

describe("parseQuantity and the canonical form", () => {
  it("prints what Kubernetes prints", () => {
    const cases: Array<[string, string]> = [
      ["0", "0"],
      ["1", "1"],
      ["+1", "1"],
      ["-1", "-1"],
      ["-0", "0"],
      ["1.5", "1500m"],
      ["1000", "1k"],
      ["1000m", "1"],
      ["0.1m", "100u"],
      ["0.0001m", "100n"],
      ["1.000000001", "1000000001n"],
      ["12M", "12M"],
      ["5000000E", "5e24"],
      ["1.5Gi", "1536Mi"],
      ["1024Mi", "1Gi"],
      ["1.5Ki", "1536"],
      ["0.5Ki", "512"],
      ["100Ki", "100Ki"],
      ["-2048", "-2048"],
      ["-2Ki", "-2Ki"],
      ["1e3", "1e3"],
      ["1E3", "1e3"],
      ["1.5e3", "1500"],
      ["12e6", "12e6"],
      ["1e-3", "1e-3"],
      ["1e-1", "100e-3"],
      ["9223372036854775808", "9223372036854775808"],
    ];
    for (const [text, printed] of cases) expect(canonical(text), text).toBe(printed);
  });

  it("rounds a value finer than a nano away from zero", () => {
    expect(canonical("0.00000000001")).toBe("1n");
    expect(canonical("-0.00000000001")).toBe("-1n");
    expect(canonical("1.0000000001")).toBe("1000000001n");
    expect(canonical("1e-100")).toBe("1e-9");
    expect(canonical("0.000000000001Ki")).toBe("2n");
  });

  it("caps a binarySI quantity at 2^63-1 and leaves decimal ones exact", () => {
    expect(canonical("8Ei")).toBe("9223372036854775807");
    expect(canonical("-8Ei")).toBe("-9223372036854775807");
    expect(canonical("8E")).toBe("8E");
    expect(canonical("1e25")).toBe("10e24");
  });

  it("reads digitless numbers as Kubernetes' fast path does", () => {
    for (const zero of ["m", "Ki", "Ti", "+", "-", ".", "-m", "+.k"]) expect(canonical(zero), zero).toBe("0");
    for (const numeric of ["Pi", "Ei", "e-10", ".e-10"]) expect(() => q(numeric), numeric).toThrow("unable to parse numeric part of quantity");
  });

  it("wraps a decimal exponent past 32 bits, as Go's int32 does", () => {
    expect(canonical("1e4294967296")).toBe("1");
    expect(canonical("1e4294967299")).toBe("1e3");
    expect(() => q("1e9223372036854775808")).toThrow(QuantityError);
  });

  it("refuses what Kubernetes refuses", () => {
    for (const [text, error] of [
      ["", "must match the regular expression"],
      ["1.5.5", "must match the regular expression"],
      ["1.5KiB", "must match the regular expression"],
      ["1 Ki", "must match the regular expression"],
      ["1kk", "suffix"],
      ["1e", "suffix"],
      ["1e+", "suffix"],
      ["1Ki3", "suffix"],
      ["1ee3", "suffix"],
    ] as const) {
      expect(() => q(text), text).toThrow(error);
      expect(isQuantity(text)).toBe(false);
    }
    expect(isQuantity("250m")).toBe(true);
  });

  it("remembers the format of the suffix", () => {
    expect(q("1Ki").format).toBe("BinarySI");
    expect(q("1k").format).toBe("DecimalSI");
    expect(q("1e3").format).toBe("DecimalExponent");
    expect(q("0.5Ki").format).toBe("BinarySI");
    // A binarySI value below 1 becomes decimal.
    expect(q("0.0001Ki").format).toBe("DecimalSI");
    expect(canonical("0.0001Ki")).toBe("102400u");
  });
});

describe("comparison and arithmetic", () => {
  it("compares exactly, across suffixes", () => {
    expect(q("1Gi").compareTo(q("1G"))).toBe(1);
    expect(q("1000m").compareTo(q("1"))).toBe(0);
    expect(q("0.5").compareTo(q("1"))).toBe(-1);
    expect(q("-1").compareTo(q("0"))).toBe(-1);
    expect(q("-2").compareTo(q("-1"))).toBe(-1);
    expect(q("9223372036854775807").compareTo(q("9223372036854775806"))).toBe(1);
    expect(q("1e999999999").compareTo(q("9".repeat(1000)))).toBe(1);
    expect(q("100000000000000000001").compareTo(q("100000000000000000000"))).toBe(1);
  });

  it("adds and subtracts exactly, keeping the first operand's format unless it is zero", () => {
    expect(q("1Gi").add(q("512Mi")).toString()).toBe("1536Mi");
    expect(q("0").add(q("1Ki")).toString()).toBe("1Ki");
    expect(q("1").add(q("1m")).toString()).toBe("1001m");
    expect(q("1Ki").sub(q("1Ki")).toString()).toBe("0");
    expect(q("1").sub(q("3")).toString()).toBe("-2");
    expect(q("-1").add(q("-500m")).toString()).toBe("-1500m");
    expect(q("0.1").add(q("0.2")).compareTo(q("0.3"))).toBe(0);
    expect(q("8Ei").add(q("8Ei")).toString()).toBe("18446744073709551614");
  });

  it("refuses a sum whose exact value needs more than a few million digits", () => {
    expect(() => q("1e999999999").add(q("1"))).toThrow(RangeError);
    expect(MAX_RESULT_DIGITS).toBeGreaterThan(3 * 2 ** 20);
  });

  it("gives the sign, the integer and an approximation", () => {
    expect([q("-1m").sign, q("0").sign, q("1Ki").sign]).toEqual([-1, 0, 1]);
    expect(q("1000m").isInteger()).toBe(true);
    expect(q("1e3").asInteger()).toBe(1000n);
    expect(q("1.5").isInteger()).toBe(false);
    expect(q("9223372036854775807").asInteger()).toBe(9223372036854775807n);
    expect(q("-9223372036854775808").asInteger()).toBe(-9223372036854775808n);
    expect(q("9223372036854775808").isInteger()).toBe(false);
    expect(() => q("1.5").asInteger()).toThrow(RangeError);
    expect(q("1.5Gi").asApproximateFloat()).toBe(1610612736);
    expect(q("-250m").asApproximateFloat()).toBe(-0.25);
  });

  it("handles millions of digits in linear time", () => {
    const digits = "7".repeat(1_500_000);
    const big = q(digits);
    expect(big.add(big).sub(big).compareTo(big)).toBe(0);
    expect(big.toString()).toBe(digits);
    expect(q(`${digits}Ki`).toString()).toBe("9223372036854775807");
  });
});

const quantityText = fc
  .tuple(
    fc.constantFrom("", "-", "+"),
    fc.stringMatching(/^[0-9]{0,12}$/),
    fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }),
    fc.oneof(fc.constantFrom("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"), fc.integer({ min: -30, max: 30 }).map((e) => `e${e}`)),
  )
  .map(([sign, whole, fraction, suffix]) => `${sign}${whole || "1"}${fraction === undefined ? "" : `.${fraction}`}${suffix}`);

describe("laws over generated quantities", () => {
  it("the canonical form reads back as the same value and prints the same", () => {
    fc.assert(
      fc.property(quantityText, (text) => {
        const value = q(text);
        const printed = value.toString();
        expect(q(printed).compareTo(value)).toBe(0);
        expect(q(printed).toString()).toBe(printed);
      }),
      { numRuns: 3_000 },
    );
  });

  it("adding then subtracting gives the value back; comparison agrees with subtraction", () => {
    fc.assert(
      fc.property(quantityText, quantityText, (a, b) => {
        const [x, y] = [q(a), q(b)];
        expect(x.add(y).sub(y).compareTo(x)).toBe(0);
        expect(x.add(y).compareTo(y.add(x))).toBe(0);
        expect(x.compareTo(y)).toBe(x.sub(y).sign);
      }),
      { numRuns: 3_000 },
    );
  });
});
