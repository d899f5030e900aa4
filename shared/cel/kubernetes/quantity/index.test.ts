import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../../index.js";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { Double } from "../../values/index.js";
import { parsedAmount, quantityLibrary, QuantityValue } from "./index.js";

const libraries = [quantityLibrary];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const err = (source: string, activation = {}) => error(source, activation, { libraries });

describe("Kubernetes quantity library", () => {
  // Rows of k8s.io/apiserver/pkg/cel/library/quantity_test.go (TestQuantity).
  it("passes Kubernetes' TestQuantity rows", () => {
    const q = v('quantity("12Mi")');
    expect(q).toBeInstanceOf(QuantityValue);
    expect(String(q)).toBe("12Mi");
    expect(err('quantity("10Mo")')).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(err('quantity("10Mm")')).toBe("unable to parse quantity's suffix");
    expect(v('isQuantity("20")')).toBe(true);
    expect(v('isQuantity("20M")')).toBe(true);
    expect(v('isQuantity("20Mi")')).toBe(true);
    expect(v('isQuantity("20Mo")')).toBe(false);
    expect(v('isQuantity("10Mm")')).toBe(false);
    expect(err("isQuantity([1, 2, 3])")).toMatch(/^ERROR: <input>:1:11: found no matching overload for 'isQuantity' applied to '\(list\(int\)\)'/);
    expect(v('quantity("200M") == quantity("200M")')).toBe(true);
    expect(v('quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")')).toBe(true);
    expect(v('quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")')).toBe(true);
    expect(v('quantity("200M") == quantity("0.3G")')).toBe(false);
    expect(v('quantity("50M").isLessThan(quantity("50Mi"))')).toBe(true);
    expect(v('quantity("50M").isLessThan(quantity("100M"))')).toBe(true);
    expect(v('quantity("100M").isLessThan(quantity("50M"))')).toBe(false);
    expect(v('quantity("50Mi").isGreaterThan(quantity("50M"))')).toBe(true);
    expect(v('quantity("150Mi").isGreaterThan(quantity("100Mi"))')).toBe(true);
    expect(v('quantity("50M").isGreaterThan(quantity("100M"))')).toBe(false);
    expect(v('quantity("200M").compareTo(quantity("0.2G"))')).toBe(0);
    expect(v('quantity("50M").compareTo(quantity("50Mi"))')).toBe(-1);
    expect(v('quantity("50Mi").compareTo(quantity("50M"))')).toBe(1);
    expect(v('quantity("50k").add(quantity("20")) == quantity("50.02k")')).toBe(true);
    expect(v('quantity("50k").add(20).isLessThan(quantity("50020"))')).toBe(false);
    expect(v('quantity("50k").sub(quantity("20")) == quantity("49.98k")')).toBe(true);
    expect(v('quantity("50k").sub(20) == quantity("49980")')).toBe(true);
    expect(v('quantity("50k").add(20).sub(quantity("100k")).asInteger()')).toBe(-49980);
    expect(v('quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()')).toBe(20);
    expect(v('quantity("50k").asInteger()')).toBe(50000);
    expect(err('quantity("9999999999999999999999999999999999999G").asInteger()')).toBe("cannot convert value to integer");
    expect(v('quantity("9999999999999999999999999999999999999G").isInteger()')).toBe(false);
    expect(v('quantity("50").isInteger()')).toBe(true);
    expect(v('quantity("50.703k").asApproximateFloat()')).toEqual(new Double(50703));
  });

  it("answers isInteger from Kubernetes' representation, not only the value", () => {
    // int64Amount with a negative power of ten: AsInt64 refuses it.
    expect(v('quantity("1000m").isInteger() || quantity("1.0").isInteger()')).toBe(false);
    // Fractional binary quantities take inf.Dec, which AsInt64 always refuses.
    expect(v('quantity("1.5Gi").isInteger()')).toBe(false);
    expect(err('quantity("1.5Gi").asInteger()')).toBe("cannot convert value to integer");
    // 19 digits exceed the int64 fast path (the apimachinery MaxInt64 parsing issue).
    expect(v('quantity("9223372036854775807").isInteger()')).toBe(false);
    expect(v('quantity("922337203685477580").asInteger()')).toBe(922337203685477580n);
    expect(v('quantity("1Ki").asInteger() + quantity("50k").asInteger() + quantity("0").asInteger()')).toBe(51024);
    expect(v('quantity("8E").asInteger()')).toBe(8000000000000000000n);
    expect(v('quantity("9E").isInteger()')).toBe(true);
    expect(v('quantity("10E").isInteger()')).toBe(false);
    // Adding keeps int64Amount at the smaller power; overflow moves to inf.Dec for good.
    expect(v('quantity("1.5").add(quantity("0.5")).isInteger()')).toBe(false);
    expect(v('quantity("500m").add(quantity("500m")) == quantity("1")')).toBe(true);
    expect(v('quantity("8E").add(quantity("2E")).isInteger()')).toBe(false);
    expect(v('quantity("8E").add(quantity("2E")).sub(quantity("9E")).asInteger()')).toBe(1000000000000000000n);
    expect(v('quantity("10E").add(quantity("1")).sub(quantity("10E")) == quantity("1")')).toBe(true);
    expect(v('quantity("10E").add(quantity("1")).sub(quantity("10E")).isInteger()')).toBe(false);
    expect(v('quantity("4E").add(quantity("4E")).asInteger()')).toBe(8000000000000000000n);
  });

  it("tracks resource.ParseQuantity's representation", () => {
    expect(parsedAmount("0")).toEqual({ value: 0n, scale: 0 });
    expect(parsedAmount("-000")).toEqual({ value: 0n, scale: 0 });
    expect(parsedAmount("50k")).toEqual({ value: 50n, scale: 3 });
    expect(parsedAmount("1.5")).toEqual({ value: 15n, scale: -1 });
    expect(parsedAmount("-12Mi")).toEqual({ value: -12n * 2n ** 20n, scale: 0 });
    expect(parsedAmount("100Ti")).toBeUndefined();
    expect(parsedAmount("99Ti")).toEqual({ value: 99n * 2n ** 40n, scale: 0 });
    expect(parsedAmount("1e3")).toEqual({ value: 1n, scale: 3 });
    expect(parsedAmount("1.5e-3")).toEqual({ value: 15n, scale: -4 });
    expect(parsedAmount("1e-10")).toBeUndefined();
    expect(parsedAmount("0.0000000001")).toBeUndefined();
  });

  it("computes asApproximateFloat as Go's float64(value) * math.Pow10(scale)", () => {
    expect(v('quantity("0.3").asApproximateFloat()')).toBe(0.30000000000000004);
    expect(v('quantity("3e-1").asApproximateFloat()')).toBe(0.30000000000000004);
    expect(v('quantity("-3k").asApproximateFloat()')).toEqual(new Double(-3000));
    expect(v('quantity("1.5Gi").asApproximateFloat()')).toEqual(new Double(1610612736));
  });

  it("has sign as a global function, as Kubernetes declares it", () => {
    expect(v('sign(quantity("-1m")) + sign(quantity("0")) * 10 + sign(quantity("2Ki")) * 100')).toBe(99);
    expect(err('quantity("1").sign()')).toMatch(/^ERROR: <input>:1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.\(\)'/);
  });

  it("has no ordering operators, only compareTo", () => {
    expect(err('quantity("1") < quantity("2")')).toMatch(/^ERROR: <input>:1:15: found no matching overload for '_<_' applied to '\(kubernetes.Quantity, kubernetes.Quantity\)'/);
    expect(err("x < y", { x: v('quantity("1")'), y: v('quantity("2")') })).toBe("no such overload");
  });

  it("names its type and leaves other types unequal", () => {
    expect(v('type(quantity("1")) == kubernetes.Quantity')).toBe(true);
    expect(v('quantity("1") == 1')).toBe(false);
    expect(v('[quantity("1Ki")].exists(q, q == quantity("1024"))')).toBe(true);
    expect(err('dyn(1).add(1)')).toBe("no such overload: add(int, int)");
  });

  it("checks the int operand's type at run time", () => {
    expect(err('quantity("1").add(dyn(1.5))')).toBe("no such overload: add(kubernetes.Quantity, double)");
  });

  it("reports an invalid constant at run time, as Kubernetes (which has no quantity literal validator) does", () => {
    const env = createEnv({ variables: [], libraries });
    const c = compile('true || quantity("bad") == quantity("1")', env);
    expect(c.ok).toBe(true);
    expect(err('quantity("x")')).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  it("charges parsing by the string's length, 0.1 per code point", () => {
    const env = createEnv({ variables: ["s"], libraries });
    const c = compile("quantity(s).isInteger()", env);
    if (!c.ok) throw new Error(c.error);
    const short = c.program.evaluate({ s: "1" });
    const long = c.program.evaluate({ s: `${"1".repeat(1000)}m` });
    expect(long.cost - short.cost).toBe(100);
    // Parsed texts are kept, and charged as parsed on every call all the same; so is an invalid one's error.
    expect(c.program.evaluate({ s: "1" }).cost).toBe(short.cost);
    const bad = c.program.evaluate({ s: "1x" });
    expect(c.program.evaluate({ s: "1x" })).toEqual(bad);
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/^quantities must match/) });
  });

  it("refuses results too large to build", () => {
    expect(err('quantity("1e999999999").add(quantity("1e-9")).isInteger()')).toMatch(/^quantity arithmetic result too large/);
  });

  // cost_test.go:778 (TestQuantityCost).
  it("costs what Kubernetes' cost tests say", () => {
    expect(cost('quantity("12Mi")', {}, { libraries })).toBe(1);
    expect(cost('quantity("200M") == quantity("200M")', {}, { libraries })).toBe(3);
  });
});
