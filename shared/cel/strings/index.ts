// cel-go's ext.Strings at a given version; Kubernetes (1.29+) uses version 2:
// charAt indexOf lastIndexOf lowerAscii upperAscii replace split substring
// trim (v0), format and strings.quote (v1), join (v2). reverse is version 3.
// Indexes count code points, as Go's []rune does; a string's code point
// positions are computed once (values' codePoints), not per call.

import { chargeCallCost, chargeCreated, chargeTraversal, costSize, TRAVERSAL_FACTOR, traversalCost, type CallContext, type FunctionDecl, type Impl, type Library, type OverloadDecl } from "../declarations/index.js";
import { asSmallInt, codePointLength, codePoints, EvalError, isList, SURROGATE, typeOf, type Value } from "../values/index.js";
import { isAscii } from "../../text/index.js";
import { format } from "./format.js";

/** The code points of s as strings; split("") when there is no surrogate (so every unit is one), three times as fast as Array.from. */
const runes = (s: string): string[] => (SURROGATE.test(s) ? Array.from(s) : s.split(""));

const outOfRange = (i: number): EvalError => new EvalError(`index out of range: ${i}`);

function int(v: Value): number {
  const n = asSmallInt(v);
  if (n === undefined) throw new EvalError("no such overload");
  return n;
}

function charAt(s: string, i: number): string {
  const cp = codePoints(s);
  if (i < 0 || i > cp.length) throw outOfRange(i);
  return i === cp.length ? "" : s.slice(cp.offset(i), cp.offset(i + 1));
}

function indexOf(s: string, sub: string, offset: number): number {
  if (sub === "") return offset;
  const cp = codePoints(s);
  if (offset < 0 || offset >= cp.length) throw outOfRange(offset);
  const at = s.indexOf(sub, cp.offset(offset));
  return at < 0 ? -1 : cp.index(at);
}

function lastIndexOf(s: string, sub: string, offset: number | undefined): number {
  const cp = codePoints(s);
  if (sub === "") return offset ?? cp.length;
  const subLength = codePointLength(sub);
  if (offset === undefined && subLength > cp.length) return -1;
  const off = offset ?? cp.length - 1;
  if (off < 0 || off >= cp.length) throw outOfRange(off);
  const last = Math.min(off, cp.length - subLength);
  if (last < 0) return -1;
  const at = s.lastIndexOf(sub, cp.offset(last));
  return at < 0 ? -1 : cp.index(at);
}

/** Code units turned into a string in slices of this many: String.fromCharCode takes them as arguments. */
const CHUNK = 8192;

/** The string of `units[0..length)`, made a slice at a time. */
function fromUnits(units: Uint16Array, length: number): string {
  let out = "";
  for (let i = 0; i < length; i += CHUNK) out += String.fromCharCode.apply(null, units.subarray(i, Math.min(length, i + CHUNK)) as unknown as number[]);
  return out;
}

/**
 * ASCII letters changed, everything else kept; an all-ASCII string (the
 * usual case) converts whole, any other one unit by unit into a buffer:
 * a replace() callback per run of letters cost ~15 ns per character on
 * "Aé" repeated, over the 10 ns its 0.1 unit per character pays for.
 */
function mapAscii(s: string, upper: boolean): string {
  if (isAscii(s)) return upper ? s.toUpperCase() : s.toLowerCase();
  const from = upper ? 0x61 : 0x41;
  const units = new Uint16Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    units[i] = c - from < 26 && c >= from ? c ^ 0x20 : c;
  }
  return fromUnits(units, s.length);
}

/** How far replace's output may outgrow its input before the excess is charged (docs/validating-admission-policies.md). */
const REPLACE_SLACK = 100_000;

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches at every code point boundary. */
function replace(s: string, old: string, repl: string, n: number, ctx: CallContext): string {
  if (n === 0 || old === repl) return s;
  const parts = old === "" ? ["", ...runes(s), ""] : s.split(old);
  let count = parts.length - 1;
  if (n > 0) count = Math.min(count, n);
  // Kubernetes charges two passes over the input whatever the output (cost.go:114). An output that outgrows
  // its input by more than REPLACE_SLACK code units is charged for the excess too, before it is built:
  // 'x'.repeat(n).replace('', y) would otherwise allocate n × size(y) for a cost of n / 5.
  ctx.charge(Math.max(0, Math.ceil((count * (repl.length - old.length) - s.length - REPLACE_SLACK) * 0.1)));
  if (old === "") {
    const r = runes(s);
    let out = "";
    for (let i = 0; i <= r.length; i++) out += (i < count ? repl : "") + (r[i] ?? "");
    return out;
  }
  return parts.slice(0, count + 1).join(repl) + (count + 1 < parts.length ? old + parts.slice(count + 1).join(old) : "");
}

/** Go's strings.SplitN: n == 0 is empty, n < 0 unlimited, an empty separator splits code points. */
function split(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  const all = sep === "" ? runes(s) : s.split(sep);
  if (n < 0 || all.length <= n) return all;
  return [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}

function substring(s: string, start: number, end: number | undefined): string {
  const cp = codePoints(s);
  const e = end ?? cp.length;
  if (start > e) throw new EvalError(`invalid substring range. start: ${start}, end: ${e}`);
  if (start < 0 || start > cp.length) throw outOfRange(start);
  if (e < 0 || e > cp.length) throw outOfRange(e);
  return s.slice(cp.offset(start), cp.offset(e));
}

/**
 * Go's unicode.IsSpace, which TrimSpace uses (JS trim differs: it strips
 * U+FEFF, keeps U+0085). Scanned from each end: a regular expression
 * /^\s+|\s+$/ backtracks over every run of spaces not at the end, which made
 * trim() quadratic ("x" + 250,000 spaces + "x" took 24 s).
 */
function isGoSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

function trim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/** The escapes of cel-go's strings.quote (ext/strings.go quote): the other control characters stay as they are. */
const QUOTE_ESCAPES: Record<number, number> = { 0x07: 0x61, 0x08: 0x62, 0x0c: 0x66, 0x0a: 0x6e, 0x0d: 0x72, 0x09: 0x74, 0x0b: 0x76, 0x5c: 0x5c, 0x22: 0x22 };

/**
 * cel-go's strings.quote: the escapes above, lone surrogates (invalid UTF-8
 * in Go) as U+FFFD, everything else as it is. Written unit by unit into a
 * buffer: a replace() callback per escaped character cost ~40 ns each, four
 * times what its 0.1 unit pays for.
 */
function quote(s: string): string {
  const units = new Uint16Array(2 * s.length + 2);
  let n = 0;
  units[n++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const escape = c < 0x60 ? QUOTE_ESCAPES[c] : undefined;
    if (escape !== undefined) {
      units[n++] = 0x5c;
      units[n++] = escape;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        units[n++] = c;
        units[n++] = d;
        i++;
      } else units[n++] = 0xfffd;
    } else units[n++] = c;
  }
  units[n++] = 0x22;
  return fromUnits(units, n);
}

/** How far join's separators may outgrow its elements before the result is sized before it is built. */
const JOIN_SLACK = 100_000;

function join(list: Value, sep: string, ctx: CallContext): string {
  const l = list as readonly Value[];
  let units = 0;
  for (const x of l) {
    if (typeof x !== "string") throw new EvalError(`join: invalid input: ${String(typeOf(x).name)}`);
    units += x.length;
  }
  // Kubernetes' cost.go:120: two passes over the result. Built first and measured (one count of its code points
  // instead of one per element, which took longer than the join) unless its separators would make it much larger
  // than the elements already in memory: then sized before it is built.
  const separators = l.length > 1 ? (l.length - 1) * sep.length : 0;
  if (separators > units + JOIN_SLACK) {
    let size = (l.length - 1) * costSize(sep);
    for (const x of l as readonly string[]) size += costSize(x);
    chargeTraversal(ctx, size, 2);
    return (l as readonly string[]).join(sep);
  }
  const joined = (l as readonly string[]).join(sep);
  chargeTraversal(ctx, codePointLength(joined), 2);
  return joined;
}

/**
 * A receiver overload on strings charged as Kubernetes' cost estimator does:
 * `passes` traversals of the receiver at 0.1 per code point (0: the call's
 * own unit only).
 */
function method(params: string[], result: string, passes: number, impl: (args: readonly Value[], ctx: CallContext) => Value): OverloadDecl {
  if (passes === 0) return { receiver: true, params, result, impl };
  const charged: Impl = (args, ctx) => {
    chargeTraversal(ctx, costSize(args[0] as string), passes);
    return impl(args, ctx);
  };
  return { receiver: true, params, result, impl: charged };
}

const str = (v: Value | undefined): string => v as string;

/** indexOf and lastIndexOf: Kubernetes' cost.go:106 charges one traversal of the receiver (traversalCost) as the call's cost. */
const searching = (params: string[], impl: (args: readonly Value[]) => Value): OverloadDecl => ({
  receiver: true,
  params,
  result: "int",
  impl: (args, ctx) => {
    chargeCallCost(ctx, traversalCost(args[0] as Value));
    return impl(args);
  },
});

export function stringsLibrary(version = 2): Library {
  const functions: FunctionDecl[] = [
    { name: "charAt", overloads: [method(["string", "int"], "string", 0, ([s, i]) => charAt(str(s), int(i as Value)))] },
    {
      name: "indexOf",
      overloads: [
        searching(["string", "string"], ([s, t]) => indexOf(str(s), str(t), 0)),
        searching(["string", "string", "int"], ([s, t, i]) => indexOf(str(s), str(t), int(i as Value))),
      ],
    },
    {
      name: "lastIndexOf",
      overloads: [
        searching(["string", "string"], ([s, t]) => lastIndexOf(str(s), str(t), undefined)),
        searching(["string", "string", "int"], ([s, t, i]) => lastIndexOf(str(s), str(t), int(i as Value))),
      ],
    },
    { name: "lowerAscii", overloads: [method(["string"], "string", 1, ([s]) => mapAscii(str(s), false))] },
    { name: "upperAscii", overloads: [method(["string"], "string", 1, ([s]) => mapAscii(str(s), true))] },
    {
      name: "replace",
      overloads: [
        method(["string", "string", "string"], "string", 2, ([s, o, r], ctx) => replace(str(s), str(o), str(r), -1, ctx)),
        method(["string", "string", "string", "int"], "string", 2, ([s, o, r, n], ctx) => replace(str(s), str(o), str(r), int(n as Value), ctx)),
      ],
    },
    {
      name: "split",
      overloads: [
        method(["string", "string"], "list", 2, ([s, sep], ctx) => chargeCreated(ctx, split(str(s), str(sep), -1))),
        method(["string", "string", "int"], "list", 2, ([s, sep, n], ctx) => chargeCreated(ctx, split(str(s), str(sep), int(n as Value)))),
      ],
    },
    {
      name: "substring",
      overloads: [
        method(["string", "int"], "string", 1, ([s, i]) => substring(str(s), int(i as Value), undefined)),
        method(["string", "int", "int"], "string", 1, ([s, i, j]) => substring(str(s), int(i as Value), int(j as Value))),
      ],
    },
    { name: "trim", overloads: [method(["string"], "string", 1, ([s]) => trim(str(s)))] },
    {
      name: "join",
      overloads: [
        { receiver: true, params: ["list"], result: "string", impl: ([l], ctx) => join(l as Value, "", ctx) },
        { receiver: true, params: ["list", "string"], result: "string", impl: ([l, sep], ctx) => join(l as Value, str(sep), ctx) },
      ],
    },
  ];
  if (version >= 1) {
    functions.push(
      {
        name: "format",
        overloads: [
          method(["string", "list"], "string", 0, ([s, args], ctx) => {
            if (!isList(args as Value)) throw new EvalError("no such overload");
            return format(str(s), args as readonly Value[], (n) => chargeTraversal(ctx, n), (n) => ctx.chargeEdge(n));
          }),
        ],
      },
      {
        name: "strings.quote",
        overloads: [
          {
            params: ["string"],
            result: "string",
            impl: ([s], ctx) => {
              chargeTraversal(ctx, str(s).length);
              const quoted = quote(str(s));
              // Charged for its input, it writes up to two characters for each (escapes): the second goes to the edge's meter.
              ctx.chargeEdge(Math.ceil((quoted.length - 2 - str(s).length) * TRAVERSAL_FACTOR));
              return quoted;
            },
          },
        ],
      },
    );
  }
  if (version >= 3) {
    functions.push({ name: "reverse", overloads: [method(["string"], "string", 1, ([s]) => runes(str(s)).reverse().join(""))] });
  }
  return { name: "cel.lib.ext.strings", functions };
}
