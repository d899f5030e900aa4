import { describe, expect, it } from "vitest";
import { error, value } from "../../../test/support/cel/index.js";
import { Optional } from "../values/index.js";

describe("optional library", () => {
  it("builds and unwraps optionals", () => {
    expect(value("optional.of(1).hasValue() && !optional.none().hasValue()")).toBe(true);
    expect(value("optional.ofNonZeroValue(0)")).toBe(Optional.none);
    expect(value("optional.ofNonZeroValue([1]).value()")).toEqual([1]);
    expect(value("optional.none().orValue('d')")).toBe("d");
    expect(value("[1, 2].first().value() + [1, 2].last().value()")).toBe(3);
    expect(value("[].first().hasValue()")).toBe(false);
    expect(value("type(optional.none()) == optional_type")).toBe(true);
    expect(error("dyn(1).hasValue()")).toBe("no such overload: hasValue(int)");
  });
});
