// CEL runtime values.
//
// Representation, chosen so that an activation's JSON (as JSON.parse returns
// it) is already a CEL value and is never converted or copied:
//   null, boolean, string       -> themselves
//   int                         -> a JS number that is integral and within int64, or a
//                                  bigint when an int64 result leaves the safe-integer range
//                                  (so JSON integers are ints without conversion)
//   double                      -> a non-integral (or non-finite) JS number, or a Double box
//                                  for an integral double, so 2.0 stays a double
//   uint                        -> Uint box (bigint inside): rare, and must stay distinct
//   bytes                       -> Uint8Array
//   list                        -> any JS array (JSON arrays and lists built by CEL alike)
//   map                         -> a plain JSON object (string keys), or a MapValue
//                                  (CelMap for literals, LazyMap for computed entries)
//   type, timestamp, duration, optional, library values -> classes below
// A JS number is therefore an int exactly when it is integral and within int64:
// that one test (isIntNumber) keeps int and double apart everywhere.

import { ownKeys } from "../../json/index.js";

export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | readonly Value[]
  | JsonObject
  | Boxed;

export interface JsonObject {
  readonly [key: string]: Value;
}

/** Base of every non-JSON value; JSON.parse can never produce an instance. */
export abstract class Boxed {
  abstract type(): CelType;
}

export class CelType extends Boxed {
  constructor(readonly name: string) {
    super();
  }
  type(): CelType {
    return Types.type;
  }
}

export class Double extends Boxed {
  constructor(readonly v: number) {
    super();
  }
  type(): CelType {
    return Types.double;
  }
}

export class Uint extends Boxed {
  constructor(readonly v: bigint) {
    super();
  }
  type(): CelType {
    return Types.uint;
  }
}

/**
 * Nanoseconds since the Unix epoch; CEL's range is years 0001..9999. The UTC
 * offset it was written with is kept only for printing, as Go's time.Time
 * keeps its location (string(timestamp('...+02:00')) ends in +02:00).
 */
export class Timestamp extends Boxed {
  constructor(
    readonly ns: bigint,
    readonly offsetSeconds = 0,
  ) {
    super();
  }
  type(): CelType {
    return Types.timestamp;
  }
}

/** Nanoseconds, int64 like Go's time.Duration. */
export class Duration extends Boxed {
  constructor(readonly ns: bigint) {
    super();
  }
  type(): CelType {
    return Types.duration;
  }
}

export class Optional extends Boxed {
  constructor(readonly value: Value | undefined) {
    super();
  }
  type(): CelType {
    return Types.optional;
  }
  static readonly none = new Optional(undefined);
}

/**
 * A value of a library-defined type (quantity, ip, semver...). The library
 * gives its type name (what type() returns) and, if the values compare,
 * equality and ordering.
 */
export abstract class LibraryValue extends Boxed {
  abstract readonly celType: CelType;
  type(): CelType {
    return this.celType;
  }
  /** Equality with another value of the same type. */
  abstract equals(other: LibraryValue): boolean;
  /** Ordering for <, <=, >, >=; undefined when the type has none. */
  compare?(other: LibraryValue): number;
}

/** A map that is not a JSON object: built by CEL, or computed on access. */
export abstract class MapValue extends Boxed {
  type(): CelType {
    return Types.map;
  }
  /** The value at key, or undefined when absent. */
  abstract get(key: Value): Value | undefined;
  abstract keys(): readonly Value[];
  abstract get size(): number;
}

type MapKey = string | boolean | bigint;

/** Normalised key: ints and uints and integral doubles compare equal (heterogeneous equality). */
export function mapKey(key: Value): MapKey | undefined {
  switch (typeof key) {
    case "string":
    case "boolean":
    case "bigint":
      return key;
    case "number":
      return Number.isInteger(key) ? BigInt(key) : undefined;
    case "object":
      if (key instanceof Uint) return key.v;
      if (key instanceof Double && Number.isInteger(key.v)) return BigInt(key.v);
  }
  return undefined;
}

export class CelMap extends MapValue {
  readonly entries = new Map<MapKey, readonly [Value, Value]>();
  get(key: Value): Value | undefined {
    const k = mapKey(key);
    return k === undefined ? undefined : this.entries.get(k)?.[1];
  }
  keys(): readonly Value[] {
    return Array.from(this.entries.values(), (e) => e[0]);
  }
  get size(): number {
    return this.entries.size;
  }
}

/**
 * A map whose entries are computed on first access (the admission layer's
 * `variables`). Callbacks decide presence, values and key order.
 */
export class LazyMap extends MapValue {
  constructor(
    private readonly lookup: (key: string) => Value | undefined,
    private readonly names: readonly string[],
  ) {
    super();
  }
  get(key: Value): Value | undefined {
    return typeof key === "string" ? this.lookup(key) : undefined;
  }
  keys(): readonly Value[] {
    return this.names;
  }
  get size(): number {
    return this.names.length;
  }
}

export const Types = {
  int: new CelType("int"),
  uint: new CelType("uint"),
  double: new CelType("double"),
  bool: new CelType("bool"),
  string: new CelType("string"),
  bytes: new CelType("bytes"),
  list: new CelType("list"),
  map: new CelType("map"),
  null: new CelType("null_type"),
  type: new CelType("type"),
  timestamp: new CelType("google.protobuf.Timestamp"),
  duration: new CelType("google.protobuf.Duration"),
  optional: new CelType("optional_type"),
};

const INT64_BOUND = 9223372036854775808; // 2^63, exact as a double

export function isIntNumber(n: number): boolean {
  return Number.isInteger(n) && n < INT64_BOUND && n >= -INT64_BOUND;
}

export function typeOf(v: Value): CelType {
  switch (typeof v) {
    case "number":
      return isIntNumber(v) ? Types.int : Types.double;
    case "string":
      return Types.string;
    case "boolean":
      return Types.bool;
    case "bigint":
      return Types.int;
  }
  if (v === null) return Types.null;
  if (Array.isArray(v)) return Types.list;
  if (v instanceof Uint8Array) return Types.bytes;
  if (v instanceof Boxed) return v.type();
  return Types.map;
}

/** A runtime error; thrown, not returned, and cheap (no stack capture). */
export class EvalError {
  constructor(readonly message: string) {}
}

export const noSuchOverload = (): EvalError => new EvalError("no such overload");

export function isMap(v: Value): v is JsonObject | MapValue {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && (!(v instanceof Boxed) || v instanceof MapValue);
}

export function isList(v: Value): v is readonly Value[] {
  return Array.isArray(v);
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Map lookup; undefined when absent. JSON objects have string keys only. */
export function mapGet(m: JsonObject | MapValue, key: Value): Value | undefined {
  if (m instanceof MapValue) return m.get(key);
  return typeof key === "string" && hasOwn.call(m, key) ? m[key] : undefined;
}

export function mapKeys(m: JsonObject | MapValue): readonly Value[] {
  return m instanceof MapValue ? m.keys() : ownKeys(m);
}

export function mapSize(m: JsonObject | MapValue): number {
  return m instanceof MapValue ? m.size : ownKeys(m).length;
}

// ---- numbers ----

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
export const UINT64_MAX = (1n << 64n) - 1n;

type IntValue = number | bigint;

/** int64 result from exact arithmetic: error when out of range, a number when safe. */
export function intOf(b: bigint): IntValue {
  if (b > INT64_MAX || b < INT64_MIN) throw new EvalError("integer overflow");
  return b <= SAFE && b >= -SAFE ? Number(b) : b;
}

export function uintOf(b: bigint): Uint {
  if (b < 0n || b > UINT64_MAX) throw new EvalError("unsigned integer overflow");
  return new Uint(b);
}

export function doubleOf(n: number): number | Double {
  return Number.isInteger(n) ? new Double(n) : n;
}

/** The int value as bigint, or undefined when v is not an int. */
export function asBigInt(v: Value): bigint | undefined {
  if (typeof v === "number") return isIntNumber(v) ? BigInt(v) : undefined;
  return typeof v === "bigint" ? v : undefined;
}

/** v as a JS number when it is an int that fits exactly; for indexes and offsets. */
export function asSmallInt(v: Value): number | undefined {
  if (typeof v === "number") return isIntNumber(v) ? v : undefined;
  return typeof v === "bigint" ? Number(v) : undefined;
}

/** The double value, or undefined when v is not a double. */
export function asDouble(v: Value): number | undefined {
  if (typeof v === "number") return isIntNumber(v) ? undefined : v;
  return v instanceof Double ? v.v : undefined;
}

/**
 * Compares two numbers of any numeric types: undefined if either is not a
 * number, NaN if unordered. Ints and uints compare exactly; against a double
 * they compare as cel-go does, converted to double (beyond int64/uint64 range
 * the double decides).
 */
function compareNumeric(a: Value, b: Value): number | undefined {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
  const da = asDouble(a);
  const db = asDouble(b);
  if (da !== undefined || db !== undefined) {
    const x = da ?? wholeNumber(a);
    const y = db ?? wholeNumber(b);
    if (x === undefined || y === undefined) return undefined;
    const fx = typeof x === "bigint" ? Number(x) : x;
    const fy = typeof y === "bigint" ? Number(y) : y;
    return fx < fy ? -1 : fx > fy ? 1 : fx === fy ? 0 : NaN;
  }
  const x = wholeNumber(a);
  const y = wholeNumber(b);
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** An int or uint as bigint. */
function wholeNumber(v: Value): bigint | undefined {
  return v instanceof Uint ? v.v : asBigInt(v);
}

export function isNumeric(v: Value): boolean {
  return typeof v === "number" || typeof v === "bigint" || v instanceof Uint || v instanceof Double;
}

// ---- strings ----

const encoder = new TextEncoder();
export const utf8 = (s: string): Uint8Array => encoder.encode(s);

/**
 * Code point positions of a string, for CEL's code-point indexes. Built once
 * per string and kept for the last one, so a loop indexing into the same
 * large input string (charAt, substring, size) does not rescan it each time.
 */
interface CodePoints {
  readonly length: number;
  /** UTF-16 offset of code point i (0..length). */
  offset(i: number): number;
  /** Code point index of a UTF-16 offset that starts a code point. */
  index(offset: number): number;
}

let lastString: string | undefined;
let lastPoints: CodePoints | undefined;

/**
 * Any UTF-16 surrogate. Most strings have none, and one regular expression
 * test says so several times faster than a charCodeAt loop, much more so on
 * a concatenation V8 has not flattened yet.
 */
export const SURROGATE = /[\ud800-\udfff]/;

export function codePoints(s: string): CodePoints {
  if (s === lastString && lastPoints !== undefined) return lastPoints;
  let pairs = 0;
  if (SURROGATE.test(s)) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          pairs++;
          i++;
        }
      }
    }
  }
  let points: CodePoints;
  if (pairs === 0) {
    points = { length: s.length, offset: (i) => i, index: (o) => o };
  } else {
    const offsets = new Int32Array(s.length - pairs + 1);
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      offsets[n++] = i;
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
    }
    offsets[n] = s.length;
    points = {
      length: n,
      offset: (i) => offsets[i] as number,
      index: (o) => {
        let lo = 0;
        let hi = n;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if ((offsets[mid] as number) < o) lo = mid + 1;
          else hi = mid;
        }
        return lo;
      },
    };
  }
  lastString = s;
  lastPoints = points;
  return points;
}

/** The last long string whose code points were counted, and their number: a loop asking size() of one large input string counts it once. */
let lastCounted: string | undefined;
let lastCount = 0;

/** Number of code points (CEL string size). */
export function codePointLength(s: string): number {
  if (s.length >= 64) {
    if (s === lastCounted) return lastCount;
    // Counted without building the string's code point positions: most long strings sized are only sized
    // (a message's literal text in a concatenation), and building them each time made most of that cost.
    lastCount = s === lastString && lastPoints !== undefined ? lastPoints.length : countCodePoints(s);
    lastCounted = s;
    return lastCount;
  }
  return countCodePoints(s);
}

function countCodePoints(s: string): number {
  let n = s.length;
  // A short string is counted unit by unit: a regular expression test costs more than the loop (join() sizes every element).
  if (n >= 16 && !SURROGATE.test(s)) return n;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

// ---- equality and ordering ----

/**
 * CEL equality (heterogeneous: 1 == 1u == 1.0; values of unrelated types are
 * unequal). Iterative, so arbitrarily deep input cannot overflow the stack.
 */
export function equals(a: Value, b: Value): boolean {
  const pending: Value[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop() as Value;
    const x = pending.pop() as Value;
    if (!shallowEquals(x, y, pending)) return false;
  }
  return true;
}

/** False when a and b differ at the top; pushes the pairs of elements still to compare. */
function shallowEquals(a: Value, b: Value, pending: Value[]): boolean {
  if (a === b) return typeof a !== "number" || !Number.isNaN(a);
  if (isNumeric(a)) return isNumeric(b) && compareNumeric(a, b) === 0;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) pending.push(a[i] as Value, b[i] as Value);
    return true;
  }
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = mapKeys(a);
    if (ka.length !== mapSize(b)) return false;
    for (const k of ka) {
      const vb = mapGet(b, k);
      if (vb === undefined) return false;
      pending.push(mapGet(a, k) as Value, vb);
    }
    return true;
  }
  if (a instanceof Timestamp) return b instanceof Timestamp && a.ns === b.ns;
  if (a instanceof Duration) return b instanceof Duration && a.ns === b.ns;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (a.value === undefined || b.value === undefined) return a.value === b.value;
    pending.push(a.value, b.value);
    return true;
  }
  if (a instanceof LibraryValue) return b instanceof LibraryValue && a.celType === b.celType && a.equals(b);
  return false;
}

/** Code point order (Go compares UTF-8 bytes, which orders the same); JS < orders UTF-16 units. */
function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates above U+E000..U+FFFF so units compare as their code points do. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  return unit >= 0xd800 ? unit + 0x2000 : unit;
}

/** Ordering for <, <=, >, >=: negative, zero, positive, NaN (unordered); throws when not comparable. */
export function compare(a: Value, b: Value): number {
  const n = compareNumeric(a, b);
  if (n !== undefined) return n;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const len = Math.min(a.length, b.length);
    for (let i = 0; i < len; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
    return a.length - b.length;
  }
  if ((a instanceof Timestamp && b instanceof Timestamp) || (a instanceof Duration && b instanceof Duration)) {
    return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  }
  if (a instanceof LibraryValue && b instanceof LibraryValue && a.celType === b.celType && a.compare) return a.compare(b);
  throw noSuchOverload();
}
