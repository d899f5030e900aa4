import { describe, expect, it } from "vitest";
import { cost, error, value } from "../../../test/support/cel/index.js";

describe("ext.Strings (Kubernetes' version 2)", () => {
  it("indexes by code point", () => {
    expect(value("'héllo'.charAt(1)")).toBe("é");
    expect(value("'héllo'.charAt(5)")).toBe("");
    expect(error("'héllo'.charAt(6)")).toBe("index out of range: 6");
    expect(value("'a😀b😀'.indexOf('😀')")).toBe(1);
    expect(value("'a😀b😀'.lastIndexOf('😀')")).toBe(3);
    expect(value("'hello mellow'.indexOf('ello', 2)")).toBe(7);
    expect(error("'hello'.indexOf('l', 9)")).toBe("index out of range: 9");
    expect(value("'tacocat'.substring(4)")).toBe("cat");
    expect(error("'tacocat'.substring(4, 3)")).toBe("invalid substring range. start: 4, end: 3");
  });

  it("indexes a large input string without rescanning it per call", () => {
    const s = "😀" + "a".repeat(1_000_000) + "é";
    const indexes = Array.from({ length: 20_000 }, (_, i) => i * 50);
    const chars = value("l.map(i, s.charAt(i))", { s, l: indexes }) as string[];
    expect(chars[0]).toBe("😀");
    expect(chars.slice(1).every((c) => c === "a")).toBe(true);
    expect(value("[s.size(), s.indexOf('é'), s.lastIndexOf('a'), s.substring(1000000, 1000002).size()]", { s })).toEqual([1_000_002, 1_000_001, 1_000_000, 2]);
  });

  it("transforms like Go's strings package", () => {
    expect(value("'TacoCÆt'.lowerAscii() + 'TacoCÆt'.upperAscii()")).toBe("tacocÆtTACOCÆT");
    expect(value("'hello hello'.replace('he', 'we', 1)")).toBe("wello hello");
    expect(value("'héllo'.replace('', '_')")).toBe("_h_é_l_l_o_");
    expect(value("'a,b,c'.split(',')")).toEqual(["a", "b", "c"]);
    expect(value("'a,b,c'.split(',', 2)")).toEqual(["a", "b,c"]);
    expect(value("'a,b,c'.split(',', 0)")).toEqual([]);
    expect(value("' \\t trim \\u0085'.trim()")).toBe("trim");
    expect(value("'\\ufeffx'.trim()")).toBe("\ufeffx");
    expect(value("['a', 'b'].join('-') + ['c'].join()")).toBe("a-bc");
    expect(error("[1].join()")).toBe("join: invalid input: int");
    expect(value("strings.quote('a\"b\\n')")).toBe('"a\\"b\\n"');
    expect(error("'abc'.reverse()")).toBe("ERROR: <input>:1:14: undeclared reference to 'reverse' (in container '')\n | 'abc'.reverse()\n | .............^");
  });

  // Go's strings.TrimSpace, ASCII-only case mapping, cel-go's quote (ext/strings.go); long inputs take the unit-by-unit paths.
  it("trims, maps ASCII case and quotes long strings as Go does", () => {
    const spaces = " ".repeat(100_000);
    expect(value("s.trim()", { s: `\u3000${spaces}x${spaces}\u2009x\n${spaces}\u205f` })).toBe(`x${spaces}\u2009x`);
    expect(value("s.trim()", { s: spaces })).toBe("");
    expect(value("s.trim()", { s: "\u200b x\ufeff" })).toBe("\u200b x\ufeff");
    const mixed = "AzÆé😀[`@{".repeat(10_000);
    expect(value("s.lowerAscii()", { s: mixed })).toBe("azÆé😀[`@{".repeat(10_000));
    expect(value("s.upperAscii()", { s: mixed })).toBe("AZÆé😀[`@{".repeat(10_000));
    expect(value("strings.quote(s)", { s: "\x07\b\f\n\r\t\v\\\"\x01é😀\ud800x\udc00".repeat(10_000) })).toBe(
      `"${"\\a\\b\\f\\n\\r\\t\\v\\\\\\\"\x01é😀\ufffdx\ufffd".repeat(10_000)}"`,
    );
  });

  it("formats like cel-go's string.format", () => {
    expect(value("'%s is %d years, %.2f%% done, hex %x, bin %b, oct %o'.format(['Ann', 42, 99.5, 255, 5, 8])")).toBe(
      "Ann is 42 years, 99.50% done, hex ff, bin 101, oct 10",
    );
    expect(value("'%e'.format([1052.032911275])")).toBe("1.052033e+03");
    expect(value("'%.0f %.0f'.format([2.5, 3.5])")).toBe("2 4");
    expect(value("'%s'.format([[1, 'a', 2.5, {'k': true}]])")).toBe("[1, a, 2.5, {k: true}]");
    expect(error("'%d'.format(['x'])")).toBe("error during formatting: decimal clause can only be used on integers, was given string");
    expect(error("'%d %d'.format([1])")).toBe("index 1 out of range");
    expect(error("'%q'.format([1])")).toBe('could not parse formatting clause: unrecognized formatting clause "q"');
  });

  // Kubernetes' cost.go:106 charges indexOf/lastIndexOf one traversal of the receiver (0.1 per byte, rounded
  // down) as the call's whole cost, and cost.go:120 join two passes over its result: cost_test.go:138 and :566.
  it("charges indexOf, lastIndexOf and join as Kubernetes' CostEstimator", () => {
    expect(cost("'01234567890123456789012345678901234567890123456789'.indexOf('123')")).toBe(5);
    expect(cost("'01234567890123456789012345678901234567890123456789'.lastIndexOf('123')")).toBe(5);
    expect(cost("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')")).toBe(5);
    expect(cost("['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()")).toBe(3);
    expect(cost("'abc 123 def 123'.replace('', 'x')")).toBe(3);
    expect(cost("'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()")).toBe(9);
    // 2-byte runes: 30 bytes, 3.
    expect(cost("'ééééééééééééééé'.indexOf('x')")).toBe(3);
  });
});
