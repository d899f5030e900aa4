// Test helper: compile and evaluate in one step, returning the value or the
// exact error text, so tests assert on what a policy author would see.

import { compile, createBudget, createEnv, type Budget, type EnvOptions } from "../index.js";
import type { Value } from "../values/index.js";

export type Outcome = { value: Value } | { error: string };

export function run(source: string, activation: Record<string, Value> = {}, options: Partial<EnvOptions> & { budget?: Budget } = {}): Outcome {
  const env = createEnv({ variables: Object.keys(activation), ...options });
  const compiled = compile(source, env);
  if (!compiled.ok) return { error: compiled.error };
  const r = compiled.program.evaluate(activation, options.budget ?? createBudget());
  return r.ok ? { value: r.value } : { error: r.error };
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
