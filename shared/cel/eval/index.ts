// Turns a checked expression into a tree of closures, once; evaluating is
// then calling the root closure with a Frame. Runtime errors are thrown
// EvalErrors (cheap objects, no stack), which && / || and the all/exists
// macros absorb where CEL's commutative semantics say a determining operand
// wins. Running out of budget throws CostLimitExceeded, which nothing absorbs.
//
// Cost follows cel-go's runtime cost model (interpreter/runtimecost.go):
// identifiers, field selections and index steps 1, calls 1 unless the
// function charges by size, list literals 10, map literals 30, constants and
// logical operators 0, and each comprehension iteration the cost of the
// expanded macro's loop step. Unlike cel-go, list concatenation is charged by
// size, because here it copies (cel-go builds a view).

import type { Checked, Resolution } from "../checker/index.js";
import type { CallContext, Impl, OverloadDecl } from "../declarations/index.js";
import type { Expr, MacroName } from "../parser/index.js";
import {
  asSmallInt,
  Boxed,
  CelMap,
  Double,
  equals,
  EvalError,
  isIntNumber,
  isList,
  isMap,
  mapGet,
  mapKey,
  mapKeys,
  MapValue,
  Optional,
  typeOf,
  Uint,
  type JsonObject,
  type Value,
} from "../values/index.js";

/** The top-level variables of one evaluation. */
export type Activation = Readonly<Record<string, Value>>;

export class CostLimitExceeded {
  readonly message = "operation cancelled: actual cost limit exceeded";
}
const COST_LIMIT_EXCEEDED = new CostLimitExceeded();

/** The review's edge budget ran out within this evaluation (CallContext.chargeEdge). */
export class EdgeLimitExceeded {
  readonly message = "edgeadmit: the review's edge cost limit was reached";
}
const EDGE_LIMIT_EXCEEDED = new EdgeLimitExceeded();

export class Frame implements CallContext {
  cost = 0;
  /**
   * The highest cost reached before the cost last went down (a charge below
   * zero, an uncharged branch put back): with the cost now, the highest it
   * has been, which a loop-invariant value's replay must fit under the limit.
   */
  high = 0;
  /** Units charged for the edge beyond the apiserver's cost (chargeEdge). */
  edge = 0;
  /** What cost and edge units together may reach: what the review's edge budget had left when the evaluation began. */
  edgeLimit = Infinity;
  readonly locals: Value[];
  /** The loop-invariant values kept for the current run of the loop that owns each (see loopInvariants). */
  readonly kept: Array<Kept | undefined>;
  constructor(
    public activation: Activation,
    public limit: number,
    edgeLimit: number,
    slots: number,
    invariants = 0,
  ) {
    this.edgeLimit = edgeLimit;
    this.locals = new Array<Value>(slots);
    this.kept = new Array<Kept | undefined>(invariants);
  }
  /** The frame ready for another evaluation of the same program (its locals and kept values are written before they are read). */
  reset(activation: Activation, limit: number, edgeLimit: number): this {
    this.activation = activation;
    this.limit = limit;
    this.cost = 0;
    this.high = 0;
    this.edge = 0;
    this.edgeLimit = edgeLimit;
    return this;
  }
  charge(units: number): void {
    if (units < 0 && this.cost > this.high) this.high = this.cost;
    this.cost += units;
    if (this.cost > this.limit) throw COST_LIMIT_EXCEEDED;
  }
  chargeEdge(units: number): void {
    this.edge += units;
    if (this.cost + this.edge > this.edgeLimit) throw EDGE_LIMIT_EXCEEDED;
  }
}

export type Eval = (f: Frame) => Value;

/** Closures that always return the same value: literals and what was folded from them. */
const constants = new WeakMap<Eval, Value>();

function constant(v: Value): Eval {
  const e: Eval = () => v;
  constants.set(e, v);
  return e;
}

/** A frame for folding constants at compile time; folding that fails is left to run time. */
const FOLDING: CallContext = { charge: () => undefined, chargeEdge: () => undefined };

const hasOwn = Object.prototype.hasOwnProperty;

/** A plain object from JSON.parse (or a null-prototype record): a map with string keys. */
function isJsonObject(v: Value): v is JsonObject {
  if (typeof v !== "object" || v === null) return false;
  // The common case without a prototype walk; an own "constructor" field falls through to it.
  if ((v as { constructor?: unknown }).constructor === Object) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Go's %v of a key in "no such key" messages. */
function showKey(k: Value): string {
  if (typeof k === "string") return k;
  if (k instanceof Uint || k instanceof Double) return String(k.v);
  return String(k);
}

/** List index per cel-go's IndexOrError: ints, and uints/doubles that are whole. */
function listIndex(i: Value): number {
  const n = asSmallInt(i);
  if (n !== undefined) return n;
  if (i instanceof Uint) return Number(i.v);
  const d = typeof i === "number" ? i : i instanceof Double ? i.v : undefined;
  if (d !== undefined) {
    if (Number.isInteger(d)) return d;
    throw new EvalError(`unsupported index value ${d} in list`);
  }
  throw new EvalError(`unsupported index type '${typeOf(i).name}' in list`);
}

/**
 * Looks up key in a map or list. Absent is undefined; a value that cannot
 * be qualified at all is an error, as are list indexes of the wrong type.
 */
function lookup(v: Value, key: Value): Value | undefined {
  if (isJsonObject(v)) return typeof key === "string" && hasOwn.call(v, key) ? v[key] : undefined;
  if (v instanceof MapValue) return v.get(key);
  if (isList(v)) {
    const i = listIndex(key);
    return i >= 0 && i < v.length ? v[i] : undefined;
  }
  throw new EvalError(`no such key: ${showKey(key)}`);
}

/** a.b and a[k]: absent is an error; on an optional, absent is optional.none(). */
function qualify(v: Value, key: Value): Value {
  if (v instanceof Optional) return qualifyOptional(v, key);
  const r = lookup(v, key);
  if (r !== undefined) return r;
  if (isList(v)) throw new EvalError(`index out of bounds: ${showKey(key)}`);
  throw new EvalError(`no such key: ${showKey(key)}`);
}

/** a.?b and a[?k], and any qualification of an optional value. */
function qualifyOptional(v: Value, key: Value): Optional {
  let target = v;
  if (v instanceof Optional) {
    if (v.value === undefined) return v;
    target = v.value;
  }
  const r = lookup(target, key);
  return r === undefined ? Optional.none : new Optional(r);
}

/** A field no object inherits ("spec", not "toString"): present in a JSON object exactly when reading it gives a value (JSON has no undefined). */
const plainField = (field: string): boolean => !(field in Object.prototype);

/** o.field for a plainField: one property read, then a check that o is a JSON object; else as qualify. */
function fieldOf(o: Value, field: string): Value {
  if (typeof o === "object" && o !== null) {
    const v = (o as JsonObject)[field];
    if (v !== undefined && !(o instanceof Boxed) && !Array.isArray(o) && !(o instanceof Uint8Array)) return v;
    // The next most common: a field of `variables`, computed on first read.
    if (o instanceof MapValue) {
      const computed = o.get(field);
      if (computed !== undefined) return computed;
    }
  }
  return qualify(o, field);
}

/** has(a.b); cel-go's presence test is false, not an error, on values without fields. */
function presence(v: Value, field: string): boolean {
  if (isJsonObject(v)) return hasOwn.call(v, field);
  if (v instanceof Optional) return v.value !== undefined && presence(v.value, field);
  if (isMap(v) || isList(v)) return lookup(v, field) !== undefined;
  return false;
}

function truth(v: Value): boolean {
  if (typeof v !== "boolean") throw new EvalError("no such overload");
  return v;
}

/** Runs one operand of && or ||; an EvalError becomes the value to report if the other side does not decide. */
function attempt(e: Eval, f: Frame): boolean | EvalError {
  try {
    return truth(e(f));
  } catch (err) {
    if (err instanceof EvalError) return err;
    throw err;
  }
}

/** A test of one runtime value against a declared parameter type; undefined when any value is accepted. */
type Guard = (v: Value) => boolean;

const GUARDS: Readonly<Record<string, Guard>> = {
  string: (v) => typeof v === "string",
  bool: (v) => typeof v === "boolean",
  int: (v) => (typeof v === "number" ? isIntNumber(v) : typeof v === "bigint"),
  double: (v) => (typeof v === "number" ? !isIntNumber(v) : v instanceof Double),
  uint: (v) => v instanceof Uint,
  null_type: (v) => v === null,
  list: isList,
  map: isMap,
};

function guardOf(param: string): Guard | undefined {
  if (param === "dyn") return undefined;
  return GUARDS[param] ?? ((v) => typeOf(v).name === param);
}

/**
 * Runtime overload resolution among the overloads the checker left: the
 * first whose parameter types accept the values, each type test made once
 * when the call is built. An overload the checker proved the only one for
 * the arguments' static types runs unguarded.
 */
function dispatch(name: string, overloads: readonly OverloadDecl[], exact: boolean): Impl {
  const candidates = overloads.filter((o): o is OverloadDecl & { impl: Impl } => o.impl !== undefined).map((o) => ({ impl: o.impl, params: o.params, guards: o.params.map(guardOf) }));
  const mismatch = (args: readonly Value[]) => new EvalError(`no such overload: ${name}(${args.map((a) => typeOf(a).name).join(", ")})`);
  const only = candidates.length === 1 ? candidates[0]! : undefined;
  if (only !== undefined && (exact || only.guards.every((g) => g === undefined))) return only.impl;
  // One implementation behind several one-parameter overloads (a conversion such as string(dyn)): the test is
  // only whether the value's type is among theirs, one typeOf and a set lookup (each guard holds exactly for
  // the values of its type's name).
  const shared = candidates[0]?.impl;
  if (shared !== undefined && candidates.length > 1 && candidates.every((c) => c.impl === shared && c.params.length === 1)) {
    const types = new Set(candidates.map((c) => c.params[0]!));
    if (types.has("dyn")) return shared;
    return (args, ctx) => {
      if (types.has(typeOf(args[0] as Value).name)) return shared(args, ctx);
      throw mismatch(args);
    };
  }
  if (only !== undefined && only.guards.length <= 2) {
    const [g0, g1] = only.guards;
    return (args, ctx) => {
      if ((g0 === undefined || g0(args[0] as Value)) && (g1 === undefined || g1(args[1] as Value))) return only.impl(args, ctx);
      throw mismatch(args);
    };
  }
  return (args, ctx) => {
    for (const { impl, guards } of candidates) {
      let accepted = true;
      for (let i = 0; i < guards.length && accepted; i++) accepted = guards[i] === undefined || guards[i]!(args[i] as Value);
      if (accepted) return impl(args, ctx);
    }
    throw mismatch(args);
  };
}

/**
 * What cel-go charges for each macro's expansion, checked against
 * Kubernetes' cost stability tests: the loop condition, run before every
 * element (and once more before stopping early): @not_strictly_false(accu)
 * is 2, with the negation exists needs 3, a constant true 0; the step's
 * accumulator read; an element that contributes (accu + [x] is 1 + 1 + 10,
 * and 1 more for the element itself in filter); reading the result (exists_one
 * compares it, 2). A conditional's plain accumulator branch is free.
 */
const LOOP_COST: Record<MacroName, { readonly cond: number; readonly step: number; readonly kept: number; readonly result: number }> = {
  all: { cond: 2, step: 1, kept: 0, result: 1 },
  exists: { cond: 3, step: 1, kept: 0, result: 1 },
  exists_one: { cond: 0, step: 0, kept: 2, result: 2 },
  map: { cond: 0, step: 0, kept: 12, result: 1 },
  filter: { cond: 0, step: 0, kept: 13, result: 1 },
  transformList: { cond: 0, step: 0, kept: 12, result: 1 },
  // cel.@mapInsert(__result__, k, v'): the call and its two identifiers (ext/comprehensions.go transformMap).
  transformMap: { cond: 0, step: 0, kept: 3, result: 1 },
  transformMapEntry: { cond: 0, step: 0, kept: 2, result: 1 },
};

/** What every builder gets: the checker's resolutions and a way to build a child. */
interface Builder {
  readonly build: (e: Expr) => Eval;
  /** The slot of the (first) variable a comprehension, bind or optMap node introduces. */
  readonly slotOf: (e: Expr) => number;
  /** Whether the checker resolved the node itself (a qualified name, a call), so it is not built from its parts. */
  readonly resolved: (e: Expr) => boolean;
  /** The slots of the loop-invariant values a comprehension keeps for one run (see loopInvariants). */
  readonly invariantSlots: (e: Expr) => readonly number[];
}

type NodeOf<K extends Expr["kind"]> = Expr & { readonly kind: K };

/** One builder per node kind: from a checked node to its closure. */
const BUILDERS: { readonly [K in Expr["kind"]]: (e: NodeOf<K>, b: Builder, r: Resolution | undefined) => Eval } = {
  lit: (e) => constant(e.value),
  ident: (e) => {
    throw new Error(`unresolved identifier ${e.name}`);
  },
  select: (e, b) => {
    const field = e.field;
    if (!e.optional && plainField(field)) {
      // A chain of such fields (object.spec.template.spec.containers) is one closure stepping through them,
      // charging each step as its own select would, in the same order: one call per chain, not one per field.
      const fields = [field];
      let base = e.operand;
      while (base.kind === "select" && !base.optional && plainField(base.field) && !b.resolved(base)) {
        fields.unshift(base.field);
        base = base.operand;
      }
      const start = b.build(base);
      if (fields.length === 1) {
        return (f) => {
          const o = start(f);
          f.charge(1);
          return fieldOf(o, field);
        };
      }
      return (f) => {
        let o = start(f);
        for (let i = 0; i < fields.length; i++) {
          f.charge(1);
          o = fieldOf(o, fields[i] as string);
        }
        return o;
      };
    }
    const operand = b.build(e.operand);
    if (e.optional) {
      return (f) => {
        const o = operand(f);
        f.charge(1);
        return qualifyOptional(o, field);
      };
    }
    return (f) => {
      const o = operand(f);
      f.charge(1);
      return qualify(o, field);
    };
  },
  has: (e, b) => {
    const operand = b.build(e.operand);
    const field = e.field;
    return (f) => presence(operand(f), field);
  },
  index: (e, b) => {
    const operand = b.build(e.operand);
    const index = b.build(e.index);
    const optional = e.optional;
    // cel-go charges a constant index as a qualifier (1); a computed one costs only its expression.
    const step = constants.has(index) ? 1 : 0;
    return (f) => {
      const o = operand(f);
      const k = index(f);
      f.charge(step);
      return optional ? qualifyOptional(o, k) : qualify(o, k);
    };
  },
  and: (e, b) => logical(b.build(e.left), b.build(e.right), false),
  or: (e, b) => logical(b.build(e.left), b.build(e.right), true),
  cond: (e, b) => {
    const test = b.build(e.test);
    const then = uncharged(e.then, b.build(e.then));
    const otherwise = uncharged(e.otherwise, b.build(e.otherwise));
    return (f) => (truth(test(f)) ? then(f) : otherwise(f));
  },
  list: (e, b) => buildList(e.elems.map(b.build), e.optional),
  map: (e, b) => buildMap(e.entries.map((en) => [b.build(en.key), b.build(en.value), en.optional] as const)),
  struct: () => {
    throw new Error("message construction is rejected by the checker");
  },
  comp: (e, b) => buildComprehension(e, b.build, b.slotOf(e), b.invariantSlots(e)),
  bind: (e, b) => {
    const init = b.build(e.init);
    const body = b.build(e.body);
    const slot = b.slotOf(e);
    return (f) => {
      f.locals[slot] = init(f);
      return body(f);
    };
  },
  optMap: (e, b) => {
    const target = b.build(e.target);
    const body = b.build(e.body);
    const slot = b.slotOf(e);
    const flat = e.flat;
    return (f) => {
      const t = target(f);
      if (!(t instanceof Optional)) throw new EvalError("no such overload");
      if (t.value === undefined) return t;
      f.locals[slot] = t.value;
      const v = body(f);
      if (!flat) return new Optional(v);
      if (!(v instanceof Optional)) throw new EvalError("no such overload");
      return v;
    };
  },
  call: (e, b, r) => buildCall(e, r, b.build),
};

/** An identifier (or qualified name) the checker resolved: a local, a declared variable or a type. */
function resolved(r: Resolution): Eval {
  switch (r.kind) {
    case "local": {
      const slot = r.slot;
      return (f) => {
        f.charge(1);
        return f.locals[slot] as Value;
      };
    }
    case "var": {
      const name = r.name;
      return (f) => {
        f.charge(1);
        const v = hasOwn.call(f.activation, name) ? f.activation[name] : undefined;
        if (v === undefined) throw new EvalError(`no such attribute(s): ${name}`);
        return v;
      };
    }
    case "type":
      // cel-go plans type names as constants: free.
      return constant(r.type);
    case "call":
    case "binder":
      throw new Error("not an identifier resolution");
  }
}

/** && (decisive false) and || (decisive true): an error on one side loses to a deciding other side. */
function logical(left: Eval, right: Eval, decisive: boolean): Eval {
  return (f) => {
    const l = attempt(left, f);
    if (l === decisive) return decisive;
    const r = attempt(right, f);
    if (r === decisive) return decisive;
    if (l instanceof EvalError) throw l;
    if (r instanceof EvalError) throw r;
    return !decisive;
  };
}

/** A loop-invariant value as its first evaluation in the loop's run left it: its value or error, its cost, and the highest cost above the start it reached. */
interface Kept {
  readonly value: Value;
  readonly error: EvalError | undefined;
  readonly cost: number;
  readonly peak: number;
}

const NONE: readonly number[] = [];
/** The facts of a subexpression with no call, comprehension or variable of a loop (a literal, a field of `object`). */
const LIGHT_CLOSED = { free: NONE, heavy: false } as const;

/** Calls `visit` with each direct subexpression of e and the slots e binds for it. */
function eachChild(e: Expr, res: ReadonlyMap<Expr, Resolution>, visit: (child: Expr, bound: readonly number[]) => void): void {
  switch (e.kind) {
    case "lit":
    case "ident":
    case "struct":
      return;
    case "select":
    case "has":
      return visit(e.operand, NONE);
    case "index":
      visit(e.operand, NONE);
      return visit(e.index, NONE);
    case "call":
      if (e.target !== undefined) visit(e.target, NONE);
      for (const arg of e.args) visit(arg, NONE);
      return;
    case "and":
    case "or":
      visit(e.left, NONE);
      return visit(e.right, NONE);
    case "cond":
      visit(e.test, NONE);
      visit(e.then, NONE);
      return visit(e.otherwise, NONE);
    case "list":
      for (const elem of e.elems) visit(elem, NONE);
      return;
    case "map":
      for (const entry of e.entries) {
        visit(entry.key, NONE);
        visit(entry.value, NONE);
      }
      return;
    case "comp":
    case "bind":
    case "optMap": {
      const r = res.get(e);
      const slot = r?.kind === "binder" ? r.slot : undefined;
      const bound = slot === undefined ? NONE : e.kind === "comp" && e.v2 !== undefined ? [slot, slot + 1] : [slot];
      if (e.kind === "comp") {
        visit(e.range, NONE);
        for (const arg of e.args) visit(arg, bound);
      } else if (e.kind === "bind") {
        visit(e.init, NONE);
        visit(e.body, bound);
      } else {
        visit(e.target, NONE);
        visit(e.body, bound);
      }
      return;
    }
  }
}

/**
 * Loop-invariant code motion without moving: within one run of a
 * comprehension, a subexpression of its body that reads none of the
 * variables bound inside the loop (quantity(string(params.x)) in
 * containers.all(c, …)) has the same value, error and cost on every
 * iteration. Its first evaluation in the run is kept; later iterations take
 * it and charge its cost, unless what it cost at its highest would not fit
 * under the limit: then it runs again, so the evaluation stops exactly
 * where it would have. Only subexpressions holding a call or a comprehension
 * are kept (a field read costs less than taking a kept value), the largest
 * such ones, each by the outermost loop it is invariant in.
 */
function loopInvariants(root: Expr, res: ReadonlyMap<Expr, Resolution>): { slotOf: Map<Expr, number>; owned: Map<Expr, number[]>; count: number } {
  // Per node, bottom up: the slots of the variables it reads that it does not bind itself, and whether it holds a
  // call or a comprehension. A node the checker resolved whole (a qualified name) is not built from its parts.
  const facts = new Map<Expr, { readonly free: readonly number[]; readonly heavy: boolean }>();
  const factsOf = (e: Expr): { readonly free: readonly number[]; readonly heavy: boolean } => {
    let known = facts.get(e);
    if (known !== undefined) return known;
    const r = res.get(e);
    if (r !== undefined && r.kind !== "call" && r.kind !== "binder") known = r.kind === "local" ? { free: [r.slot], heavy: false } : LIGHT_CLOSED;
    else {
      let free: number[] | undefined;
      let heavy = e.kind === "call" || e.kind === "comp";
      eachChild(e, res, (child, bound) => {
        const inner = factsOf(child);
        heavy ||= inner.heavy;
        for (const slot of inner.free) if (!bound.includes(slot) && !free?.includes(slot)) (free ??= []).push(slot);
      });
      known = free === undefined && !heavy ? LIGHT_CLOSED : { free: free ?? NONE, heavy };
    }
    facts.set(e, known);
    return known;
  };
  const slotOf = new Map<Expr, number>();
  const owned = new Map<Expr, number[]>();
  const keep = (mine: number[], e: Expr, bound: readonly number[]): void => {
    const { free, heavy } = factsOf(e);
    if (!heavy || slotOf.has(e)) return;
    if (!free.some((slot) => bound.includes(slot))) {
      mine.push(slotOf.size);
      slotOf.set(e, slotOf.size);
      return;
    }
    eachChild(e, res, (child, inner) => keep(mine, child, inner.length === 0 ? bound : [...bound, ...inner]));
  };
  // Facts are worked out only for comprehensions' bodies: most expressions have none.
  const walk = (e: Expr): void => {
    if (e.kind === "comp") {
      const mine: number[] = [];
      eachChild(e, res, (child, bound) => {
        if (bound.length > 0) keep(mine, child, bound);
      });
      if (mine.length > 0) owned.set(e, mine);
    }
    eachChild(e, res, walk);
  };
  walk(root);
  return { slotOf, owned, count: slotOf.size };
}

/** The closure of a loop-invariant subexpression kept in frame.kept[index] (see loopInvariants). */
function invariant(inner: Eval, index: number): Eval {
  return (f) => {
    const kept = f.kept[index];
    if (kept !== undefined) {
      if (f.cost + kept.peak <= f.limit) {
        if (f.cost + kept.peak > f.high) f.high = f.cost + kept.peak;
        f.cost += kept.cost;
        if (kept.error !== undefined) throw kept.error;
        return kept.value;
      }
      return inner(f);
    }
    const start = f.cost;
    const high = f.high;
    f.high = start;
    let value: Value = null;
    let error: EvalError | undefined;
    try {
      value = inner(f);
    } catch (err) {
      if (!(err instanceof EvalError)) {
        if (high > f.high) f.high = high;
        throw err;
      }
      error = err;
    }
    const peak = Math.max(f.high, f.cost) - start;
    if (high > f.high) f.high = high;
    f.kept[index] = { value, error, cost: f.cost - start, peak };
    if (error !== undefined) throw error;
    return value;
  };
}

/** A compiled expression: its root closure and the local slots a frame needs for it. */
export interface CompiledExpr {
  readonly root: Eval;
  /** Local variable slots (the checker's). */
  readonly slots: number;
  /** Loop-invariant values kept per frame. */
  readonly invariants: number;
}

/** `keepInvariants`: whether loops keep their invariant values (loopInvariants); always, but for the test that compares both. */
export function compileExpr(root: Expr, checked: Checked, keepInvariants = true): CompiledExpr {
  const res = checked.resolutions;
  const invariants = keepInvariants ? loopInvariants(root, res) : { slotOf: new Map<Expr, number>(), owned: new Map<Expr, number[]>(), count: 0 };
  const builder: Builder = {
    build: (e) => {
      const r = res.get(e);
      if (r !== undefined && r.kind !== "call" && r.kind !== "binder") return resolved(r);
      const built = (BUILDERS[e.kind] as (e: Expr, b: Builder, r: Resolution | undefined) => Eval)(e, builder, r);
      const slot = invariants.slotOf.get(e);
      return slot === undefined || constants.has(built) ? built : invariant(built, slot);
    },
    invariantSlots: (e) => invariants.owned.get(e) ?? [],
    resolved: (e) => res.has(e),
    slotOf: (e) => {
      const b = res.get(e);
      if (b?.kind !== "binder") throw new Error("binder without a slot");
      return b.slot;
    },
  };
  return { root: builder.build(root), slots: checked.slots, invariants: invariants.count };
}

/**
 * cel-go resolves a conditional's branches that are plain attributes (a, a.b,
 * a[0]) inside the conditional, without charging for them.
 */
function uncharged(e: Expr, branch: Eval): Eval {
  if (!isAttribute(e)) return branch;
  return (f) => {
    const cost = f.cost;
    const v = branch(f);
    if (f.cost > f.high) f.high = f.cost;
    f.cost = cost;
    return v;
  };
}

function isAttribute(e: Expr): boolean {
  if (e.kind === "ident") return true;
  if (e.kind === "select") return !e.optional && isAttribute(e.operand);
  return e.kind === "index" && !e.optional && e.index.kind === "lit" && isAttribute(e.operand);
}

function buildList(elems: readonly Eval[], optional: readonly boolean[]): Eval {
  const anyOptional = optional.includes(true);
  // A literal of constants is a constant (cel-go folds it): no creation cost.
  if (!anyOptional && elems.every((x) => constants.has(x))) return constant(elems.map((x) => constants.get(x) as Value));
  return (f) => {
    f.charge(10);
    const out: Value[] = [];
    for (let i = 0; i < elems.length; i++) {
      const v = (elems[i] as Eval)(f);
      if (anyOptional && optional[i]) {
        if (!(v instanceof Optional)) throw new EvalError("no such overload");
        if (v.value !== undefined) out.push(v.value);
      } else out.push(v);
    }
    return out;
  };
}

export function mapInsert(m: CelMap, k: Value, v: Value): void {
  const key = mapKey(k);
  if (key === undefined || (typeof k === "number" && !isIntNumber(k)) || k instanceof Double) {
    throw new EvalError(`unsupported key type: ${typeOf(k).name}`);
  }
  if (m.entries.has(key)) throw new EvalError(`Failed with repeated key: ${showKey(k)}`);
  m.entries.set(key, [k, v]);
}

function buildMap(entries: readonly (readonly [Eval, Eval, boolean])[]): Eval {
  if (entries.every(([k, v, optional]) => !optional && constants.has(k) && constants.has(v))) {
    const m = new CelMap();
    try {
      for (const [k, v] of entries) mapInsert(m, constants.get(k) as Value, constants.get(v) as Value);
      return constant(m);
    } catch (e) {
      if (!(e instanceof EvalError)) throw e;
    }
  }
  return (f) => {
    f.charge(30);
    const m = new CelMap();
    for (const [key, value, optional] of entries) {
      const k = key(f);
      const v = value(f);
      if (optional) {
        if (!(v instanceof Optional)) throw new EvalError("no such overload");
        if (v.value !== undefined) mapInsert(m, k, v.value);
      } else mapInsert(m, k, v);
    }
    return m;
  };
}

/** cel-go's type conversion functions (common/overloads IsTypeConversionFunction). */
const TYPE_CONVERSIONS = new Set(["bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"]);

function buildCall(e: Extract<Expr, { kind: "call" }>, r: Resolution | undefined, build: (e: Expr) => Eval): Eval {
  if (r === undefined || r.kind !== "call") throw new Error(`unresolved call ${e.name}`);
  const args = (r.qualified || e.target === undefined ? e.args : [e.target, ...e.args]).map(build);
  const single = r.overloads.length === 1 ? (r.overloads[0] as OverloadDecl) : undefined;
  const overloads = r.specialized === undefined || single === undefined ? r.overloads : [{ ...single, impl: r.specialized }];
  const impl: Impl = (r.specialized === undefined ? r.fn.impl : undefined) ?? dispatch(r.fn.name, overloads, r.exact);
  // cel.OptOptimize folds a type conversion of a constant (duration('1h'), double(5)): interpreter/decorators.go
  // decOptimize, overloads.IsTypeConversionFunction. Any other call on a constant (ip('::1'), size('ab')) it charges.
  if (args.length === 1 && e.target === undefined && TYPE_CONVERSIONS.has(e.name) && constants.has(args[0] as Eval)) {
    try {
      return constant(impl([constants.get(args[0] as Eval) as Value], FOLDING));
    } catch (err) {
      if (!(err instanceof EvalError)) throw err;
    }
  }
  // Membership in a constant list is a set lookup in cel-go: free.
  const list = args.length === 2 && e.name === "@in" ? constants.get(args[1] as Eval) : undefined;
  if (list !== undefined && isList(list)) {
    const elem = args[0] as Eval;
    // A list of strings is a Set: no other value equals a string.
    if (list.every((y) => typeof y === "string")) {
      const set = new Set(list as readonly string[]);
      return (f) => {
        const x = elem(f);
        return typeof x === "string" && set.has(x);
      };
    }
    return (f) => {
      const x = elem(f);
      return list.some((y) => equals(y, x));
    };
  }
  // or / orValue do not evaluate their argument when the optional has a value.
  if ((e.name === "or" || e.name === "orValue") && args.length === 2) {
    const [target, alt] = args as [Eval, Eval];
    const orValue = e.name === "orValue";
    return (f) => {
      const t = target(f);
      f.charge(1);
      if (t instanceof Optional) {
        if (t.value !== undefined) return orValue ? t.value : t;
        return orValue ? alt(f) : impl([t, alt(f)], f);
      }
      return impl([t, alt(f)], f);
    };
  }
  // One argument array per call site, refilled on each call instead of allocated: calls made a third
  // of an evaluation's garbage. A call made while the site's own runs (a lazily computed variable whose
  // program is this one) gets a fresh array; the array is emptied after, so it keeps no input alive.
  switch (args.length) {
    case 1: {
      const [a] = args as [Eval];
      const one: Value[] = [null];
      let busy = false;
      return (f) => {
        const x = a(f);
        f.charge(1);
        if (busy) return impl([x], f);
        busy = true;
        one[0] = x;
        try {
          return impl(one, f);
        } finally {
          one[0] = null;
          busy = false;
        }
      };
    }
    case 2: {
      const [a, b] = args as [Eval, Eval];
      const pair: Value[] = [null, null];
      let busy = false;
      return (f) => {
        const x = a(f);
        const y = b(f);
        f.charge(1);
        if (busy) return impl([x, y], f);
        busy = true;
        pair[0] = x;
        pair[1] = y;
        try {
          return impl(pair, f);
        } finally {
          pair[0] = pair[1] = null;
          busy = false;
        }
      };
    }
    default:
      return (f) => {
        const vals = args.map((a) => a(f));
        f.charge(1);
        return impl(vals, f);
      };
  }
}

/** What a comprehension walks: a list's elements, or a map's keys. */
function itemsOf(range: Value): readonly Value[] {
  if (isList(range)) return range;
  if (isMap(range)) return mapKeys(range);
  throw new EvalError(`got '${typeOf(range).name}', expected iterable type`);
}

function buildComprehension(e: Extract<Expr, { kind: "comp" }>, build: (e: Expr) => Eval, slot1: number, invariantSlots: readonly number[]): Eval {
  const built = buildLoop(e, build, slot1);
  if (invariantSlots.length === 0) return built;
  // Each run computes its loop-invariant values afresh (they may read variables of enclosing loops), and
  // lets go of them after, so the frame a program keeps for its next evaluation holds no input.
  const clear = (f: Frame): void => {
    for (let i = 0; i < invariantSlots.length; i++) f.kept[invariantSlots[i] as number] = undefined;
  };
  return (f) => {
    clear(f);
    try {
      return built(f);
    } finally {
      clear(f);
    }
  };
}

function buildLoop(e: Extract<Expr, { kind: "comp" }>, build: (e: Expr) => Eval, slot1: number): Eval {
  const range = build(e.range);
  const [first, second] = e.args.map(build) as [Eval, Eval | undefined];
  const two = e.v2 !== undefined;
  const slot2 = slot1 + 1;
  const cost = LOOP_COST[e.macro];
  const perElement = cost.cond + cost.step;
  const kept = cost.kept;
  /** Binds element i: the element (a list) or key (a map); with two variables, index and element, or key and value. */
  const bindVars = (f: Frame, r: Value, items: readonly Value[], i: number): void => {
    if (items === r) {
      if (two) {
        f.locals[slot1] = i;
        f.locals[slot2] = items[i] as Value;
      } else f.locals[slot1] = items[i] as Value;
    } else {
      f.locals[slot1] = items[i] as Value;
      if (two) f.locals[slot2] = mapGet(r as JsonObject | MapValue, items[i] as Value) as Value;
    }
  };
  // With a filter (map/3, transform*/4) `first` is the filter and `second` the transform.
  const filter = second === undefined || e.macro === "all" || e.macro === "exists" || e.macro === "exists_one" ? undefined : first;
  const transform = second ?? first;

  switch (e.macro) {
    case "all":
    case "exists": {
      const decisive = e.macro === "exists";
      return (f) => {
        const r = range(f);
        const items = itemsOf(r);
        let err: EvalError | undefined;
        let result = !decisive;
        for (let i = 0; i < items.length; i++) {
          // The element after the deciding one still runs the loop condition, which then stops.
          if (result === decisive) {
            f.charge(cost.cond);
            break;
          }
          f.charge(perElement);
          bindVars(f, r, items, i);
          const p = attempt(first, f);
          if (p === decisive) result = decisive;
          else if (p instanceof EvalError) err ??= p;
        }
        f.charge(cost.result);
        if (result === decisive) return decisive;
        if (err !== undefined) throw err;
        return result;
      };
    }
    case "exists_one":
      return (f) => {
        const r = range(f);
        const items = itemsOf(r);
        let count = 0;
        for (let i = 0; i < items.length; i++) {
          f.charge(perElement);
          bindVars(f, r, items, i);
          if (truth(first(f))) {
            f.charge(kept);
            count++;
          }
        }
        f.charge(cost.result);
        return count === 1;
      };
    case "map":
    case "filter":
    case "transformList": {
      const filtering = e.macro === "filter";
      return (f) => {
        const r = range(f);
        const items = itemsOf(r);
        const out: Value[] = [];
        for (let i = 0; i < items.length; i++) {
          f.charge(perElement);
          bindVars(f, r, items, i);
          if (filtering) {
            if (truth(first(f))) {
              f.charge(kept);
              out.push(f.locals[slot1] as Value);
            }
          } else if (filter === undefined || truth(filter(f))) {
            f.charge(kept);
            out.push(transform(f));
          }
        }
        f.charge(cost.result);
        return out;
      };
    }
    case "transformMap":
    case "transformMapEntry":
      return (f) => {
        const r = range(f);
        const items = itemsOf(r);
        const out = new CelMap();
        for (let i = 0; i < items.length; i++) {
          f.charge(perElement);
          // Both transforms bind two variables: index and element, or key and value.
          bindVars(f, r, items, i);
          const key = f.locals[slot1] as Value;
          if (filter !== undefined && !truth(filter(f))) continue;
          f.charge(kept);
          const v = transform(f);
          if (e.macro === "transformMap") {
            mapInsert(out, key, v);
            continue;
          }
          if (!isMap(v)) throw new EvalError("no such overload");
          for (const k of mapKeys(v)) {
            if (out.get(k) !== undefined) throw new EvalError(`insert failed: key ${showKey(k)} already exists`);
            mapInsert(out, k, mapGet(v, k) as Value);
          }
        }
        f.charge(cost.result);
        return out;
      };
  }
}
