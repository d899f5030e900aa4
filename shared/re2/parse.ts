// The parser: Go's regexp/syntax grammar with the Perl flags regexp.Compile
// uses (ClassNL | OneLine | PerlX | UnicodeGroups), to a small syntax tree.
// Errors carry Go's texts; the quoted part of the pattern is capped, because
// patterns come from callers we do not trust.

import { type CharClass, type ClassItem, maxCodePoint, rangesItem } from "./charclass.js";
import { unicodeProperty } from "./unicode.js";

export type Assertion = "beginText" | "endText" | "beginLine" | "endLine" | "wordBoundary" | "noWordBoundary";

/** Every node knows its height (Go bounds it at 1000) and whether it can match the empty string. */
export type Node = { readonly height: number; readonly nullable: boolean } & (
  | { readonly kind: "empty" }
  | { readonly kind: "literal"; readonly codePoint: number; readonly fold: boolean }
  | { readonly kind: "class"; readonly cls: CharClass }
  | { readonly kind: "assert"; readonly assertion: Assertion }
  | { readonly kind: "concat"; readonly items: readonly Node[] }
  | { readonly kind: "alternate"; readonly items: readonly Node[] }
  | { readonly kind: "capture"; readonly sub: Node }
  | {
      readonly kind: "repeat";
      readonly sub: Node;
      readonly min: number;
      /** -1: unbounded. */
      readonly max: number;
      readonly greedy: boolean;
      /** Written {n,m} (counts toward Go's limit of 1000 nested copies), not * + ?. */
      readonly counted: boolean;
    }
);

export class RegexSyntaxError extends Error {}

const maxHeight = 1000;
const maxRepeat = 1000;
const maxQuotedLength = 64;

/** Go's message, with the quoted expression capped. */
export function syntaxError(code: string, expr: string): RegexSyntaxError {
  const codePoints = Array.from(expr);
  const quoted = codePoints.length > maxQuotedLength ? codePoints.slice(0, maxQuotedLength).join("") + "…" : expr;
  return new RegexSyntaxError(`error parsing regexp: ${code}: \`${quoted}\``);
}

interface Flags {
  foldCase: boolean;
  /** (?m): ^ and $ match at line boundaries, not only at text boundaries. */
  multiLine: boolean;
  /** (?s): . matches \n. */
  dotNL: boolean;
  /** (?U): repetitions are lazy unless followed by ?. */
  nonGreedy: boolean;
}

const digitRanges = [0x30, 0x39];
const wordRanges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
const perlClasses: Partial<Record<string, readonly number[]>> = {
  d: digitRanges,
  s: [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20],
  w: wordRanges,
};

const posixClasses: Record<string, readonly number[]> = {
  alnum: [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a],
  alpha: [0x41, 0x5a, 0x61, 0x7a],
  ascii: [0x00, 0x7f],
  blank: [0x09, 0x09, 0x20, 0x20],
  cntrl: [0x00, 0x1f, 0x7f, 0x7f],
  digit: digitRanges,
  graph: [0x21, 0x7e],
  lower: [0x61, 0x7a],
  print: [0x20, 0x7e],
  punct: [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e],
  space: [0x09, 0x0d, 0x20, 0x20],
  upper: [0x41, 0x5a],
  word: wordRanges,
  xdigit: [0x30, 0x39, 0x41, 0x46, 0x61, 0x66],
};

function isAsciiAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function isOctalDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x37;
}

/** The height of a node built over others, refused past Go's limit. */
function checkedHeight(height: number): number {
  if (height > maxHeight) throw new NestsTooDeeply();
  return height;
}

/** Thrown deep in the parse; reported with the whole pattern, as Go does. */
class NestsTooDeeply extends Error {}

const emptyNode: Node = { kind: "empty", height: 1, nullable: true };

/** 1 + the tallest item (a loop: a concatenation may have more items than a call takes arguments). */
function heightAbove(items: readonly Node[]): number {
  let tallest = 0;
  for (const item of items) tallest = Math.max(tallest, item.height);
  return tallest + 1;
}

function concatOf(items: Node[]): Node {
  if (items.length === 0) return emptyNode;
  if (items.length === 1) return items[0]!;
  return { kind: "concat", items, height: checkedHeight(heightAbove(items)), nullable: items.every((n) => n.nullable) };
}

function alternateOf(items: Node[]): Node {
  if (items.length === 1) return items[0]!;
  return { kind: "alternate", items, height: checkedHeight(heightAbove(items)), nullable: items.some((n) => n.nullable) };
}

/** Go's repeatIsValid: nested counted repetitions may not multiply past maxRepeat copies. */
function repeatIsValid(n: Node, budget: number): boolean {
  let remaining = budget;
  if (n.kind === "repeat" && n.counted) {
    let m = n.max;
    if (m === 0) return true;
    if (m < 0) m = n.min;
    if (m > remaining) return false;
    if (m > 0) remaining = Math.floor(remaining / m);
  }
  switch (n.kind) {
    case "concat":
    case "alternate":
      return n.items.every((item) => repeatIsValid(item, remaining));
    case "capture":
    case "repeat":
      return repeatIsValid(n.sub, remaining);
    default:
      return true;
  }
}

export function parse(pattern: string): Node {
  try {
    return new Parser(pattern).parseWhole();
  } catch (error) {
    if (error instanceof NestsTooDeeply) throw syntaxError("expression nests too deeply", pattern);
    throw error;
  }
}

class Parser {
  private pos = 0;
  private depth = 0;
  private flags: Flags = { foldCase: false, multiLine: false, dotNL: false, nonGreedy: false };

  constructor(private readonly pattern: string) {}

  parseWhole(): Node {
    const result = this.parseAlternation();
    if (this.pos < this.pattern.length) throw syntaxError("unexpected )", this.pattern);
    return result;
  }

  /** The code point at i (a lone surrogate reads as U+FFFD) and the index after it. */
  private codePointAt(i: number): [number, number] {
    const c = this.pattern.codePointAt(i)!;
    if (c > 0xffff) return [c, i + 2];
    return [c >= 0xd800 && c <= 0xdfff ? 0xfffd : c, i + 1];
  }

  private charAt(i: number): string | undefined {
    return i < this.pattern.length ? this.pattern[i] : undefined;
  }

  private parseAlternation(): Node {
    const items = [this.parseConcat()];
    while (this.charAt(this.pos) === "|") {
      this.pos++;
      items.push(this.parseConcat());
    }
    return alternateOf(items);
  }

  private parseConcat(): Node {
    const items: Node[] = [];
    // Where the previous token began, when it was a repetition operator: a** is an error in Perl syntax.
    let lastRepeatStart = -1;
    while (this.pos < this.pattern.length) {
      const start = this.pos;
      const ch = this.pattern[start]!;
      if (ch === "|" || ch === ")") break;
      let repeated = false;
      switch (ch) {
        case "(":
          this.parseGroup(items);
          break;
        case "^":
          this.pos++;
          items.push(this.assertion(this.flags.multiLine ? "beginLine" : "beginText"));
          break;
        case "$":
          this.pos++;
          items.push(this.assertion(this.flags.multiLine ? "endLine" : "endText"));
          break;
        case ".":
          this.pos++;
          items.push(this.classOf([rangesItem(this.flags.dotNL ? [0, maxCodePoint] : [0, 0x09, 0x0b, maxCodePoint])], false, false));
          break;
        case "[":
          items.push(this.parseClass());
          break;
        case "*":
        case "+":
        case "?": {
          this.pos++;
          const [min, max] = ch === "*" ? [0, -1] : ch === "+" ? [1, -1] : [0, 1];
          this.applyRepeat(items, start, min, max, false, lastRepeatStart);
          repeated = true;
          break;
        }
        case "{": {
          const counts = this.parseRepeatCounts(start);
          if (counts === undefined) {
            this.pos++;
            items.push(this.literal(0x7b));
            break;
          }
          const [min, max, end] = counts;
          if (min < 0 || min > maxRepeat || max > maxRepeat || (max >= 0 && min > max)) {
            throw syntaxError("invalid repeat count", this.pattern.slice(start, end));
          }
          this.pos = end;
          this.applyRepeat(items, start, min, max, true, lastRepeatStart);
          repeated = true;
          break;
        }
        case "\\":
          this.parseBackslash(items);
          break;
        default: {
          const [c, next] = this.codePointAt(start);
          this.pos = next;
          items.push(this.literal(c));
        }
      }
      lastRepeatStart = repeated ? start : -1;
    }
    return concatOf(items);
  }

  private assertion(assertion: Assertion): Node {
    return { kind: "assert", assertion, height: 1, nullable: true };
  }

  private literal(codePoint: number): Node {
    return { kind: "literal", codePoint, fold: this.flags.foldCase, height: 1, nullable: false };
  }

  private classOf(items: ClassItem[], negated: boolean, fold: boolean): Node {
    return { kind: "class", cls: { items, negated, fold }, height: 1, nullable: false };
  }

  /** Applies * + ? {n,m} (optionally followed by ? for the other greediness) to the last item. */
  private applyRepeat(items: Node[], opStart: number, min: number, max: number, counted: boolean, lastRepeatStart: number): void {
    let greedy = !this.flags.nonGreedy;
    if (this.charAt(this.pos) === "?") {
      this.pos++;
      greedy = !greedy;
    }
    if (lastRepeatStart >= 0) {
      throw syntaxError("invalid nested repetition operator", this.pattern.slice(lastRepeatStart, this.pos));
    }
    const sub = items.pop();
    if (sub === undefined) throw syntaxError("missing argument to repetition operator", this.pattern.slice(opStart, this.pos));
    const repeat: Node = {
      kind: "repeat",
      sub,
      min,
      max,
      greedy,
      counted,
      height: checkedHeight(sub.height + 1),
      nullable: min === 0 || sub.nullable,
    };
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(repeat, maxRepeat)) {
      throw syntaxError("invalid repeat count", this.pattern.slice(opStart, this.pos));
    }
    items.push(repeat);
  }

  /** {n}, {n,} or {n,m} at start: [min, max (-1 unbounded), end], min -1 when a number is too big; undefined when not a repeat. */
  private parseRepeatCounts(start: number): [number, number, number] | undefined {
    let i = start + 1;
    const first = this.parseInt(i);
    if (first === undefined) return undefined;
    let [min, max] = [first[0], first[0]];
    i = first[1];
    if (this.charAt(i) === ",") {
      i++;
      if (this.charAt(i) === "}") max = -1;
      else {
        const second = this.parseInt(i);
        if (second === undefined) return undefined;
        max = second[0];
        i = second[1];
        if (max < 0) min = -1;
      }
    }
    if (this.charAt(i) !== "}") return undefined;
    return [min, max, i + 1];
  }

  /** Decimal digits without a leading zero: [value (-1 when too long to matter), end]. */
  private parseInt(start: number): [number, number] | undefined {
    let end = start;
    while (end < this.pattern.length && this.pattern[end]! >= "0" && this.pattern[end]! <= "9") end++;
    if (end === start || (end - start >= 2 && this.pattern[start] === "0")) return undefined;
    return [end - start > 8 ? -1 : Number(this.pattern.slice(start, end)), end];
  }

  private parseGroup(items: Node[]): void {
    const start = this.pos;
    // Flags set inside a group, (?i:…) included, end with it.
    const saved = { ...this.flags };
    let capture = true;
    if (this.charAt(start + 1) === "?") {
      const rest = this.pattern.length - start;
      const named = (rest > 4 && this.pattern.startsWith("(?P<", start)) || (rest > 3 && this.pattern.startsWith("(?<", start));
      if (named) {
        this.parseCaptureName(start);
      } else {
        const opensGroup = this.parseFlags(start);
        if (!opensGroup) return;
        capture = false;
      }
    } else {
      this.pos++;
    }
    if (++this.depth > maxHeight) throw new NestsTooDeeply();
    const sub = this.parseAlternation();
    if (this.pos >= this.pattern.length) throw syntaxError("missing closing )", this.pattern);
    this.pos++;
    this.flags = saved;
    this.depth--;
    items.push(capture ? { kind: "capture", sub, height: checkedHeight(sub.height + 1), nullable: sub.nullable } : sub);
  }

  /** (?P<name> or (?<name>: checks the name and moves past it. */
  private parseCaptureName(start: number): void {
    const end = this.pattern.indexOf(">", start);
    if (end < 0) throw syntaxError("invalid named capture", this.pattern.slice(start));
    const nameStart = this.pattern[start + 2] === "P" ? start + 4 : start + 3;
    if (!/^[A-Za-z0-9_]+$/.test(this.pattern.slice(nameStart, end))) {
      throw syntaxError("invalid named capture", this.pattern.slice(start, end + 1));
    }
    this.pos = end + 1;
  }

  /** (?flags) or (?flags: — sets the flags; true when a non-capturing group opens. */
  private parseFlags(start: number): boolean {
    const flags = { ...this.flags };
    let i = start + 2;
    let negate = false;
    let sawFlag = false;
    while (i < this.pattern.length) {
      const [c, next] = this.codePointAt(i);
      i = next;
      const ch = String.fromCodePoint(c);
      if (ch === "i" || ch === "m" || ch === "s" || ch === "U") {
        const value = !negate;
        if (ch === "i") flags.foldCase = value;
        else if (ch === "m") flags.multiLine = value;
        else if (ch === "s") flags.dotNL = value;
        else flags.nonGreedy = value;
        sawFlag = true;
      } else if (ch === "-" && !negate) {
        negate = true;
        sawFlag = false;
      } else if ((ch === ":" || ch === ")") && !(negate && !sawFlag)) {
        this.pos = i;
        this.flags = flags;
        return ch === ":";
      } else {
        break;
      }
    }
    throw syntaxError("invalid or unsupported Perl syntax", this.pattern.slice(start, i));
  }

  private parseBackslash(items: Node[]): void {
    const start = this.pos;
    const next = this.charAt(start + 1);
    const simple: Partial<Record<string, Assertion>> = { A: "beginText", b: "wordBoundary", B: "noWordBoundary", z: "endText" };
    const assertion = next === undefined ? undefined : simple[next];
    if (assertion !== undefined) {
      this.pos += 2;
      items.push(this.assertion(assertion));
      return;
    }
    if (next === "C") throw syntaxError("invalid escape sequence", "\\C");
    if (next === "Q") {
      // \Q…\E: everything up to \E (or the end) is literal.
      const end = this.pattern.indexOf("\\E", start + 2);
      const stop = end < 0 ? this.pattern.length : end;
      for (let i = start + 2; i < stop; ) {
        const [c, after] = this.codePointAt(i);
        items.push(this.literal(c));
        i = after;
      }
      this.pos = end < 0 ? stop : end + 2;
      return;
    }
    const unicode = this.parseUnicodeClass(start);
    if (unicode !== undefined) {
      items.push(this.classOf([unicode], false, this.flags.foldCase));
      return;
    }
    const perl = this.parsePerlClass(start);
    if (perl !== undefined) {
      items.push(this.classOf([perl], false, this.flags.foldCase));
      return;
    }
    const [c, after] = this.parseEscape(start);
    this.pos = after;
    items.push(this.literal(c));
  }

  /** \d \D \s \S \w \W at start, moving past it. */
  private parsePerlClass(start: number): ClassItem | undefined {
    const letter = this.charAt(start + 1);
    if (letter === undefined) return undefined;
    if (!"dswDSW".includes(letter)) return undefined;
    this.pos = start + 2;
    const lower = letter.toLowerCase();
    return rangesItem(perlClasses[lower]!, letter !== lower);
  }

  /** \pL, \p{Greek}, \PL, \p{^L} at start, moving past it; undefined when not \p or \P. */
  private parseUnicodeClass(start: number): ClassItem | undefined {
    const letter = this.charAt(start + 1);
    if (letter !== "p" && letter !== "P") return undefined;
    let negated = letter === "P";
    let name: string;
    let end: number;
    if (start + 2 >= this.pattern.length) {
      name = "";
      end = start + 2;
    } else if (this.pattern[start + 2] !== "{") {
      end = this.codePointAt(start + 2)[1];
      name = this.pattern.slice(start + 2, end);
    } else {
      const close = this.pattern.indexOf("}", start);
      if (close < 0) throw syntaxError("invalid character class range", this.pattern.slice(start));
      name = this.pattern.slice(start + 3, close);
      end = close + 1;
    }
    const sequence = this.pattern.slice(start, end);
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    const property = unicodeProperty(name);
    if (property === undefined) throw syntaxError("invalid character class range", sequence);
    this.pos = end;
    return { kind: "property", property, negated: negated !== property.negated };
  }

  /** A single-character escape at start: [code point, index after]. */
  private parseEscape(start: number): [number, number] {
    if (start + 1 >= this.pattern.length) throw syntaxError("trailing backslash at end of expression", "");
    const [c, afterC] = this.codePointAt(start + 1);
    let i = afterC;
    const invalid = (): RegexSyntaxError => syntaxError("invalid escape sequence", this.pattern.slice(start, i));
    if (c < 0x80 && !isAsciiAlnum(c)) return [c, i];
    const named: Partial<Record<number, number>> = { 0x61: 7, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9, 0x76: 11 };
    const control = named[c];
    if (control !== undefined) return [control, i];
    if (c >= 0x31 && c <= 0x37 && !isOctalDigit(this.pattern.charCodeAt(i))) throw invalid(); // \1: a backreference
    if (c >= 0x30 && c <= 0x37) {
      let value = c - 0x30;
      for (let n = 1; n < 3 && isOctalDigit(this.pattern.charCodeAt(i)); n++) value = value * 8 + this.pattern.charCodeAt(i++) - 0x30;
      return [value, i];
    }
    if (c !== 0x78) throw invalid();
    // \x41 or \x{10FFFF}
    if (i >= this.pattern.length) throw invalid();
    const [first, afterFirst] = this.codePointAt(i);
    i = afterFirst;
    if (first === 0x7b) {
      let value = 0;
      let digits = 0;
      for (;;) {
        if (i >= this.pattern.length) throw invalid();
        const [d, afterD] = this.codePointAt(i);
        i = afterD;
        if (d === 0x7d) break;
        const v = hexValue(d);
        if (v < 0) throw invalid();
        value = value * 16 + v;
        if (value > 0x10ffff) throw invalid();
        digits++;
      }
      if (digits === 0) throw invalid();
      return [value, i];
    }
    if (i >= this.pattern.length) throw invalid();
    const [second, afterSecond] = this.codePointAt(i);
    i = afterSecond;
    const [x, y] = [hexValue(first), hexValue(second)];
    if (x < 0 || y < 0) throw invalid();
    return [x * 16 + y, i];
  }

  /** A bracketed class [...] at this.pos. */
  private parseClass(): Node {
    const classStart = this.pos;
    let i = classStart + 1;
    let negated = false;
    if (this.charAt(i) === "^") {
      negated = true;
      i++;
    }
    const items: ClassItem[] = [];
    const singles: number[] = [];
    let first = true; // ] is a literal as the first character
    while (i >= this.pattern.length || this.pattern[i] !== "]" || first) {
      first = false;
      if (this.pattern.startsWith("[:", i) && i + 2 < this.pattern.length) {
        const close = this.pattern.indexOf(":]", i + 2);
        if (close >= 0) {
          const name = this.pattern.slice(i, close + 2);
          const inner = name.slice(2, -2);
          const negatedPosix = inner.startsWith("^");
          const posixName = negatedPosix ? inner.slice(1) : inner;
          const ranges = Object.hasOwn(posixClasses, posixName) ? posixClasses[posixName] : undefined;
          if (ranges === undefined) throw syntaxError("invalid character class range", name);
          items.push(rangesItem(ranges, negatedPosix));
          i = close + 2;
          continue;
        }
      }
      this.pos = i;
      const special = this.parseUnicodeClass(i) ?? this.parsePerlClass(i);
      if (special !== undefined) {
        items.push(special);
        i = this.pos;
        continue;
      }
      const rangeStart = i;
      let lo: number;
      [lo, i] = this.parseClassChar(i, classStart);
      let hi = lo;
      if (i + 1 < this.pattern.length && this.pattern[i] === "-" && this.pattern[i + 1] !== "]") {
        [hi, i] = this.parseClassChar(i + 1, classStart);
        if (hi < lo) throw syntaxError("invalid character class range", this.pattern.slice(rangeStart, i));
      }
      singles.push(lo, hi);
    }
    this.pos = i + 1;
    if (singles.length > 0) items.push(rangesItem(singles));
    return this.classOf(items, negated, this.flags.foldCase);
  }

  private parseClassChar(i: number, classStart: number): [number, number] {
    if (i >= this.pattern.length) throw syntaxError("missing closing ]", this.pattern.slice(classStart));
    if (this.pattern[i] === "\\") return this.parseEscape(i);
    return this.codePointAt(i);
  }
}
