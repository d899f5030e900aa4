import { describe, expect, it } from "vitest";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { extListsLibrary } from "./index.js";

const libraries = [extListsLibrary];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const err = (source: string, activation = {}) => error(source, activation, { libraries });
const c = (source: string, activation = {}) => cost(source, activation, { libraries });

describe("cel-go ext.Lists v3", () => {
  // The examples of cel-go's ext/lists.go documentation and base.go:179's derived rows.
  it("slices, flattens, reverses, deduplicates and makes ranges", () => {
    expect(v("[1, 2, 3, 4].slice(1, 3)")).toEqual([2, 3]);
    // Mixed literals do not compile in Kubernetes (homogeneous aggregate literals): the nested lists come as input.
    expect(v("x.flatten()", { x: [1, [2, 3], [4]] })).toEqual([1, 2, 3, 4]);
    expect(v("x.flatten()", { x: [1, [2, [3, 4]]] })).toEqual([1, 2, [3, 4]]);
    expect(v("x.flatten(2)", { x: [1, [2, [3, [4]]]] })).toEqual([1, 2, 3, [4]]);
    expect(v("[5, 3, 1, 2].reverse()")).toEqual([2, 1, 3, 5]);
    expect(v("x.distinct()", { x: [1, "b", 2, "b", 1.0] })).toEqual([1, "b", 2]);
    expect(v("lists.range(3)")).toEqual([0, 1, 2]);
    expect(v("lists.range(0)")).toEqual([]);
  });

  it("sorts elements of one comparable type, and by a key", () => {
    expect(v("[3, 1, 2].sort() == [1, 2, 3] && ['b', 'c', 'a'].sort() == ['a', 'b', 'c']")).toBe(true);
    expect(v("[{'a': 2}, {'a': 1}].sortBy(e, e.a) == [{'a': 1}, {'a': 2}]")).toBe(true);
    expect(v("x.sortBy(e, -e).map(e, e * 10)", { x: [1, 3, 2] })).toEqual([30, 20, 10]);
    expect(err("x.sort()", { x: [1, "b"] })).toBe("list elements must have the same type");
    expect(err("x.sort()", { x: [[1], [2]] })).toBe("list elements must be comparable");
  });

  it("reports cel-go's errors", () => {
    expect(err("[1, 2].slice(2, 1)")).toBe("cannot slice(2, 1), start index must be less than or equal to end index");
    expect(err("[1, 2].slice(0, 3)")).toBe("cannot slice(0, 3), list is length 2");
    expect(err("[1, 2].slice(-1, 1)")).toBe("cannot slice(-1, 1), negative indexes not supported");
    expect(err("[[1]].flatten(-1)")).toBe("level must be non-negative");
    expect(err("lists.range(-1)")).toBe("lists.range: size must be non-negative, got -1");
    expect(err("1.sortBy(e, e)")).toMatch(/^ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression/);
    expect(err("[1].sortBy(1, 1)")).toMatch(/^ERROR: <input>:1:12: argument is not an identifier/);
  });

  it("is absent unless registered, sortBy included", () => {
    expect(error("[2, 1].sort()")).toMatch(/undeclared reference to 'sort'/);
    expect(error("[2, 1].sortBy(e, e)")).toMatch(/undeclared reference to 'sortBy'/);
  });

  // ext/lists.go's version 3 cost trackers: an allocated list costs its size (× depth for flatten) + 1 + 10;
  // sort, sortBy and distinct size² × 2 (× 2.1 for strings) + 11. The receiver is a variable (1) so that
  // nothing is folded.
  it("charges as cel-go's cost trackers", () => {
    const x = [5, 3, 1, 2];
    expect(c("x.reverse()", { x })).toBe(1 + 4 + 11);
    expect(c("x.slice(1, 3)", { x })).toBe(1 + 2 + 11);
    expect(c("x.flatten()", { x })).toBe(1 + 4 + 11);
    expect(c("x.flatten(3)", { x })).toBe(1 + 12 + 11);
    expect(c("lists.range(100)")).toBe(100 + 11);
    expect(c("x.sort()", { x })).toBe(1 + 32 + 11);
    expect(c("x.distinct()", { x: ["a", "b", "c"] })).toBe(1 + Math.floor(9 * 2.1) + 11);
    expect(c("x.sort()", { x: [] })).toBe(1 + 11);
    // sortBy, expanded as cel-go's sortByMacro: x (1), the bound list read twice (2), the map's steps
    // (2 × 13: accumulator, e, the one-element list and +) and its result (1), the keys' sort (8 + 11).
    expect(c("x.sortBy(e, e)", { x: [2, 1] })).toBe(1 + 2 + 2 * 13 + 1 + 8 + 11);
  });

  it("stops lists.range at cel-go's ceiling before allocating", () => {
    expect(err("lists.range(10000001)")).toBe("lists.range: size 10000001 exceeds maximum allowed (10000000)");
    expect(err("lists.range(5000000)")).toBe("operation cancelled: actual cost limit exceeded");
  });
});
