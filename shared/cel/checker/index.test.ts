import { describe, expect, it } from "vitest";
import { createEnv } from "../index.js";
import { parse } from "../parser/index.js";
import { value } from "../../../test/support/cel/index.js";
import { check } from "./index.js";

function checked(source: string, variables: string[] = []) {
  const parsed = parse(source);
  if ("errors" in parsed) throw new Error(parsed.errors[0]?.message);
  return check(parsed.expr, createEnv({ variables }).declarations);
}

describe("declaration checker", () => {
  it("resolves variables, comprehension variables, qualified functions and type names", () => {
    const r = checked("[1].all(x, x > 0) && optional.none().hasValue() == false && type(a) == int", ["a"]);
    expect(r.errors).toEqual([]);
    expect(r.slots).toBe(1);
    const kinds = [...r.resolutions.values()].map((x) => x.kind).sort();
    expect(kinds).toEqual(["binder", "call", "call", "call", "call", "call", "call", "local", "type", "var"]);
  });

  it("scopes comprehension and bind variables to their bodies", () => {
    expect(checked("[1].map(x, x) + [x]").errors).toEqual([{ pos: 17, message: "undeclared reference to 'x' (in container '')" }]);
    expect(checked("cel.bind(v, 1, v) + v").errors).toEqual([{ pos: 20, message: "undeclared reference to 'v' (in container '')" }]);
  });

  it("resolves a dotted name to the longest declared variable", () => {
    expect(checked("a.b.c", ["a.b"]).errors).toEqual([]);
    expect(value("a.b.c", { "a.b": { c: 5 }, a: { b: { c: 6 } } })).toBe(5);
    expect(value("a.b.c", { a: { b: { c: 6 } } })).toBe(6);
  });
});
