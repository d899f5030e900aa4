// Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go):
//   <string>.find(<string>) <string>            first match, "" when none
//   <string>.findAll(<string>) <list<string>>   every match
//   <string>.findAll(<string>, <int>)           at most n matches when n >= 0 (Go's FindAllString)
// RE2 syntax through the engine passed in (shared/re2's compileRegex). A
// constant pattern is compiled once with the expression, as Kubernetes'
// FindRegexOptimization does at program creation, so an invalid one is a
// compile error; a computed one is compiled per call and an invalid one is
// Kubernetes' runtime error "Illegal regex: ...". Cost: Kubernetes' (1 + input
// length) × 0.1 × pattern length × 0.25 (chargeMatch), plus the compilation
// of a computed pattern (runtimePattern).

import type { CallContext, Impl, Library, OverloadDecl } from "../../library/index.js";
import { chargeMatch, compilePattern, runtimePattern, type Regex, type RegexCompiler } from "../../regex/index.js";
import { asBigInt, EvalError, noSuchOverload, type Value } from "../../values/index.js";

function compileAtRuntime(engine: RegexCompiler | undefined, pattern: string, ctx: CallContext): Regex {
  try {
    return runtimePattern(engine, pattern, ctx);
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`Illegal regex: ${e.message}`);
    throw e;
  }
}

/** Go's int(n) of the limit; negative means no limit. */
function limitOf(v: Value | undefined): number {
  const n = asBigInt(v as Value);
  if (n === undefined) throw noSuchOverload();
  if (n < 0n) return -1;
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

function find(regex: Regex, s: string, ctx: CallContext): string {
  chargeMatch(regex, s, ctx);
  return regex.find(s) ?? "";
}

function findAll(regex: Regex, s: string, limit: number, ctx: CallContext): string[] {
  chargeMatch(regex, s, ctx);
  // Go's FindAllString with n == 0 returns nil: no matches.
  return limit === 0 ? [] : regex.findAll(s, limit);
}

/** An overload whose pattern (argument 1) is compiled at compile time when it is a literal. */
function overload(engine: RegexCompiler | undefined, params: string[], result: string, run: (regex: Regex, args: readonly Value[], ctx: CallContext) => Value): OverloadDecl {
  const impl: Impl = (args, ctx) => run(compileAtRuntime(engine, args[1] as string, ctx), args, ctx);
  const specialize: OverloadDecl["specialize"] = (constants) => {
    const pattern = constants[1];
    if (typeof pattern !== "string") return undefined;
    const regex = compilePattern(engine, pattern);
    if (typeof regex === "string") return regex;
    return (args, ctx) => run(regex, args, ctx);
  };
  return { receiver: true, params, result, impl, specialize };
}

export function regexLibrary(engine: RegexCompiler | undefined): Library {
  return {
    name: "kubernetes.regex",
    functions: [
      { name: "find", overloads: [overload(engine, ["string", "string"], "string", (r, [s], ctx) => find(r, s as string, ctx))] },
      {
        name: "findAll",
        overloads: [
          overload(engine, ["string", "string"], "list", (r, [s], ctx) => findAll(r, s as string, -1, ctx)),
          overload(engine, ["string", "string", "int"], "list", (r, [s, , n], ctx) => findAll(r, s as string, limitOf(n), ctx)),
        ],
      },
    ],
  };
}
