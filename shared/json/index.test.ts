import { describe, expect, it } from "vitest";
import { nestingError } from "./index.js";

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
