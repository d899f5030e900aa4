// The lazy DFA (RE2's approach, re2/dfa.cc): a DFA state stands for the Pike
// VM's ordered list of threads at one position, without their start
// positions, and is built on first use and kept. A state's move on a code
// point is computed once and looked up afterwards, so matching costs one
// table lookup per code point instead of one step per thread. Code points
// are read through classes (code points every test of the program answers
// alike), so a state has one transition per class, not per code point.
//
// A state is its seeds (where the previous position's threads stepped to, in
// priority order) and the kind of what came before it (start of text,
// newline, word character, other). Its threads are followed from the seeds
// when its move is computed, once the code point after the position is
// known, so $, \z, \b and \B are decided there exactly as the VM decides them.
//
// Leftmost-first, as the Pike VM: threads in priority order, a match cuts the
// threads after it, and an unanchored search keeps a seed (START) last for
// the thread that starts at the position, which a match cuts too. The
// forward search gives where the leftmost-first match ends, and its start
// when every thread that could make it started at one position (flags its
// moves keep: see forward()); else the start is the leftmost position from
// which the reversed program matches back to that end (a second DFA:
// anchored, every match counts).
//
// Memory is bounded: a DFA keeps at most MAX_CELLS transitions and thread
// entries. When a search would pass that, the cache is emptied and the search
// goes on; a search that empties it again and again with little progress
// gives up (BAIL), and the caller runs the Pike VM instead, as RE2 falls back
// to its NFA. Either way time stays linear in the input.

import { assertions, Op, type Program } from "./compile.js";

/** What a DFA holds at most: transitions plus thread entries, 4 bytes each. */
const MAX_CELLS = 1 << 15;
/** Distinct classes of code points a DFA tells apart at most. */
const MAX_CLASSES = 256;
/** Code points remembered with their class, beyond ASCII, in a direct-mapped table. */
const CLASS_TABLE = 1 << 10;

/** A search that gave up: the caller falls back to the Pike VM. */
export const BAIL = -2;

// A move's flags, kept in its transition beside the next state (8 × state).
// FRESH and MIXED say where the threads that went on (matched, or stepped
// into the next state) started: FRESH all at this position (the search's
// START thread alone), MIXED some here and some before; with neither, all
// before (where the previous position's threads started). The forward
// search follows them to know where its match starts without the reversed
// program, when that is one position (see forward()).
const MATCHED = 1;
const FRESH = 2;
const MIXED = 4;

/** What precedes a position: the start of the text, a newline, an ASCII word character, anything else. */
const BEGIN = 0;
const NEWLINE = 1;
const WORD = 2;
const OTHER = 3;

const isWordChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);

const kindOf = (c: number): number => (c < 0 ? BEGIN : c === 0x0a ? NEWLINE : isWordChar(c) ? WORD : OTHER);

/** Whether an assertion holds between what came before (its kind) and the next code point (-1: the end of the text). */
function holds(assertion: number, before: number, after: number): boolean {
  switch (assertions[assertion]) {
    case "beginText":
      return before === BEGIN;
    case "beginLine":
      return before === BEGIN || before === NEWLINE;
    case "endText":
      return after === -1;
    case "endLine":
      return after === -1 || after === 0x0a;
    case "wordBoundary":
      return (before === WORD) !== isWordChar(after);
    default:
      return (before === WORD) === isWordChar(after);
  }
}

export class LazyDFA {
  /** The pseudo-instruction START: the unanchored search's thread of the next position. */
  private readonly start: number;
  private readonly visited: Int32Array;
  private stamp = 0;
  private readonly stack: Int32Array;

  /** Per state: its seeds (and START) in priority order, and the kind of what precedes it. */
  private items: Int32Array[] = [];
  private kinds: number[] = [];
  private byKey = new Map<string, number>();
  /** transitions[state × classCapacity + class]: 8 × next state + the move's flags (MATCHED, FRESH, MIXED); -1 not computed. */
  private transitions = new Int32Array(0);
  /** Per state: the flags of its move at the end of the text, or -1 not computed. */
  private atEnd: number[] = [];
  private cells = 0;
  /** The start state for each kind of what precedes, or -1. */
  private starts = [-1, -1, -1, -1];

  private readonly asciiClass = new Int16Array(128).fill(-1);
  private readonly tableKeys = new Int32Array(CLASS_TABLE).fill(-1);
  private readonly tableClasses = new Int16Array(CLASS_TABLE);
  private readonly classBySignature = new Map<string, number>();
  /** A code point of each class, to compute moves with. */
  private readonly representatives: number[] = [];
  /** The width of a state's row of transitions: room for every class seen, in powers of two. */
  private capacity = 8;

  constructor(
    private readonly program: Program,
    /** Searches start anywhere at or after their position (forward), or only there (the reverse program). */
    private readonly unanchored: boolean,
    /** Every match counts and the last one wins (the reverse program), instead of leftmost-first. */
    private readonly longest: boolean,
  ) {
    this.start = program.size;
    this.visited = new Int32Array(program.size + 1);
    this.stack = new Int32Array(2 * program.size + 2);
    this.reset();
  }

  private reset(): void {
    this.items = [];
    this.kinds = [];
    this.byKey.clear();
    this.atEnd = [];
    this.cells = 0;
    this.starts = [-1, -1, -1, -1];
    this.transitions = new Int32Array(64 * this.capacity).fill(-1);
    // State 0 is the dead state: no threads, nothing more can match.
    this.intern(new Int32Array(0), OTHER);
  }

  /** The class of code point c, or -1 when there are too many classes to tell apart. */
  private classOf(c: number): number {
    if (c < 128) {
      const known = this.asciiClass[c]!;
      return known >= 0 ? known : (this.asciiClass[c] = this.newClassOf(c));
    }
    const slot = c & (CLASS_TABLE - 1);
    if (this.tableKeys[slot] === c) return this.tableClasses[slot]!;
    const cls = this.newClassOf(c);
    if (cls >= 0) {
      this.tableKeys[slot] = c;
      this.tableClasses[slot] = cls;
    }
    return cls;
  }

  /** What every test says of c, and its kind: the class. */
  private newClassOf(c: number): number {
    let signature = String.fromCharCode(48 + kindOf(c));
    for (const test of this.program.tests) signature += test(c) ? "1" : "0";
    const known = this.classBySignature.get(signature);
    if (known !== undefined) return known;
    if (this.representatives.length >= MAX_CLASSES) return -1;
    const cls = this.representatives.push(c) - 1;
    this.classBySignature.set(signature, cls);
    if (cls >= this.capacity) this.widen();
    return cls;
  }

  /** Twice as wide rows, the states and their transitions kept. */
  private widen(): void {
    const old = this.capacity;
    this.capacity = old * 2;
    const states = this.items.length;
    const wider = new Int32Array(Math.max(64, states) * this.capacity).fill(-1);
    for (let state = 0; state < states; state++) wider.set(this.transitions.subarray(state * old, (state + 1) * old), state * this.capacity);
    this.transitions = wider;
    this.cells += states * old;
  }

  /** The state of these threads, made when first seen; -1 when the cache is full. */
  private intern(items: Int32Array, kind: number): number {
    let key = String.fromCharCode(kind);
    for (let i = 0; i < items.length; i++) key += String.fromCharCode(items[i]! & 0xffff, items[i]! >>> 16);
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    const capacity = this.capacity;
    if (this.cells + capacity + items.length + 8 > MAX_CELLS) return -1;
    const state = this.items.length;
    this.items.push(items);
    this.kinds.push(kind);
    this.atEnd.push(-1);
    this.byKey.set(key, state);
    this.cells += capacity + items.length + 8;
    if ((state + 1) * capacity > this.transitions.length) {
      const grown = new Int32Array(Math.max(this.transitions.length * 2, (state + 1) * capacity)).fill(-1);
      grown.set(this.transitions);
      this.transitions = grown;
    }
    return state;
  }

  /** Follows jumps, splits and assertions from pc as the Pike VM's addThread does, appending the threads (Char and Match) to out. */
  private closure(pc0: number, before: number, after: number, out: number[]): void {
    const { op, arg, alt } = this.program;
    const { stack, visited, stamp } = this;
    let top = 0;
    stack[top++] = pc0;
    while (top > 0) {
      const pc = stack[--top]!;
      if (visited[pc] === stamp) continue;
      visited[pc] = stamp;
      switch (op[pc]) {
        case Op.Jump:
          stack[top++] = arg[pc]!;
          break;
        case Op.Split:
          stack[top++] = alt[pc]!;
          stack[top++] = arg[pc]!;
          break;
        case Op.Assert:
          if (holds(arg[pc]!, before, after)) stack[top++] = pc + 1;
          break;
        default:
          out.push(pc);
      }
    }
  }

  private nextStamp(): void {
    if (this.stamp === 0x7fffffff) {
      this.visited.fill(0);
      this.stamp = 0;
    }
    this.stamp++;
  }

  /** The start state after `before` (the kind of what precedes the search's first position); -1 when the cache is full. */
  private startState(before: number): number {
    const known = this.starts[before]!;
    if (known >= 0) return known;
    // No seeds, only the thread that starts here (START): the anchored search's start is START too, cut after the first move.
    const state = this.intern(Int32Array.of(this.start), before);
    if (state >= 0) this.starts[before] = state;
    return state;
  }

  /**
   * The move of `state` on code point c (-1: the end of the text): its flags
   * (MATCHED: matched before c; FRESH, MIXED) and the state after c (-1
   * when the cache is full). Its threads are made here, now that the code
   * point after the position is known, from its seeds in priority order
   * with one visited set: the Pike VM's list at that position, exactly.
   */
  private move(state: number, c: number): { flags: number; next: number } {
    const { op, arg, tests } = this.program;
    const before = this.kinds[state]!;
    const seeds = this.items[state]!;
    this.nextStamp();
    const threads: number[] = [];
    let starts = false;
    // Threads from here on start at this position (START is the last seed).
    let fresh = Infinity;
    for (const seed of seeds) {
      if (seed !== this.start) this.closure(seed, before, c, threads);
      else {
        // The thread that starts at this position, the lowest priority of all.
        fresh = threads.length;
        this.closure(0, before, c, threads);
        starts = this.unanchored;
      }
    }
    let matched = false;
    let goOnFresh = false;
    let goOnOlder = false;
    this.nextStamp();
    const next: number[] = [];
    for (let i = 0; i < threads.length; i++) {
      const pc = threads[i]!;
      if (op[pc] === Op.Match) {
        matched = true;
        if (i >= fresh) goOnFresh = true;
        else goOnOlder = true;
        // Leftmost-first: every thread after this one has lower priority, and no match may start further right.
        if (!this.longest) {
          starts = false;
          break;
        }
      } else if (c >= 0 && tests[arg[pc]!]!(c) && this.visited[pc + 1] !== this.stamp) {
        this.visited[pc + 1] = this.stamp;
        next.push(pc + 1);
        if (i >= fresh) goOnFresh = true;
        else goOnOlder = true;
      }
    }
    const flags = (matched ? MATCHED : 0) | (goOnFresh ? (goOnOlder ? MIXED : FRESH) : 0);
    if (c < 0) return { flags, next: 0 };
    if (starts) next.push(this.start);
    return { flags, next: next.length === 0 ? 0 : this.intern(Int32Array.from(next), kindOf(c)) };
  }

  /** The flags of state's move at the end of the text. */
  private atEndFlags(state: number): number {
    const known = this.atEnd[state]!;
    if (known >= 0) return known;
    return (this.atEnd[state] = this.move(state, -1).flags);
  }

  /** Code points read by every search so far: findAll bounds its work with it. */
  steps = 0;
  /** Cache resets in the current search, and steps since the last one. */
  private resets = 0;
  private sinceReset = 0;

  /** The transition of `state` on class `cls`, computed and kept; -1 when the search should give up. */
  private transition(state: number, cls: number): number {
    let moved = this.move(state, this.representatives[cls]!);
    if (moved.next < 0) {
      // The cache is full: empty it and go on from this state, unless that keeps happening with little done in between.
      if (++this.resets > 3 && this.sinceReset < 10 * this.items.length) return -1;
      this.sinceReset = 0;
      const items = this.items[state]!;
      const kind = this.kinds[state]!;
      this.reset();
      state = this.intern(items, kind);
      moved = this.move(state, this.representatives[cls]!);
      if (moved.next < 0) return -1;
    }
    const t = 8 * moved.next + moved.flags;
    this.transitions[state * this.capacity + cls] = t;
    return t;
  }

  /** The class of code point c, from the ASCII table when it can. */
  private classOfFast(c: number): number {
    if (c < 128) {
      const known = this.asciiClass[c]!;
      if (known >= 0) return known;
    }
    return this.classOf(c);
  }

  /** The state to start from, after `before` (a code point, or -1 at the start of the text). */
  private begin(before: number): number {
    this.resets = 0;
    this.sinceReset = 0;
    const state = this.startState(kindOf(before));
    if (state >= 0) return state;
    this.reset();
    return this.startState(kindOf(before));
  }

  /** Where the match the last forward() returned starts, when its threads tell; -1 when only the reversed program can. */
  matchStart = -1;

  /**
   * Runs the DFA over s from UTF-16 offset `from` to the end of the text.
   * Returns the last offset where a match ended (the first, with
   * `earliest`), -1 for none, or BAIL; where it starts in matchStart when
   * the moves' flags tell. They do when the threads that went on all
   * started at one position p: a move where only START's threads went on
   * (FRESH) sets p, one where older threads went on with them (MIXED) makes
   * it unknown, and the others keep it (the threads that went on descend
   * from the previous ones). A match is made by such a thread, so it starts
   * at p; as the Pike VM's would, whose threads carry their start.
   */
  forward(s: string, from: number, earliest: boolean): number {
    let state = this.begin(codePointBefore(s, from));
    let found = -1;
    let start = -1;
    /** Where the threads that went on last all started, or -1 when not all at one position. */
    let threadsStart = -1;
    const length = s.length;
    // Code points read, counted here and added to steps and sinceReset on the way out or before a move is computed (which reads sinceReset).
    let read = 0;
    // The tables in locals, read again after a move is computed or a class made (either may grow them).
    const ascii = this.asciiClass;
    let transitions = this.transitions;
    let capacity = this.capacity;
    for (let p = from; state > 0; ) {
      if (p === length) {
        const flags = this.atEndFlags(state);
        if ((flags & MATCHED) !== 0) {
          found = p;
          start = (flags & FRESH) !== 0 ? p : (flags & MIXED) !== 0 ? -1 : threadsStart;
        }
        break;
      }
      let c = s.charCodeAt(p);
      let width = 1;
      let cls = c < 128 ? ascii[c]! : -1;
      if (cls < 0) {
        if (c >= 0xd800 && c <= 0xdfff) {
          c = codePointAt(s, p);
          if (c > 0xffff) width = 2;
        }
        if ((cls = this.classOf(c)) < 0) {
          found = BAIL;
          break;
        }
        transitions = this.transitions;
        capacity = this.capacity;
      }
      let t = transitions[state * capacity + cls]!;
      if (t < 0) {
        read = this.count(read);
        if ((t = this.transition(state, cls)) < 0) {
          found = BAIL;
          break;
        }
        transitions = this.transitions;
        capacity = this.capacity;
      }
      read++;
      if ((t & (FRESH | MIXED)) !== 0) threadsStart = (t & FRESH) !== 0 ? p : -1;
      if ((t & MATCHED) !== 0) {
        found = p;
        start = threadsStart;
        if (earliest) break;
      }
      state = t >> 3;
      p += width;
    }
    if (state < 0) found = BAIL;
    this.count(read);
    this.matchStart = found >= 0 ? start : -1;
    return found;
  }

  /**
   * Whether a search from `pos` (before the end) would end at once in an
   * empty match there, by moves already computed: the start state's move on
   * the next code point matched before it and left no thread (x* where there
   * is no x). findAll asks it first at each position: a dense run of empty
   * matches then costs no search each. Counts the code point read, as the
   * search would.
   */
  emptyAt(s: string, pos: number): boolean {
    const c = s.charCodeAt(pos);
    const cls = c < 128 ? this.asciiClass[c]! : -1;
    if (cls < 0) return false;
    const before = pos === 0 ? -1 : s.charCodeAt(pos - 1);
    // A surrogate before pos is OTHER, as the code point it belongs to (or U+FFFD) is.
    const state = this.starts[kindOf(before)]!;
    if (state < 0 || this.transitions[state * this.capacity + cls] !== (MATCHED | FRESH)) return false;
    this.steps++;
    return true;
  }

  /** Adds `read` code points to steps and sinceReset; 0, for the caller's count. */
  private count(read: number): number {
    this.steps += read;
    this.sinceReset += read;
    return 0;
  }

  /**
   * Runs the DFA backward over s from UTF-16 offset `from` down to `to`:
   * the first offset (the smallest) where a match ended, -1 for none, or BAIL.
   */
  backward(s: string, from: number, to: number): number {
    let state = this.begin(from < s.length ? codePointAt(s, from) : -1);
    let found = -1;
    let read = 0;
    for (let p = from; ; ) {
      if (state < 0) {
        found = BAIL;
        break;
      }
      if (state === 0) break;
      if (p === to) {
        if (to === 0) {
          if ((this.atEndFlags(state) & MATCHED) !== 0) found = p;
          break;
        }
        // Whether it matched here depends on the code point past `to`: its transition's flag, kept like any other.
        const cls = this.classOfFast(codePointBefore(s, to));
        if (cls < 0) {
          found = BAIL;
          break;
        }
        let t = this.transitions[state * this.capacity + cls]!;
        if (t < 0) {
          read = this.count(read);
          t = this.transition(state, cls);
        }
        if (t < 0) found = BAIL;
        else if ((t & MATCHED) !== 0) found = p;
        break;
      }
      let c = s.charCodeAt(p - 1);
      let width = 1;
      if (c >= 0xd800 && c <= 0xdfff) {
        c = codePointBefore(s, p);
        if (c > 0xffff) width = 2;
      }
      const cls = this.classOfFast(c);
      if (cls < 0) {
        found = BAIL;
        break;
      }
      let t = this.transitions[state * this.capacity + cls]!;
      if (t < 0) {
        read = this.count(read);
        if ((t = this.transition(state, cls)) < 0) {
          found = BAIL;
          break;
        }
      }
      read++;
      if ((t & MATCHED) !== 0) found = p;
      state = t >> 3;
      p -= width;
    }
    this.count(read);
    return found;
  }
}

/** The code point at UTF-16 offset i (a lone surrogate is U+FFFD, as Go reads invalid UTF-8). */
export function codePointAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) return c;
  if (c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return 0xfffd;
}

/** The code point that ends at UTF-16 offset i, or -1 at the start of the text. */
export function codePointBefore(s: string, i: number): number {
  if (i === 0) return -1;
  const d = s.charCodeAt(i - 1);
  if (d < 0xd800 || d > 0xdfff) return d;
  if (d >= 0xdc00 && i >= 2) {
    const c = s.charCodeAt(i - 2);
    if (c >= 0xd800 && c <= 0xdbff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return 0xfffd;
}
