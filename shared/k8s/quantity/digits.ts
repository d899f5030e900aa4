// Exact arithmetic on unsigned decimal digit strings, in linear time: BigInt
// would do the sums, but reading or printing a long decimal BigInt costs more
// than linear time, and a quantity can carry three million digits.

/** Digits per chunk: a sum or a product by 1,024 of two chunks stays below 2^53. */
const CHUNK = 12;
const BASE = 10 ** CHUNK;
/**
 * Numbers this short are summed, subtracted and divided as doubles, exactly
 * (below 10^15, a sum stays below 2^53): the quantities pods ask for are.
 */
const SHORT = 15;

function chunksOf(digits: string): number[] {
  const chunks: number[] = [];
  for (let end = digits.length; end > 0; end -= CHUNK) chunks.push(Number(digits.slice(Math.max(0, end - CHUNK), end)));
  return chunks;
}

function digitsOf(chunks: readonly number[]): string {
  let top = chunks.length - 1;
  while (top > 0 && chunks[top] === 0) top--;
  const parts = [String(chunks[top] ?? 0)];
  for (let i = top - 1; i >= 0; i--) parts.push(String(chunks[i]).padStart(CHUNK, "0"));
  return parts.join("");
}

/** `digits` without leading zeros ("" for zero) and how many trailing zeros it had, also removed. */
export function trimmed(digits: string): { digits: string; trailingZeros: number } {
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 48) start++;
  let end = digits.length;
  while (end > start && digits.charCodeAt(end - 1) === 48) end--;
  return { digits: digits.slice(start, end), trailingZeros: digits.length - end };
}

/** Compares two digit strings without leading zeros as integers. */
export function compareDigits(a: string, b: string): -1 | 0 | 1 {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function addDigits(a: string, b: string): string {
  if (a.length <= SHORT && b.length <= SHORT) return String(Number(a) + Number(b));
  const x = chunksOf(a);
  const y = chunksOf(b);
  const sum: number[] = [];
  let carry = 0;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const s = (x[i] ?? 0) + (y[i] ?? 0) + carry;
    carry = s >= BASE ? 1 : 0;
    sum.push(s - carry * BASE);
  }
  if (carry) sum.push(carry);
  return digitsOf(sum);
}

/** `a - b` for `a >= b`. */
export function subtractDigits(a: string, b: string): string {
  if (a.length <= SHORT && b.length <= SHORT) return String(Number(a) - Number(b));
  const x = chunksOf(a);
  const y = chunksOf(b);
  const difference: number[] = [];
  let borrow = 0;
  for (let i = 0; i < x.length; i++) {
    let d = x[i]! - (y[i] ?? 0) - borrow;
    borrow = d < 0 ? 1 : 0;
    d += borrow * BASE;
    difference.push(d);
  }
  return digitsOf(difference);
}

/** `a × factor` for a small factor (≤ 1,024). */
export function multiplyDigits(a: string, factor: number): string {
  if (a.length <= CHUNK) return String(Number(a) * factor);
  const product: number[] = [];
  let carry = 0;
  for (const chunk of chunksOf(a)) {
    const p = chunk * factor + carry;
    carry = Math.floor(p / BASE);
    product.push(p - carry * BASE);
  }
  while (carry > 0) {
    product.push(carry % BASE);
    carry = Math.floor(carry / BASE);
  }
  return digitsOf(product);
}

/** `a / divisor` when it divides exactly (divisor ≤ 1,024), else undefined. */
export function divideDigitsExactly(a: string, divisor: number): string | undefined {
  if (a.length <= SHORT) {
    const n = Number(a);
    return n % divisor === 0 ? String(n / divisor) : undefined;
  }
  const chunks = chunksOf(a);
  const quotient = new Array<number>(chunks.length);
  let remainder = 0;
  for (let i = chunks.length - 1; i >= 0; i--) {
    const current = remainder * BASE + chunks[i]!;
    quotient[i] = Math.floor(current / divisor);
    remainder = current - quotient[i]! * divisor;
  }
  return remainder === 0 ? digitsOf(quotient) : undefined;
}
