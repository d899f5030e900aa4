// Regular expressions for matches() and the libraries that take patterns
// (Kubernetes' find/findAll): RE2 syntax and linear-time matching from
// shared/re2, never JS RegExp. A constant pattern is compiled once when the
// expression is compiled; a computed one on each call, charged to the budget.

import { compileRegex, type Regex } from "../../re2/index.js";
import type { CallContext } from "../library/index.js";
import { EvalError } from "../values/index.js";

export type { Regex };

/** cel-go's cost factors: string traversal 0.1 per character, regex 0.25 per pattern character. */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;

/** Compiles a pattern, or returns Go regexp's error text. */
export function compilePattern(pattern: string): Regex | string {
  const r = compileRegex(pattern);
  return r.ok ? r.regex : r.error;
}

/** Compiles at run time; an invalid pattern is a runtime error as in cel-go. */
export function runtimePattern(pattern: string, ctx: CallContext): Regex {
  ctx.charge(Math.ceil(pattern.length * REGEX_LENGTH));
  const r = compilePattern(pattern);
  if (typeof r === "string") throw new EvalError(r);
  return r;
}

/**
 * Charges a match of input against regex before running it: cel-go's
 * (1 + input length) * 0.1 times 0.25 per pattern character, where the
 * engine's program size replaces the pattern length when it is larger.
 */
export function chargeMatch(regex: Regex, input: string, ctx: CallContext): void {
  const strCost = Math.ceil((1 + input.length) * STRING_TRAVERSAL);
  const regexCost = Math.ceil(Math.max(regex.source.length, regex.programSize) * REGEX_LENGTH);
  ctx.charge(Math.max(0, strCost * regexCost - 1));
}
