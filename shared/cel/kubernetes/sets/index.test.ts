import { describe, expect, it } from "vitest";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { compile, createEnv } from "../../index.js";
import { setsLibrary } from "./index.js";

const libraries = [setsLibrary];
const v = (source: string, activation = {}) => value(source, activation, { libraries, homogeneousLiterals: false });

describe("cel-go sets extension", () => {
  // The examples of cel-go's ext/sets.go.
  it("tests containment, equivalence and intersection with CEL equality", () => {
    expect(v("sets.contains([], [])")).toBe(true);
    expect(v("sets.contains([], [1])")).toBe(false);
    expect(v("sets.contains([1, 2, 3, 4], [2, 3])")).toBe(true);
    expect(v("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])")).toBe(true);
    expect(v("sets.equivalent([], [])")).toBe(true);
    expect(v("sets.equivalent([1], [1, 1])")).toBe(true);
    expect(v("sets.equivalent([1], [1u, 1.0])")).toBe(true);
    expect(v("sets.equivalent([1, 2, 3], [3u, 2.0, 1])")).toBe(true);
    expect(v("sets.equivalent([1, 2], [1])")).toBe(false);
    expect(v("sets.intersects([1], [])")).toBe(false);
    expect(v("sets.intersects([1], [1, 2])")).toBe(true);
    expect(v("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])")).toBe(true);
    expect(v("sets.intersects(a, b)", { a: ["x", { k: 1 }], b: [{ k: 1.0 }] })).toBe(true);
  });

  it("checks its arguments", () => {
    expect(error("sets.contains(1, [1])", {}, { libraries })).toMatch(/^ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '\(int, list\(int\)\)'/);
    expect(error("sets.contains(x, [1])", { x: "a" }, { libraries })).toBe("no such overload: sets.contains(string, list)");
    expect(error("sets.contains([1], [2])")).toMatch(/undeclared reference to 'sets'/);
  });

  // ext/sets.go trackSetsCost: 1 + size(a) × size(b), × 2 for equivalent. The figures of cost_test.go:944
  // TestSetsCost less its list literals (20 for two), which cel.OptOptimize folds.
  it("charges the call and size(a) × size(b), twice for equivalent", () => {
    const c = (source: string, activation = {}) => cost(source, activation, { libraries });
    expect(c("sets.contains([], [])")).toBe(1);
    expect(c("sets.contains([1], [1])")).toBe(2);
    expect(c("sets.contains([1, 2, 3, 4], [2, 3])")).toBe(9);
    expect(c("sets.equivalent([1], [1, 1])")).toBe(5);
    expect(c("!sets.equivalent([2, 1], [1])")).toBe(6);
    expect(c("sets.intersects([1], [1, 2])")).toBe(3);
    // Two variables read (1 each) and 1 + 100 × 50.
    const a = Array.from({ length: 100 }, (_, i) => i);
    const b = Array.from({ length: 50 }, (_, i) => -i - 1);
    expect(c("sets.intersects(a, b)", { a, b })).toBe(2 + 1 + 5000);
  });
});
