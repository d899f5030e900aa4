import { describe, expect, it } from "vitest";
import { nestingError, ownKeys } from "./index.js";

describe("nestingError", () => {
  it("accepts nesting up to the limit and refuses one level more", () => {
    expect(nestingError(`${"[".repeat(5)}${"]".repeat(5)}`, 5)).toBeUndefined();
    expect(nestingError(`${"[".repeat(6)}${"]".repeat(6)}`, 5)).toBe("nests deeper than 5 levels of objects and arrays");
    expect(nestingError('{"a":{"b":[{"c":1}]}}', 4)).toBeUndefined();
    expect(nestingError('{"a":{"b":[{"c":1}]}}', 3)).toBe("nests deeper than 3 levels of objects and arrays");
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    expect(nestingError(JSON.stringify({ a: "[[[[{{{{\\\"[[[[" }), 1)).toBeUndefined();
  });

  it("scans a million levels without a stack", () => {
    expect(nestingError("[".repeat(1_000_000), 100)).toBe("nests deeper than 100 levels of objects and arrays");
  });
});

describe("ownKeys", () => {
  it("is Object.keys, the same list for every reader of a large object", () => {
    const large = JSON.parse(JSON.stringify(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${99 - i}`, i])))) as object;
    expect(ownKeys(large)).toEqual(Object.keys(large));
    expect(ownKeys(large)).toBe(ownKeys(large));
    const small = { b: 1, a: 2 };
    expect(ownKeys(small)).toEqual(["b", "a"]);
  });
});
