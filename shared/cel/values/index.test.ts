import { describe, expect, it } from "vitest";
import { CelMap, compare, Double, equals, EvalError, intOf, isIntNumber, LazyMap, mapKey, Optional, typeOf, Types, Uint } from "./index.js";

describe("value representation", () => {
  it("tells ints from doubles by the number alone, with boxes where JSON cannot say", () => {
    expect(typeOf(3)).toBe(Types.int);
    expect(typeOf(3.5)).toBe(Types.double);
    expect(typeOf(new Double(3))).toBe(Types.double);
    expect(typeOf(2 ** 63)).toBe(Types.double);
    expect(typeOf(-(2 ** 63))).toBe(Types.int);
    expect(typeOf(9007199254740993n)).toBe(Types.int);
    expect(typeOf(new Uint(3n))).toBe(Types.uint);
    expect(typeOf({ a: 1 })).toBe(Types.map);
    expect(typeOf(new LazyMap(() => undefined, []))).toBe(Types.map);
    expect(isIntNumber(Infinity)).toBe(false);
  });

  it("keeps int64 results exact and in range", () => {
    expect(intOf(9007199254740993n)).toBe(9007199254740993n);
    expect(intOf(12n)).toBe(12);
    expect(() => intOf(1n << 63n)).toThrow(EvalError);
  });

  it("compares heterogeneously and orders within a type", () => {
    expect(equals(1, new Double(1))).toBe(true);
    expect(equals(new Uint(1n), 1)).toBe(true);
    expect(equals(NaN, NaN)).toBe(false);
    expect(equals([1, { a: "x" }], [1, { a: "x" }])).toBe(true);
    expect(equals(Optional.none, new Optional(1))).toBe(false);
    expect(compare(1, 1.5)).toBeLessThan(0);
    expect(compare("b", "a")).toBeGreaterThan(0);
    expect(compare(NaN, 1)).toBeNaN();
    expect(() => compare("a", 1)).toThrow(EvalError);
  });

  it("normalises numeric map keys so 1, 1u and 1.0 find the same entry", () => {
    const m = new CelMap();
    m.entries.set(mapKey(1) as bigint, [1, "one"]);
    expect(m.get(new Uint(1n))).toBe("one");
    expect(m.get(new Double(1))).toBe("one");
    expect(m.get(1.5)).toBeUndefined();
    expect(mapKey(null)).toBeUndefined();
  });
});
