// How function libraries are declared. The standard library, the strings
// extension and every Kubernetes library use this same shape, so a new library
// is a new folder exporting a Library; nothing in the core changes.
//
//   export const lists: Library = {
//     name: "k8s.lists",
//     functions: [
//       { name: "isSorted", overloads: [{ receiver: true, params: ["list"], impl: ([l], ctx) => ... }] },
//     ],
//   };
//
// Compile time: a call must name a declared function, with an overload of the
// same style (receiver or global) and arity whose parameter types accept the
// arguments' static types (literals have one; most expressions are dyn).
// Run time: the first overload whose parameter types accept the runtime
// values is called; none is cel-go's "no such overload: name(types)".

import { codePointLength, isList, isMap, mapGet, mapKeys, mapSize, type CelType, type Value } from "../values/index.js";
import { utf8Length } from "../../text/index.js";

/**
 * A parameter or result type by name: "int", "uint", "double", "bool",
 * "string", "bytes", "list", "map", "null_type", "type", "optional_type",
 * "google.protobuf.Timestamp", "google.protobuf.Duration", a library type's
 * name, or "dyn" for any value.
 */
export type TypeName = string;

/** What an implementation may do besides computing its result. */
export interface CallContext {
  /**
   * Adds cost units to the evaluation (throwing when the budget is spent).
   * Every call is charged 1 before it runs; a function whose work grows with
   * its input charges the rest here, before it allocates.
   */
  charge(units: number): void;
  /**
   * Adds units of the edge's own accounting: time a call takes beyond what
   * the apiserver charges for it (a regular expression's program beyond its
   * pattern, the values a function makes, the input a conversion reads).
   * They count toward the review's edge budget (shared/vap/budget) only,
   * never toward the apiserver's limits, so an expression's cost and its
   * verdict stay the apiserver's.
   */
  chargeEdge(units: number): void;
}

/**
 * Charges the edge's meter one unit per value a function made (a list's
 * strings, a map's entries) and returns them. The apiserver charges such a
 * function by its input alone (findAll 0.1 per character whatever it finds),
 * while making each value takes time no unit of that cost pays for: counted
 * here, the review's edge budget keeps bounding the review's time.
 */
export function chargeCreated<T extends { readonly length: number }>(ctx: CallContext, made: T): T {
  ctx.chargeEdge(made.length);
  return made;
}

/**
 * Arguments include the receiver first for receiver-style overloads. Throw
 * EvalError for a runtime error. The array is the call site's, refilled on
 * its next call: read the arguments, keep no reference to the array.
 */
export type Impl = (args: readonly Value[], ctx: CallContext) => Value;

export interface OverloadDecl {
  /** `x.f(...)` when true, `f(...)` otherwise. */
  readonly receiver?: boolean;
  /** Parameter types, the receiver first when receiver-style. */
  readonly params: readonly TypeName[];
  /** Result type, for messages about expressions built on this call; dyn when absent. */
  readonly result?: TypeName;
  readonly impl?: Impl;
  /**
   * Called once at compile time with the arguments that are literals
   * (undefined for the others). May return an implementation specialised for
   * them (e.g. a regex compiled once), or an error string, which becomes a
   * compile error at the argument (e.g. an invalid constant pattern).
   */
  readonly specialize?: (constants: readonly (Value | undefined)[]) => Impl | string | undefined;
}

export interface FunctionDecl {
  readonly name: string;
  readonly overloads: readonly OverloadDecl[];
  /**
   * One implementation for every overload that dispatches on the values
   * itself (cel-go's singleton binding); its mismatches raise plain
   * "no such overload". The overloads then only serve the compile-time check.
   */
  readonly impl?: Impl;
}

export interface Library {
  readonly name: string;
  readonly functions: readonly FunctionDecl[];
  /** Type values the library names, usable as identifiers (type(x) == net.IP). */
  readonly types?: readonly CelType[];
  /** Library types whose values order (LibraryValue.compare): <, <=, >, >= accept them. */
  readonly orderedTypes?: readonly CelType[];
}

/** cel-go's cost factor for traversing a string, bytes or list: 0.1 per element. */
export const TRAVERSAL_FACTOR = 0.1;

/** Size in cel-go's cost model: code points of strings, length of bytes, lists and maps; 1 for anything else. */
export function costSize(v: Value): number {
  if (typeof v === "string") return codePointLength(v);
  if (v instanceof Uint8Array || isList(v)) return v.length;
  return isMap(v) ? mapSize(v) : 1;
}

/** The length of a string in UTF-8 bytes, as Go's len(string) counts it (a lone surrogate is U+FFFD, 3 bytes, as TextEncoder writes it). */
export { utf8Length };

/**
 * Kubernetes' traversalCost (k8s.io/apiserver/pkg/cel/library/cost.go:621):
 * strings and bytes 0.1 per byte rounded down, lists and maps the sum over
 * their elements (keys and values), anything else 1.
 */
export function traversalCost(v: Value): number {
  if (typeof v === "string") return Math.floor(utf8Length(v) * TRAVERSAL_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * TRAVERSAL_FACTOR);
  if (isList(v)) {
    let cost = 0;
    for (const x of v) cost += traversalCost(x);
    return cost;
  }
  if (isMap(v)) {
    let cost = 0;
    for (const k of mapKeys(v)) cost += traversalCost(k) + traversalCost(mapGet(v, k) as Value);
    return cost;
  }
  return 1;
}

/**
 * Makes `units` the call's whole cost, as a CostEstimator.CallCost answer
 * replaces cel-go's default for the call (runtimecost.go costCall): the call
 * site has already charged its 1.
 */
export function chargeCallCost(ctx: CallContext, units: number): void {
  ctx.charge(units - 1);
}

/**
 * Makes an O(size) operation's cost cel-go's ceil(size × passes × 0.1), in
 * place of the call's own 1: 0 on empty input, as interpreter/runtimecost.go
 * costCall and Kubernetes' library/cost.go CallCost charge it (`'' == 'a'`,
 * `url('')`), so the call's unit is then given back.
 */
export function chargeTraversal(ctx: CallContext, size: number, passes = 1): void {
  ctx.charge(Math.ceil(size * passes * TRAVERSAL_FACTOR) - 1);
}
