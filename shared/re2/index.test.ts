import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile } from "./compile.js";
import { LazyDFA } from "./dfa.js";
import { compileRegex, type Regex, RegexWorkExceeded } from "./index.js";
import { parse } from "./parse.js";
import { PikeVM, toText } from "./vm.js";

function re(pattern: string): Regex {
  const result = compileRegex(pattern);
  if (!result.ok) throw new Error(`${pattern}: ${result.error}`);
  return result.regex;
}

function compileError(pattern: string): string | undefined {
  const result = compileRegex(pattern);
  return result.ok ? undefined : result.error;
}

// Go's regexp find_test.go table (pattern, text, FindAllString(text, -1)).
const goFindAll: [string, string, string[]][] = [
  ["", "", [""]],
  ["^abcdefg", "abcdefg", ["abcdefg"]],
  ["a+", "baaab", ["aaa"]],
  ["abcd..", "abcdef", ["abcdef"]],
  ["a", "a", ["a"]],
  ["x", "y", []],
  ["b", "abc", ["b"]],
  [".", "a", ["a"]],
  [".*", "abcdef", ["abcdef"]],
  ["^", "abcde", [""]],
  ["$", "abcde", [""]],
  ["^abcd$", "abcd", ["abcd"]],
  ["^bcd'", "abcdef", []],
  ["^abcd$", "abcde", []],
  ["a*", "baaab", ["", "aaa", ""]],
  ["[a-z]+", "abcd", ["abcd"]],
  ["[^a-z]+", "ab1234cd", ["1234"]],
  ["[a\\-\\]z]+", "az]-bcz", ["az]-", "z"]],
  ["[^\\n]+", "abcd\n", ["abcd"]],
  ["[日本語]+", "日本語日本語", ["日本語日本語"]],
  ["日本語+", "日本語", ["日本語"]],
  ["日本語+", "日本語語語語", ["日本語語語語"]],
  ["()", "", [""]],
  ["(a)", "a", ["a"]],
  ["(.*)", "abcd", ["abcd"]],
  ["(([^xyz]*)(d))", "abcd", ["abcd"]],
  ["((a|b|c)*(d))", "abcd", ["abcd"]],
  ["\\a\\f\\n\\r\\t\\v", "\x07\f\n\r\t\v", ["\x07\f\n\r\t\v"]],
  ["[\\a\\f\\n\\r\\t\\v]+", "\x07\f\n\r\t\v", ["\x07\f\n\r\t\v"]],
  ["a*(|(b))c*", "aacc", ["aacc"]],
  ["(.*).*", "ab", ["ab"]],
  ["[.]", ".", ["."]],
  ["/$", "/abc/", ["/"]],
  ["/$", "/abc", []],
  [".", "abc", ["a", "b", "c"]],
  [".(.)", "abcd", ["ab", "cd"]],
  ["ab*", "abbaab", ["abb", "a", "ab"]],
  ["a(b*)", "abbaab", ["abb", "a", "ab"]],
  ["ab$", "cab", ["ab"]],
  ["axxb$", "axxcb", []],
  ["data", "daXY data", ["data"]],
  ["da(.)a$", "daXY data", ["data"]],
  ["zx+", "zzx", ["zx"]],
  ["ab$", "abcab", ["ab"]],
  ["(aa)*$", "a", [""]],
  ["(?:.|(?:.a))", "", []],
  ["(?:A(?:A|a))", "Aa", ["Aa"]],
  ["(?:A|(?:A|a))", "a", ["a"]],
  ["(a){0}", "", [""]],
  ["(?-s)(?:(?:^).)", "\n", []],
  ["(?s)(?:(?:^).)", "\n", ["\n"]],
  ["(?:(?:^).)", "\n", []],
  ["\\b", "x", ["", ""]],
  ["\\b", "xx", ["", ""]],
  ["\\b", "x y", ["", "", "", ""]],
  ["\\b", "xx yy", ["", "", "", ""]],
  ["\\B", "x", []],
  ["\\B", "xx", [""]],
  ["\\B", "x y", []],
  ["\\B", "xx yy", ["", ""]],
  ["(|a)*", "aa", ["", "", ""]],
  ["[^\\S\\s]", "abcd", []],
  ["[^\\S[:space:]]", "abcd", []],
  ["[^\\D\\d]", "abcd", []],
  ["[^\\D[:digit:]]", "abcd", []],
  ["(?i)\\W", "x", []],
  ["(?i)\\W", "k", []],
  ["(?i)\\W", "s", []],
  ["[a-c]*", "\u65e5", ["", ""]],
  ["[^\u65e5]", "abc\u65e5def", ["a", "b", "c", "d", "e", "f"]],
  [
    "\\!\\\"\\#\\$\\%\\&\\'\\(\\)\\*\\+\\,\\-\\.\\/\\:\\;\\<\\=\\>\\?\\@\\[\\\\\\]\\^\\_\\{\\|\\}\\~",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_{|}~",
    ["!\"#$%&'()*+,-./:;<=>?@[\\]^_{|}~"],
  ],
  ["\\`", "`", ["`"]],
];

describe("Go's find table", () => {
  it.each(goFindAll)("%j on %j", (pattern, text, all) => {
    const regex = re(pattern);
    expect(regex.findAll(text, -1)).toEqual(all);
    expect(regex.find(text)).toBe(all[0]);
    expect(regex.test(text)).toBe(all.length > 0);
  });
});

describe("findAll", () => {
  it("stops at the limit, and a limit of 0 finds nothing (Go's FindAllString examples)", () => {
    const regex = re("a.");
    expect(regex.findAll("paranormal", -1)).toEqual(["ar", "an", "al"]);
    expect(regex.findAll("paranormal", 2)).toEqual(["ar", "an"]);
    expect(regex.findAll("paranormal", 0)).toEqual([]);
    expect(regex.findAll("graal", -1)).toEqual(["aa"]);
    expect(regex.findAll("none", -1)).toEqual([]);
  });

  it("drops an empty match adjacent to the previous match but keeps one after a skipped character", () => {
    expect(re("a*").findAll("baaab", -1)).toEqual(["", "aaa", ""]);
    expect(re("a*?").findAll("ab", -1)).toEqual(["", "", ""]);
    expect(re("x*").findAll("😀😀", -1)).toEqual(["", "", ""]);
  });
});

describe("errors", () => {
  const cases: [string, string][] = [
    ["(a", "missing closing ): `(a`"],
    ["a**", "invalid nested repetition operator: `**`"],
    ["a*+", "invalid nested repetition operator: `*+`"],
    ["a*??", "invalid nested repetition operator: `*??`"],
    ["x{2}{3}", "invalid nested repetition operator: `{2}{3}`"],
    ["\\q", "invalid escape sequence: `\\q`"],
    ["\\1", "invalid escape sequence: `\\1`"],
    ["\\C", "invalid escape sequence: `\\C`"],
    ["\\Z", "invalid escape sequence: `\\Z`"],
    ["[\\b]", "invalid escape sequence: `\\b`"],
    ["\\x{110000}", "invalid escape sequence: `\\x{110000`"],
    ["\\x{}", "invalid escape sequence: `\\x{}`"],
    ["\\xZ1", "invalid escape sequence: `\\xZ1`"],
    ["\\é", "invalid escape sequence: `\\é`"],
    ["*", "missing argument to repetition operator: `*`"],
    ["(?i)+", "missing argument to repetition operator: `+`"],
    ["a|*", "missing argument to repetition operator: `*`"],
    ["(*?)", "missing argument to repetition operator: `*?`"],
    ["{2}", "missing argument to repetition operator: `{2}`"],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["[[:foo:]]", "invalid character class range: `[:foo:]`"],
    ["\\pX", "invalid character class range: `\\pX`"],
    ["\\p{Klingon}", "invalid character class range: `\\p{Klingon}`"],
    ["\\p{L", "invalid character class range: `\\p{L`"],
    ["a{1001}", "invalid repeat count: `{1001}`"],
    ["a{2,1}", "invalid repeat count: `{2,1}`"],
    ["a{100000000}", "invalid repeat count: `{100000000}`"],
    ["(a{500}){3}", "invalid repeat count: `{3}`"],
    ["(?<", "invalid or unsupported Perl syntax: `(?<`"],
    ["(?=a)", "invalid or unsupported Perl syntax: `(?=`"],
    ["(?!a)", "invalid or unsupported Perl syntax: `(?!`"],
    ["(?P=n)", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?-)", "invalid or unsupported Perl syntax: `(?-)`"],
    ["(?i", "invalid or unsupported Perl syntax: `(?i`"],
    ["(?<=a)b", "invalid named capture: `(?<=a)b`"],
    ["(?P<>a)", "invalid named capture: `(?P<>`"],
    ["(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"],
    ["a)", "unexpected ): `a)`"],
    ["[a", "missing closing ]: `[a`"],
    ["x[a-z", "missing closing ]: `[a-z`"],
    ["abc\\", "trailing backslash at end of expression: ``"],
  ];
  it.each(cases)("%j", (pattern, message) => {
    expect(compileError(pattern)).toBe(`error parsing regexp: ${message}`);
  });

  it("caps the quoted pattern at 64 characters", () => {
    const error = compileError("(" + "a".repeat(10_000));
    expect(error).toBe(`error parsing regexp: missing closing ): \`(${"a".repeat(63)}…\``);
  });

  it("refuses deep nesting, including repetitions chained through flag groups", () => {
    expect(compileError("(".repeat(1001) + "a" + ")".repeat(1001))).toMatch(/^error parsing regexp: expression nests too deeply: /);
    expect(compileError("a" + "*(?i)".repeat(1001))).toMatch(/^error parsing regexp: expression nests too deeply: /);
    expect(compileRegex("(".repeat(500) + "a" + ")".repeat(500)).ok).toBe(true);
  });

  it("refuses huge repetitions without expanding them", () => {
    expect(compileError("(((a{100}){100}){100})")).toBe("error parsing regexp: invalid repeat count: `{100}`");
    expect(compileError("(?:a{1000}){101}")).toBe("error parsing regexp: invalid repeat count: `{101}`");
    const tooLarge = compileError("[a-z]{1000}".repeat(101));
    expect(tooLarge).toMatch(/^error parsing regexp: expression too large: `\[a-z\]\{1000\}.*…`$/);
    expect(re("[a-z]{1000}".repeat(99)).programSize).toBe(99_001);
  });

  it("accepts what Go accepts", () => {
    for (const pattern of ["a{,5}", "a{1", "x{01}", "(?P<name>a)(?<other>b)", "(?i)(?-i:a)", "^*", "\\b+", "[]a]", "[^]a]", "[a-]", "\\Q*+?", "\\_", "(?U)", "a*(?i)*"]) {
      expect(compileError(pattern)).toBeUndefined();
    }
  });
});

describe("matching", () => {
  it("prefers the leftmost alternative, not the longest", () => {
    expect(re("a|ab").find("ab")).toBe("a");
    expect(re("ab|a").find("ab")).toBe("ab");
    expect(re("(a|ab)(c|bcd)").find("abcd")).toBe("abcd");
    expect(re("b|ab").find("xab")).toBe("ab");
  });

  it("takes as little as possible with lazy quantifiers and (?U)", () => {
    expect(re("a+?").find("aaa")).toBe("a");
    expect(re("a*?").find("aaa")).toBe("");
    expect(re("a{2,3}?").find("aaaa")).toBe("aa");
    expect(re("a??b").find("ab")).toBe("ab");
    expect(re("(?U)a+").find("aaa")).toBe("a");
    expect(re("(?U)a+?").find("aaa")).toBe("aaa");
    expect(re("<.+?>").findAll("<a><b>", -1)).toEqual(["<a>", "<b>"]);
  });

  it("counts repetitions", () => {
    expect(re("^a{3}$").test("aaa")).toBe(true);
    expect(re("^a{3}$").test("aaaa")).toBe(false);
    expect(re("a{2,}").find("aaaaa")).toBe("aaaaa");
    expect(re("a{0}b").find("ab")).toBe("b");
    expect(re("a{1,2}").findAll("aaaaa", -1)).toEqual(["aa", "aa", "a"]);
    expect(re("x{").find("x{")).toBe("x{");
  });

  it("anchors at text boundaries, or at lines with (?m)", () => {
    expect(re("^b").test("a\nb")).toBe(false);
    expect(re("(?m)^b").find("a\nb")).toBe("b");
    expect(re("a$").test("a\n")).toBe(false);
    expect(re("(?m)a$").find("a\nb")).toBe("a");
    expect(re("(?m)^").findAll("a\nb\n", -1)).toEqual(["", "", ""]);
    expect(re("\\Aa").findAll("aa", -1)).toEqual(["a"]);
    expect(re("(?m)a\\z").test("a\n")).toBe(false);
    expect(re("\\bfoo\\b").test("a foo.")).toBe(true);
    expect(re("\\bfoo\\b").test("afoo")).toBe(false);
    expect(re("\\bé").test("é")).toBe(false);
  });

  it("applies flags for the rest of the group, or inside (?flags:…)", () => {
    expect(re("(?i)HeLLo").test("hello")).toBe(true);
    expect(re("(?i:a)b").test("Ab")).toBe(true);
    expect(re("(?i:a)b").test("AB")).toBe(false);
    expect(re("(a(?i)b)c").test("aBc")).toBe(true);
    expect(re("(a(?i)b)c").test("aBC")).toBe(false);
    expect(re("(?i)a(?-i)b").test("Ab")).toBe(true);
    expect(re("(?i)a(?-i)b").test("AB")).toBe(false);
    expect(re(".").test("\n")).toBe(false);
    expect(re("(?s).").test("\n")).toBe(true);
    expect(re("[^a]").test("\n")).toBe(true);
  });

  it("folds case by Unicode simple folding", () => {
    expect(re("(?i)k").findAll("kK\u212a", -1)).toEqual(["k", "K", "\u212a"]);
    expect(re("(?i)s").test("\u017f")).toBe(true);
    expect(re("(?i)σ+").find("Σσς")).toBe("Σσς");
    expect(re("(?i)[a-z]+").find("HeLLo")).toBe("HeLLo");
    expect(re("(?i)[^a-z]").test("Q")).toBe(false);
    expect(re("(?i)\\p{Lu}").test("a")).toBe(true);
    expect(re("\\p{Lu}").test("a")).toBe(false);
    expect(re("(?i)i").test("\u0130")).toBe(false);
    expect(re("(?i)\\w").test("\u212a")).toBe(true);
  });

  it("knows ASCII Perl and POSIX classes", () => {
    expect(re("\\d+").find("x١٢3")).toBe("3");
    expect(re("\\w+").find("héllo")).toBe("h");
    expect(re("\\s+").find("a \t\n\f\rb")).toBe(" \t\n\f\r");
    expect(re("\\s").test("\v")).toBe(false);
    expect(re("[[:alpha:]]+").find("1ab2")).toBe("ab");
    expect(re("[[:^digit:]]+").find("12ab3")).toBe("ab");
    expect(re("[[:punct:]]+").find("a!-/b")).toBe("!-/");
    expect(re("[\\d\\-x]+").find("a1-x2b")).toBe("1-x2");
    expect(re("\\D\\S\\W").find("1 a!  b-")).toBe(" a!");
  });

  it("knows Unicode categories and scripts", () => {
    expect(re("\\pN+").find("x١٢3")).toBe("١٢3");
    expect(re("\\p{Greek}+").find("abcαβγ")).toBe("αβγ");
    expect(re("\\p{greek}+").find("abcαβγ")).toBe("αβγ");
    expect(re("\\PL+").find("ab12")).toBe("12");
    expect(re("\\p{^L}+").find("ab12")).toBe("12");
    expect(re("\\P{^L}+").find("12ab")).toBe("ab");
    expect(re("[\\p{Lu}\\d]+").find("abC1Dx")).toBe("C1D");
    expect(re("\\p{Letter}+").find("1ab")).toBe("ab");
    expect(re("\\pC").test("\u0378")).toBe(false);
    expect(re("\\p{Cn}").test("\u0378")).toBe(true);
    expect(re("\\p{Any}+").find("a\n😀")).toBe("a\n😀");
    expect(re("\\p{Han}+").find("x日本語")).toBe("日本語");
  });

  it("reads escapes", () => {
    expect(re("\\x41\\x{1F600}\\101\\0").test("A😀A\0")).toBe(true);
    expect(re("\\123").test("S")).toBe(true);
    expect(re("\\Q.*\\E+").find("..**")).toBe(".**");
    expect(re("\\Q.*").test("ab")).toBe(false);
    expect(re("[\\x{1F600}-\\x{1F64F}]+").find("a😀😎🚀b")).toBe("😀😎");
  });

  it("matches code points, reading a lone surrogate as U+FFFD", () => {
    expect(re("^.$").test("😀")).toBe(true);
    expect(re("^..$").test("😀")).toBe(false);
    expect(re("a.b").find("xa\ud800b")).toBe("a\ud800b");
    expect(re("\\x{FFFD}").find("\udc00")).toBe("\udc00");
    expect(re("[😀-😂]").findAll("😀😁😃", -1)).toEqual(["😀", "😁"]);
    expect(re("(?i)é").test("É")).toBe(true);
  });

  it("finishes hostile patterns in linear time", () => {
    const input = "a".repeat(20_000);
    expect(re("(a*)*b").test(input)).toBe(false);
    expect(re("(a|a)*b").test(input)).toBe(false);
    expect(re("(a+)+$").find(input)).toBe(input);
    expect(re("(x+x+)+y").test("x".repeat(20_000))).toBe(false);
    expect(re("(?:a?){30}a{30}").test("a".repeat(30))).toBe(true);
  });

  it("compiles long patterns and classes, and many copies of a Unicode class, without crawling", () => {
    expect(compileError("a".repeat(300_000))).toMatch(/^error parsing regexp: expression too large: `a{64}…`$/);
    expect(re("[" + "ab".repeat(150_000) + "]").test("b")).toBe(true);
    expect(re("(?i)(?:[a-z]|\\pL){500}x").test("é".repeat(20_000))).toBe(false);
  });

  it("reports its program size and source", () => {
    const regex = re("ab");
    expect(regex.programSize).toBe(3);
    expect(regex.source).toBe("ab");
    expect(re("a*").programSize).toBe(4);
  });
});

// Patterns on which JS's backtracking and RE2 agree: a small alphabet,
// concatenation, alternation, classes, ^ $ \b, and greedy or lazy * + ? over
// bodies that cannot match empty (JS and Go differ on empty iterations such
// as (|a)*).
type Generated = { source: string; nullable: boolean };

const generatedPattern: fc.Arbitrary<string> = fc
  .letrec<{ expr: Generated }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom<Generated>(
        { source: "a", nullable: false },
        { source: "b", nullable: false },
        { source: "c", nullable: false },
        { source: "[ab]", nullable: false },
        { source: "[^a]", nullable: false },
        { source: "[a-c]", nullable: false },
        { source: ".", nullable: false },
        { source: "^", nullable: true },
        { source: "$", nullable: true },
        { source: "\\b", nullable: true },
      ),
      fc.tuple(tie("expr"), tie("expr")).map(([x, y]) => ({ source: x.source + y.source, nullable: x.nullable && y.nullable })),
      fc.tuple(tie("expr"), tie("expr")).map(([x, y]) => ({ source: `(?:${x.source}|${y.source})`, nullable: x.nullable || y.nullable })),
      fc
        .tuple(tie("expr"), fc.constantFrom("*", "+", "?", "*?", "+?", "??"))
        .filter(([x]) => !x.nullable)
        .map(([x, op]) => ({ source: `(?:${x.source})${op}`, nullable: op[0] !== "+" })),
    ),
  }))
  .expr.map((g) => g.source);

describe("agreement with JS RegExp where the two agree by design", () => {
  it("test and find give the same answers", () => {
    fc.assert(
      fc.property(generatedPattern, fc.string({ unit: fc.constantFrom("a", "b", "c", "d", "\n") }), (pattern, text) => {
        const ours = re(pattern);
        const js = new RegExp(pattern, "u");
        expect(ours.test(text)).toBe(js.test(text));
        expect(ours.find(text)).toBe(js.exec(text)?.[0]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("literal patterns", () => {
  // A capture group keeps the same pattern on the VM, so the two must agree.
  const literal = fc.tuple(fc.boolean(), fc.stringMatching(/^[abé😀]{1,3}$/), fc.boolean()).map(([start, text, end]) => `${start ? "^" : ""}${text}${end ? "$" : ""}`);
  it("match as the VM matches them, anchored or not", () => {
    fc.assert(
      fc.property(literal, fc.stringMatching(/^[abé😀\ud800]{0,8}$/), fc.integer({ min: -1, max: 3 }), (pattern, input, limit) => {
        const viaVm = re(pattern.replace(/^(\^?)(.*?)(\$?)$/u, "$1($2)$3"));
        const fast = re(pattern);
        expect([fast.test(input), fast.find(input), fast.findAll(input, limit)]).toEqual([viaVm.test(input), viaVm.find(input), viaVm.findAll(input, limit)]);
        expect(fast.programSize).toBeGreaterThan(0);
      }),
    );
  });
});

/**
 * The Pike VM alone (vm.ts), as matching was before the lazy DFA: the
 * reference the DFA must agree with. findAll is Go's FindAllString loop
 * (regexp.go allMatches), as index.ts has it.
 */
function pikeVm(pattern: string) {
  const vm = new PikeVM(compile(parse(pattern)));
  const all = (s: string, limit: number): string[] => {
    const text = toText(s);
    const length = text.codePoints.length;
    const found: string[] = [];
    let previousEnd = -1;
    for (let pos = 0; (limit < 0 || found.length < limit) && pos <= length; ) {
      const match = vm.search(text, pos, false);
      if (match === undefined) break;
      const [start, end] = match;
      const accept = !(end === pos && start === previousEnd);
      pos = end === pos ? pos + 1 : end;
      previousEnd = end;
      if (accept) found.push(s.slice(text.offsets[start], text.offsets[end]));
    }
    return found;
  };
  return { test: (s: string) => vm.search(toText(s), 0, true) !== undefined, findAll: all, find: (s: string) => all(s, 1)[0] };
}

// Patterns of everything the DFA treats apart: assertions it decides late ($ \z \b \B, (?m)), empty loops, lazy and counted repetitions, folding, non-ASCII classes.
const vmPattern: fc.Arbitrary<string> = fc
  .letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom("a", "b", "é", "[ab]", "[^a]", "\\pL", "\\d", ".", "(?s:.)", "(?i:a)", "^", "$", "\\A", "\\z", "\\b", "\\B", "(?m:^)", "(?m:$)", ""),
      fc.tuple(tie("expr"), tie("expr")).map(([x, y]) => x + y),
      fc.tuple(tie("expr"), tie("expr")).map(([x, y]) => `(${x}|${y})`),
      fc.tuple(tie("expr"), fc.constantFrom("*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{0,2}?")).map(([x, op]) => `(?:${x})${op}`),
    ),
  }))
  .expr;

describe("the lazy DFA against the Pike VM", () => {
  it("test, find and findAll agree on every pattern and text", () => {
    fc.assert(
      fc.property(vmPattern, fc.string({ unit: fc.constantFrom("a", "b", "é", "1", " ", "\n", "😀"), maxLength: 12 }), fc.integer({ min: -1, max: 3 }), (pattern, text, limit) => {
        const ours = re(pattern);
        const reference = pikeVm(pattern);
        expect([ours.test(text), ours.find(text), ours.findAll(text, limit)]).toEqual([reference.test(text), reference.find(text), reference.findAll(text, limit)]);
      }),
      { numRuns: 3000 },
    );
  });

  it("finds every match of a one-code-point pattern (a class, a literal, a group or an alternation of them) as the VM does", () => {
    // index.ts's everyCodePoint: no search per match. Texts with lone surrogates, read as U+FFFD by both.
    const one: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
      expr: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom("a", "é", "😀", "\\x{FFFD}", "(?i:k)", "(?i:é)", "[ab]", "[^a]", "\\pL", "\\PL", "\\d", "\\W", ".", "(?s:.)", "[\\x{D800}-\\x{10FFFF}]"),
        tie("expr").map((x) => `(${x})`),
        tie("expr").map((x) => `(?:${x}){1}`),
        fc.tuple(tie("expr"), tie("expr")).map(([x, y]) => `${x}|${y}`),
      ),
    })).expr;
    fc.assert(
      fc.property(one, fc.string({ unit: fc.constantFrom("a", "b", "K", "\u212a", "é", "É", "1", "\n", "😀", "\ud800", "\udc00", "\ufffd"), maxLength: 12 }), fc.integer({ min: -1, max: 3 }), (pattern, text, limit) => {
        const ours = re(pattern);
        const reference = pikeVm(pattern);
        expect([ours.test(text), ours.find(text), ours.findAll(text, limit)]).toEqual([reference.test(text), reference.find(text), reference.findAll(text, limit)]);
      }),
      { numRuns: 3000 },
    );
    expect(re("(?i:[a-c])|\\d").findAll("xAb1é😀C", -1)).toEqual(["A", "b", "1", "C"]);
    expect(re(".").findAll("a\ud800😀\n", -1)).toEqual(["a", "\ud800", "😀"]);
  });

  const vmText = fc.string({ unit: fc.constantFrom("a", "b", "é", "1", " ", "\n", "😀", "\ud800"), maxLength: 12 });

  /** Searches `input` with the DFA and the VM from every position, as findAll does; expects the same end, and hands over the DFA's matchStart and the VM's match. */
  function searchEverywhere(pattern: string, input: string, each: (matchStart: number, match: [number, number] | undefined, offsets: ArrayLike<number>) => void) {
    const program = compile(parse(pattern));
    const dfa = new LazyDFA(program, true, false);
    const vm = new PikeVM(program);
    const text = toText(input);
    for (let i = 0; i <= text.codePoints.length; i++) {
      const end = dfa.forward(input, text.offsets[i]!, false);
      const match = vm.search(text, i, false);
      expect(end).toBe(match === undefined ? -1 : text.offsets[match[1]]);
      each(dfa.matchStart, match, text.offsets);
    }
  }

  it("knows where a match starts from its forward search's threads whenever it says so, where the VM's threads start", () => {
    // LazyDFA.forward's matchStart: the start the reversed program would find, without running it. Every position of the text, as findAll searches from them.
    fc.assert(
      fc.property(vmPattern, vmText, (pattern, input) => {
        searchEverywhere(pattern, input, (matchStart, match, offsets) => {
          if (matchStart >= 0) expect(matchStart).toBe(offsets[match![0]]);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it("tells the start of every match whose threads all started at one position", () => {
    // The pattern starts with a "#" that the text has once: the only threads that go on start there (a FRESH move), and none that
    // starts later joins them (a MIXED move), so the forward search always knows the start. Where threads of two starts do go on
    // together, it leaves the start to the reversed program: the next test (aab|ab on aaab).
    fc.assert(
      fc.property(vmPattern, vmText, vmText, (body, before, after) => {
        const marker = before.length;
        searchEverywhere(`#(?:${body})`, `${before}#${after}`, (matchStart, match, offsets) => {
          expect(matchStart).toBe(match === undefined ? -1 : marker);
          if (match !== undefined) expect(offsets[match[0]]).toBe(marker);
        });
      }),
      { numRuns: 1000 },
    );
  });

  it("tells the start of dense matches, and of leftmost-first alternatives whose threads started apart", () => {
    const dfa = (pattern: string) => new LazyDFA(compile(parse(pattern)), true, false);
    const words = dfa("[a-z]+");
    expect([words.forward("ab-cd", 0, false), words.matchStart]).toEqual([2, 0]);
    expect([words.forward("ab-cd", 2, false), words.matchStart]).toEqual([5, 3]);
    // :ab.c: a thread for ':' starts at every position, but none goes on until the match's own ':' is cut.
    const names = dfa(":[\\w][\\w.-]{0,127}");
    expect([names.forward("x:ab.c:d", 0, false), names.matchStart]).toEqual([6, 1]);
    // aab|ab on aaab: threads from 0, 1 and 2 go on together; the reversed program finds 1.
    const mixed = dfa("aab|ab");
    expect([mixed.forward("aaab", 0, false), mixed.matchStart]).toEqual([4, -1]);
    expect(re("aab|ab").find("aaab")).toBe("aab");
    // Empty matches: at the start of the search, and at the end of the text.
    const empty = dfa("a*");
    expect([empty.forward("ba", 0, false), empty.matchStart]).toEqual([0, 0]);
    expect([empty.forward("ba", 2, false), empty.matchStart]).toEqual([2, 2]);
  });

  it("agrees when its state cache fills and it falls back to the VM", () => {
    // (a|b)*a(a|b){11}: a DFA of 4,096 states, more than its cache holds, visited by a pseudo-random text.
    const pattern = "(a|b)*a(a|b){11}c";
    let seed = 7;
    const text = Array.from({ length: 20_000 }, () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 1 ? "a" : "b")).join("") + "a".repeat(12) + "c";
    const ours = re(pattern);
    const reference = pikeVm(pattern);
    expect(ours.test(text)).toBe(true);
    expect(ours.find(text)).toBe(reference.find(text));
    expect(ours.findAll(text, -1)).toEqual(reference.findAll(text, -1));
  });

  it("takes the leftmost-first match, whose start the reversed program finds (RE2 semantics, not leftmost-longest)", () => {
    // re2/testing/search_test.cc and Go's regexp docs: the first alternative that matches wins.
    expect(re("a|ab").find("ab")).toBe("a");
    expect(re("ab|a").find("ab")).toBe("ab");
    // The backtracker's choice: (a) then (bcd), as Go's docs describe for this pattern.
    expect(re("(a|ab)(c|bcd)").find("abcd")).toBe("abcd");
    expect(re("a(b|bc)").find("xabc")).toBe("ab");
    expect(re("x*?y|xxy").find("xxy")).toBe("xxy");
    expect(re("(?:a|ab)c?").findAll("abcabac", -1)).toEqual(["a", "a", "ac"]);
    expect(re("\\bfoo\\b").findAll("foo xfoo foo_ foo", -1)).toEqual(["foo", "foo"]);
    expect(re("(?m)^\\w+$").findAll("one\ntwo three\nfour", -1)).toEqual(["one", "four"]);
    expect(re("a*").findAll("baaab", -1)).toEqual(["", "aaa", ""]);
  });
});

describe("findAll's work", () => {
  it("gives up with RegexWorkExceeded when every match reads far ahead, and not before", () => {
    // a.*b|a on "aaa…": each one-letter match is found only after reading to the end for a b (quadratic, in Go too).
    expect(() => re("a.*b|a").findAll("a".repeat(10_000), -1)).toThrow(new RegexWorkExceeded());
    expect(re("a.*b|a").findAll("a".repeat(50), -1)).toEqual(Array(50).fill("a"));
    // Matches that read no further than themselves: 100,000 of them.
    expect(re("[a-z]").findAll("ab".repeat(50_000), -1)).toHaveLength(100_000);
    expect(re("a.*b|a").findAll(`${"a".repeat(10_000)}b`, -1)).toEqual([`${"a".repeat(10_000)}b`]);
  });
});
