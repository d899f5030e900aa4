// RE2 regular expressions as Go's regexp package has them, for CEL's matches()
// and the Kubernetes regex library (find, findAll). Patterns and inputs come
// from the public internet, so matching is guaranteed linear: a Pike VM over a
// Thompson NFA (vm.ts), never a backtracking JS RegExp.
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
// - Cost: test and find take at most programSize steps per code point. findAll
//   restarts the search after each match, as Go's FindAllString does, and a
//   search may read ahead past the match it returns (a.*b|a on "aaa…"), so
//   its worst case is programSize × length × matches; callers that account
//   cost per code point should charge findAll accordingly.

import { compile, maxProgramSize, type Program, programSize } from "./compile.js";
import { parse, RegexSyntaxError, syntaxError } from "./parse.js";
import { PikeVM, type Text, toText } from "./vm.js";

export interface Regex {
  /** Go's MatchString: true when the pattern matches anywhere in s (unanchored). */
  test(s: string): boolean;
  /** Go's FindString: leftmost-first match text, or undefined when there is none. */
  find(s: string): string | undefined;
  /** Go's FindAllString(s, limit): successive non-overlapping matches; limit < 0 means all. Go's rule for empty matches adjacent to a previous match applies. */
  findAll(s: string, limit: number): string[];
  /** Number of instructions of the compiled program (used for cost accounting: steps per input code point). */
  readonly programSize: number;
  readonly source: string;
}

export type CompileResult = { ok: true; regex: Regex } | { ok: false; error: string };

export function compileRegex(pattern: string): CompileResult {
  try {
    const tree = parse(pattern);
    if (programSize(tree) + 1 > maxProgramSize) throw syntaxError("expression too large", pattern);
    return { ok: true, regex: new CompiledRegex(pattern, compile(tree)) };
  } catch (error) {
    if (error instanceof RegexSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

class CompiledRegex implements Regex {
  readonly programSize: number;
  private readonly vm: PikeVM;

  constructor(
    readonly source: string,
    program: Program,
  ) {
    this.programSize = program.size;
    this.vm = new PikeVM(program);
  }

  test(s: string): boolean {
    return this.vm.search(toText(s), 0, true) !== undefined;
  }

  find(s: string): string | undefined {
    const text = toText(s);
    const match = this.vm.search(text, 0, false);
    return match === undefined ? undefined : slice(s, text, match);
  }

  findAll(s: string, limit: number): string[] {
    const text = toText(s);
    const length = text.codePoints.length;
    const max = limit < 0 ? length + 1 : limit;
    const found: string[] = [];
    let previousEnd = -1;
    for (let pos = 0; found.length < max && pos <= length; ) {
      const match = this.vm.search(text, pos, false);
      if (match === undefined) break;
      const [start, end] = match;
      // An empty match right where the previous match ended is not a new match.
      const accept = !(end === pos && start === previousEnd);
      pos = end === pos ? pos + 1 : end;
      previousEnd = end;
      if (accept) found.push(slice(s, text, match));
    }
    return found;
  }
}

/** The match's text from the original string (a lone surrogate stays as it was, as Go returns the original bytes). */
function slice(s: string, text: Text, [start, end]: [number, number]): string {
  return s.slice(text.offsets[start]!, text.offsets[end]!);
}
