// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource): the
// same grammar, the same rounding and capping on parse, and the same canonical
// string, with exact arithmetic. A quantity is kept as sign × digits × 10^exponent
// with the digits as a string, so parsing, comparing, adding and printing cost
// time linear in the digits, never a float.
import { addDigits, compareDigits, divideDigitsExactly, multiplyDigits, subtractDigits, trimmed } from "./digits.js";

/** How a quantity was written, which decides how it is printed (Quantity.Format). */
type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

export class QuantityError extends Error {
  override name = "QuantityError";
}

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC = "unable to parse numeric part of quantity";
const SUFFIX = "unable to parse quantity's suffix";

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_OF = new Map(Object.entries(DECIMAL_SUFFIXES).map(([suffix, exponent]) => [exponent, suffix]));
const BINARY_SUFFIX_OF = new Map(Object.entries(BINARY_SUFFIXES).map(([suffix, exponent]) => [exponent / 10, suffix]));
const SUFFIX_LETTERS = "eEinumkKMGTP";

/** 2^63 − 1: parsing caps a BinarySI quantity there, and isInteger needs an int64. */
const MAX_INT64 = "9223372036854775807";
const MIN_INT64_MAGNITUDE = "9223372036854775808";
/** Parsing keeps values down to 10^-9 and rounds finer ones away from zero. */
const NANO = -9;
/**
 * An exact sum of 1e999999999 and 1 has a billion digits: a result longer than
 * this is refused (RangeError) rather than built. No quantity that fits in an
 * AdmissionReview (3 MiB) comes near it unless its exponents are far apart.
 */
export const MAX_RESULT_DIGITS = 4_000_000;

const isDigit = (code: number) => code >= 48 && code <= 57;
/** Go's int32 arithmetic: wraps around past 32 bits. */
const wrap32 = (n: number) => n | 0;

export class Quantity {
  private constructor(
    /** -1, 0 or 1. */
    readonly sign: -1 | 0 | 1,
    /** The magnitude's significant digits, without leading or trailing zeros; "" for zero. */
    readonly digits: string,
    /** Value = sign × digits × 10^exponent. */
    readonly exponent: number,
    readonly format: QuantityFormat,
  ) {}

  /** Normalises a magnitude given as any digit string and a power of ten. */
  static of(sign: -1 | 1, digits: string, exponent: number, format: QuantityFormat): Quantity {
    const t = trimmed(digits);
    return t.digits === "" ? new Quantity(0, "", 0, format) : new Quantity(sign, t.digits, exponent + t.trailingZeros, format);
  }

  isZero(): boolean {
    return this.sign === 0;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compareTo(other: Quantity): -1 | 0 | 1 {
    if (this.sign !== other.sign) return this.sign < other.sign ? -1 : 1;
    const magnitude = compareMagnitudes(this, other);
    return this.sign < 0 && magnitude !== 0 ? (-magnitude as -1 | 1) : magnitude;
  }

  /** The exact sum; the format is this one's unless this is zero (Quantity.Add). */
  add(other: Quantity): Quantity {
    return sum(this, other.sign, other, this.isZero() ? other.format : this.format);
  }

  /** The exact difference; the format is this one's unless this is zero (Quantity.Sub). */
  sub(other: Quantity): Quantity {
    return sum(this, -other.sign as -1 | 0 | 1, other, this.isZero() ? other.format : this.format);
  }

  /**
   * Quantity.RoundUp(scale): the value at a multiple of 10^scale, rounded away
   * from zero when finer digits are dropped (1n at -3 is 1m; the API
   * defaulting rounds every resource list to milli units this way).
   */
  roundUp(scale: number): Quantity {
    if (this.sign === 0 || this.exponent >= scale) return this;
    const dropped = scale - this.exponent;
    const head = dropped >= this.digits.length ? "0" : this.digits.slice(0, this.digits.length - dropped);
    // The dropped digits end in a non-zero digit (the digits have no trailing zeros): round up.
    return Quantity.of(this.sign as -1 | 1, addDigits(head, "1"), scale, this.format);
  }

  /** Whether the value is a whole number that fits an int64, so asInteger succeeds. */
  isInteger(): boolean {
    if (this.sign === 0) return true;
    if (this.exponent < 0) return false;
    const magnitude = this.digits.length + this.exponent;
    if (magnitude < MAX_INT64.length) return true;
    if (magnitude > MAX_INT64.length) return false;
    return compareDigits(this.digits + "0".repeat(this.exponent), this.sign > 0 ? MAX_INT64 : MIN_INT64_MAGNITUDE) <= 0;
  }

  /** The value as an integer; a RangeError when it has a fraction or does not fit an int64. */
  asInteger(): bigint {
    if (!this.isInteger()) throw new RangeError("the quantity is not an integer that fits 64 bits");
    return this.sign === 0 ? 0n : BigInt(this.sign) * BigInt(this.digits + "0".repeat(this.exponent));
  }

  /** The nearest float64 (Quantity.AsApproximateFloat64): for display and scoring, never for decisions. */
  asApproximateFloat(): number {
    if (this.sign === 0) return 0;
    const head = this.digits.slice(0, 17);
    return Number(`${this.sign < 0 ? "-" : ""}${head}e${this.exponent + this.digits.length - head.length}`);
  }

  /** The canonical form Kubernetes prints (Quantity.String): no fraction, the largest suffix of the quantity's format. */
  toString(): string {
    if (this.sign === 0) return "0";
    const sign = this.sign < 0 ? "-" : "";
    if (this.format === "BinarySI") {
      const binary = this.binaryForm();
      if (binary) return `${sign}${binary}`;
    }
    // Move the exponent down to a multiple of three, as the mantissa takes the zeros.
    let exponent = this.exponent;
    let zeros = 0;
    while (exponent % 3 !== 0) {
      exponent--;
      zeros++;
    }
    const mantissa = `${sign}${this.digits}${"0".repeat(zeros)}`;
    const decimalSuffix = this.format === "DecimalExponent" ? undefined : DECIMAL_SUFFIX_OF.get(exponent);
    return `${mantissa}${decimalSuffix ?? (exponent === 0 ? "" : `e${exponent}`)}`;
  }

  /**
   * `<n><Ki…Ei>` when the value is a whole number of magnitude 1,024 or more,
   * else undefined (printed as DecimalSI). Past Ei (2^70 and up, only reachable
   * by adding), Kubernetes would print the mantissa with no suffix, which reads
   * as another value; this keeps Ei and a larger mantissa.
   */
  private binaryForm(): string | undefined {
    if (this.exponent < 0) return undefined;
    let mantissa = this.digits + "0".repeat(this.exponent);
    if (compareDigits(mantissa, "1024") < 0) return undefined;
    let power = 0;
    for (let next = divideDigitsExactly(mantissa, 1024); next !== undefined && power < 6; next = divideDigitsExactly(mantissa, 1024)) {
      mantissa = next;
      power++;
    }
    return `${mantissa}${BINARY_SUFFIX_OF.get(power) ?? ""}`;
  }
}

/** Compares |a| and |b|. */
function compareMagnitudes(x: Quantity, y: Quantity): -1 | 0 | 1 {
  if (x.digits === "" || y.digits === "") return x.digits === y.digits ? 0 : x.digits === "" ? -1 : 1;
  // Where the leading digit sits decides, unless it sits at the same power of ten.
  const [topX, topY] = [x.digits.length + x.exponent, y.digits.length + y.exponent];
  if (topX !== topY) return topX < topY ? -1 : 1;
  const width = Math.max(x.digits.length, y.digits.length);
  return compareDigits(x.digits.padEnd(width, "0"), y.digits.padEnd(width, "0"));
}

/** Both magnitudes written at the smaller exponent; a RangeError when that needs too many digits. */
function aligned(p: Quantity, q: Quantity): { x: string; y: string; exponent: number } {
  const exponent = Math.min(p.exponent, q.exponent);
  const width = Math.max(p.digits.length + p.exponent, q.digits.length + q.exponent) - exponent;
  if (width > MAX_RESULT_DIGITS) throw new RangeError(`the exact result would need ${width} digits`);
  return { x: p.digits + "0".repeat(p.exponent - exponent), y: q.digits + "0".repeat(q.exponent - exponent), exponent };
}

function sum(a: Quantity, bSign: -1 | 0 | 1, b: Quantity, format: QuantityFormat): Quantity {
  if (bSign === 0) return Quantity.of(a.sign || 1, a.digits, a.exponent, format);
  if (a.sign === 0) return Quantity.of(bSign, b.digits, b.exponent, format);
  const { x, y, exponent } = aligned(a, b);
  if (a.sign === bSign) return Quantity.of(a.sign, addDigits(x, y), exponent, format);
  const order = compareDigits(x, y);
  if (order === 0) return Quantity.of(1, "", 0, format);
  return order > 0 ? Quantity.of(a.sign, subtractDigits(x, y), exponent, format) : Quantity.of(bSign, subtractDigits(y, x), exponent, format);
}

interface Scanned {
  positive: boolean;
  /** The number as written, sign and leading zeros included (what the slow path's inf.Dec reads). */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString: sign, numerator, denominator, suffix; undefined when the text does not have that shape. */
function scan(text: string): Scanned | undefined {
  const end = text.length;
  let pos = 0;
  let positive = true;
  if (text[0] === "-") {
    positive = false;
    pos++;
  } else if (text[0] === "+") pos++;
  while (pos < end && text[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  let i = pos;
  while (i < end && isDigit(text.charCodeAt(i))) i++;
  const num = text.slice(pos, i) || "0";
  if (i >= end) return { positive, value: text, num, denom: "", suffix: "" };
  pos = i;
  let denom = "";
  if (text[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(text.charCodeAt(i))) i++;
    denom = text.slice(pos, i);
    if (i >= end) return { positive, value: text, num, denom, suffix: "" };
    pos = i;
  }
  const value = text.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(text[pos]!)) pos++;
  if (pos < end && (text[pos] === "+" || text[pos] === "-")) pos++;
  while (pos < end && isDigit(text.charCodeAt(pos))) pos++;
  return pos >= end ? { positive, value, num, denom, suffix: text.slice(suffixStart) } : undefined;
}

function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isDigit(text.charCodeAt(i))) return true;
  return false;
}

/** strconv.ParseInt(text, 10, 64), or undefined. */
function parseInt64(text: string): bigint | undefined {
  const negative = text[0] === "-";
  const digits = negative || text[0] === "+" ? text.slice(1) : text;
  let start = 0;
  for (let i = 0; i < digits.length; i++) {
    if (!isDigit(digits.charCodeAt(i))) return undefined;
    if (start === i && digits[i] === "0") start++;
  }
  if (digits === "" || digits.length - start > MIN_INT64_MAGNITUDE.length) return undefined;
  const n = BigInt(`${negative ? "-" : ""}${digits.slice(start) || "0"}`);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** suffixer.interpret: the base, the exponent and the format a suffix stands for. */
function interpret(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: DECIMAL_SUFFIXES[suffix]!, format: "DecimalSI" };
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: BINARY_SUFFIXES[suffix]!, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const parsed = parseInt64(suffix.slice(1));
    // Go keeps int32(parsed): an exponent past 32 bits wraps around.
    return parsed === undefined ? undefined : { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

/**
 * Whether a number without digits ("m", "Ki", "+.") reads as zero: only
 * ParseQuantity's int64 fast path accepts it, and that path takes a decimal
 * exponent down to nano and a binary one while its precision estimate
 * (15 − 1 − ⌊exponent × 3/10⌋ − 1) stays non-negative: Ki to Ti, not Pi or Ei.
 * The slow path's inf.Dec wants a digit.
 */
function digitlessIsZero(base: 10 | 2, exponent: number): boolean {
  return base === 10 ? exponent >= NANO : 13 - Math.trunc((exponent * 3) / 10) >= 0;
}

function multiplyByPowerOfTwo(digits: string, exponent: number): string {
  let result = digits;
  for (let done = 0; done < exponent; done += 10) result = multiplyDigits(result, 1024);
  return result;
}

/** ParseQuantity: the value the apiserver stores for `text`, or a QuantityError. */
export function parseQuantity(text: string): Quantity {
  if (text === "") throw new QuantityError(FORMAT_WRONG);
  const scanned = scan(text);
  if (!scanned) throw new QuantityError(FORMAT_WRONG);
  const meaning = interpret(scanned.suffix);
  if (!meaning) throw new QuantityError(SUFFIX);
  const { base, exponent, format } = meaning;
  if (!hasDigit(scanned.value) && !digitlessIsZero(base, exponent)) throw new QuantityError(NUMERIC);

  const sign = scanned.positive ? 1 : -1;
  const digits = scanned.num + scanned.denom;
  if (trimmed(digits).digits === "") return Quantity.of(1, "", 0, format);
  // inf.Dec's scale: the denominator's digits, minus the decimal exponent (both int32 in Go).
  const tenths = base === 10 ? wrap32(scanned.denom.length + wrap32(-exponent)) : scanned.denom.length;
  const magnitude = base === 2 ? multiplyByPowerOfTwo(digits, exponent) : digits;
  let quantity = roundedToNano(sign, magnitude, -tenths, format);
  if (format === "BinarySI") {
    if (compareMagnitudes(quantity, Quantity.of(1, MAX_INT64, 0, format)) > 0) quantity = Quantity.of(sign, MAX_INT64, 0, format);
    // A BinarySI value between 0 and 1 is DecimalSI.
    else if (quantity.digits.length + quantity.exponent <= 0) quantity = Quantity.of(sign, quantity.digits, quantity.exponent, "DecimalSI");
  }
  return quantity;
}

/** A non-zero value finer than 10^-9 rounded away from zero to the next nano. */
function roundedToNano(sign: -1 | 1, digits: string, exponent: number, format: QuantityFormat): Quantity {
  return Quantity.of(sign, digits, exponent, format).roundUp(NANO);
}

/** Whether `text` parses as a quantity. */
export function isQuantity(text: string): boolean {
  try {
    parseQuantity(text);
    return true;
  } catch (e) {
    if (e instanceof QuantityError) return false;
    throw e;
  }
}
