import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../../index.js";
import { error, literalEngine, value } from "../../../../test/support/cel/index.js";
import { compileRegex } from "../../../re2/index.js";
import { regexLibrary } from "./index.js";

const options = { libraries: [regexLibrary] };
const v = (source: string, activation = {}) => value(source, activation, options);
const err = (source: string, activation = {}) => error(source, activation, options);

describe("Kubernetes regex library", () => {
  it("finds the first match, or an empty string", () => {
    expect(v("'abc 123'.find('[0-9]+')")).toBe("123");
    expect(v("'abc 123'.find('xyz')")).toBe("");
    expect(v("s.find(p)", { s: "k8s-v1.29", p: "v[0-9]+\\.[0-9]+" })).toBe("v1.29");
  });

  it("finds all matches, up to a limit when it is not negative", () => {
    expect(v("'123 abc 456'.findAll('[0-9]+')")).toEqual(["123", "456"]);
    expect(v("'123 abc 456'.findAll('[0-9]+', 1)")).toEqual(["123"]);
    expect(v("'123 abc 456'.findAll('[0-9]+', 0)")).toEqual([]);
    expect(v("'123 abc 456'.findAll('[0-9]+', -1)")).toEqual(["123", "456"]);
    expect(v("'123 abc 456'.findAll('xyz')")).toEqual([]);
    expect(v("'a1b2'.findAll('[0-9]', n)", { n: 9007199254740993n })).toEqual(["1", "2"]);
  });

  // Dense shapes take shared/re2's one-pass paths (one code point per match, a literal, a fixed length): the same
  // matches as the DFA's search per match, and the same cost, Kubernetes' library/cost.go:126-136 (find, findAll):
  // ceil((1 + size) × 0.1) × ceil(pattern size × 0.25), charged before the call runs.
  it("finds a match at every position of a long string, charged by the string's size alone", () => {
    const env = createEnv({ variables: ["s"], libraries: [regexLibrary] });
    const run = (source: string, s: string) => {
      const compiled = compile(source, env);
      if (!compiled.ok) throw new Error(compiled.error);
      const result = compiled.program.evaluate({ s });
      if (!result.ok) throw new Error(result.error);
      return { value: result.value, cost: result.cost };
    };
    const words = "abé😀-\n".repeat(40_000);
    // 40,000 × 6 code points + 1 → 24,001 × 1; the call 1 and the variable 1 less the call's own 1.
    const cost = 24_001 + 1;
    expect(run("s.findAll('.')", words)).toEqual({ value: Array.from("abé😀-".repeat(40_000)), cost });
    expect(run("s.findAll('\\\\w')", words)).toEqual({ value: Array.from({ length: 80_000 }, (_, i) => (i % 2 === 0 ? "a" : "b")), cost });
    expect(run("s.findAll('-')", words)).toEqual({ value: Array.from({ length: 40_000 }, () => "-"), cost });
    expect(run("s.findAll('x*')", words)).toEqual({ value: Array.from({ length: 240_001 }, () => ""), cost });
    // A match every two code points, none of whose starts the forward search can tell: found by its length.
    expect(run("s.findAll('..')", words)).toEqual({ value: Array.from({ length: 40_000 }, () => ["ab", "é😀"]).flat(), cost });
    expect(run("s.findAll('.', 3)", words)).toEqual({ value: ["a", "b", "é"], cost });
  });

  it("rejects an invalid constant pattern when compiling, a computed one when running", () => {
    expect(err("'x'.find('(')")).toBe("ERROR: <input>:1:10: error parsing regexp: missing closing ): `(`\n | 'x'.find('(')\n | .........^");
    expect(err("'x'.findAll(p)", { p: "(" })).toBe("Illegal regex: error parsing regexp: missing closing ): `(`");
    expect(err("'x'.find(p)", { p: "(" })).toBe("Illegal regex: error parsing regexp: missing closing ): `(`");
  });

  it("fails findAll whose every match reads to the end (quadratic in Go) with an error of the expression", () => {
    expect(err("s.findAll('a.*b|a')", { s: "a".repeat(10_000) })).toBe("finding every match would read the string more than 8 times over");
    expect(v("s.findAll('a.*b|a').size()", { s: "a".repeat(50) })).toBe(50);
  });

  it("checks argument types", () => {
    expect(err("'x'.find(1)")).toMatch(/^ERROR: <input>:1:9: found no matching overload for 'find' applied to 'string.\(int\)'/);
    expect(err("x.find('a')", { x: 1 })).toBe("no such overload: find(int, string)");
    expect(err("'a'.findAll('a', x)", { x: "1" })).toBe("no such overload: findAll(string, string, string)");
  });

  // k8s.io/apiserver pkg/cel/library/cost.go:126-136: strCost = ceil((1 + size(s)) × 0.1), regexCost =
  // ceil(size(pattern) × 0.25), cost = strCost × regexCost; size is in code points (cel-go's String.Size).
  it("charges (1 + input length) × 0.1 × pattern size × 0.25 as the apiserver does, and compiling a computed pattern", () => {
    const env = createEnv({ variables: ["s", "p"], libraries: [regexLibrary], regex: literalEngine });
    const constant = compile("s.findAll('abcdefgh')", env);
    const computed = compile("s.findAll(p)", env);
    if (!constant.ok || !computed.ok) throw new Error("compile");
    const s = "x".repeat(999);
    // 8 × 0.25 → 2; 1000 × 0.1 → 100; the empty string's 1 × 0.1 → 1.
    expect(constant.program.evaluate({ s }).cost - constant.program.evaluate({ s: "" }).cost).toBe(200 - 2);
    expect(computed.program.evaluate({ s, p: "abcdefgh" }).cost - constant.program.evaluate({ s }).cost).toBe(2 + 1);
    // A computed pattern is compiled once and kept, and charged as compiled on every call all the same.
    expect(computed.program.evaluate({ s, p: "abcdefgh" }).cost - constant.program.evaluate({ s }).cost).toBe(2 + 1);
  });

  it("charges what a program larger than its pattern adds to the edge's meter, never to the cost", () => {
    const env = createEnv({ variables: ["s"], libraries: [regexLibrary] });
    const counted = compile("s.matches('^[a-z]{1,127}$')", env);
    if (!counted.ok) throw new Error("compile");
    const s = "a".repeat(999);
    const meter = { limit: Infinity, spent: 0 };
    // The apiserver's cost: 1 for s, 1 for the call, (1000 × 0.1 → 100) × (16 code points × 0.25 → 4) - 1.
    expect(counted.program.evaluate({ s }, undefined, meter)).toEqual({ ok: true, value: false, cost: 1 + 1 + 400 - 1 });
    // The program's instructions (shared/re2) × 0.25 beyond the pattern's 4, per tenth of the input.
    const program = compileRegex("^[a-z]{1,127}$");
    if (!program.ok) throw new Error("compile");
    expect(meter.spent).toBe(100 * (Math.ceil(program.regex.programSize * 0.25) - 4));
    expect(meter.spent).toBeGreaterThan(100 * 50);
    // Within what the meter has left it takes no part in the verdict; past it, the evaluation stops.
    expect(counted.program.evaluate({ s }, undefined, { limit: 1_000_000, spent: 0 }).ok).toBe(true);
    expect(counted.program.evaluate({ s }, undefined, { limit: 1_000, spent: 0 })).toEqual({ ok: false, error: "edgeadmit: the review's edge cost limit was reached", cost: 401, exhausted: "edge" });
  });
});
