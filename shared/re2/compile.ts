// The compiler: a syntax tree to a Thompson NFA program, Go's shape of
// instructions. Counted repetitions are expanded, so the program's size is
// computed from the tree first and refused beyond a cap before anything is
// expanded.

import { classTest, type CodePointTest, literalTest } from "./charclass.js";
import type { Assertion, Node } from "./parse.js";

export const Op = {
  /** Consume one code point accepted by tests[arg]. */
  Char: 0,
  /** Continue at arg (preferred) and at alt. */
  Split: 1,
  Jump: 2,
  /** Continue at pc+1 when the assertion assertions[arg] holds here. */
  Assert: 3,
  Match: 4,
} as const;
export type Op = (typeof Op)[keyof typeof Op];

export const assertions: readonly Assertion[] = [
  "beginText",
  "endText",
  "beginLine",
  "endLine",
  "wordBoundary",
  "noWordBoundary",
];

export interface Program {
  readonly op: Uint8Array;
  readonly arg: Int32Array;
  readonly alt: Int32Array;
  readonly tests: readonly CodePointTest[];
  readonly size: number;
}

/** Go allows about 3.3 million instructions; a public endpoint pays per instruction and per code point, so less. */
export const maxProgramSize = 100_000;

/** Instructions `emit` will produce for n (Match excluded). */
export function programSize(n: Node): number {
  switch (n.kind) {
    case "empty":
      return 0;
    case "literal":
    case "class":
    case "assert":
      return 1;
    case "concat":
      return n.items.reduce((sum, item) => sum + programSize(item), 0);
    case "alternate":
      return n.items.reduce((sum, item) => sum + programSize(item), 0) + 2 * (n.items.length - 1);
    case "capture":
      return programSize(n.sub);
    case "repeat": {
      if (n.max === 0) return 0;
      const sub = programSize(n.sub);
      if (n.max < 0) return n.min === 0 ? sub + 2 : n.min * sub + 1;
      return n.min * sub + (n.max - n.min) * (sub + 1);
    }
  }
}

export function compile(root: Node): Program {
  const emitter = new Emitter();
  emitter.emit(root);
  emitter.push(Op.Match, 0, 0);
  return emitter.program();
}

const REVERSED_ASSERTION: Partial<Record<Assertion, Assertion>> = { beginText: "endText", endText: "beginText", beginLine: "endLine", endLine: "beginLine" };

/**
 * The tree that matches the reversed texts: concatenations read backwards,
 * start and end assertions swapped. Shared subtrees (the copies a counted
 * repetition makes) stay shared, so their tests do too.
 */
export function reversed(root: Node, done = new Map<Node, Node>()): Node {
  const known = done.get(root);
  if (known !== undefined) return known;
  let n: Node;
  switch (root.kind) {
    case "concat":
      n = { ...root, items: root.items.map((item) => reversed(item, done)).reverse() };
      break;
    case "alternate":
      n = { ...root, items: root.items.map((item) => reversed(item, done)) };
      break;
    case "capture":
    case "repeat":
      n = { ...root, sub: reversed(root.sub, done) };
      break;
    case "assert":
      n = { ...root, assertion: REVERSED_ASSERTION[root.assertion] ?? root.assertion };
      break;
    default:
      n = root;
  }
  done.set(root, n);
  return n;
}

class Emitter {
  private readonly ops: Op[] = [];
  private readonly args: number[] = [];
  private readonly alts: number[] = [];
  private readonly tests: CodePointTest[] = [];
  /** Copies of one node made by counted repetition share its test, so the VM asks it once per code point. */
  private readonly testOfNode = new Map<Node, number>();

  get pc(): number {
    return this.ops.length;
  }

  push(op: Op, arg: number, alt: number): number {
    this.ops.push(op);
    this.args.push(arg);
    this.alts.push(alt);
    return this.ops.length - 1;
  }

  /** Points a Split at its two continuations, the preferred one first. */
  private patchSplit(at: number, preferred: number, other: number): void {
    this.args[at] = preferred;
    this.alts[at] = other;
  }

  /** A split that prefers `body` when greedy, `skip` when lazy. */
  private patchChoice(at: number, body: number, skip: number, greedy: boolean): void {
    if (greedy) this.patchSplit(at, body, skip);
    else this.patchSplit(at, skip, body);
  }

  emit(n: Node): void {
    switch (n.kind) {
      case "empty":
        return;
      case "literal":
      case "class":
        this.push(Op.Char, this.testIndex(n), 0);
        return;
      case "assert":
        this.push(Op.Assert, assertions.indexOf(n.assertion), 0);
        return;
      case "concat":
        for (const item of n.items) this.emit(item);
        return;
      case "capture":
        this.emit(n.sub);
        return;
      case "alternate": {
        const jumps: number[] = [];
        n.items.forEach((item, index) => {
          if (index === n.items.length - 1) {
            this.emit(item);
            return;
          }
          const split = this.push(Op.Split, 0, 0);
          this.emit(item);
          jumps.push(this.push(Op.Jump, 0, 0));
          this.patchSplit(split, split + 1, this.pc);
        });
        for (const jump of jumps) this.args[jump] = this.pc;
        return;
      }
      case "repeat":
        this.emitRepeat(n.sub, n.min, n.max, n.greedy);
        return;
    }
  }

  private testIndex(n: Node & { kind: "literal" | "class" }): number {
    let index = this.testOfNode.get(n);
    if (index === undefined) {
      index = this.tests.push(n.kind === "literal" ? literalTest(n.codePoint, n.fold) : classTest(n.cls)) - 1;
      this.testOfNode.set(n, index);
    }
    return index;
  }

  /** x{n,m} as Go simplifies it: n copies, then x* or x+, or nested (x(x)?)? for the optional copies. */
  private emitRepeat(sub: Node, min: number, max: number, greedy: boolean): void {
    if (max === 0) return;
    if (max < 0) {
      if (min === 0) {
        this.emitStar(sub, greedy);
        return;
      }
      for (let i = 0; i < min - 1; i++) this.emit(sub);
      this.emitPlus(sub, greedy);
      return;
    }
    for (let i = 0; i < min; i++) this.emit(sub);
    const splits: number[] = [];
    for (let i = 0; i < max - min; i++) {
      splits.push(this.push(Op.Split, 0, 0));
      this.emit(sub);
    }
    for (const split of splits) this.patchChoice(split, split + 1, this.pc, greedy);
  }

  private emitPlus(sub: Node, greedy: boolean): void {
    const loop = this.pc;
    this.emit(sub);
    const split = this.push(Op.Split, 0, 0);
    this.patchChoice(split, loop, split + 1, greedy);
  }

  /**
   * x*. When x can match empty, a plain loop gets the priority order wrong
   * (golang.org/issue/46123), so it is compiled as (x+)? like Go does.
   */
  private emitStar(sub: Node, greedy: boolean): void {
    const split = this.push(Op.Split, 0, 0);
    if (sub.nullable) {
      this.emitPlus(sub, greedy);
    } else {
      this.emit(sub);
      this.push(Op.Jump, split, 0);
    }
    this.patchChoice(split, split + 1, this.pc, greedy);
  }

  program(): Program {
    return {
      op: Uint8Array.from(this.ops),
      arg: Int32Array.from(this.args),
      alt: Int32Array.from(this.alts),
      tests: this.tests,
      size: this.ops.length,
    };
  }
}
