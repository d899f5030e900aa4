// Regular expressions for matches() and the libraries that take patterns
// (Kubernetes' find/findAll): RE2 syntax and linear-time matching from
// shared/re2, never JS RegExp. The engine is passed in (EnvOptions.regex,
// shared/re2's compileRegex), so this module builds and tests on its own. A
// constant pattern is compiled once when the expression is compiled; a
// computed one on each call, charged to the budget.

import type { CompileResult, Regex } from "../../re2/index.js";
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

/** Compiles at run time, charged by pattern length; an invalid pattern is a runtime error as in cel-go. */
export function runtimePattern(engine: RegexCompiler | undefined, pattern: string, ctx: CallContext): Regex {
  ctx.charge(Math.ceil(pattern.length * REGEX_LENGTH));
  const compile = () => compilePattern(engine, pattern);
  const r = ctx.once ? ctx.once(`regex:${pattern}`, compile) : compile();
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
