// Overload shapes the Kubernetes libraries share.
import type { OverloadDecl } from "../declarations/index.js";
import { EvalError } from "../values/index.js";

/** `x.name(…)`: an overload called on its first argument. */
export const member = (params: string[], result: string, impl: NonNullable<OverloadDecl["impl"]>): OverloadDecl => ({ receiver: true, params, result, impl });

/** Whether `parse` accepts its input, for the is<Type>() functions: a malformed value's EvalError is false, any other error passes on. */
export function parses(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch (e) {
    if (e instanceof EvalError) return false;
    throw e;
  }
}
