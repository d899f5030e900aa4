import { describe, expect, it } from "vitest";
import { error, value } from "../../../../test/support/cel/index.js";
import { Double } from "../../values/index.js";
import { listsLibrary } from "./index.js";

const libraries = [listsLibrary];

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

  it("is absent unless registered", () => {
    expect(error("[1].sum()")).toBe("ERROR: <input>:1:8: undeclared reference to 'sum' (in container '')\n | [1].sum()\n | .......^");
  });
});
