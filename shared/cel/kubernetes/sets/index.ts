// cel-go's ext.Sets (github.com/google/cel-go/ext/sets.go), which Kubernetes'
// base environment enables from 1.29: lists treated as sets, compared with
// CEL equality (so 1, 1u and 1.0 are one element; duplicates do not count).
//   sets.contains(a, b)    every element of b is in a (true when b is empty)
//   sets.equivalent(a, b)  each contains the other
//   sets.intersects(a, b)  some element of a is in b (false when either is empty)
// The core's standard and strings libraries do not have them. Cost as cel-go's
// cost tracker for these overloads (ext/sets.go trackSetsCost): the call's 1
// plus size(a) × size(b), twice that for sets.equivalent, charged before the
// comparisons it pays for.

import type { CallContext, Library } from "../../declarations/index.js";
import { equals, isList, noSuchOverload, type Value } from "../../values/index.js";

type List = readonly Value[];

function lists(args: readonly Value[], ctx: CallContext, factor: number): [List, List] {
  const [a, b] = args as [Value, Value];
  if (!isList(a) || !isList(b)) throw noSuchOverload();
  ctx.charge(a.length * b.length * factor);
  return [a, b];
}

const has = (list: List, x: Value): boolean => list.some((y) => equals(y, x));
const contains = (list: List, sub: List): boolean => sub.every((x) => has(list, x));

const fn = (name: string, factor: number, test: (a: List, b: List) => boolean) => ({
  name,
  overloads: [{ params: ["list", "list"], result: "bool", impl: (args: readonly Value[], ctx: CallContext) => test(...lists(args, ctx, factor)) }],
});

export const setsLibrary: Library = {
  name: "cel.lib.ext.sets",
  functions: [
    fn("sets.contains", 1, contains),
    fn("sets.equivalent", 2, (a, b) => contains(a, b) && contains(b, a)),
    fn("sets.intersects", 1, (a, b) => a.some((x) => has(b, x))),
  ],
};
