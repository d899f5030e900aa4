// Overload shapes the Kubernetes libraries share.
import { chargeTraversal, costSize, type CallContext, type OverloadDecl } from "../declarations/index.js";
import { EvalError, type Value } from "../values/index.js";

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

/** A global function of one string, charged `passes` traversals of it. */
export const onString = (name: string, result: string, passes: number, impl: (s: string) => Value) => ({
  name,
  overloads: [
    {
      params: ["string"],
      result,
      impl: ([s]: readonly Value[], ctx: CallContext) => {
        chargeTraversal(ctx, costSize(s as string), passes);
        return impl(s as string);
      },
    },
  ],
});
