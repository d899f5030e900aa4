import { describe, expect, it } from "vitest";
import { goQuote, quoteCapped, truncated } from "./quote.js";

describe("Go string helpers", () => {
  it("quote as strconv.Quote does", () => {
    expect(goQuote("a\"b\\c")).toBe('"a\\"b\\\\c"');
    expect(goQuote("\n\t\x00\x7f")).toBe('"\\n\\t\\x00\\x7f"');
    expect(goQuote("é日😀")).toBe('"é日😀"');
    expect(goQuote("\u200b\u{e0001}")).toBe('"\\u200b\\U000e0001"');
    expect(goQuote("\ud800x")).toBe('"\ufffdx"');
  });

  it("cap what they echo back, by code points", () => {
    expect(quoteCapped("abc", 2)).toBe('"ab"...');
    expect(quoteCapped("abc", 3)).toBe('"abc"');
    expect(truncated("😀😀😀", 2)).toEqual({ text: "😀😀", cut: true });
    expect(truncated("😀😀", 2)).toEqual({ text: "😀😀", cut: false });
    expect(quoteCapped("x".repeat(100_000)).length).toBe(64 + 5);
  });
});
