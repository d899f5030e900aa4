// Kubernetes' list library (k8s.io/apiserver/pkg/cel/library/lists.go):
// isSorted, sum, min, max, indexOf, lastIndexOf on lists (version 0), and
// includes (version 1, in the base environment from Kubernetes 1.37). Also
// the worked example of a library: declarations (receiver-style, parameter
// types for the checker) plus implementations that charge for the work they
// do.

import { chargeCallCost, traversalCost, type CallContext, type Library, type OverloadDecl } from "../../declarations/index.js";
import { add } from "../../stdlib/index.js";
import { compare, Duration, equals, EvalError, isNumeric, type Value } from "../../values/index.js";

type List = readonly Value[];

/** cost.go:106 CallCost: one traversal of the list (traversalCost, cost.go:621) is the call's whole cost. */
function visit(list: List, ctx: CallContext): List {
  chargeCallCost(ctx, traversalCost(list));
  return list;
}

function isSorted(list: List): boolean {
  for (let i = 1; i < list.length; i++) if (compare(list[i - 1] as Value, list[i] as Value) > 0) return false;
  return true;
}

/** Zero of the sum of an empty list: Kubernetes picks the int overload for an untyped list. */
function sum(list: List, ctx: CallContext): Value {
  let acc: Value | undefined;
  for (const x of list) acc = acc === undefined ? x : add(acc, x, ctx);
  return acc ?? 0;
}

function extreme(list: List, name: "min" | "max"): Value {
  let best: Value | undefined;
  for (const x of list) {
    if (best === undefined) best = x;
    else {
      const c = compare(best, x);
      if (name === "min" ? c > 0 : c < 0) best = x;
    }
  }
  if (best === undefined) throw new EvalError(`${name} called on empty list`);
  return best;
}

function indexOf(list: List, item: Value, last: boolean): number {
  if (last) {
    for (let i = list.length - 1; i >= 0; i--) if (equals(list[i] as Value, item)) return i;
  } else {
    for (let i = 0; i < list.length; i++) if (equals(list[i] as Value, item)) return i;
  }
  return -1;
}

const onList = (params: string[], impl: (list: List, args: readonly Value[], ctx: CallContext) => Value, result?: string): OverloadDecl => ({
  receiver: true,
  params,
  result,
  impl: (args, ctx) => impl(visit(args[0] as List, ctx), args, ctx),
});

const summable = (v: Value): boolean => isNumeric(v) || v instanceof Duration;

/** lists.go:357: true when the list has an element equal to the item, or the receiver, not a list, equals it. */
function includes(target: Value, item: Value, ctx: CallContext): boolean {
  chargeCallCost(ctx, traversalCost(target));
  return Array.isArray(target) ? (target as List).some((x) => equals(x, item)) : equals(target, item);
}

/** The library at `version` (lists.go ListsVersion): 0 until Kubernetes 1.37, 1 from it. */
export const listsLibrary = (version: 0 | 1): Library => ({
  name: "kubernetes.lists",
  functions: [
    { name: "isSorted", overloads: [onList(["list"], (l) => isSorted(l), "bool")] },
    {
      name: "sum",
      overloads: [
        onList(["list"], (l, _, ctx) => {
          if (!l.every(summable)) throw new EvalError("no such overload");
          return sum(l, ctx);
        }),
      ],
    },
    { name: "min", overloads: [onList(["list"], (l) => extreme(l, "min"))] },
    { name: "max", overloads: [onList(["list"], (l) => extreme(l, "max"))] },
    { name: "indexOf", overloads: [onList(["list", "dyn"], (l, [, item]) => indexOf(l, item as Value, false), "int")] },
    { name: "lastIndexOf", overloads: [onList(["list", "dyn"], (l, [, item]) => indexOf(l, item as Value, true), "int")] },
    ...(version >= 1 ? [{ name: "includes", overloads: [{ receiver: true, params: ["dyn", "dyn"], result: "bool", impl: ([t, x]: readonly Value[], ctx: CallContext) => includes(t as Value, x as Value, ctx) }] }] : []),
  ],
});
