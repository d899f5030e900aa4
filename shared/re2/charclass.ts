// Character classes: what one CHAR instruction of the program accepts. Case
// folding is applied when a code point is tested (does any member of its fold
// orbit belong?) rather than by expanding ranges at compile time, so a hostile
// (?i)[\x{41}-\x{1E900}] costs no more to compile than [a-z].

import { foldOrbit, hasProperty, type UnicodeProperty } from "./unicode.js";

export const maxCodePoint = 0x10ffff;

/** One part of a class: ranges as [lo, hi, lo, hi, …] or a Unicode property, possibly complemented. */
export type ClassItem =
  | { readonly kind: "ranges"; readonly ranges: readonly number[]; readonly negated: boolean }
  | { readonly kind: "property"; readonly property: UnicodeProperty; readonly negated: boolean };

export interface CharClass {
  readonly items: readonly ClassItem[];
  /** [^…]: the complement of the union of the items. */
  readonly negated: boolean;
  /** (?i): each item stands for itself and everything fold-equivalent to it. */
  readonly fold: boolean;
}

export type CodePointTest = (c: number) => boolean;

export function rangesItem(ranges: readonly number[], negated = false): ClassItem {
  return { kind: "ranges", ranges, negated };
}

/** Sorted, merged [lo, hi] pairs, for binary search. */
function mergeRanges(ranges: readonly number[]): Int32Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = merged.length - 1;
    if (last > 0 && lo <= merged[last]! + 1) merged[last] = Math.max(merged[last]!, hi);
    else merged.push(lo, hi);
  }
  return Int32Array.from(merged);
}

function inRanges(ranges: Int32Array, c: number): boolean {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < ranges[2 * mid]!) hi = mid - 1;
    else if (c > ranges[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Complement of clean ranges within [0, maxCodePoint]. */
function complementRanges(ranges: Int32Array): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i]! > next) out.push(next, ranges[i]! - 1);
    next = ranges[i + 1]! + 1;
  }
  if (next <= maxCodePoint) out.push(next, maxCodePoint);
  return out;
}

/** A literal code point, as (?i) sees it when fold is set. */
export function literalTest(c: number, fold: boolean): CodePointTest {
  const orbit = fold ? foldOrbit(c) : [c];
  if (orbit.length === 1) return (x) => x === c;
  return (x) => orbit.includes(x);
}

/** Membership in the item before its own negation. */
function itemTest(item: ClassItem): CodePointTest {
  if (item.kind === "property") return (c) => hasProperty(item.property, c);
  const ranges = mergeRanges(item.ranges);
  return (c) => inRanges(ranges, c);
}

/**
 * The test for a class. A complemented item under (?i) is the complement of
 * the folded item (Go folds, then negates), so it is kept apart from the
 * positive items, whose folded union is the fold of their union.
 */
export function classTest(cls: CharClass): CodePointTest {
  let positiveRanges: number[] = [];
  const positiveProperties: UnicodeProperty[] = [];
  const negatedItems: ClassItem[] = [];
  for (const item of cls.items) {
    // concat, not push(...): a class may hold more ranges than a call takes arguments.
    if (item.kind === "ranges" && !item.negated) positiveRanges = positiveRanges.concat(item.ranges);
    else if (item.kind === "ranges" && !cls.fold) positiveRanges = positiveRanges.concat(complementRanges(mergeRanges(item.ranges)));
    else if (item.kind === "property" && !item.negated) positiveProperties.push(item.property);
    else negatedItems.push(item);
  }
  const ranges = mergeRanges(positiveRanges);
  const negatedTests = negatedItems.map(itemTest);
  const inPositive = (c: number): boolean => inRanges(ranges, c) || positiveProperties.some((p) => hasProperty(p, c));
  const matches = cls.fold
    ? (c: number): boolean => {
        const orbit = foldOrbit(c);
        return orbit.some(inPositive) || negatedTests.some((inItem) => !orbit.some(inItem));
      }
    : (c: number): boolean => inPositive(c) || negatedTests.some((inItem) => !inItem(c));
  return withAsciiTable(cls.negated ? (c) => !matches(c) : matches);
}

/** The test with its answer for each ASCII code point kept once asked (1 yes, 2 no): most inputs are ASCII, and a lookup beats a range search. */
function withAsciiTable(test: CodePointTest): CodePointTest {
  const ascii = new Uint8Array(128);
  return (c) => {
    if (c >= 128) return test(c);
    const known = ascii[c]!;
    if (known !== 0) return known === 1;
    const answer = test(c);
    ascii[c] = answer ? 1 : 2;
    return answer;
  };
}
