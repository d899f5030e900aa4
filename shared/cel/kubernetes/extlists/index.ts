// cel-go's ext.Lists at version 3 (github.com/google/cel-go/ext/lists.go),
// which Kubernetes' base environment enables from 1.34 (base.go:179):
//   <list>.slice(start, end)     the elements [start, end)
//   <list>.flatten() / (depth)   nested lists spliced in, one level or depth levels
//   lists.range(n)               [0, 1, ..., n-1]
//   <list>.reverse() / distinct()
//   <list>.sort()                elements of one comparable type, ascending
//   <list>.sortBy(e, key)        a macro (the parser expands it when this library
//                                is in the environment) over @sortByAssociatedKeys
// Costs are version 3's cost trackers: a list the call allocates costs its
// size (times the flatten depth) plus 1 for the call and 10 for the list;
// sort, sortBy and distinct compare every element with every other, 2 per
// pair (2.1 for strings and bytes), plus the same 11.
// Sorting is stable here; Go's sort.Slice is for up to 12 elements (insertion
// sort) and not beyond, where elements with equal keys may come out in
// another order upstream.

import { chargeCallCost, chargeCreated, type CallContext, type Library, type OverloadDecl } from "../../declarations/index.js";
import { SORT_BY_KEYS } from "../../parser/index.js";
import { asSmallInt, Boxed, compare, Duration, equals, EvalError, isList, noSuchOverload, Timestamp, typeOf, type Value } from "../../values/index.js";

type List = readonly Value[];

/** ext/lists.go trackAllocatingListCall: the call (1) and its new list (common.ListCreateBaseCost, 10) on top. */
const ALLOCATION = 1 + 10;

const chargeList = (ctx: CallContext, units: number): void => chargeCallCost(ctx, Math.floor(units) + ALLOCATION);

function listOf(v: Value | undefined): List {
  if (v === undefined || !isList(v)) throw noSuchOverload();
  return v;
}

function intArg(v: Value | undefined): number {
  const n = v === undefined ? undefined : asSmallInt(v);
  if (n === undefined) throw noSuchOverload();
  return n;
}

function slice(list: List, start: number, end: number): List {
  if (start < 0 || end < 0) throw new EvalError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new EvalError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (list.length < end) throw new EvalError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(start, end);
}

function flatten(list: List, depth: number, out: Value[]): Value[] {
  for (const x of list) {
    if (depth > 0 && isList(x)) flatten(x, depth - 1, out);
    else out.push(x);
  }
  return out;
}

/** lists.go maxRangeSize: lists.range allocates no more. */
const MAX_RANGE = 10_000_000;

/** lists.go genRange; charged before it allocates. */
function range(n: number, ctx: CallContext): List {
  if (n < 0) throw new EvalError(`lists.range: size must be non-negative, got ${n}`);
  if (n > MAX_RANGE) throw new EvalError(`lists.range: size ${n} exceeds maximum allowed (${MAX_RANGE})`);
  chargeList(ctx, n);
  return Array.from({ length: n }, (_, i) => i);
}

/** trackListSelfCompare: size² comparisons at 2 each, 2.1 when the elements are strings or bytes. */
function chargeSelfCompare(ctx: CallContext, list: List): void {
  const first = list[0];
  const factor = typeof first === "string" || first instanceof Uint8Array ? 2.1 : 2;
  chargeList(ctx, list.length * list.length * factor);
}

function distinct(list: List): List {
  const out: Value[] = [];
  for (const x of list) if (!out.some((y) => equals(x, y))) out.push(x);
  return out;
}

/** cel-go's Comparer types: what sort accepts as keys. */
function comparable(v: Value): boolean {
  return typeof v === "number" || typeof v === "bigint" || typeof v === "string" || typeof v === "boolean" || v instanceof Uint8Array || v instanceof Duration || v instanceof Timestamp || (v instanceof Boxed && (typeOf(v).name === "uint" || typeOf(v).name === "double"));
}

/** sortListByAssociatedKeys: the list in the order of its keys, which must be of one comparable type. */
function sortByKeys(list: List, keys: List): List {
  if (list.length !== keys.length) {
    throw new EvalError(`@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`);
  }
  if (list.length === 0) return list;
  const first = keys[0] as Value;
  if (!comparable(first)) throw new EvalError("list elements must be comparable");
  const type = typeOf(first).name;
  if (keys.some((k) => typeOf(k).name !== type)) throw new EvalError("list elements must have the same type");
  const order = keys.map((_, i) => i).sort((i, j) => compare(keys[i] as Value, keys[j] as Value));
  return order.map((i) => list[i] as Value);
}

const member = (params: string[], result: string, impl: (args: readonly Value[], ctx: CallContext) => Value): OverloadDecl => ({ receiver: true, params, result, impl });

export const extListsLibrary: Library = {
  name: "cel.lib.ext.lists",
  functions: [
    {
      name: "slice",
      overloads: [
        member(["list", "int", "int"], "list", ([l, s, e], ctx) => {
          const out = slice(listOf(l), intArg(s), intArg(e));
          chargeList(ctx, out.length);
          return out;
        }),
      ],
    },
    {
      name: "flatten",
      overloads: [
        // Charged by its receiver's size (ext.Lists v3), its result can be any size: the edge's meter takes one unit per element of it (chargeCreated).
        member(["list"], "list", ([l], ctx) => {
          const list = listOf(l);
          chargeList(ctx, list.length);
          return chargeCreated(ctx, flatten(list, 1, []));
        }),
        member(["list", "int"], "list", ([l, d], ctx) => {
          const list = listOf(l);
          const depth = intArg(d);
          if (depth < 0) throw new EvalError("level must be non-negative");
          chargeList(ctx, list.length * depth);
          return chargeCreated(ctx, flatten(list, depth, []));
        }),
      ],
    },
    {
      name: "lists.range",
      overloads: [
        {
          params: ["int"],
          result: "list",
          impl: ([n], ctx) => range(intArg(n), ctx),
        },
      ],
    },
    {
      name: "reverse",
      overloads: [
        member(["list"], "list", ([l], ctx) => {
          const list = listOf(l);
          chargeList(ctx, list.length);
          return [...list].reverse();
        }),
      ],
    },
    {
      name: "distinct",
      overloads: [
        member(["list"], "list", ([l], ctx) => {
          const list = listOf(l);
          chargeSelfCompare(ctx, list);
          return distinct(list);
        }),
      ],
    },
    {
      name: "sort",
      overloads: [
        member(["list"], "list", ([l], ctx) => {
          const list = listOf(l);
          chargeSelfCompare(ctx, list);
          return sortByKeys(list, list);
        }),
      ],
    },
    {
      name: SORT_BY_KEYS,
      overloads: [
        member(["list", "list"], "list", ([l, k], ctx) => {
          const keys = listOf(k);
          chargeSelfCompare(ctx, keys);
          return sortByKeys(listOf(l), keys);
        }),
      ],
    },
  ],
};
