// Regular expressions in CEL, wired in this one place: matches() of the
// standard library and Kubernetes' find/findAll take their patterns through
// patternOverload, with RE2 syntax and linear-time matching from shared/re2
// (never JS RegExp) unless an environment names another engine
// (EnvOptions.regex, for tests of the wiring). A constant pattern is compiled
// once when the expression is compiled, so an invalid one is a compile error;
// a computed one when first met (kept in a bounded cache), charged to the
// budget on every call as cel-go charges its compilation.

import { compileRegex, type CompileResult, type Regex, RegexWorkExceeded } from "../../re2/index.js";
import { BoundedCache } from "../cache/index.js";
import type { CallContext, Impl, Library, OverloadDecl, TypeName } from "../declarations/index.js";
import { codePointLength, EvalError, type Value } from "../values/index.js";

export type { Regex } from "../../re2/index.js";

/** A regex engine: shared/re2's compileRegex, the default. */
export type RegexCompiler = (pattern: string) => CompileResult;

/** A library whose functions take patterns, made for an environment's regex engine. */
export type RegexLibrary = (regex: RegexCompiler) => Library;

export const DEFAULT_REGEX_ENGINE: RegexCompiler = compileRegex;

/** cel-go's cost factors: string traversal 0.1 per code point, regex 0.25 per pattern character. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

/**
 * Patterns built at run time (from params, from the object), compiled once
 * and kept per engine: bounded by count, pattern length and the programs'
 * total size (what their VMs hold in memory).
 */
const runtimePatterns = new WeakMap<RegexCompiler, BoundedCache<Regex | string>>();
const weight = (r: Regex | string) => (typeof r === "string" ? 1 : r.programSize);

function compilePattern(engine: RegexCompiler, pattern: string): Regex | string {
  const r = engine(pattern);
  return r.ok ? r.regex : r.error;
}

/** Compiles at run time, charged by pattern length as if compiled anew; an invalid pattern is the engine's error text. */
function runtimePattern(engine: RegexCompiler, pattern: string, ctx: CallContext): Regex | string {
  ctx.charge(Math.ceil(pattern.length * REGEX_LENGTH));
  let cache = runtimePatterns.get(engine);
  if (cache === undefined) runtimePatterns.set(engine, (cache = new BoundedCache(256, 1024, 50_000, weight)));
  return cache.get(pattern, (p) => compilePattern(engine, p));
}

/**
 * Charges a match of input against regex before running it, as the apiserver
 * does: (1 + input length) * 0.1 times 0.25 per pattern character (cel-go's
 * interpreter/runtimecost.go for matches; k8s.io/apiserver
 * pkg/cel/library/cost.go:126-136 for find and findAll). A program larger
 * than its pattern (`[a-z]{1,1000}`: 14 characters, some 2,000
 * instructions) can take time in proportion to its size where the lazy DFA
 * gives way to the Pike VM, so the difference is charged to the edge's
 * budget of the review (chargeEdge), never to the expression's cost.
 */
function chargeMatch(units: PatternUnits, input: string, ctx: CallContext): void {
  const strCost = Math.ceil((1 + codePointLength(input)) * STRING_TRAVERSAL);
  ctx.charge(Math.max(0, strCost * units.pattern - 1));
  if (units.beyond > 0) ctx.chargeEdge(strCost * units.beyond);
}

/** A pattern's units per tenth of the input: the apiserver's (0.25 per code point of the pattern), and what its program adds beyond them. */
interface PatternUnits {
  readonly pattern: number;
  readonly beyond: number;
}

function unitsOf(regex: Regex): PatternUnits {
  const pattern = Math.ceil(codePointLength(regex.source) * REGEX_LENGTH);
  return { pattern, beyond: Math.max(0, Math.ceil(regex.programSize * REGEX_LENGTH) - pattern) };
}

interface PatternFunction {
  readonly receiver: boolean;
  /** The subject string first, the pattern second, any others after. */
  readonly params: readonly TypeName[];
  readonly result: TypeName;
  /** The compile error of an invalid constant pattern, from the engine's text (default: that text). */
  readonly compileError?: (engineError: string) => string;
  /** The runtime error of an invalid computed pattern (default: the engine's text). */
  readonly runtimeError?: (engineError: string) => string;
  /** What the function does with the compiled pattern and the subject, the match already charged. */
  readonly run: (regex: Regex, subject: string, args: readonly Value[], ctx: CallContext) => Value;
}

/** An overload whose pattern (argument 1) is compiled with the expression when it is a literal, when first met otherwise. */
export function patternOverload(engine: RegexCompiler, f: PatternFunction): OverloadDecl {
  const matched = (regex: Regex, units: PatternUnits, args: readonly Value[], ctx: CallContext): Value => {
    const subject = args[0] as string;
    chargeMatch(units, subject, ctx);
    try {
      return f.run(regex, subject, args, ctx);
    } catch (e) {
      // findAll whose matches each read far ahead: an error of the expression, where Go would take quadratic time.
      if (e instanceof RegexWorkExceeded) throw new EvalError(e.message);
      throw e;
    }
  };
  const impl: Impl = (args, ctx) => {
    const regex = runtimePattern(engine, args[1] as string, ctx);
    if (typeof regex === "string") throw new EvalError(f.runtimeError ? f.runtimeError(regex) : regex);
    return matched(regex, unitsOf(regex), args, ctx);
  };
  const specialize: OverloadDecl["specialize"] = (constants) => {
    const pattern = constants[1];
    if (typeof pattern !== "string") return undefined;
    const regex = compilePattern(engine, pattern);
    if (typeof regex === "string") return f.compileError ? f.compileError(regex) : regex;
    const units = unitsOf(regex);
    return (args, ctx) => matched(regex, units, args, ctx);
  };
  return { receiver: f.receiver, params: f.params, result: f.result, impl, specialize };
}
