// RE2 regular expressions as Go's regexp package has them, for CEL's matches()
// and the Kubernetes regex library (find, findAll). Patterns and inputs come
// from the public internet, so matching is guaranteed linear, never a
// backtracking JS RegExp: a lazy DFA (dfa.ts) built from a Thompson NFA
// program (compile.ts), one table lookup per code point once its states are
// known, with the Pike VM (vm.ts) behind it when its bounded cache keeps
// filling (patterns whose DFA is exponential, like (a|b)*a(a|b){20}).
//
// Supported: Go's syntax with regexp.Compile's Perl flags — literals, escapes
// (\x41 \x{10FFFF} \n \t \r \f \v \a octal \123, \Q…\E, escaped punctuation),
// . ^ $ \A \z \b \B, classes with ranges, negation, [[:alpha:]], \d \s \w and
// their negations (ASCII), \pL \p{Greek} \PL \p{^L} (categories, Go 1.25 long
// names, Any, ASCII, Assigned, LC, scripts), groups (capturing, (?:), (?P<n>)
// and (?<n>)), flags i m s U with - and (?flags:…), greedy and lazy * + ? {n}
// {n,} {n,m}, leftmost-first alternation; Go's error texts, repeat-count limit
// (1000, nested counts multiplied) and nesting limit (1000).
//
// Known differences from Go:
// - Programs are capped at 100,000 instructions ("expression too large"); Go
//   allows about 3.3 million.
// - Group nesting is capped at 1000 whatever the group kind; Go counts the
//   height of its simplified tree, where (?:…) adds nothing.
// - Case folding uses the JS case mappings (plus the one-way folds such as
//   the Kelvin sign) and Unicode properties JS's tables, whose Unicode version
//   may differ from Go's. Script names also accept JS's aliases (\p{Grek}).
// - A lone surrogate in a pattern is read as U+FFFD (as Go's JSON decoding
//   would give it) instead of Go's "invalid UTF-8" error.
// - Go reports some errors in a different order when one pattern has several
//   (nesting depth and size are checked after parsing here).
// - Cost: test and find take one lookup per code point (twice when the
//   match's start must be found backward, see dfa.ts's forward()), at most
//   programSize steps per code point while states are built or on the VM.
//   findAll restarts the search after each match, as Go's FindAllString
//   does, and a search may read ahead past the match it returns (a.*b|a on
//   "aaa…"), so its worst case is quadratic; findAll gives up
//   (RegexWorkExceeded) after reading the string MAX_READS times over. A
//   pattern every match of which is one code point (., \w, [a-z], a|b)
//   finds them all in one pass, without a search per match; a match of
//   fixed length (.., [a-z]{3}) starts that far back from its end, without
//   the reversed search; and a position where the search would end at once
//   in an empty match (x* where there is no x) is told by one table lookup.

import { classTest, type CodePointTest, literalTest } from "./charclass.js";
import { compile, maxProgramSize, type Program, programSize, reversed } from "./compile.js";
import { BAIL, codePointAt, codePointBefore, LazyDFA } from "./dfa.js";
import { type Node, parse, RegexSyntaxError, syntaxError } from "./parse.js";
import { PikeVM, type Text, toText } from "./vm.js";

export interface Regex {
  /** Go's MatchString: true when the pattern matches anywhere in s (unanchored). */
  test(s: string): boolean;
  /** Go's FindString: leftmost-first match text, or undefined when there is none. */
  find(s: string): string | undefined;
  /** Go's FindAllString(s, limit): successive non-overlapping matches; limit < 0 means all. Go's rule for empty matches adjacent to a previous match applies. Throws RegexWorkExceeded when that would read s more than MAX_READS times over. */
  findAll(s: string, limit: number): string[];
  /** Number of instructions of the compiled program (used for cost accounting: steps per input code point). */
  readonly programSize: number;
  readonly source: string;
}

/**
 * findAll reads the string at most this many times over (plus MIN_STEPS code
 * points): a search may read far past the match it returns (a.*b|a on
 * "aaa…" reads to the end for every one-letter match), which makes finding
 * every match quadratic, in Go as here. Past it, findAll throws
 * RegexWorkExceeded instead of taking time no cost unit paid for.
 */
const MAX_READS = 8;
const MIN_STEPS = 4096;

export class RegexWorkExceeded extends Error {
  constructor() {
    super(`finding every match would read the string more than ${MAX_READS} times over`);
  }
}

export type CompileResult = { ok: true; regex: Regex } | { ok: false; error: string };

export function compileRegex(pattern: string): CompileResult {
  try {
    const tree = parse(pattern);
    if (programSize(tree) + 1 > maxProgramSize) throw syntaxError("expression too large", pattern);
    const program = compile(tree);
    return { ok: true, regex: literalRegex(pattern, tree, program.size) ?? new CompiledRegex(pattern, tree, program) };
  } catch (error) {
    if (error instanceof RegexSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

/**
 * A compiled pattern: the lazy DFA (dfa.ts) finds where the leftmost-first
 * match ends, and where it starts when its threads tell (most patterns), or
 * else the reversed program's DFA finds where it starts, reading the
 * string's UTF-16 units in place; the Pike VM answers a call in which a DFA
 * gives up (its bounded cache keeps filling), from the start.
 */
class CompiledRegex implements Regex {
  readonly programSize: number;
  private readonly vm: PikeVM;
  private readonly forward: LazyDFA;
  /** Made on the first find or findAll: test() needs no start. */
  private backward: LazyDFA | undefined;
  /** The pattern's test when every match is one code point (see oneCodePoint), else undefined. */
  private readonly single: SingleCodePoint | undefined;
  /** How many code points every match spans, when that is fixed (see fixedLength). */
  private readonly length: number | undefined;

  constructor(
    readonly source: string,
    private readonly tree: Node,
    program: Program,
  ) {
    this.programSize = program.size;
    this.vm = new PikeVM(program);
    this.forward = new LazyDFA(program, true, false);
    const test = oneCodePoint(tree);
    this.single = test && singleCodePoint(test);
    this.length = fixedLength(tree);
  }

  test(s: string): boolean {
    const end = this.forward.forward(s, 0, true);
    return end === BAIL ? this.vm.search(toText(s), 0, true) !== undefined : end >= 0;
  }

  find(s: string): string | undefined {
    return this.findAll(s, 1)[0];
  }

  findAll(s: string, limit: number): string[] {
    if (this.single !== undefined) return everyCodePoint(this.single, s, limit);
    const maxSteps = this.steps + MAX_READS * (s.length + 1) + MIN_STEPS;
    const found = allMatches(new DfaSearch(this, s), s.length, limit, maxSteps);
    if (found !== undefined) return found;
    // A DFA gave up (its cache kept filling): the VM answers the whole call, within the same bound of work.
    const onVM = new VmSearch(this, this.vm, s);
    // The VM never gives up.
    return allMatches(onVM, onVM.length, limit, maxSteps)!;
  }

  /** Code points read by this pattern's searches so far: findAll bounds its work with it. */
  get steps(): number {
    return this.forward.steps + (this.backward?.steps ?? 0) + this.vm.steps;
  }

  /** Where the match the last search found starts. */
  start = 0;

  /** Whether the search from UTF-16 offset `pos` (before the end) would end at once in an empty match there (see LazyDFA.emptyAt). */
  emptyAt(s: string, pos: number): boolean {
    return this.forward.emptyAt(s, pos);
  }

  /** Where the leftmost-first match at or after UTF-16 offset `from` ends (its start in `start`), -1 for none, BAIL when a DFA gives up. */
  search(s: string, from: number): number {
    const end = this.forward.forward(s, from, false);
    if (end < 0) return end;
    if (this.forward.matchStart >= 0) {
      // The forward search's threads told where the match starts (most patterns, as [a-z]+): no backward search.
      this.start = this.forward.matchStart;
      return end;
    }
    if (this.length !== undefined) {
      // Every match spans `length` code points (.., [a-z]{3}, ab|cd): its start is that far back from its end, no reversed search needed.
      let start = end;
      for (let i = 0; i < this.length; i++) start -= codePointBefore(s, start) > 0xffff ? 2 : 1;
      this.start = start;
      return end;
    }
    this.backward ??= new LazyDFA(compile(reversed(this.tree)), false, true);
    const start = this.backward.backward(s, end, from);
    // The reversed program matches back from every end the forward one finds; a start that is not there would be a defect, so the VM answers.
    if (start < 0) return BAIL;
    this.start = start;
    return end;
  }
}

/**
 * One findAll's searches over one string, in positions of some unit: where
 * the next match at or after `from` ends (-1: none, BAIL: gave up) and where
 * it starts (`start`), the position one code point past `pos`, the text of
 * a match, and the work done so far (`steps`, in code points read).
 */
interface Searcher {
  search(from: number): number;
  /** True when the search from `pos` (before the end) would give an empty match there and read one code point, told without running it (false: run it). */
  emptyAt(pos: number): boolean;
  readonly start: number;
  after(pos: number): number;
  text(start: number, end: number): string;
  readonly steps: number;
}

/** The DFAs' searches, in UTF-16 offsets of the string itself. */
class DfaSearch implements Searcher {
  constructor(
    private readonly regex: CompiledRegex,
    private readonly s: string,
  ) {}

  search(from: number): number {
    return this.regex.search(this.s, from);
  }

  emptyAt(pos: number): boolean {
    return this.regex.emptyAt(this.s, pos);
  }

  get start(): number {
    return this.regex.start;
  }

  after(pos: number): number {
    return pos + (codePointAt(this.s, pos) > 0xffff ? 2 : 1);
  }

  text(start: number, end: number): string {
    return this.s.slice(start, end);
  }

  get steps(): number {
    return this.regex.steps;
  }
}

/** The Pike VM's searches, in code points (the string converted once), for a findAll in which a DFA gave up. */
class VmSearch implements Searcher {
  start = 0;
  private readonly codePoints: Text;

  constructor(
    private readonly regex: CompiledRegex,
    private readonly vm: PikeVM,
    private readonly s: string,
  ) {
    this.codePoints = toText(s);
  }

  get length(): number {
    return this.codePoints.codePoints.length;
  }

  emptyAt(): boolean {
    return false;
  }

  search(from: number): number {
    const match = this.vm.search(this.codePoints, from, false);
    if (match === undefined) return -1;
    this.start = match[0];
    return match[1];
  }

  after(pos: number): number {
    return pos + 1;
  }

  text(start: number, end: number): string {
    return this.s.slice(this.codePoints.offsets[start]!, this.codePoints.offsets[end]!);
  }

  get steps(): number {
    return this.regex.steps;
  }
}

/**
 * Go's FindAllString loop (regexp.go allMatches) over `length` positions:
 * successive matches, an empty one right where the previous one ended
 * skipped, at most `limit` (all when negative). Undefined when a search gave
 * up; throws RegexWorkExceeded once the searches' steps pass `maxSteps`.
 * Matches are kept as bounds and made strings once at the end: a dense
 * findAll has a match every few characters.
 */
function allMatches(searcher: Searcher, length: number, limit: number, maxSteps: number): string[] | undefined {
  let bounds = new Int32Array(64);
  let count = 0;
  let previousEnd = -1;
  for (let pos = 0; (limit < 0 || count < limit) && pos <= length; ) {
    if (searcher.steps > maxSteps) throw new RegexWorkExceeded();
    let start = pos;
    let end = pos;
    // An empty match at once (x* where there is no x): at every position of a dense run, where a search each took ~30 ns.
    if (pos === length || !searcher.emptyAt(pos)) {
      end = searcher.search(pos);
      if (end === BAIL) return undefined;
      if (end < 0) break;
      start = searcher.start;
    }
    const accept = !(end === pos && start === previousEnd);
    pos = end === pos ? searcher.after(pos) : end;
    previousEnd = end;
    if (accept) {
      if (2 * count + 2 > bounds.length) {
        const wider = new Int32Array(2 * bounds.length);
        wider.set(bounds);
        bounds = wider;
      }
      bounds[2 * count] = start;
      bounds[2 * count + 1] = end;
      count++;
    }
  }
  const found = new Array<string>(count);
  for (let i = 0; i < count; i++) found[i] = searcher.text(bounds[2 * i]!, bounds[2 * i + 1]!);
  return found;
}

/** The number of code points every match of n spans, or undefined when matches may differ in length. */
function fixedLength(n: Node): number | undefined {
  switch (n.kind) {
    case "empty":
    case "assert":
      return 0;
    case "literal":
    case "class":
      return 1;
    case "capture":
      return fixedLength(n.sub);
    case "concat": {
      let sum = 0;
      for (const item of n.items) {
        const length = fixedLength(item);
        if (length === undefined) return undefined;
        sum += length;
      }
      return sum;
    }
    case "alternate": {
      const lengths = new Set(n.items.map(fixedLength));
      return lengths.size === 1 ? [...lengths][0] : undefined;
    }
    case "repeat": {
      const length = fixedLength(n.sub);
      if (length === 0 || n.max === 0) return 0;
      return length !== undefined && n.min === n.max ? n.min * length : undefined;
    }
  }
}

/** A test of one code point, and its answers for ASCII. */
interface SingleCodePoint {
  readonly test: CodePointTest;
  readonly ascii: Uint8Array;
}

const singleCodePoint = (test: CodePointTest): SingleCodePoint => ({ test, ascii: Uint8Array.from({ length: 128 }, (_, c) => (test(c) ? 1 : 0)) });

/**
 * The test of a pattern every match of which is exactly one code point, in
 * one of these forms: a class, a literal, a group, a single repetition or an
 * alternation of them; undefined for any other pattern. Its matches are then
 * every code point the test accepts, left to right, none empty: what Go's
 * FindAllString loop gives for it, found without restarting a search per
 * match (25 ns each, over the 10 ns its cost pays for: findAll('.') is
 * charged a unit per 10 code points).
 */
function oneCodePoint(n: Node): CodePointTest | undefined {
  switch (n.kind) {
    case "literal":
      return literalTest(n.codePoint, n.fold);
    case "class":
      return classTest(n.cls);
    case "capture":
      return oneCodePoint(n.sub);
    case "repeat":
      return n.min === 1 && n.max === 1 ? oneCodePoint(n.sub) : undefined;
    case "alternate": {
      const tests = n.items.map(oneCodePoint);
      if (!tests.every((t) => t !== undefined)) return undefined;
      return (c) => tests.some((t) => t(c));
    }
    default:
      return undefined;
  }
}

/**
 * findAll of a one-code-point pattern: each code point it accepts (a lone
 * surrogate read as U+FFFD, as the DFA reads it), at most `limit` (all when
 * negative). Counted first, then made into an array of that size (pushing
 * 250,000 strings one by one took three times as long), or, when it accepts
 * every code point, split by the engine's own string splitting, twice as
 * fast again.
 */
function everyCodePoint(single: SingleCodePoint, s: string, limit: number): string[] {
  const { count, all } = scanCodePoints(single, s, limit, undefined);
  if (all) return SURROGATE.test(s) ? Array.from(s) : s.split("");
  const found = new Array<string>(count);
  scanCodePoints(single, s, limit, found);
  return found;
}

const SURROGATE = /[\ud800-\udfff]/;

/** The count of the code points of s the test accepts, at most `limit`, and whether that is all of them; each one's text into `found` when given. */
function scanCodePoints({ test, ascii }: SingleCodePoint, s: string, limit: number, found: string[] | undefined): { count: number; all: boolean } {
  let count = 0;
  let all = true;
  let i = 0;
  while (i < s.length && count !== limit) {
    const unit = s.charCodeAt(i);
    if (unit < 128) {
      if (ascii[unit] === 1) {
        if (found !== undefined) found[count] = s[i]!;
        count++;
      } else all = false;
      i++;
      continue;
    }
    const c = codePointAt(s, i);
    const width = c > 0xffff ? 2 : 1;
    if (test(c)) {
      if (found !== undefined) found[count] = s.slice(i, i + width);
      count++;
    } else all = false;
    i += width;
  }
  return { count, all: all && i === s.length };
}

/**
 * A pattern that is only literal text, perhaps anchored at the start (^, \A)
 * or end ($, \z) of the input, matched with string search instead of the VM:
 * the same matches (non-empty and case-sensitive, so leftmost-first is the
 * first occurrence) in a fraction of the time. Undefined for any other pattern.
 */
function literalRegex(source: string, tree: Node, programSize: number): Regex | undefined {
  const items = tree.kind === "concat" ? tree.items : [tree];
  const start = items[0]?.kind === "assert" && items[0].assertion === "beginText";
  const end = items.length > 1 && items.at(-1)?.kind === "assert" && (items.at(-1) as Node & { kind: "assert" }).assertion === "endText";
  let text = "";
  for (const item of items.slice(start ? 1 : 0, end ? -1 : undefined)) {
    // U+FFFD also matches a lone surrogate of the input, which string search would not see.
    if (item.kind !== "literal" || item.fold || item.codePoint === 0xfffd || (item.codePoint >= 0xd800 && item.codePoint <= 0xdfff)) return undefined;
    text += String.fromCodePoint(item.codePoint);
  }
  if (text === "") return undefined;
  // One code point, unanchored: findAll takes the one-code-point path, whose single pass beats a call of indexOf() per match.
  const single = items.length === 1 ? singleCodePoint(literalTest(text.codePointAt(0)!, false)) : undefined;
  const at = (s: string): number => {
    if (start) return s.startsWith(text) && (!end || s.length === text.length) ? 0 : -1;
    if (end) return s.endsWith(text) ? s.length - text.length : -1;
    return s.indexOf(text);
  };
  return {
    source,
    programSize,
    test: (s) => at(s) >= 0,
    find: (s) => (at(s) >= 0 ? text : undefined),
    findAll(s, limit) {
      if (start || end) return limit !== 0 && at(s) >= 0 ? [text] : [];
      if (single !== undefined) return everyCodePoint(single, s, limit);
      // Counted, then an array of that size filled: pushing each took twice as long.
      let count = 0;
      for (let i = s.indexOf(text); i >= 0 && count !== limit; i = s.indexOf(text, i + text.length)) count++;
      return new Array<string>(count).fill(text);
    },
  };
}
