import { describe, expect, it } from "vitest";
import { capped, listed, MAX_QUOTED, utf8Length } from "./index.js";

describe("capped", () => {
  it("keeps a short string as it is", () => {
    expect(capped("web-7d4f")).toBe("web-7d4f");
    expect(capped("x".repeat(MAX_QUOTED))).toBe("x".repeat(MAX_QUOTED));
  });

  it("cuts a long string to the limit, ending in an ellipsis", () => {
    const long = capped("a".repeat(2_000_000));
    expect(long).toBe(`${"a".repeat(MAX_QUOTED - 1)}…`);
    expect(capped("abcdef", 4)).toBe("abc…");
  });

  it("never splits a surrogate pair", () => {
    expect(capped(`ab${"😀".repeat(4)}`, 4)).toBe("ab…");
    expect(capped(`a${"😀".repeat(4)}`, 4)).toBe("a😀…");
  });

  it("shows control and line-separator characters as ?, so a message stays one line", () => {
    expect(capped("web\nDeny: all\u2028\u0085")).toBe("web?Deny: all??");
  });
});

describe("listed", () => {
  it("shows a few names, each capped, and counts the rest", () => {
    expect(listed([])).toBe("none");
    expect(listed(["a", "b"])).toBe("a, b");
    expect(listed(["a", "b", "c", "d", "e", "f", "g"])).toBe("a, b, c, d, e and 2 more");
    expect(listed(["y".repeat(100)], { max: 1 })).toBe(`${"y".repeat(MAX_QUOTED - 1)}…`);
    expect(listed(["abcdef", "b"], { max: 1, each: 4, quoted: true })).toBe('"abc…" and 1 more');
  });
});

describe("utf8Length", () => {
  it.each(["", "ascii", "é", "€", "😀", "a😀b€é", "\ud800", "x\udc00y"])("%j: as TextEncoder counts", (text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});
