import { describe, expect, it } from "vitest";
import { error, value } from "../testing/index.js";
import { Double, Uint } from "../values/index.js";
import { MAX_CODE_POINTS, parse } from "./index.js";

describe("literals", () => {
  it("reads every numeric form", () => {
    expect(value("0x1F")).toBe(31);
    expect(value("0x1Fu")).toEqual(new Uint(31n));
    expect(value("18446744073709551615u")).toEqual(new Uint(18446744073709551615n));
    expect(value("-9223372036854775808")).toBe(-9223372036854775808n);
    expect(value("1e3")).toEqual(new Double(1000));
    expect(value(".5")).toBe(0.5);
    expect(value("-2.5e-1")).toBe(-0.25);
    expect(value("--3")).toBe(3);
    expect(value("!!true")).toBe(true);
  });

  it("reads every string form and escape", () => {
    expect(value(`"a\\tb\\n"`)).toBe("a\tb\n");
    expect(value(`'\\u00e9\\U0001F600\\x41\\101\\a\\v\\?\\\`'`)).toBe("é😀AA\x07\v?`");
    expect(value(`r'a\\nb'`)).toBe("a\\nb");
    expect(value(`'''multi\nline'''`)).toBe("multi\nline");
    expect(value(`"""say "hi" """`)).toBe('say "hi" ');
    expect(value(`b'\\xff\\000abc'`)).toEqual(Uint8Array.from([255, 0, 97, 98, 99]));
    expect(value(`b'é'`)).toEqual(Uint8Array.from([0xc3, 0xa9]));
    expect(value(`R"\\d+"`)).toBe("\\d+");
  });

  it("rejects out-of-range literals", () => {
    expect(error("9223372036854775808")).toBe("ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^");
    expect(error("18446744073709551616u")).toBe("ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u\n | ^");
  });
});

describe("operators", () => {
  it("applies CEL precedence", () => {
    expect(value("1 + 2 * 3 - 4 / 2")).toBe(5);
    expect(value("true || false && false")).toBe(true);
    expect(value("1 < 2 == true")).toBe(true);
    expect(value("2 in [1, 2] && !(3 in [1, 2])")).toBe(true);
    expect(value("false ? 1 : true ? 2 : 3")).toBe(2);
    expect(error("true ? false ? 1 : 2 : 3")).toMatch(/Syntax error: mismatched input '\?' expecting ':'/);
    expect(value("-(1 + 2)")).toBe(-3);
    expect(value("{'a': {'b': [1, 2]}}.a.b[1]")).toBe(2);
  });
});

describe("syntax errors", () => {
  it("reports cel-go's messages with the caret under the offending token", () => {
    expect(error("1 +")).toBe(
      "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 +\n | ...^",
    );
    expect(error("(1")).toBe("ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'\n | (1\n | ..^");
    // kubernetes/apiserver pkg/admission/plugin/cel/compile_test.go:41: an argument list cut short misses its ')'.
    expect(error("'asdf'.contains('x'")).toBe("ERROR: <input>:1:20: Syntax error: missing ')' at '<EOF>'\n | 'asdf'.contains('x'\n | ...................^");
    expect(error("a b", { a: 1 })).toBe("ERROR: <input>:1:3: Syntax error: mismatched input 'b' expecting <EOF>\n | a b\n | ..^");
    expect(error("1 @ 2")).toBe("ERROR: <input>:1:3: Syntax error: token recognition error at: '@'\n | 1 @ 2\n | ..^");
    expect(error("if")).toBe("ERROR: <input>:1:1: reserved identifier: if\n | if\n | ^");
    expect(error("x.all(1, true)", { x: [] })).toBe("ERROR: <input>:1:7: argument must be a simple name\n | x.all(1, true)\n | ......^");
    expect(error("has(x)", { x: 1 })).toBe("ERROR: <input>:1:5: invalid argument to has() macro\n | has(x)\n | ....^");
  });

  it("points at the right line and marks wide characters as cel-go does", () => {
    expect(error("'é' +\n  x", {})).toBe("ERROR: <input>:2:3: undeclared reference to 'x' (in container '')\n |   x\n | ..^");
    expect(error("'日本' + y")).toBe("ERROR: <input>:1:8: undeclared reference to 'y' (in container '')\n | '日本' + y\n | .．．....^");
  });
});

describe("limits", () => {
  it("rejects deep nesting without overflowing the stack", () => {
    const deep = "(".repeat(100_000) + "1" + ")".repeat(100_000);
    // Whole-expression errors have no location: cel-go prints line -1, column 0 and no snippet.
    expect(error(deep)).toBe("ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200001, limit 100000");
    const nested = "(".repeat(300) + "1" + ")".repeat(300);
    expect(error(nested)).toBe("ERROR: <input>:-1:0: expression recursion limit exceeded: 250");
    const lists = "[".repeat(40_000) + "]".repeat(40_000);
    expect(error(lists)).toMatch(/expression recursion limit exceeded: 250/);
    const chain = Array.from({ length: 5_000 }, () => "1").join(" + ");
    expect(error(chain)).toMatch(/max recursion depth exceeded/);
    expect(value("-".repeat(60_000) + "x", { x: 1 })).toBe(1);
    expect(value("!".repeat(60_001) + "true")).toBe(false);
  });

  it("keeps long && and || chains shallow, as cel-go balances them", () => {
    const conj = Array.from({ length: 2_000 }, (_, i) => `x != ${i + 1}`).join(" && ");
    expect(value(conj, { x: 0 })).toBe(true);
  });

  it("caps the source at cel-go's code point limit", () => {
    expect(MAX_CODE_POINTS).toBe(100_000);
    expect("errors" in parse(`'${"a".repeat(99_990)}'`)).toBe(false);
    expect("errors" in parse(`'${"a".repeat(100_000)}'`)).toBe(true);
  });
});
