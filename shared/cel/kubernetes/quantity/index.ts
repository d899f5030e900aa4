// Kubernetes' quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go,
// base environment 1.28+), over shared/k8s/quantity:
//   quantity(string), isQuantity(string), sign(q) (a global function in
//   Kubernetes: q.sign() does not compile there, so it does not here),
//   q.isGreaterThan(q), q.isLessThan(q), q.compareTo(q), q.add(q|int),
//   q.sub(q|int), q.isInteger(), q.asInteger(), q.asApproximateFloat().
// isInteger, asInteger and asApproximateFloat answer as Kubernetes' do, which
// depends on how resource.Quantity holds the value, not only on the value:
// an int64 mantissa and a power of ten (int64Amount) when the text is short
// enough, an arbitrary-precision inf.Dec otherwise; AsInt64 succeeds only for
// an int64Amount whose power is not negative. So quantity('1000m'),
// quantity('1.0') and quantity('1.5Gi') are not integers in Kubernetes, and
// neither here. GoAmount below tracks that representation through parsing,
// add and sub.
// Quantities are equal when their values are (resource.Quantity.Equal:
// quantity('200M') == quantity('0.2G')); they have no <, as in Kubernetes.
// Costs as Kubernetes' CostEstimator: parsing traverses the string (0.1 per
// code point), every other function costs 1.

import { chargeTraversal, costSize, type CallContext, type Library } from "../../declarations/index.js";
import { parseQuantity, Quantity, QuantityError } from "../../../k8s/quantity/index.js";
import { BoundedCache } from "../../cache/index.js";
import { member } from "../overloads.js";
import { asBigInt, CelType, doubleOf, EvalError, intOf, LibraryValue, noSuchOverload, type Value } from "../../values/index.js";

const QUANTITY_TYPE = new CelType("kubernetes.Quantity");
const Q = QUANTITY_TYPE.name;

// ---- resource.Quantity's representation ----

/** An int64Amount (value × 10^scale, value an int64, scale an int32), or undefined for an inf.Dec. */
type GoAmount = { readonly value: bigint; readonly scale: number } | undefined;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const fits = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;
const amount = (value: bigint, scale: number): GoAmount => (fits(value) ? { value, scale } : undefined);

const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_EXPONENTS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
/** resource's maxInt64Factors: 18 decimal digits always fit an int64. */
const MAX_INT64_FACTORS = 18;
const NANO = -9;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/**
 * The representation resource.ParseQuantity gives `text` (already known to
 * parse): its int64 fast path when the digits and exponent allow, else inf.Dec.
 */
export function parsedAmount(text: string): GoAmount {
  if (text === "0") return { value: 0n, scale: 0 };
  let pos = 0;
  let positive = true;
  if (text[0] === "-" || text[0] === "+") {
    positive = text[0] === "+";
    pos++;
  }
  while (text[pos] === "0") pos++;
  if (pos >= text.length) return { value: 0n, scale: 0 };
  let start = pos;
  while (isDigit(text[pos])) pos++;
  const num = text.slice(start, pos) || "0";
  let denom = "";
  if (text[pos] === ".") {
    start = ++pos;
    while (isDigit(text[pos])) pos++;
    denom = text.slice(start, pos);
  }
  const suffix = text.slice(pos);
  const sign = positive ? 1n : -1n;
  const binary = BINARY_EXPONENTS[suffix];
  if (binary !== undefined && Object.hasOwn(BINARY_EXPONENTS, suffix)) {
    if (denom !== "") return undefined;
    // 1Mi (2^20) has ~6 digits of decimal precision: exponent*3/10 - 1 (exact for these exponents).
    const precision = 15 - num.length - (binary * 3) / 10 - 1;
    return precision >= 0 ? amount(sign * BigInt(num) * (1n << BigInt(binary)), 0) : undefined;
  }
  let exponent: number;
  if (Object.hasOwn(DECIMAL_EXPONENTS, suffix)) exponent = DECIMAL_EXPONENTS[suffix] as number;
  else exponent = Number(BigInt.asIntN(32, BigInt(suffix.slice(1)))); // e/E and an int64, kept as int32
  if (MAX_INT64_FACTORS - (num.length + denom.length) < 0) return undefined;
  const scale = (exponent - denom.length) | 0;
  return scale >= NANO ? amount(sign * BigInt(num + denom), scale) : undefined;
}

/** positiveScaleInt64: value × 10^scale when it fits an int64. */
function scaledUp(value: bigint, scale: number): bigint | undefined {
  if (scale > 19) return undefined; // value is not zero here, so 10^19 × value overflows
  const v = value * 10n ** BigInt(scale);
  return fits(v) ? v : undefined;
}

/** int64Amount.Add, undefined where it reports overflow and Quantity.Add falls back to inf.Dec. */
function addAmounts(a: GoAmount, b: GoAmount): GoAmount {
  if (a === undefined || b === undefined) return undefined;
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) return amount(a.value + b.value, a.scale);
  if (a.scale > b.scale) {
    const c = scaledUp(a.value, a.scale - b.scale);
    return c === undefined ? undefined : amount(c + b.value, b.scale);
  }
  const c = scaledUp(b.value, b.scale - a.scale);
  return c === undefined ? undefined : amount(a.value + c, a.scale);
}

/** int64Amount.Sub: the negation of the most negative int64 goes to inf.Dec. */
function subAmounts(a: GoAmount, b: GoAmount): GoAmount {
  if (a === undefined || b === undefined || b.value === INT64_MIN) return undefined;
  return addAmounts(a, { value: -b.value, scale: b.scale });
}

/** Quantity.AsInt64. */
function asInt64(a: GoAmount): bigint | undefined {
  if (a === undefined || a.scale < 0) return undefined;
  return a.scale === 0 ? a.value : a.value === 0n ? 0n : scaledUp(a.value, a.scale);
}

const POW10 = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

/** Go's math.Pow10, whose products and quotients can differ from the nearest double in the last bit. */
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return (POW10_POS32[Math.floor(n / 32)] as number) * (POW10[n % 32] as number);
  if (n < 0 && n >= -323) return (POW10_NEG32[Math.floor(-n / 32)] as number) / (POW10[-n % 32] as number);
  return n > 0 ? Infinity : 0;
}

/** A kubernetes.Quantity value. */
export class QuantityValue extends LibraryValue {
  readonly celType = QUANTITY_TYPE;
  constructor(
    readonly quantity: Quantity,
    /** How Kubernetes holds the same value. */
    readonly amount: GoAmount,
  ) {
    super();
  }

  /** Quantity.AsInt64: only an int64Amount at a non-negative power of ten converts. */
  asInt64(): bigint | undefined {
    return asInt64(this.amount);
  }

  /** Quantity.AsApproximateFloat64: float64(value) × math.Pow10(scale); an inf.Dec's is the nearest double here. */
  asApproximateFloat(): number {
    if (this.amount === undefined) return this.quantity.asApproximateFloat();
    const base = Number(this.amount.value);
    return this.amount.scale === 0 ? base : base * goPow10(this.amount.scale);
  }

  equals(other: LibraryValue): boolean {
    return other instanceof QuantityValue && this.quantity.compareTo(other.quantity) === 0;
  }
  override toString(): string {
    return this.quantity.toString();
  }
}

/** A parse: the quantity, or resource.ParseQuantity's error (whose text names no input, so it needs no cap). */
type Parsed = QuantityValue | EvalError;

/** Quantity texts seen lately (a policy's params, a workload's requests), parsed once; values are immutable. */
const parsed = new BoundedCache<Parsed>(1024, 64);

function parseText(text: string): Parsed {
  try {
    return new QuantityValue(parseQuantity(text), parsedAmount(text));
  } catch (e) {
    if (e instanceof QuantityError) return new EvalError(e.message);
    throw e;
  }
}

function parse(text: string, ctx: CallContext): QuantityValue {
  chargeTraversal(ctx, costSize(text));
  const result = parsed.get(text, parseText);
  if (result instanceof EvalError) throw result;
  return result;
}

function valueOf(v: Value | undefined): QuantityValue {
  if (!(v instanceof QuantityValue)) throw noSuchOverload();
  return v;
}

const quantityOf = (v: Value | undefined): Quantity => valueOf(v).quantity;

/** resource.NewQuantity(n, DecimalExponent). */
function fromInt(v: Value | undefined): QuantityValue {
  const n = asBigInt(v as Value);
  if (n === undefined) throw noSuchOverload();
  const q = n < 0n ? Quantity.of(-1, (-n).toString(), 0, "DecimalExponent") : Quantity.of(1, n.toString(), 0, "DecimalExponent");
  return new QuantityValue(q, { value: n, scale: 0 });
}

/**
 * Exact arithmetic refuses results of millions of digits (a RangeError from
 * shared/k8s/quantity); Kubernetes' inf.Dec would build them. Reported as an
 * evaluation error rather than a crash.
 */
function arithmetic(a: Value | undefined, b: QuantityValue, op: "add" | "sub"): QuantityValue {
  const x = valueOf(a);
  try {
    return op === "add"
      ? new QuantityValue(x.quantity.add(b.quantity), addAmounts(x.amount, b.amount))
      : new QuantityValue(x.quantity.sub(b.quantity), subAmounts(x.amount, b.amount));
  } catch (e) {
    if (e instanceof RangeError) throw new EvalError(`quantity arithmetic result too large: ${e.message}`);
    throw e;
  }
}

export const quantityLibrary: Library = {
  name: "kubernetes.quantity",
  types: [QUANTITY_TYPE],
  functions: [
    { name: "quantity", overloads: [{ params: ["string"], result: Q, impl: ([s], ctx) => parse(s as string, ctx) }] },
    {
      name: "isQuantity",
      overloads: [
        {
          params: ["string"],
          result: "bool",
          impl: ([s], ctx) => {
            chargeTraversal(ctx, costSize(s as string));
            // The same cache as quantity(): the usual guard isQuantity(x) && quantity(x)… parses once.
            return !(parsed.get(s as string, parseText) instanceof EvalError);
          },
        },
      ],
    },
    { name: "sign", overloads: [{ params: [Q], result: "int", impl: ([q]) => quantityOf(q).sign }] },
    { name: "isGreaterThan", overloads: [member([Q, Q], "bool", ([a, b]) => quantityOf(a).compareTo(quantityOf(b)) === 1)] },
    { name: "isLessThan", overloads: [member([Q, Q], "bool", ([a, b]) => quantityOf(a).compareTo(quantityOf(b)) === -1)] },
    { name: "compareTo", overloads: [member([Q, Q], "int", ([a, b]) => quantityOf(a).compareTo(quantityOf(b)))] },
    { name: "asApproximateFloat", overloads: [member([Q], "double", ([q]) => doubleOf(valueOf(q).asApproximateFloat()))] },
    {
      name: "asInteger",
      overloads: [
        member([Q], "int", ([q]) => {
          const n = valueOf(q).asInt64();
          if (n === undefined) throw new EvalError("cannot convert value to integer");
          return intOf(n);
        }),
      ],
    },
    { name: "isInteger", overloads: [member([Q], "bool", ([q]) => valueOf(q).asInt64() !== undefined)] },
    {
      name: "add",
      overloads: [
        member([Q, Q], Q, ([a, b]) => arithmetic(a, valueOf(b), "add")),
        member([Q, "int"], Q, ([a, n]) => arithmetic(a, fromInt(n), "add")),
      ],
    },
    {
      name: "sub",
      overloads: [
        member([Q, Q], Q, ([a, b]) => arithmetic(a, valueOf(b), "sub")),
        member([Q, "int"], Q, ([a, n]) => arithmetic(a, fromInt(n), "sub")),
      ],
    },
  ],
};
