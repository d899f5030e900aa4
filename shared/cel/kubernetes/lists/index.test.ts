import { describe, expect, it } from "vitest";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { Double } from "../../values/index.js";
import { listsLibrary } from "./index.js";

const libraries = [listsLibrary(1)];

describe("Kubernetes lists library", () => {
  it("sorts, sums and finds", () => {
    expect(value("[1, 2, 2, 3].isSorted() && !['b', 'a'].isSorted()", {}, { libraries })).toBe(true);
    expect(value("[1, 2, 3].sum()", {}, { libraries })).toBe(6);
    expect(value("[1.5, 2.5].sum()", {}, { libraries })).toEqual(new Double(4));
    expect(value("[].sum()", {}, { libraries })).toBe(0);
    expect(value("string([duration('1m'), duration('1s')].sum())", {}, { libraries })).toBe("61s");
    expect(value("[3, 1, 2].min() + [3, 1, 2].max()", {}, { libraries })).toBe(4);
    expect(error("[].min()", {}, { libraries })).toBe("min called on empty list");
    expect(value("[1, 2, 2].indexOf(2) + [1, 2, 2].lastIndexOf(2)", {}, { libraries })).toBe(3);
  });

  it("shares method names with the strings extension, dispatching on the receiver", () => {
    expect(value("x.indexOf('b') + y.indexOf('b')", { x: "abc", y: ["a", "b"] }, { libraries })).toBe(2);
  });

  // lists.go:92 (version 1, Kubernetes 1.37): a list holds the element, or a receiver that is no list equals it.
  it("has includes from version 1", () => {
    expect(value("[1, 2, 3].includes(2) && ![1, 2, 3].includes(4) && [1.0].includes(1)", {}, { libraries })).toBe(true);
    expect(value("'model-a'.includes('model-a') && !'model-a'.includes('model-b')", {}, { libraries })).toBe(true);
    expect(error("[1].includes(1)", {}, { libraries: [listsLibrary(0)] })).toMatch(/undeclared reference to 'includes'/);
  });

  // cost.go:106: one traversal of the receiver is the call's whole cost: 1 per int, 0.1 per byte of a
  // string rounded down (cost.go:621). Figures of cost_test.go:60, :138 and :201 with the list folded
  // (their costUnoptimized less the list literal's 10).
  it("costs one traversal of the list", () => {
    expect(cost("[1, 2, 3, 4, 5].sum()", {}, { libraries })).toBe(5);
    expect(cost("[1, 2, 3, 4, 5].isSorted()", {}, { libraries })).toBe(5);
    expect(cost("[1.0, 2.0, 3.0, 4.0, 5.0].max()", {}, { libraries })).toBe(5);
    expect(cost("['012345678901', '012345678901', '012345678901', '012345678901', '012345678901'].min()", {}, { libraries })).toBe(5);
    expect(cost("[1, 2, 3, 4, 5].indexOf(3)", {}, { libraries })).toBe(5);
    expect(cost("'01234567890123456789012345678901234567890123456789'.lastIndexOf('123')", {}, { libraries })).toBe(5);
    expect(cost("[uint(1), uint(2), uint(3), uint(4), uint(5)].includes(uint(3))", {}, { libraries })).toBe(5);
    expect(cost("'01234567890123456789012345678901234567890123456789'.includes('123')", {}, { libraries })).toBe(5);
    // An empty list costs nothing but reading it; a short string's traversal rounds down to 0.
    expect(cost("x.sum()", { x: [] }, { libraries })).toBe(1);
    expect(cost("x.indexOf('b')", { x: "abc" }, { libraries })).toBe(1);
  });

  it("is absent unless registered", () => {
    expect(error("[1].sum()")).toBe("ERROR: <input>:1:8: undeclared reference to 'sum' (in container '')\n | [1].sum()\n | .......^");
  });
});
