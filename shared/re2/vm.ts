// The Pike VM: all threads advance in lockstep over the input, one code point
// at a time, at most one thread per instruction. Time is O(program size ×
// input length) whatever the pattern, memory O(program size). Threads are kept
// in priority order, which gives Go's leftmost-first match.

import { assertions, Op, type Program } from "./compile.js";

/** The input as code points (a lone surrogate is U+FFFD, as Go reads invalid UTF-8) and their UTF-16 offsets. */
export interface Text {
  readonly codePoints: Int32Array;
  /** offsets[i]: where code point i starts in the JS string; offsets[length] is the string's length. */
  readonly offsets: Int32Array;
}

/** Buffers toText fills for inputs up to this many UTF-16 units, kept between calls; longer inputs get their own. */
const REUSED_LENGTH = 1 << 16;
let codePointBuffer = new Int32Array(256);
let offsetBuffer = new Int32Array(257);

/**
 * The input as code points. The result is a view of buffers the next call
 * overwrites: a caller uses it before converting another string.
 */
export function toText(s: string): Text {
  let codePoints = codePointBuffer;
  let offsets = offsetBuffer;
  if (s.length > REUSED_LENGTH) {
    codePoints = new Int32Array(s.length);
    offsets = new Int32Array(s.length + 1);
  } else if (s.length > codePoints.length) {
    const capacity = Math.min(REUSED_LENGTH, 2 ** Math.ceil(Math.log2(s.length)));
    codePoints = codePointBuffer = new Int32Array(capacity);
    offsets = offsetBuffer = new Int32Array(capacity + 1);
  }
  let n = 0;
  for (let i = 0; i < s.length; n++) {
    offsets[n] = i;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        codePoints[n] = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        i += 2;
        continue;
      }
    }
    codePoints[n] = c >= 0xd800 && c <= 0xdfff ? 0xfffd : c;
    i += 1;
  }
  offsets[n] = s.length;
  return { codePoints: codePoints.subarray(0, n), offsets: offsets.subarray(0, n + 1) };
}

/** Threads waiting at Char or Match instructions, in priority order. */
class ThreadList {
  readonly pcs: Int32Array;
  readonly starts: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.pcs = new Int32Array(capacity);
    this.starts = new Int32Array(capacity);
  }
}

const isWordChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);

export class PikeVM {
  private current: ThreadList;
  private next: ThreadList;
  /** visited[pc] === generation: pc already followed while building the list for this position. */
  private readonly visited: Int32Array;
  private generation = 0;
  /** Positions stepped by every search so far: findAll bounds its work with it. */
  steps = 0;
  /** Each followed instruction pushes at most two, so 2 × size + 1 bounds the stack. */
  private readonly stack: Int32Array;
  /** testAnswers[i] holds test i's answer for the code point at position testAsked[i]. */
  private readonly testAsked: Int32Array;
  private readonly testAnswers: Uint8Array;

  constructor(private readonly program: Program) {
    this.current = new ThreadList(program.size);
    this.next = new ThreadList(program.size);
    this.visited = new Int32Array(program.size);
    this.stack = new Int32Array(2 * program.size + 1);
    this.testAsked = new Int32Array(program.tests.length);
    this.testAnswers = new Uint8Array(program.tests.length);
  }

  /** Whether test i accepts the code point at pos, asked at most once per position. */
  private accepts(i: number, c: number, pos: number): boolean {
    if (this.testAsked[i] !== pos + 1) {
      this.testAsked[i] = pos + 1;
      this.testAnswers[i] = this.program.tests[i]!(c) ? 1 : 0;
    }
    return this.testAnswers[i] === 1;
  }

  /**
   * The leftmost-first match starting at or after code point `from`, as
   * [start, end] in code points; with `earliest`, any match (for test()).
   */
  search(text: Text, from: number, earliest: boolean): [number, number] | undefined {
    const input = text.codePoints;
    const { op, arg } = this.program;
    this.testAsked.fill(0);
    let matchStart = -1;
    let matchEnd = -1;
    this.current.length = 0;
    this.newGeneration();
    this.addThread(this.current, 0, from, text, from);
    for (let pos = from; ; pos++) {
      this.steps++;
      const list = this.current;
      if (list.length === 0 && matchStart >= 0) break;
      this.next.length = 0;
      this.newGeneration();
      const c = pos < input.length ? input[pos]! : -1;
      for (let i = 0; i < list.length; i++) {
        const pc = list.pcs[i]!;
        if (op[pc] === Op.Match) {
          matchStart = list.starts[i]!;
          matchEnd = pos;
          if (earliest) return [matchStart, matchEnd];
          // Every thread after this one has lower priority: leftmost-first drops them.
          break;
        }
        if (c >= 0 && this.accepts(arg[pc]!, c, pos)) this.addThread(this.next, pc + 1, list.starts[i]!, text, pos + 1);
      }
      if (pos >= input.length) break;
      // A match starting further right has the lowest priority of all.
      if (matchStart < 0) this.addThread(this.next, 0, pos + 1, text, pos + 1);
      [this.current, this.next] = [this.next, this.current];
    }
    return matchStart >= 0 ? [matchStart, matchEnd] : undefined;
  }

  private newGeneration(): void {
    if (this.generation === 0x7fffffff) {
      this.visited.fill(0);
      this.generation = 0;
    }
    this.generation++;
  }

  /** Follows jumps, splits and assertions from pc at position pos, depth-first in priority order. */
  private addThread(list: ThreadList, pc0: number, start: number, text: Text, pos: number): void {
    const { op, arg, alt } = this.program;
    const { stack, visited, generation } = this;
    let top = 0;
    stack[top++] = pc0;
    while (top > 0) {
      const pc = stack[--top]!;
      if (visited[pc] === generation) continue;
      visited[pc] = generation;
      switch (op[pc]) {
        case Op.Jump:
          stack[top++] = arg[pc]!;
          break;
        case Op.Split:
          stack[top++] = alt[pc]!;
          stack[top++] = arg[pc]!;
          break;
        case Op.Assert:
          if (assertionHolds(arg[pc]!, text.codePoints, pos)) stack[top++] = pc + 1;
          break;
        default:
          list.pcs[list.length] = pc;
          list.starts[list.length] = start;
          list.length++;
      }
    }
  }
}

function assertionHolds(index: number, input: Int32Array, pos: number): boolean {
  const before = pos > 0 ? input[pos - 1]! : -1;
  const after = pos < input.length ? input[pos]! : -1;
  switch (assertions[index]) {
    case "beginText":
      return pos === 0;
    case "endText":
      return pos === input.length;
    case "beginLine":
      return pos === 0 || before === 0x0a;
    case "endLine":
      return pos === input.length || after === 0x0a;
    case "wordBoundary":
      return isWordChar(before) !== isWordChar(after);
    default:
      return isWordChar(before) === isWordChar(after);
  }
}
