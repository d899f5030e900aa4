import { describe, expect, it } from "vitest";
import { SyntaxError, tokenize } from "./index.js";

describe("lexer", () => {
  it("splits operators, identifiers, numbers and quoted field names", () => {
    const kinds = tokenize("a.`b-c` >= 0x1fu && !.5e1 // comment\n").map((t) => `${t.kind}:${t.text}`);
    expect(kinds).toEqual(["ident:a", "op:.", "quotedIdent:b-c", "op:>=", "uint:0x1fu", "op:&&", "op:!", "double:.5e1", "eof:<EOF>"]);
  });

  it("rejects unterminated strings and bad escapes", () => {
    expect(() => tokenize("'abc")).toThrow(SyntaxError);
    expect(() => tokenize("'a\nb'")).toThrow(SyntaxError);
    expect(() => tokenize("'\\q'")).toThrow(SyntaxError);
    expect(() => tokenize("'\\ud800'")).toThrow(SyntaxError);
  });
});
