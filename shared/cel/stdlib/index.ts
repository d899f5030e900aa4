// The CEL standard library (cel-spec langdef "Standard definitions") with the
// Kubernetes settings: cross-type numeric comparisons, heterogeneous
// equality, UTC as the default time zone. Operators that cel-go binds as one
// implementation per function (arithmetic, comparisons, size, in) raise plain
// "no such overload" on a type mismatch; per-overload functions (conversions,
// string predicates, accessors) raise "no such overload: f(types)".

import { chargeTraversal, costSize, TRAVERSAL_FACTOR, type CallContext, type FunctionDecl, type Impl, type Library, type OverloadDecl, type TypeName } from "../declarations/index.js";
import { patternOverload, type RegexCompiler } from "../regex/index.js";
import { civil, durationOf, formatDuration, formatTimestamp, parseDuration, parseTimestamp, timestampOf, type CivilTime } from "../time/index.js";
import {
  asBigInt,
  asDouble,
  codePointLength,
  compare,
  Double,
  doubleOf,
  Duration,
  equals,
  EvalError,
  intOf,
  isIntNumber,
  isList,
  isMap,
  mapGet,
  mapSize,
  noSuchOverload,
  Timestamp,
  typeOf,
  Types,
  Uint,
  uintOf,
  utf8,
  type Value,
} from "../values/index.js";

const TS = "google.protobuf.Timestamp";
const DUR = "google.protobuf.Duration";
const NUMERIC = ["int", "uint", "double"];
const STRING_TRAVERSAL = 0.1;
/** The longest string whose traversal costs nothing beyond its call's 1. */
const TRAVERSAL_FREE = 10;

const global = (params: TypeName[], result?: TypeName, impl?: Impl): OverloadDecl => ({ params, result, impl });
const member = (params: TypeName[], result?: TypeName, impl?: Impl): OverloadDecl => ({ receiver: true, params, result, impl });

const dbl = (v: Value): number => asDouble(v) as number;
const big = (v: Value): bigint => asBigInt(v) as bigint;

/** CEL `+` (exported for libraries that sum values). */
export function add(a: Value, b: Value, ctx: CallContext): Value {
  if (typeof a === "number" && typeof b === "number") {
    const ai = isIntNumber(a);
    if (ai !== isIntNumber(b)) throw noSuchOverload();
    if (!ai) return doubleOf(a + b);
    const r = a + b;
    return Number.isSafeInteger(r) ? r : intOf(BigInt(a) + BigInt(b));
  }
  if (typeof a === "string") {
    if (typeof b !== "string") throw noSuchOverload();
    chargeTraversal(ctx, costSize(a) + costSize(b));
    return a + b;
  }
  const ta = typeOf(a).name;
  const tb = typeOf(b).name;
  if (ta === TS && tb === DUR) return timestampOf((a as Timestamp).ns + (b as Duration).ns, (a as Timestamp).offsetSeconds);
  if (ta === DUR && tb === TS) return timestampOf((a as Duration).ns + (b as Timestamp).ns, (b as Timestamp).offsetSeconds);
  if (ta !== tb) throw noSuchOverload();
  switch (ta) {
    case "int":
      return intOf(big(a) + big(b));
    case "uint":
      return uintOf((a as Uint).v + (b as Uint).v);
    case "double":
      return doubleOf(dbl(a) + dbl(b));
    case "list": {
      const x = a as readonly Value[];
      const y = b as readonly Value[];
      // Never below cel-go's 1 for AddList (runtimecost.go costCall's default), even for two empty lists.
      chargeTraversal(ctx, Math.max(1, x.length + y.length));
      // concat, not [...x, ...y]: the engine copies the elements in bulk, five times as fast on 200,000 of them.
      return x.length === 0 ? y : y.length === 0 ? x : x.concat(y);
    }
    case "bytes": {
      const x = a as Uint8Array;
      const y = b as Uint8Array;
      chargeTraversal(ctx, x.length + y.length);
      const out = new Uint8Array(x.length + y.length);
      out.set(x);
      out.set(y, x.length);
      return out;
    }
    case DUR:
      return durationOf((a as Duration).ns + (b as Duration).ns);
  }
  throw noSuchOverload();
}

function subtract(a: Value, b: Value): Value {
  if (typeof a === "number" && typeof b === "number") {
    const ai = isIntNumber(a);
    if (ai !== isIntNumber(b)) throw noSuchOverload();
    if (!ai) return doubleOf(a - b);
    const r = a - b;
    return Number.isSafeInteger(r) ? r : intOf(BigInt(a) - BigInt(b));
  }
  const ta = typeOf(a).name;
  const tb = typeOf(b).name;
  if (ta === TS && tb === DUR) return timestampOf((a as Timestamp).ns - (b as Duration).ns, (a as Timestamp).offsetSeconds);
  if (ta === TS && tb === TS) return durationOf((a as Timestamp).ns - (b as Timestamp).ns);
  if (ta !== tb) throw noSuchOverload();
  switch (ta) {
    case "int":
      return intOf(big(a) - big(b));
    case "uint":
      return uintOf((a as Uint).v - (b as Uint).v);
    case "double":
      return doubleOf(dbl(a) - dbl(b));
    case DUR:
      return durationOf((a as Duration).ns - (b as Duration).ns);
  }
  throw noSuchOverload();
}

type Arith = (x: bigint, y: bigint) => bigint;

/** *, / and % on ints, uints and (except %) doubles. */
function arithmetic(op: "*" | "/" | "%"): (a: Value, b: Value) => Value {
  const onInts: Arith = op === "*" ? (x, y) => x * y : op === "/" ? (x, y) => x / y : (x, y) => x % y;
  const zero = op === "%" ? "modulus by zero" : "division by zero";
  return (a, b) => {
    const ta = typeOf(a).name;
    if (ta !== typeOf(b).name) throw noSuchOverload();
    switch (ta) {
      case "int": {
        const y = big(b);
        if (op !== "*" && y === 0n) throw new EvalError(zero);
        const x = big(a);
        // Go's MinInt64 / -1 and MinInt64 % -1 overflow.
        if (op !== "*" && y === -1n && x === -(1n << 63n)) throw new EvalError("integer overflow");
        return intOf(onInts(x, y));
      }
      case "uint": {
        const y = (b as Uint).v;
        if (op !== "*" && y === 0n) throw new EvalError(zero);
        return uintOf(onInts((a as Uint).v, y));
      }
      case "double":
        if (op === "%") break;
        return doubleOf(op === "*" ? dbl(a) * dbl(b) : dbl(a) / dbl(b));
    }
    throw noSuchOverload();
  };
}

function negate(a: Value): Value {
  const t = typeOf(a).name;
  if (t === "int") return intOf(-big(a));
  if (t === "double") return doubleOf(-dbl(a));
  throw noSuchOverload();
}

function contains(container: Value, elem: Value, ctx: CallContext): boolean {
  if (isList(container)) {
    // cel-go charges list membership by the list's size, in place of the call's 1.
    ctx.charge(Math.max(0, container.length - 1));
    for (const x of container) if (equals(x, elem)) return true;
    return false;
  }
  if (isMap(container)) return mapGet(container, elem) !== undefined;
  throw noSuchOverload();
}

function size(v: Value): number {
  if (typeof v === "string") return codePointLength(v);
  if (v instanceof Uint8Array || isList(v)) return v.length;
  if (isMap(v)) return mapSize(v);
  throw noSuchOverload();
}

const pairs = (types: string[]): TypeName[][] => types.map((t) => [t, t]);
const numericPairs = NUMERIC.flatMap((a) => NUMERIC.map((b) => [a, b]));

function operator(name: string, params: TypeName[][], result: TypeName, impl: Impl): FunctionDecl {
  return { name, overloads: params.map((p) => global(p, result)), impl };
}

function comparison(name: string, test: (c: number) => boolean): FunctionDecl {
  const params = [...numericPairs, ...pairs(["string", "bool", "bytes", TS, DUR])];
  return operator(name, params, "bool", ([a, b], ctx) => {
    if (typeof a === "string" && typeof b === "string") chargeTraversal(ctx, Math.min(costSize(a), costSize(b)));
    return test(compare(a as Value, b as Value));
  });
}

function equality(name: string, negated: boolean): FunctionDecl {
  return operator(name, [["dyn", "dyn"]], "bool", ([a, b], ctx) => {
    const x = a as Value;
    const y = b as Value;
    if (typeof x === "string" && typeof y === "string") {
      // Non-empty strings of at most 10 code points cost the call's 1 (0.1 per code point, rounded up); an empty one 0.
      if (x.length === 0 || y.length === 0 || (x.length > TRAVERSAL_FREE && y.length > TRAVERSAL_FREE)) chargeTraversal(ctx, Math.min(codePointLength(x), codePointLength(y)));
      return (x === y) !== negated;
    }
    chargeTraversal(ctx, Math.min(costSize(x), costSize(y)));
    return equals(x, y) !== negated;
  });
}

// ---- conversions ----

const conversionError = (from: string, to: string): EvalError => new EvalError(`type conversion error from '${from}' to '${to}'`);

const GO_INT = /^[+-]?\d+$/;
/** Signs and leading zeros: past them, more digits than an int64 or a uint64 holds (19, 20) is out of range. */
const LEADING_ZEROS = /^[+-]?0*/;
/** Whether a string of digits (with a sign, perhaps) has more than `digits` of them after its leading zeros: BigInt() of a long one takes time quadratic in its length (a 250,000-digit int() took 18 ms). */
const tooLong = (v: string, digits: number): boolean => v.length - (LEADING_ZEROS.exec(v) as RegExpExecArray)[0].length > digits;
const GO_FLOAT = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;
const GO_BOOL: Record<string, boolean> = { "1": true, t: true, T: true, TRUE: true, true: true, True: true, "0": false, f: false, F: false, FALSE: false, false: false, False: false };
const INT64_MIN_D = -9223372036854775808;
const UINT64_BOUND_D = 18446744073709551616;

function toInt(v: Value): Value {
  if (v instanceof Uint) return intOf(v.v);
  const d = asDouble(v);
  if (d !== undefined) {
    // Go's doubleToInt64Checked: NaN, infinities and both int64 bounds are out of range.
    if (!Number.isFinite(d) || d <= INT64_MIN_D || d >= -INT64_MIN_D) throw new EvalError("integer overflow");
    return intOf(BigInt(Math.trunc(d)));
  }
  if (typeof v === "string") {
    if (!GO_INT.test(v) || tooLong(v, 19)) throw conversionError("string", "int");
    try {
      return intOf(BigInt(v));
    } catch {
      throw conversionError("string", "int");
    }
  }
  if (v instanceof Timestamp) return intOf(v.ns / 1_000_000_000n - (v.ns % 1_000_000_000n < 0n ? 1n : 0n));
  return v;
}

function toUint(v: Value): Value {
  const i = asBigInt(v);
  if (i !== undefined) return uintOf(i);
  const d = asDouble(v);
  if (d !== undefined) {
    if (!Number.isFinite(d) || d < 0 || d >= UINT64_BOUND_D) throw new EvalError("unsigned integer overflow");
    return new Uint(BigInt(Math.trunc(d)));
  }
  if (typeof v === "string") {
    if (!/^\d+$/.test(v) || tooLong(v, 20) || BigInt(v) >= 1n << 64n) throw conversionError("string", "uint");
    return new Uint(BigInt(v));
  }
  return v;
}

function toDouble(v: Value): Value {
  const i = asBigInt(v);
  if (i !== undefined) return doubleOf(Number(i));
  if (v instanceof Uint) return doubleOf(Number(v.v));
  if (typeof v === "string") {
    if (!GO_FLOAT.test(v)) throw conversionError("string", "double");
    const lower = v.toLowerCase().replace(/^\+/, "");
    const n = lower.endsWith("inf") || lower.endsWith("infinity") ? (lower.startsWith("-") ? -Infinity : Infinity) : Number(v);
    return doubleOf(n);
  }
  return v;
}

/** Go's fmt %g (cel-go's double to string): shortest digits, exponent form below 1e-4 or from 1e6. */
function formatDouble(d: number): string {
  if (Number.isNaN(d)) return "NaN";
  if (!Number.isFinite(d)) return d > 0 ? "+Inf" : "-Inf";
  if (d === 0) return Object.is(d, -0) ? "-0" : "0";
  const exp = Math.floor(Math.log10(Math.abs(d)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = d.toExponential().split("e") as [string, string];
    const n = Number(e);
    return `${mant}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
  }
  return String(d);
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function toString(v: Value): Value {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return isIntNumber(v) ? BigInt(v).toString() : formatDouble(v);
  if (v instanceof Double) return formatDouble(v.v);
  if (v instanceof Uint) return v.v.toString();
  if (v instanceof Uint8Array) {
    try {
      return decoder.decode(v);
    } catch {
      throw new EvalError("invalid UTF-8 in bytes, cannot convert to string");
    }
  }
  if (v instanceof Timestamp) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  throw conversionError(typeOf(v).name, "string");
}

function toBool(v: Value): Value {
  if (typeof v === "string") {
    const b = GO_BOOL[v];
    if (b === undefined) throw conversionError("string", "bool");
    return b;
  }
  return v;
}

function toTimestamp(v: Value): Value {
  if (typeof v === "string") {
    const t = parseTimestamp(v);
    if (t === undefined) throw conversionError("string", TS);
    return t;
  }
  const i = asBigInt(v);
  if (i !== undefined) return timestampOf(i * 1_000_000_000n);
  return v;
}

function toDuration(v: Value): Value {
  if (typeof v === "string") {
    const d = parseDuration(v);
    if (d === undefined) throw conversionError("string", DUR);
    return d;
  }
  return v;
}

/** A conversion function: per-overload dispatch over the listed source types. */
/**
 * cel-go charges a conversion 1 whatever its input, while converting a string
 * or bytes reads them all (parsing digits, validating UTF-8): 0.1 per element
 * goes to the edge's meter, as a traversal would cost.
 */
function conversion(name: string, result: TypeName, from: TypeName[], impl: (v: Value) => Value): FunctionDecl {
  const call: Impl = ([v], ctx) => {
    if (typeof v === "string" || v instanceof Uint8Array) ctx.chargeEdge(Math.ceil(v.length * TRAVERSAL_FACTOR));
    return impl(v as Value);
  };
  return { name, overloads: from.map((t) => global([t], result, call)) };
}

/** A constant argument is converted at compile time, so an invalid literal is a compile error (cel-go's literal validators). */
function validated(fn: FunctionDecl): FunctionDecl {
  return {
    ...fn,
    overloads: fn.overloads.map((o) =>
      o.params[0] !== "string"
        ? o
        : {
            ...o,
            specialize: ([c]) => {
              if (typeof c !== "string") return undefined;
              try {
                const v = (o.impl as Impl)([c], { charge: () => undefined, chargeEdge: () => undefined });
                return () => v;
              } catch {
                return `invalid ${fn.name} argument`;
              }
            },
          },
    ),
  };
}

// ---- timestamps and durations ----

function accessor(name: string, pick: (c: CivilTime) => number, fromDuration?: (ns: bigint) => bigint): FunctionDecl {
  const overloads = [
    member([TS], "int", ([t]) => pick(civil(t as Timestamp, "UTC"))),
    member([TS, "string"], "int", ([t, z]) => pick(civil(t as Timestamp, z as string))),
  ];
  if (fromDuration) overloads.push(member([DUR], "int", ([d]) => intOf(fromDuration((d as Duration).ns))));
  return { name, overloads };
}

// ---- strings ----

function stringPredicate(name: string, test: (s: string, t: string) => boolean, cost: (s: string, t: string) => number): FunctionDecl {
  return {
    name,
    overloads: [
      member(["string", "string"], "bool", ([s, t], ctx) => {
        ctx.charge(Math.max(0, cost(s as string, t as string) - 1));
        return test(s as string, t as string);
      }),
    ],
  };
}

/** cel-go's string traversal cost: 0.1 per code point. */
const traversal = (s: string): number => Math.ceil(costSize(s) * STRING_TRAVERSAL);

/** matches(): RE2 partial match; an invalid constant pattern is cel-go's regex validator's error. */
function matchesFunction(engine: RegexCompiler): FunctionDecl {
  const overload = (receiver: boolean) =>
    patternOverload(engine, { receiver, params: ["string", "string"], result: "bool", compileError: () => "invalid matches argument", run: (regex, s) => regex.test(s) });
  return { name: "matches", overloads: [overload(true), overload(false)] };
}

const typeName = (v: Value): Value => typeOf(v);

/** The standard library; regular expressions use the given RE2 engine. */
export const standardLibrary = (regex: RegexCompiler): Library => ({
  name: "cel.lib.std",
  types: Object.values(Types),
  functions: [
    operator("_+_", [...pairs(["int", "uint", "double", "string", "bytes", "list", DUR]), [TS, DUR], [DUR, TS]], "dyn", ([a, b], ctx) =>
      add(a as Value, b as Value, ctx),
    ),
    operator("_-_", [...pairs(["int", "uint", "double", DUR, TS]), [TS, DUR]], "dyn", ([a, b]) => subtract(a as Value, b as Value)),
    ...(["*", "/", "%"] as const).map((op) => {
      const impl = arithmetic(op);
      return operator(`_${op}_`, pairs(op === "%" ? ["int", "uint"] : ["int", "uint", "double"]), "dyn", ([a, b]) => impl(a as Value, b as Value));
    }),
    operator("-_", [["int"], ["double"]], "dyn", ([a]) => negate(a as Value)),
    operator("!_", [["bool"]], "bool", ([a]) => {
      if (typeof a !== "boolean") throw noSuchOverload();
      return !a;
    }),
    comparison("_<_", (c) => c < 0),
    comparison("_<=_", (c) => c <= 0),
    comparison("_>_", (c) => c > 0),
    comparison("_>=_", (c) => c >= 0),
    equality("_==_", false),
    equality("_!=_", true),
    operator("@in", [["dyn", "list"], ["dyn", "map"]], "bool", ([e, c], ctx) => contains(c as Value, e as Value, ctx)),
    {
      name: "size",
      overloads: ["string", "bytes", "list", "map"].flatMap((t) => [global([t], "int"), member([t], "int")]),
      impl: ([v]) => size(v as Value),
    },
    stringPredicate("contains", (s, t) => s.includes(t), (s, t) => traversal(s) * traversal(t)),
    stringPredicate("startsWith", (s, t) => s.startsWith(t), (s) => traversal(s)),
    stringPredicate("endsWith", (s, t) => s.endsWith(t), (s) => traversal(s)),
    matchesFunction(regex),
    conversion("int", "int", ["int", "uint", "double", "string", TS], toInt),
    conversion("uint", "uint", ["uint", "int", "double", "string"], toUint),
    conversion("double", "double", ["double", "int", "uint", "string"], toDouble),
    conversion("string", "string", ["string", "int", "uint", "double", "bool", "bytes", TS, DUR], toString),
    conversion("bytes", "bytes", ["bytes", "string"], (v) => (typeof v === "string" ? utf8(v) : v)),
    conversion("bool", "bool", ["bool", "string"], toBool),
    validated(conversion("timestamp", TS, [TS, "string", "int"], toTimestamp)),
    validated(conversion("duration", DUR, [DUR, "string"], toDuration)),
    { name: "dyn", overloads: [global(["dyn"], "dyn", ([v]) => v as Value)] },
    { name: "type", overloads: [global(["dyn"], "type", ([v]) => typeName(v as Value))] },
    accessor("getFullYear", (c) => c.year),
    accessor("getMonth", (c) => c.month - 1),
    accessor("getDayOfYear", (c) => c.dayOfYear),
    accessor("getDayOfMonth", (c) => c.day - 1),
    accessor("getDate", (c) => c.day),
    accessor("getDayOfWeek", (c) => c.weekday),
    accessor("getHours", (c) => c.hour, (ns) => ns / 3_600_000_000_000n),
    accessor("getMinutes", (c) => c.minute, (ns) => ns / 60_000_000_000n),
    accessor("getSeconds", (c) => c.second, (ns) => ns / 1_000_000_000n),
    // A duration's milliseconds are its millisecond component, unlike its hours, minutes and seconds.
    accessor("getMilliseconds", (c) => c.millisecond, (ns) => (ns / 1_000_000n) % 1000n),
  ],
});
