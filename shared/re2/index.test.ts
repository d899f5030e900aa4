import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRegex, type Regex } from "./index.js";

function regex(pattern: string): Regex {
  const compiled = compileRegex(pattern);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.regex;
}

describe("matching as Go's regexp", () => {
  it.each([
    // pattern, input, FindString (undefined: no match), FindAllString(-1)
    ["a*", "baaab", "", ["", "aaa", ""]],
    ["a|ab", "ab", "a", ["a"]],
    ["ab|a", "ab", "ab", ["ab"]],
    ["a+?", "aaa", "a", ["a", "a", "a"]],
    ["a{2,3}", "aaaa", "aaa", ["aaa"]],
    ["a{2,}?", "aaaaa", "aa", ["aa", "aa"]],
    ["(?U)a+", "aa", "a", ["a", "a"]],
    ["^abc$", "abc", "abc", ["abc"]],
    ["^b", "a\nb", undefined, []],
    ["(?m)^b$", "a\nb\nc", "b", ["b"]],
    ["\\Aa|b\\z", "ab", "a", ["a", "b"]],
    ["(?i)hello", "HeLLo world", "HeLLo", ["HeLLo"]],
    ["(?i)[a-c]+", "xABCx", "ABC", ["ABC"]],
    ["a(?i:b)c", "aBc aBC", "aBc", ["aBc"]],
    ["\\d+", "x12y345", "12", ["12", "345"]],
    ["[^a-c]+", "abcdef", "def", ["def"]],
    ["[[:alpha:]]+", "12ab3", "ab", ["ab"]],
    ["[[:^digit:]]", "1a", "a", ["a"]],
    ["\\w+", "héllo", "h", ["h", "llo"]],
    ["\\bfoo\\b", "a foo foobar", "foo", ["foo"]],
    ["\\Bo", "foo o", "o", ["o", "o"]],
    ["\\p{Greek}+", "abc αβγ", "αβγ", ["αβγ"]],
    ["\\pL+", "ab1cd", "ab", ["ab", "cd"]],
    ["\\PL+", "ab1cd", "1", ["1"]],
    ["[\\p{Lu}\\d]+", "aB1c", "B1", ["B1"]],
    ["😀+", "x😀😀y", "😀😀", ["😀😀"]],
    [".", "😀", "😀", ["😀"]],
    [".", "\n", undefined, []],
    ["(?s).", "\n", "\n", ["\n"]],
    ["\\Qa.b\\E+", "a.bb", "a.bb", ["a.bb"]],
    ["\\Qa.b", "xa.b", "a.b", ["a.b"]],
    ["[\\d-]+", "1-2", "1-2", ["1-2"]],
    ["\\x{1F600}|\\x41", "A😀", "A", ["A", "😀"]],
    ["\\101\\0", "A\u0000", "A\u0000", ["A\u0000"]],
    ["(?P<name>x)(?<other>y)", "xy", "xy", ["xy"]],
    ["a{,2}", "a{,2}", "a{,2}", ["a{,2}"]],
    ["", "ab", "", ["", "", ""]],
    ["x*", "", "", [""]],
  ] as const)("%s on %j", (pattern, input, first, all) => {
    const r = regex(pattern);
    expect(r.test(input)).toBe(first !== undefined);
    expect(r.find(input)).toBe(first);
    expect(r.findAll(input, -1)).toEqual(all);
  });

  it("findAll stops at its limit", () => {
    expect(regex("\\d").findAll("1234", 2)).toEqual(["1", "2"]);
    expect(regex("\\d").findAll("1234", 0)).toEqual([]);
  });

  it("reads a lone surrogate as U+FFFD, as Go reads invalid UTF-8", () => {
    expect(regex("\\x{FFFD}").find("a\ud800b")).toBe("\ud800");
  });

  it("takes linear time on patterns that make backtracking engines explode", () => {
    const input = `${"a".repeat(20_000)}!`;
    expect(regex("^(a+)+$").test(input)).toBe(false);
    expect(regex("(a*)*b").test(input)).toBe(false);
    expect(regex("(a|a)*!").find(input)).toBe(input);
    expect(regex("(x+x+)+y").test("x".repeat(5_000))).toBe(false);
  });
});

describe("errors as Go's regexp.Compile gives them", () => {
  it.each([
    ["(a", "missing closing ): `(a`"],
    ["a)", "unexpected ): `a)`"],
    ["a**", "invalid nested repetition operator: `**`"],
    ["x{2}{3}", "invalid nested repetition operator: `{2}{3}`"],
    ["*", "missing argument to repetition operator: `*`"],
    ["\\q", "invalid escape sequence: `\\q`"],
    ["\\1", "invalid escape sequence: `\\1`"],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["[a", "missing closing ]: `[a`"],
    ["a{1001}", "invalid repeat count: `{1001}`"],
    ["a{2,1}", "invalid repeat count: `{2,1}`"],
    ["(?=a)", "invalid or unsupported Perl syntax: `(?=`"],
    ["((a{100}){100}){100}", "expression too large"],
  ])("%s", (pattern, error) => {
    expect(compileRegex(pattern)).toEqual({ ok: false, error: `error parsing regexp: ${error}` });
  });

  it("quotes at most 64 characters of the caller's pattern", () => {
    const compiled = compileRegex(`[${"a".repeat(10_000)}`);
    expect(compiled).toEqual({ ok: false, error: `error parsing regexp: missing closing ]: \`[${"a".repeat(63)}…\`` });
  });
});

describe("agrees with JS RegExp where both mean the same", () => {
  // Literals, classes, concatenation, alternation and repetition of what cannot match empty: leftmost-first
  // in both engines (loops over empty-matching bodies are where Perl's backtracking and RE2 part ways).
  const char = fc.constantFrom("a", "b", "c", ".", "[ab]", "[^a]", "\\d", "x");
  const atom = fc.oneof(char, fc.tuple(char, fc.constantFrom("*", "+", "?", "{1,2}", "*?", "+?", "??")).map(([c, op]) => `${c}${op}`));
  const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
    re: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      atom,
      fc.tuple(tie("re"), tie("re")).map(([a, b]) => `${a}${b}`),
      fc.tuple(tie("re"), tie("re")).map(([a, b]) => `(?:${a}|${b})`),
    ),
  })).re;
  const input = fc.string({ unit: fc.constantFrom("a", "b", "c", "1", "x", "\n"), maxLength: 12 });

  it("on test and find", () => {
    fc.assert(
      fc.property(pattern, input, (source, text) => {
        const js = new RegExp(source, "u");
        const ours = regex(source);
        expect(ours.test(text)).toBe(js.test(text));
        expect(ours.find(text)).toBe(js.exec(text)?.[0]);
      }),
      { numRuns: 500 },
    );
  });
});
