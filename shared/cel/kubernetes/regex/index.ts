// Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go):
//   <string>.find(<string>) <string>            first match, "" when none
//   <string>.findAll(<string>) <list<string>>   every match
//   <string>.findAll(<string>, <int>)           at most n matches when n >= 0 (Go's FindAllString)
// Patterns go through shared/cel/regex: a constant one is compiled with the
// expression, as Kubernetes' FindRegexOptimization does at program creation,
// so an invalid one is a compile error; an invalid computed one is
// Kubernetes' runtime error "Illegal regex: ...". Cost: Kubernetes' (1 +
// input length) × 0.1 × pattern length × 0.25, plus the compilation of a
// computed pattern; findAll's matches go to the edge's meter (chargeCreated).

import { chargeCreated, type Library } from "../../declarations/index.js";
import { patternOverload, type RegexCompiler } from "../../regex/index.js";
import { asBigInt, noSuchOverload, type Value } from "../../values/index.js";

/** Go's int(n) of the limit; negative means no limit. */
function limitOf(v: Value | undefined): number {
  const n = asBigInt(v as Value);
  if (n === undefined) throw noSuchOverload();
  if (n < 0n) return -1;
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

const illegal = (error: string) => `Illegal regex: ${error}`;

export function regexLibrary(engine: RegexCompiler): Library {
  const overload = (params: string[], result: string, run: Parameters<typeof patternOverload>[1]["run"]) =>
    patternOverload(engine, { receiver: true, params, result, runtimeError: illegal, run });
  return {
    name: "kubernetes.regex",
    functions: [
      { name: "find", overloads: [overload(["string", "string"], "string", (regex, s) => regex.find(s) ?? "")] },
      {
        name: "findAll",
        overloads: [
          overload(["string", "string"], "list", (regex, s, _, ctx) => chargeCreated(ctx, regex.findAll(s, -1))),
          // Go's FindAllString with n == 0 returns nil: no matches.
          overload(["string", "string", "int"], "list", (regex, s, [, , n], ctx) => {
            const limit = limitOf(n);
            return limit === 0 ? [] : chargeCreated(ctx, regex.findAll(s, limit));
          }),
        ],
      },
    ],
  };
}
