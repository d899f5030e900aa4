// Test helper: compile and evaluate in one step, returning the value or the
// exact error text, so tests assert on what a policy author would see.

import { compile, createBudget, createEnv, type Budget, type EnvOptions } from "../../../shared/cel/index.js";
import type { RegexCompiler } from "../../../shared/cel/regex/index.js";
import type { Value } from "../../../shared/cel/values/index.js";

type Outcome = { value: Value } | { error: string };

export function run(source: string, activation: Record<string, Value> = {}, options: Partial<EnvOptions> & { budget?: Budget } = {}): Outcome {
  const env = createEnv({ variables: Object.keys(activation), ...options });
  const compiled = compile(source, env);
  if (!compiled.ok) return { error: compiled.error };
  const r = compiled.program.evaluate(activation, options.budget ?? createBudget());
  return r.ok ? { value: r.value } : { error: r.error };
}

/** The runtime cost of one evaluation (of a value or an error); a compile error is thrown. */
export function cost(source: string, activation: Record<string, Value> = {}, options: Partial<EnvOptions> = {}): number {
  const compiled = compile(source, createEnv({ variables: Object.keys(activation), ...options }));
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.program.evaluate(activation).cost;
}

/** The value, or a thrown Error with the CEL error text. */
export function value(source: string, activation: Record<string, Value> = {}, options: Partial<EnvOptions> = {}): Value {
  const r = run(source, activation, options);
  if ("error" in r) throw new Error(r.error);
  return r.value;
}

export function error(source: string, activation: Record<string, Value> = {}, options: Partial<EnvOptions> = {}): string {
  const r = run(source, activation, options);
  if ("value" in r) throw new Error(`expected an error, got ${String(r.value)}`);
  return r.error;
}

/**
 * A stand-in for shared/re2 in tests of the wiring (compile-time patterns,
 * errors, costs): it matches its pattern as a literal substring and rejects
 * unbalanced parentheses. Regex semantics are shared/re2's to test.
 */
export const literalEngine: RegexCompiler = (pattern) => {
  let depth = 0;
  for (const c of pattern) {
    depth += c === "(" ? 1 : c === ")" ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth !== 0) return { ok: false, error: `error parsing regexp: missing closing ): \`${pattern}\`` };
  return {
    ok: true,
    regex: {
      source: pattern,
      programSize: pattern.length + 2,
      test: (s) => s.includes(pattern),
      find: (s) => (s.includes(pattern) ? pattern : undefined),
      findAll: (s, limit) => Array.from({ length: Math.min(s.split(pattern).length - 1, limit < 0 ? Infinity : limit) }, () => pattern),
    },
  };
};
