// RE2 syntax (Go's regexp/syntax, Perl flags) parsed into a small tree.
// Errors read as Go's regexp.Compile writes them. Nothing here backtracks:
// the parser is one pass over the pattern's code points.

/** Inclusive code point ranges, sorted. */
export type Ranges = ReadonlyArray<readonly [number, number]>;

export type Node =
  | { op: "empty" }
  | { op: "char"; ranges: Ranges; negated: boolean; fold: boolean }
  | { op: "assert"; kind: AssertKind }
  | { op: "concat"; parts: Node[] }
  | { op: "alternate"; choices: Node[] }
  | { op: "repeat"; node: Node; min: number; max: number; greedy: boolean };

export type AssertKind = "beginText" | "endText" | "beginLine" | "endLine" | "wordBoundary" | "notWordBoundary";

/** Go's limit on a repetition count. */
const MAX_REPEAT = 1000;
/** Go's limit on nesting (maxHeight). */
const MAX_DEPTH = 1000;
/** How much of a caller's pattern an error quotes. */
const QUOTE_LIMIT = 64;

export class RegexSyntaxError extends Error {}

function fail(code: string, text: string): never {
  const quoted = [...text].length > QUOTE_LIMIT ? `${[...text].slice(0, QUOTE_LIMIT).join("")}…` : text;
  throw new RegexSyntaxError(`error parsing regexp: ${code}: \`${quoted}\``);
}

interface Flags {
  fold: boolean;
  multiLine: boolean;
  dotAll: boolean;
  ungreedy: boolean;
}

const ANY: Ranges = [[0, 0x10ffff]];
const ANY_BUT_NEWLINE: Ranges = [
  [0, 9],
  [11, 0x10ffff],
];
const DIGIT: Ranges = [[0x30, 0x39]];
const SPACE: Ranges = [
  [9, 10],
  [12, 13],
  [32, 32],
];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const POSIX: Record<string, Ranges> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0, 0x7f]],
  blank: [
    [9, 9],
    [32, 32],
  ],
  cntrl: [
    [0, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [9, 13],
    [32, 32],
  ],
  upper: [[0x41, 0x5a]],
  word: WORD,
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/** Sorted, merged ranges. */
export function normalize(ranges: Iterable<readonly [number, number]>): Array<[number, number]> {
  const sorted = [...ranges].map(([a, b]): [number, number] => [a, b]).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

export function negate(ranges: Ranges): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [a, b] of normalize(ranges)) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/** A Unicode class (\pL, \p{Greek}) as a membership test: JS's property escapes, only ever run on one code point. */
const unicodeClasses = new Map<string, RegExp>();
function unicodeClass(name: string, text: string): RegExp {
  const known = unicodeClasses.get(name);
  if (known) return known;
  if (!/^[A-Za-z_]{1,40}$/.test(name)) fail("invalid character class range", text);
  const source = name === "Any" ? "[\\u{0}-\\u{10FFFF}]" : /^[A-Z][a-z&]?$/.test(name) ? `\\p{General_Category=${name}}` : `\\p{Script=${name}}`;
  let regex: RegExp;
  try {
    regex = new RegExp(`^${source}$`, "u");
  } catch {
    fail("invalid character class range", text);
  }
  unicodeClasses.set(name, regex);
  return regex;
}

/** A class item: ranges, or a Unicode property test (negated or not). */
interface ClassPart {
  ranges: Array<[number, number]>;
  properties: Array<{ regex: RegExp; negated: boolean }>;
}

export class Parser {
  readonly #cps: number[];
  #pos = 0;
  #depth = 0;
  readonly #pattern: string;
  /** Unicode property tests the tree's char nodes refer to, by index (ranges above 0x10ffff). */
  readonly properties: Array<{ regex: RegExp; negated: boolean }> = [];

  constructor(pattern: string) {
    this.#pattern = pattern;
    this.#cps = Array.from(pattern, (c) => c.codePointAt(0)!);
  }

  parse(): Node {
    const flags: Flags = { fold: false, multiLine: false, dotAll: false, ungreedy: false };
    const node = this.#alternation(flags);
    if (this.#pos < this.#cps.length) fail("unexpected )", this.#pattern);
    return node;
  }

  #peek(offset = 0): number | undefined {
    return this.#cps[this.#pos + offset];
  }

  #text(from: number, to = this.#pos): string {
    return String.fromCodePoint(...this.#cps.slice(from, to));
  }

  #alternation(flags: Flags): Node {
    if (++this.#depth > MAX_DEPTH) fail("expression nests too deeply", this.#pattern);
    const choices = [this.#concat(flags)];
    while (this.#peek() === 0x7c /* | */) {
      this.#pos++;
      choices.push(this.#concat(flags));
    }
    this.#depth--;
    return choices.length === 1 ? choices[0]! : { op: "alternate", choices };
  }

  #concat(flags: Flags): Node {
    const parts: Node[] = [];
    for (;;) {
      const c = this.#peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) break;
      if (c === 0x5c && this.#peek(1) === 0x51 /* \Q */) {
        // Literal text up to \E: a repetition after it applies to its last character, as in Go.
        const literals = this.#quoted(flags);
        const last = literals.pop();
        parts.push(...literals);
        if (last) parts.push(this.#repetitions(last, flags));
        continue;
      }
      const atom = this.#atom(flags);
      if (atom === undefined) continue; // a flag group like (?i) changes flags and matches nothing
      parts.push(this.#repetitions(atom, flags));
    }
    return parts.length === 1 ? parts[0]! : parts.length === 0 ? { op: "empty" } : { op: "concat", parts };
  }

  /** The repetition operators after an atom; a second operator on the same atom is Go's "invalid nested repetition operator". */
  #repetitions(atom: Node, flags: Flags): Node {
    let node = atom;
    let lastOp: number | undefined;
    for (;;) {
      const opStart = this.#pos;
      const c = this.#peek();
      let min: number;
      let max: number;
      if (c === 0x2a /* * */) [min, max] = [0, -1];
      else if (c === 0x2b /* + */) [min, max] = [1, -1];
      else if (c === 0x3f /* ? */) [min, max] = [0, 1];
      else if (c === 0x7b /* { */) {
        const counted = this.#repeatCount();
        if (!counted) return node;
        [min, max] = counted;
      } else return node;
      if (c !== 0x7b) this.#pos++;
      let greedy = !flags.ungreedy;
      if (this.#peek() === 0x3f) {
        this.#pos++;
        greedy = !greedy;
      }
      if (lastOp !== undefined) fail("invalid nested repetition operator", this.#text(lastOp));
      if ((max !== -1 && min > max) || min > MAX_REPEAT || max > MAX_REPEAT) fail("invalid repeat count", this.#text(opStart));
      node = { op: "repeat", node, min, max, greedy };
      lastOp = opStart;
    }
  }

  /** `{n}`, `{n,}`, `{n,m}` at the cursor, consumed; undefined (nothing consumed) when the brace is a literal. */
  #repeatCount(): [number, number] | undefined {
    const rest = this.#text(this.#pos, Math.min(this.#cps.length, this.#pos + 24));
    const m = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!m) return undefined;
    this.#pos += m[0].length;
    const min = m[1]!.length > 4 ? MAX_REPEAT + 1 : Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? -1 : m[3]!.length > 4 ? MAX_REPEAT + 1 : Number(m[3]);
    return [min, max];
  }

  #atom(flags: Flags): Node | undefined {
    const start = this.#pos;
    const c = this.#cps[this.#pos++]!;
    switch (c) {
      case 0x28 /* ( */:
        return this.#group(flags, start);
      case 0x5b /* [ */:
        return this.#class(flags, start);
      case 0x2e /* . */:
        return { op: "char", ranges: flags.dotAll ? ANY : ANY_BUT_NEWLINE, negated: false, fold: false };
      case 0x5e /* ^ */:
        return { op: "assert", kind: flags.multiLine ? "beginLine" : "beginText" };
      case 0x24 /* $ */:
        return { op: "assert", kind: flags.multiLine ? "endLine" : "endText" };
      case 0x5c /* \ */:
        return this.#escapeAtom(flags, start);
      case 0x2a:
      case 0x2b:
      case 0x3f:
        fail("missing argument to repetition operator", this.#text(start, start + 1));
      // falls through (fail never returns)
      case 0x7b /* { */: {
        this.#pos = start;
        if (this.#repeatCount()) fail("missing argument to repetition operator", this.#text(start));
        this.#pos = start + 1;
        return literal(c, flags);
      }
      default:
        return literal(c, flags);
    }
  }

  #group(flags: Flags, start: number): Node | undefined {
    if (this.#peek() === 0x3f /* ? */) {
      const rest = this.#text(this.#pos, Math.min(this.#cps.length, this.#pos + 300));
      const named = /^\?P?<([A-Za-z0-9_]*)>/.exec(rest);
      if (named) {
        if (named[1] === "") fail("invalid named capture", this.#text(start, this.#pos + named[0].length));
        this.#pos += named[0].length;
        return this.#groupBody({ ...flags });
      }
      const flagGroup = /^\?([imsU-]*)([:)])/.exec(rest);
      if (!flagGroup || /-.*-/.test(flagGroup[1]!) || flagGroup[1]!.endsWith("-") || (flagGroup[1] === "" && flagGroup[2] === ")")) {
        const end = rest.startsWith("?P") ? 3 : 2;
        fail(rest.startsWith("?P<") || rest.startsWith("?<") ? "invalid named capture" : "invalid or unsupported Perl syntax", this.#text(start, Math.min(this.#cps.length, this.#pos + end)));
      }
      this.#pos += flagGroup[0].length;
      const next = { ...flags };
      let on = true;
      for (const f of flagGroup[1]!) {
        if (f === "-") on = false;
        else if (f === "i") next.fold = on;
        else if (f === "m") next.multiLine = on;
        else if (f === "s") next.dotAll = on;
        else next.ungreedy = on;
      }
      if (flagGroup[2] === ")") {
        Object.assign(flags, next); // (?i) applies to the rest of the enclosing group
        return undefined;
      }
      return this.#groupBody(next);
    }
    return this.#groupBody({ ...flags });
  }

  #groupBody(flags: Flags): Node {
    const node = this.#alternation(flags);
    if (this.#peek() !== 0x29) fail("missing closing )", this.#pattern);
    this.#pos++;
    return node;
  }

  /** The characters of `\Q…\E` (or to the end of the pattern) as literals. */
  #quoted(flags: Flags): Node[] {
    this.#pos += 2;
    let end = this.#cps.indexOf(0x5c, this.#pos);
    while (end >= 0 && this.#cps[end + 1] !== 0x45) end = this.#cps.indexOf(0x5c, end + 1);
    const stop = end < 0 ? this.#cps.length : end;
    const literals = this.#cps.slice(this.#pos, stop).map((cp) => literal(cp, flags));
    this.#pos = end < 0 ? stop : stop + 2;
    return literals;
  }

  #escapeAtom(flags: Flags, start: number): Node {
    const c = this.#peek();
    if (c === undefined) fail("trailing backslash at end of expression", "");
    switch (c) {
      case 0x41 /* A */:
        this.#pos++;
        return { op: "assert", kind: "beginText" };
      case 0x7a /* z */:
        this.#pos++;
        return { op: "assert", kind: "endText" };
      case 0x62 /* b */:
        this.#pos++;
        return { op: "assert", kind: "wordBoundary" };
      case 0x42 /* B */:
        this.#pos++;
        return { op: "assert", kind: "notWordBoundary" };
    }
    const part = this.#classEscape(start);
    return this.#charNode(part, false, flags);
  }

  /** An escape that stands for characters (inside or outside a class): the ranges and properties it adds. */
  #classEscape(start: number): ClassPart {
    const c = this.#cps[this.#pos++]!;
    const one = (cp: number): ClassPart => ({ ranges: [[cp, cp]], properties: [] });
    switch (c) {
      case 0x64:
        return { ranges: [...DIGIT] as Array<[number, number]>, properties: [] };
      case 0x44:
        return { ranges: negate(DIGIT), properties: [] };
      case 0x73:
        return { ranges: [...SPACE] as Array<[number, number]>, properties: [] };
      case 0x53:
        return { ranges: negate(SPACE), properties: [] };
      case 0x77:
        return { ranges: [...WORD] as Array<[number, number]>, properties: [] };
      case 0x57:
        return { ranges: negate(WORD), properties: [] };
      case 0x70 /* p */:
      case 0x50 /* P */: {
        let name: string;
        if (this.#peek() === 0x7b) {
          const close = this.#cps.indexOf(0x7d, this.#pos);
          if (close < 0) fail("invalid character class range", this.#text(start));
          name = this.#text(this.#pos + 1, close);
          this.#pos = close + 1;
        } else {
          if (this.#peek() === undefined) fail("invalid character class range", this.#text(start));
          name = String.fromCodePoint(this.#cps[this.#pos++]!);
        }
        let negated = c === 0x50;
        if (name.startsWith("^")) {
          negated = !negated;
          name = name.slice(1);
        }
        return { ranges: [], properties: [{ regex: unicodeClass(name, this.#text(start)), negated }] };
      }
      case 0x61:
        return one(7);
      case 0x66:
        return one(12);
      case 0x74:
        return one(9);
      case 0x6e:
        return one(10);
      case 0x72:
        return one(13);
      case 0x76:
        return one(11);
      case 0x78 /* x */: {
        if (this.#peek() === 0x7b) {
          const close = this.#cps.indexOf(0x7d, this.#pos);
          const hex = close < 0 ? "" : this.#text(this.#pos + 1, close);
          if (!/^[0-9A-Fa-f]{1,8}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) fail("invalid escape sequence", this.#text(start, close < 0 ? this.#cps.length : close + 1));
          this.#pos = close + 1;
          return one(parseInt(hex, 16));
        }
        const hex = this.#text(this.#pos, this.#pos + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) fail("invalid escape sequence", this.#text(start, Math.min(this.#cps.length, this.#pos + 2)));
        this.#pos += 2;
        return one(parseInt(hex, 16));
      }
    }
    if (c >= 0x31 && c <= 0x37 && !(this.#peek() !== undefined && this.#peek()! >= 0x30 && this.#peek()! <= 0x37)) fail("invalid escape sequence", this.#text(start, this.#pos));
    if (c >= 0x30 && c <= 0x37) {
      // Octal: up to three digits in all.
      let value = c - 0x30;
      for (let i = 0; i < 2 && this.#peek() !== undefined && this.#peek()! >= 0x30 && this.#peek()! <= 0x37; i++) value = value * 8 + (this.#cps[this.#pos++]! - 0x30);
      return one(value);
    }
    // Escaped punctuation stands for itself; letters and digits have no meaning left.
    if (c < 0x80 && !/[0-9A-Za-z_]/.test(String.fromCharCode(c))) return one(c);
    fail("invalid escape sequence", this.#text(start, this.#pos));
  }

  #class(flags: Flags, start: number): Node {
    let negated = false;
    if (this.#peek() === 0x5e) {
      this.#pos++;
      negated = true;
    }
    const part: ClassPart = { ranges: [], properties: [] };
    let first = true;
    for (;;) {
      const c = this.#peek();
      if (c === undefined) fail("missing closing ]", this.#text(start, this.#cps.length));
      if (c === 0x5d && !first) {
        this.#pos++;
        break;
      }
      first = false;
      const itemStart = this.#pos;
      if (c === 0x5b && this.#peek(1) === 0x3a /* [: */) {
        const rest = this.#text(this.#pos, Math.min(this.#cps.length, this.#pos + 12));
        const m = /^\[:(\^?)([a-z]+):\]/.exec(rest);
        if (m) {
          const ranges = POSIX[m[2]!];
          if (!ranges) fail("invalid character class range", m[0]);
          part.ranges.push(...(m[1] ? negate(ranges) : ranges.map(([a, b]): [number, number] => [a, b])));
          this.#pos += m[0].length;
          continue;
        }
      }
      const low = this.#classChar(part, start);
      if (low === undefined) continue;
      if (this.#peek() === 0x2d && this.#peek(1) !== 0x5d && this.#peek(1) !== undefined) {
        this.#pos++;
        const high = this.#classChar(part, start);
        if (high === undefined || high < low) fail("invalid character class range", this.#text(itemStart, this.#pos));
        part.ranges.push([low, high]);
      } else part.ranges.push([low, low]);
    }
    return this.#charNode(part, negated, flags);
  }

  /** One class character, or undefined when an escape added a whole class (\d, \pL) to `part`. */
  #classChar(part: ClassPart, classStart: number): number | undefined {
    const c = this.#cps[this.#pos++]!;
    if (c !== 0x5c) return c;
    if (this.#peek() === undefined) fail("missing closing ]", this.#text(classStart, this.#cps.length));
    const escapeStart = this.#pos - 1;
    const escaped = this.#classEscape(escapeStart);
    const single = escaped.properties.length === 0 && escaped.ranges.length === 1 && escaped.ranges[0]![0] === escaped.ranges[0]![1] && !/[dDsSwW]/.test(String.fromCodePoint(this.#cps[escapeStart + 1]!));
    if (single) return escaped.ranges[0]![0];
    part.ranges.push(...escaped.ranges);
    part.properties.push(...escaped.properties);
    return undefined;
  }

  /** A char node; Unicode properties are referenced as pseudo-ranges above 0x10ffff (index into `properties`). */
  #charNode(part: ClassPart, negated: boolean, flags: Flags): Node {
    const ranges = normalize(part.ranges);
    for (const property of part.properties) {
      const index = this.properties.push(property) - 1;
      ranges.push([0x110000 + index, 0x110000 + index]);
    }
    return { op: "char", ranges, negated, fold: flags.fold };
  }
}

function literal(cp: number, flags: Flags): Node {
  return { op: "char", ranges: [[cp, cp]], negated: false, fold: flags.fold };
}
