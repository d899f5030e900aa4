// <string>.format(<list>) as cel-go's ext.Strings (the formatter Kubernetes'
// StringsVersion(2) uses): clauses %s %d %f %e %b %o %x %X and %%, with
// precision for %f and %e (default 6).

import { formatDuration, formatTimestamp } from "../time/index.js";
import {
  asBigInt,
  asDouble,
  CelType,
  Duration,
  EvalError,
  isList,
  isMap,
  mapGet,
  mapKeys,
  Timestamp,
  typeOf,
  Uint,
  utf8,
  type Value,
} from "../values/index.js";

const formattingError = (message: string): EvalError => new EvalError(`error during formatting: ${message}`);

/** Non-finite doubles print as cel-go prints them in every clause that takes doubles. */
function special(d: number): string | undefined {
  if (Number.isNaN(d)) return "NaN";
  if (d === Infinity) return "Infinity";
  if (d === -Infinity) return "-Infinity";
  return undefined;
}

/**
 * Rounds the exact decimal expansion of |d| to `prec` fraction digits,
 * ties to even as Go's strconv does (JS toFixed rounds ties away from zero).
 */
function fixed(d: number, prec: number): string {
  const exact = Math.abs(d).toFixed(Math.min(100, prec + 30));
  const point = exact.indexOf(".");
  const keep = exact.slice(0, point + 1 + prec).replace(/\.$/, "");
  const rest = exact.slice(point + 1 + prec);
  const digits = keep.replace(".", "");
  const last = Number(digits.at(-1));
  const roundUp = rest[0] !== undefined && (rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || last % 2 === 1)));
  let s = (BigInt(digits) + (roundUp ? 1n : 0n)).toString().padStart(prec + 1, "0");
  if (prec > 0) s = `${s.slice(0, -prec)}.${s.slice(-prec)}`;
  return (d < 0 || Object.is(d, -0)) && /[1-9]/.test(s) ? `-${s}` : s;
}

function scientific(d: number, prec: number): string {
  const [mant, exp] = d.toExponential(prec).split("e") as [string, string];
  const e = Number(exp);
  return `${mant}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
}

/** Go's FormatFloat(d, 'f', -1): shortest digits, never an exponent. */
function shortestFixed(d: number): string {
  const [mant, exp] = d.toExponential().split("e") as [string, string];
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  const e = Number(exp);
  let s: string;
  if (e < 0) s = `0.${"0".repeat(-e - 1)}${digits}`;
  else if (e + 1 >= digits.length) s = digits + "0".repeat(e + 1 - digits.length);
  else s = `${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
  return neg ? `-${s}` : s;
}

function intText(v: Value, radix: number, clause: string): string {
  const i = asBigInt(v) ?? (v instanceof Uint ? v.v : undefined);
  if (i === undefined) throw formattingError(`${clause}, was given ${typeOf(v).name}`);
  return i.toString(radix);
}

/** %s of any supported value; lists and maps recursively, map entries sorted by key text. */
/** `made` is told how many values a list or map formats (one string each), for the edge's meter. */
function stringText(v: Value, made: (count: number) => void): string {
  if (typeof v === "string") return v;
  if (v === null || typeof v === "boolean" || typeof v === "bigint" || v instanceof Uint) return String(v instanceof Uint ? v.v : v);
  const d = asDouble(v);
  if (d !== undefined) return special(d) ?? shortestFixed(d);
  if (typeof v === "number") return String(BigInt(v));
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof CelType) return v.name;
  if (v instanceof Timestamp) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  if (isList(v)) {
    made(v.length);
    return `[${v.map((x) => stringText(x, made)).join(", ")}]`;
  }
  if (isMap(v)) {
    const keys = mapKeys(v);
    made(keys.length);
    const entries = keys.map((k) => [stringText(k, made), stringText(mapGet(v, k) as Value, made)] as const);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${k}: ${x}`).join(", ")}}`;
  }
  throw formattingError(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeOf(v).name}`,
  );
}

function hexText(v: Value, upper: boolean): string {
  let s: string;
  if (typeof v === "string" || v instanceof Uint8Array) {
    const bytes = typeof v === "string" ? utf8(v) : v;
    s = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  } else {
    s = intText(v, 16, "only integers, byte buffers, and strings can be formatted as hex");
  }
  return upper ? s.toUpperCase() : s;
}

function clause(verb: string, prec: number | undefined, v: Value, made: (count: number) => void): string {
  switch (verb) {
    case "s":
      return stringText(v, made);
    case "d": {
      const d = asDouble(v);
      const sp = d === undefined ? undefined : special(d);
      return sp ?? intText(v, 10, "decimal clause can only be used on integers");
    }
    case "f":
    case "e": {
      const d = asDouble(v);
      if (d === undefined) {
        throw formattingError(`${verb === "f" ? "fixed-point" : "scientific"} clause can only be used on doubles, was given ${typeOf(v).name}`);
      }
      return special(d) ?? (verb === "f" ? fixed(d, prec ?? 6) : scientific(d, prec ?? 6));
    }
    case "b":
      if (typeof v === "boolean") return v ? "1" : "0";
      return intText(v, 2, "only integers and bools can be formatted as binary");
    case "o":
      return intText(v, 8, "octal clause can only be used on integers");
    case "x":
    case "X":
      return hexText(v, verb === "X");
  }
  throw new EvalError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
}

/**
 * Formats; `charge` is told the output length as it grows, so huge outputs
 * stop at the budget, and `made` how many values a list or map clause
 * formats, each a string of its own.
 */
export function format(template: string, args: readonly Value[], charge: (size: number) => void, made: (count: number) => void): string {
  let out = "";
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template.charAt(i);
    if (c !== "%") {
      out += c;
      continue;
    }
    if (template.charAt(i + 1) === "%") {
      out += "%";
      i++;
      continue;
    }
    let prec: number | undefined;
    let j = i + 1;
    if (template.charAt(j) === ".") {
      const m = /^\d+/.exec(template.slice(j + 1));
      if (m === null) throw new EvalError(`could not parse formatting clause: unable to find end of precision specifier`);
      prec = Number(m[0]);
      j += 1 + m[0].length;
    }
    const verb = template.charAt(j);
    if (verb === "") throw new EvalError(`could not parse formatting clause: unexpected end of string`);
    if (!"sdfeboxX".includes(verb)) throw new EvalError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    if (next >= args.length) throw new EvalError(`index ${next} out of range`);
    const text = clause(verb, prec, args[next++] as Value, made);
    charge(text.length);
    out += text;
    i = j;
  }
  return out;
}
