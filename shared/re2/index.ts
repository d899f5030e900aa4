// Regular expressions with RE2 syntax and Go's semantics, matched in time
// linear in the input: a Thompson NFA run as a Pike VM (Russ Cox, "Regular
// Expression Matching: the Virtual Machine Approach"), leftmost-first as Go's
// regexp. CEL's matches() and Kubernetes' find/findAll use it; the patterns
// and the inputs come from anyone, so nothing here may backtrack.
//
// Supported: Go's regexp/syntax (Perl flags i, m, s, U; classes, POSIX
// classes, \d \s \w, \pN / \p{Greek}, \Q…\E, \x{…}, octal, anchors \A \z ^ $,
// \b \B, greedy and lazy repetition up to 1000, (?P<name>) and (?<name>)
// groups). Not supported, as in Go: backreferences, lookaround. Captures are
// not reported (nothing here needs them): groups only group.

import { Parser, RegexSyntaxError, type AssertKind, type Node, type Ranges } from "./parse.js";

export interface Regex {
  /** Go's MatchString: true when the pattern matches anywhere in s. */
  test(s: string): boolean;
  /** Go's FindString: the leftmost-first match, or undefined when there is none. */
  find(s: string): string | undefined;
  /** Go's FindAllString(s, limit): successive non-overlapping matches; limit < 0 for all. */
  findAll(s: string, limit: number): string[];
  /** Instructions in the compiled program: the work per input code point. */
  readonly programSize: number;
  readonly source: string;
}

export type CompileResult = { ok: true; regex: Regex } | { ok: false; error: string };

/** Bounds a program (Go refuses programs over its own size limit the same way). */
const MAX_INSTRUCTIONS = 100_000;

const enum Op {
  Char,
  Match,
  Split,
  Jmp,
  Assert,
}

interface Inst {
  op: Op;
  /** Jmp target, Split's preferred branch. */
  x: number;
  /** Split's other branch. */
  y: number;
  ranges: Ranges;
  negated: boolean;
  fold: boolean;
  kind: AssertKind;
}

const blank = (op: Op): Inst => ({ op, x: 0, y: 0, ranges: [], negated: false, fold: false, kind: "beginText" });

/** Instructions a node compiles to, computed before any expansion so a huge repetition is refused at once. */
function sizeOf(node: Node): number {
  switch (node.op) {
    case "empty":
      return 0;
    case "char":
    case "assert":
      return 1;
    case "concat":
      return node.parts.reduce((sum, part) => sum + sizeOf(part), 0);
    case "alternate":
      return node.choices.reduce((sum, choice) => sum + sizeOf(choice) + 2, 0);
    case "repeat": {
      const inner = sizeOf(node.node);
      return node.min * inner + (node.max === -1 ? inner + 2 : (node.max - node.min) * (inner + 1));
    }
  }
}

class Compiler {
  readonly prog: Inst[] = [];

  emit(inst: Inst): number {
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  node(node: Node): void {
    switch (node.op) {
      case "empty":
        return;
      case "char":
        this.emit({ ...blank(Op.Char), ranges: node.ranges, negated: node.negated, fold: node.fold });
        return;
      case "assert":
        this.emit({ ...blank(Op.Assert), kind: node.kind });
        return;
      case "concat":
        for (const part of node.parts) this.node(part);
        return;
      case "alternate": {
        const jumps: number[] = [];
        node.choices.forEach((choice, i) => {
          if (i === node.choices.length - 1) return this.node(choice);
          const split = this.emit(blank(Op.Split));
          this.prog[split]!.x = split + 1;
          this.node(choice);
          jumps.push(this.emit(blank(Op.Jmp)));
          this.prog[split]!.y = this.prog.length;
        });
        for (const jump of jumps) this.prog[jump]!.x = this.prog.length;
        return;
      }
      case "repeat":
        for (let i = 0; i < node.min; i++) this.node(node.node);
        if (node.max === -1) this.star(node.node, node.greedy);
        else this.optionals(node.node, node.max - node.min, node.greedy);
    }
  }

  #split(split: number, body: number, skip: number, greedy: boolean): void {
    const inst = this.prog[split]!;
    [inst.x, inst.y] = greedy ? [body, skip] : [skip, body];
  }

  star(node: Node, greedy: boolean): void {
    const split = this.emit(blank(Op.Split));
    this.node(node);
    const back = this.emit(blank(Op.Jmp));
    this.prog[back]!.x = split;
    this.#split(split, split + 1, this.prog.length, greedy);
  }

  /** `count` nested optional copies: (x(x(x)?)?)?, so a later copy is tried only after an earlier one matched. */
  optionals(node: Node, count: number, greedy: boolean): void {
    const splits: number[] = [];
    for (let i = 0; i < count; i++) {
      splits.push(this.emit(blank(Op.Split)));
      this.node(node);
    }
    for (const split of splits) this.#split(split, split + 1, this.prog.length, greedy);
  }
}

const isWord = (cp: number) => (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || cp === 0x5f || (cp >= 0x61 && cp <= 0x7a);

/** Code points of s; a lone surrogate reads as U+FFFD, as Go reads invalid UTF-8. Also the UTF-16 offset of each. */
function decode(s: string): { cps: Int32Array; offsets: Int32Array } {
  const cps = new Int32Array(s.length);
  const offsets = new Int32Array(s.length + 1);
  let n = 0;
  for (let i = 0; i < s.length; n++) {
    offsets[n] = i;
    const cp = s.codePointAt(i)!;
    cps[n] = cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
    i += cp > 0xffff ? 2 : 1;
  }
  offsets[n] = s.length;
  return { cps: cps.subarray(0, n), offsets: offsets.subarray(0, n + 1) };
}

class Program implements Regex {
  readonly programSize: number;
  readonly #prog: Inst[];
  readonly #properties: ReadonlyArray<{ regex: RegExp; negated: boolean }>;

  constructor(
    readonly source: string,
    prog: Inst[],
    properties: ReadonlyArray<{ regex: RegExp; negated: boolean }>,
  ) {
    this.#prog = prog;
    this.programSize = prog.length;
    this.#properties = properties;
  }

  test(s: string): boolean {
    return this.#exec(decode(s).cps, 0, true) !== undefined;
  }

  find(s: string): string | undefined {
    const { cps, offsets } = decode(s);
    const match = this.#exec(cps, 0, false);
    return match && s.slice(offsets[match[0]], offsets[match[1]]);
  }

  findAll(s: string, limit: number): string[] {
    const { cps, offsets } = decode(s);
    const out: string[] = [];
    const max = limit < 0 ? cps.length + 1 : limit;
    // Go's allMatches: an empty match right after the previous match is skipped.
    for (let pos = 0, previousEnd = -1; out.length < max && pos <= cps.length; ) {
      const match = this.#exec(cps, pos, false);
      if (!match) break;
      let accept = true;
      if (match[1] === match[0]) {
        if (match[0] === previousEnd) accept = false;
        pos = match[1] + 1;
      } else pos = match[1];
      previousEnd = match[1];
      if (accept) out.push(s.slice(offsets[match[0]], offsets[match[1]]));
    }
    return out;
  }

  #charMatches(inst: Inst, cp: number): boolean {
    let hit = this.#inRanges(inst.ranges, cp);
    if (!hit && inst.fold) {
      const c = String.fromCodePoint(cp);
      const lower = c.toLowerCase();
      const upper = c.toUpperCase();
      hit = (lower.length <= 2 && this.#inRanges(inst.ranges, lower.codePointAt(0)!)) || (upper.length <= 2 && this.#inRanges(inst.ranges, upper.codePointAt(0)!));
    }
    return hit !== inst.negated;
  }

  #inRanges(ranges: Ranges, cp: number): boolean {
    for (const [low, high] of ranges) {
      if (low > 0x10ffff) {
        const property = this.#properties[low - 0x110000]!;
        if (property.regex.test(String.fromCodePoint(cp)) !== property.negated) return true;
      } else if (cp < low) return false;
      else if (cp <= high) return true;
    }
    return false;
  }

  #assert(kind: AssertKind, cps: Int32Array, pos: number): boolean {
    switch (kind) {
      case "beginText":
        return pos === 0;
      case "endText":
        return pos === cps.length;
      case "beginLine":
        return pos === 0 || cps[pos - 1] === 10;
      case "endLine":
        return pos === cps.length || cps[pos] === 10;
      case "wordBoundary":
      case "notWordBoundary": {
        const boundary = (pos > 0 && isWord(cps[pos - 1]!)) !== (pos < cps.length && isWord(cps[pos]!));
        return kind === "wordBoundary" ? boundary : !boundary;
      }
    }
  }

  /** The leftmost-first match starting at or after `start`, as code point indices; with `any`, the first match found. */
  #exec(cps: Int32Array, start: number, any: boolean): [number, number] | undefined {
    const size = this.#prog.length;
    const lists = [0, 1].map(() => ({ pcs: new Int32Array(size), starts: new Int32Array(size), marks: new Int32Array(size).fill(-1), n: 0 }));
    const stack = new Int32Array(size * 2 + 2);
    let [current, next] = lists as [(typeof lists)[0], (typeof lists)[0]];
    // Adds the threads reachable from pc without consuming input, in priority order.
    const add = (list: typeof current, pc0: number, threadStart: number, pos: number) => {
      let top = 0;
      stack[top++] = pc0;
      while (top > 0) {
        const pc = stack[--top]!;
        if (list.marks[pc] === pos) continue;
        list.marks[pc] = pos;
        const inst = this.#prog[pc]!;
        switch (inst.op) {
          case Op.Jmp:
            stack[top++] = inst.x;
            break;
          case Op.Split:
            stack[top++] = inst.y;
            stack[top++] = inst.x;
            break;
          case Op.Assert:
            if (this.#assert(inst.kind, cps, pos)) stack[top++] = pc + 1;
            break;
          default:
            list.pcs[list.n] = pc;
            list.starts[list.n++] = threadStart;
        }
      }
    };
    let match: [number, number] | undefined;
    for (let pos = start; pos <= cps.length; pos++) {
      if (!match) add(current, 0, pos, pos);
      // No thread alive: done once something matched; otherwise the next position starts afresh.
      if (current.n === 0) {
        if (match) break;
        continue;
      }
      const cp = pos < cps.length ? cps[pos]! : -1;
      next.n = 0;
      for (let k = 0; k < current.n; k++) {
        const pc = current.pcs[k]!;
        const inst = this.#prog[pc]!;
        if (inst.op === Op.Match) {
          match = [current.starts[k]!, pos];
          if (any) return match;
          break; // lower-priority threads lose to this match
        }
        if (cp >= 0 && this.#charMatches(inst, cp)) add(next, pc + 1, current.starts[k]!, pos + 1);
      }
      [current, next] = [next, current];
    }
    return match;
  }
}

/** Compiles `pattern`, or says why not in Go's words. */
export function compileRegex(pattern: string): CompileResult {
  try {
    const parser = new Parser(pattern);
    const tree = parser.parse();
    if (sizeOf(tree) + 1 > MAX_INSTRUCTIONS) return { ok: false, error: "error parsing regexp: expression too large" };
    const compiler = new Compiler();
    compiler.node(tree);
    compiler.emit(blank(Op.Match));
    return { ok: true, regex: new Program(pattern, compiler.prog, parser.properties) };
  } catch (e) {
    if (e instanceof RegexSyntaxError) return { ok: false, error: e.message };
    throw e;
  }
}

