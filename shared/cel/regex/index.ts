// Regular expressions for matches() and the libraries that take patterns
// (Kubernetes' find/findAll): RE2 syntax and linear-time matching from
// shared/re2, never JS RegExp. The engine is passed in (EnvOptions.regex,
// shared/re2's compileRegex), so this module builds and tests on its own. A
// constant pattern is compiled once when the expression is compiled; a
// computed one when first met (kept in a bounded cache), charged to the
// budget on every call as cel-go charges its compilation.

import type { CompileResult, Regex } from "../../re2/index.js";
import { BoundedCache } from "../cache/index.js";
import type { CallContext } from "../library/index.js";
import { codePointLength, EvalError } from "../values/index.js";

/** A compiled pattern: shared/re2's (type-only, so CEL builds and tests with any engine). */
export type { Regex } from "../../re2/index.js";

/** shared/re2's compileRegex. */
export type RegexCompiler = (pattern: string) => CompileResult;

const NO_ENGINE = "regular expressions need the RE2 engine: pass EnvOptions.regex (compileRegex of shared/re2)";

/** cel-go's cost factors: string traversal 0.1 per code point, regex 0.25 per pattern character. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

/** Compiles a pattern, or returns the engine's error text. */
export function compilePattern(engine: RegexCompiler | undefined, pattern: string): Regex | string {
  if (engine === undefined) return NO_ENGINE;
  const r = engine(pattern);
  return r.ok ? r.regex : r.error;
}

/**
 * Patterns built at run time (from params, from the object), compiled once
 * and kept per engine: bounded by count, pattern length and the programs'
 * total size (what their VMs hold in memory).
 */
const runtimePatterns = new WeakMap<RegexCompiler, BoundedCache<Regex | string>>();
const weight = (r: Regex | string) => (typeof r === "string" ? 1 : r.programSize);

/** Compiles at run time, charged by pattern length as if compiled anew; an invalid pattern is a runtime error as in cel-go. */
export function runtimePattern(engine: RegexCompiler | undefined, pattern: string, ctx: CallContext): Regex {
  ctx.charge(Math.ceil(pattern.length * REGEX_LENGTH));
  let r: Regex | string;
  if (engine === undefined) r = NO_ENGINE;
  else {
    let cache = runtimePatterns.get(engine);
    if (cache === undefined) runtimePatterns.set(engine, (cache = new BoundedCache(256, 1024, 50_000, weight)));
    r = cache.get(pattern, (p) => compilePattern(engine, p));
  }
  if (typeof r === "string") throw new EvalError(r);
  return r;
}

/**
 * Charges a match of input against regex before running it: cel-go's
 * (1 + input length) * 0.1 times 0.25 per pattern character, where the
 * engine's program size replaces the pattern length when it is larger.
 */
export function chargeMatch(regex: Regex, input: string, ctx: CallContext): void {
  const strCost = Math.ceil((1 + codePointLength(input)) * STRING_TRAVERSAL);
  const regexCost = Math.ceil(Math.max(regex.source.length, regex.programSize) * REGEX_LENGTH);
  ctx.charge(Math.max(0, strCost * regexCost - 1));
}
