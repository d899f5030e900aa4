import { describe, expect, it } from "vitest";
import { cost, error, literalEngine, run, value } from "../../../test/support/cel/index.js";
import { Double, Types, Uint } from "../values/index.js";

describe("conversions", () => {
  it("converts between the scalar types", () => {
    expect(value("int('-42')")).toBe(-42);
    expect(value("int(3.9)")).toBe(3);
    expect(value("int(-3.9)")).toBe(-3);
    expect(value("uint(42)")).toEqual(new Uint(42n));
    expect(value("double('1e3')")).toEqual(new Double(1000));
    expect(value("double(3)")).toEqual(new Double(3));
    expect(value("string(2.5)")).toBe("2.5");
    expect(value("string(1e21)")).toBe("1e+21");
    expect(value("string(123456789.0)")).toBe("1.23456789e+08");
    expect(value("string(b'\\xc3\\xa9')")).toBe("é");
    expect(value("bytes('é')")).toEqual(Uint8Array.from([0xc3, 0xa9]));
    expect(value("bool('TRUE') && !bool('0')")).toBe(true);
    expect(value("type(dyn(1u))")).toBe(Types.uint);
    expect(value("int(timestamp('2009-02-13T23:31:30Z'))")).toBe(1234567890);
  });

  it("reports cel-go's conversion errors", () => {
    expect(error("int('abc')")).toBe("type conversion error from 'string' to 'int'");
    expect(error("int(9223372036854775807.0)")).toBe("integer overflow");
    expect(error("int(dyn(18446744073709551615u))")).toBe("integer overflow");
    expect(error("uint(-1)")).toBe("unsigned integer overflow");
    expect(error("uint('-1')")).toBe("type conversion error from 'string' to 'uint'");
    expect(error("double('abc')")).toBe("type conversion error from 'string' to 'double'");
    expect(error("bool('yes')")).toBe("type conversion error from 'string' to 'bool'");
    // Go's strconv.ParseInt/ParseUint: leading zeros count for nothing, the 20th significant digit (21st for uint) is out of range.
    const zeros = "0".repeat(250_000);
    expect(value("int(s)", { s: `-${zeros}9223372036854775808` })).toBe(-9223372036854775808n);
    expect(value("int(s)", { s: `+${zeros}42` })).toBe(42);
    expect(error("int(s)", { s: `${zeros}10000000000000000000` })).toBe("type conversion error from 'string' to 'int'");
    expect(error("int(s)", { s: "9".repeat(250_000) })).toBe("type conversion error from 'string' to 'int'");
    expect(value("uint(s)", { s: `${zeros}18446744073709551615` })).toEqual(new Uint(18446744073709551615n));
    expect(error("uint(s)", { s: `${zeros}100000000000000000000` })).toBe("type conversion error from 'string' to 'uint'");
    expect(error("string(b'\\xff')")).toBe("invalid UTF-8 in bytes, cannot convert to string");
    expect(error("int(dyn([]))")).toBe("no such overload: int(list)");
    expect(error("int(true)")).toBe("ERROR: <input>:1:4: found no matching overload for 'int' applied to '(bool)'\n | int(true)\n | ...^");
  });
});

describe("strings, bytes and lists", () => {
  it("sizes count code points", () => {
    expect(value("size('héllo😀')")).toBe(6);
    expect(value("'abc'.size() + size(b'ab') + size([1]) + size({'a': 1})")).toBe(7);
    expect(value("'kube-system'.startsWith('kube-') && 'a.yaml'.endsWith('.yaml') && 'abc'.contains('b')")).toBe(true);
    expect(value("'ab' + 'cd'")).toBe("abcd");
    expect(value("[1] + [2, 3]")).toEqual([1, 2, 3]);
    expect(value("b'a' + b'b'")).toEqual(Uint8Array.from([97, 98]));
    expect(value("'a' < 'b' && b'a' < b'b' && false < true")).toBe(true);
    expect(value("'\\uffff' < '\\U0001F600' && 'ab' < 'abc'")).toBe(true);
    expect(error("dyn('a') < 1")).toBe("no such overload");
    expect(error("dyn(1).contains('a')")).toBe("no such overload: contains(int, string)");
    expect(error("dyn(1).matches('a')", {}, { regex: literalEngine })).toBe("no such overload: matches(int, string)");
  });

  // cel-go interpreter/runtimecost.go:132 (costCall): comparing strings costs ceil(min(size) × 0.1), so 0 when
  // one is empty; :141 concatenation ceil((m + n) × 0.1); AddList falls to the default 1. Each variable read is 1.
  it("charges an empty string's traversal nothing, as cel-go does", () => {
    const strings = { e: "", s: "kubernetes.io", t: "kubernetes.io" };
    expect(cost("e == s", strings)).toBe(2);
    expect(cost("e != s", strings)).toBe(2);
    expect(cost("e < s", strings)).toBe(2);
    expect(cost("s == t", strings)).toBe(4);
    expect(cost("e + e", strings)).toBe(2);
    expect(cost("e + s", strings)).toBe(4);
    expect(cost("x == y", { x: [], y: [1] })).toBe(2);
    expect(cost("x + x", { x: [] })).toBe(3);
  });
});

describe("timestamps and durations", () => {
  it("parses, computes and prints them", () => {
    expect(value("string(timestamp('2023-01-01T10:00:00+02:00'))")).toBe("2023-01-01T10:00:00+02:00");
    expect(value("string(timestamp('2023-01-01T10:00:00+00:00'))")).toBe("2023-01-01T10:00:00Z");
    expect(value("timestamp('2023-01-01T10:00:00+02:00') == timestamp('2023-01-01T08:00:00Z')")).toBe(true);
    expect(value("timestamp('2023-01-01T01:00:00+02:00').getHours()")).toBe(23);
    expect(value("string(timestamp('2023-01-01T00:00:00.120Z') + duration('1h30m'))")).toBe("2023-01-01T01:30:00.12Z");
    expect(value("string(duration('1h1m1.5s'))")).toBe("3661.5s");
    expect(value("string(timestamp('2023-01-02T00:00:00Z') - timestamp('2023-01-01T00:00:00Z'))")).toBe("86400s");
    expect(value("timestamp('2023-01-01T00:00:00Z') < timestamp('2023-01-01T00:00:01Z')")).toBe(true);
    expect(value("duration('-1.5h') < duration('0')")).toBe(true);
    expect(error("timestamp('9999-12-31T23:59:59Z') + duration('1s')")).toBe("timestamp overflow");
    expect(error("duration('2562047h') + duration('1h')")).toBe("duration overflow");
    expect(error("timestamp(dyn('yesterday'))")).toBe("type conversion error from 'string' to 'google.protobuf.Timestamp'");
    expect(error("duration('5 minutes')")).toBe("ERROR: <input>:1:10: invalid duration argument\n | duration('5 minutes')\n | .........^");
  });

  it("reads calendar fields in UTC, fixed offsets and IANA zones", () => {
    const t = "timestamp('2024-02-29T23:30:15.250Z')";
    expect(value(`[${t}.getFullYear(), ${t}.getMonth(), ${t}.getDate(), ${t}.getDayOfMonth(), ${t}.getDayOfYear(), ${t}.getDayOfWeek()]`)).toEqual([
      2024, 1, 29, 28, 59, 4,
    ]);
    expect(value(`[${t}.getHours(), ${t}.getMinutes(), ${t}.getSeconds(), ${t}.getMilliseconds()]`)).toEqual([23, 30, 15, 250]);
    expect(value(`[${t}.getHours('+05:30'), ${t}.getDate('+05:30'), ${t}.getMonth('-01:00')]`)).toEqual([5, 1, 1]);
    expect(value(`[${t}.getHours('Asia/Tokyo'), ${t}.getHours('America/New_York')]`)).toEqual([8, 18]);
    expect(error(`${t}.getHours('Mars/Olympus')`)).toBe("unknown time zone Mars/Olympus");
    expect(value("[duration('90m').getHours(), duration('90m').getMinutes(), duration('1.25s').getMilliseconds()]")).toEqual([1, 90, 250]);
  });
});

describe("matches", () => {
  const regex = literalEngine;

  it("compiles a constant pattern with the expression, a computed one when called", () => {
    expect(value("'kube-system'.matches('system') && matches('abc', 'b')", {}, { regex })).toBe(true);
    expect(value("'abc'.matches(p)", { p: "bc" }, { regex })).toBe(true);
    expect(error("'abc'.matches('(')", {}, { regex })).toBe("ERROR: <input>:1:15: invalid matches argument\n | 'abc'.matches('(')\n | ..............^");
    expect(error("'abc'.matches(p)", { p: "(" }, { regex })).toBe("error parsing regexp: missing closing ): `(`");
  });

  it("charges input length times pattern size, as cel-go does", () => {
    const s = "x".repeat(99);
    // (1 + 99) * 0.1 = 10 for the input, ceil(max(1, 3) * 0.25) = 1 for the pattern, and 1 for the variable
    expect(run("s.matches('y')", { s }, { regex })).toEqual({ value: false });
    expect(run("s.matches('y')", { s }, { regex, costLimit: 10 })).toEqual({ error: "operation cancelled: actual cost limit exceeded" });
    expect(run("s.matches('y')", { s }, { regex, costLimit: 11 })).toEqual({ value: false });
  });

  it("matches with RE2 by default, never JS RegExp", () => {
    // Go's named group syntax and \z, which JS RegExp does not read.
    expect(value("'ab'.matches('(?P<x>a)b\\\\z')")).toBe(true);
  });
});
