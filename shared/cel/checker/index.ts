// Declaration checking: every identifier must be a declared variable, a
// comprehension/bind variable or a type name, and every call must name a
// declared function with an overload of matching style and arity. Full
// static typing is out of scope (Kubernetes types against OpenAPI schemas we
// do not have), but literals have static types, so `1 + 'a'`, mixed list
// literals and invalid constant regexes, durations and timestamps are compile
// errors as in cel-go with Kubernetes' validators. A variable may be declared
// with a static type (the apiserver's `request`, `namespaceObject`, a VAP
// variable's inferred type): selecting a field its object type lacks,
// indexing a list with a non-int and comparing values of two different known
// types are then compile errors as in cel-go. Such a type is what the
// declaration promises, not what a JSON value at run time is, so it never
// lets a call skip its runtime type test.

import type { FunctionDecl, Impl, OverloadDecl } from "../declarations/index.js";
import { qualifiedName, type Expr } from "../parser/index.js";
import { typeOf, type CelType, type Value } from "../values/index.js";

/** An object type's fields and their types (cel-go's DeclType object). */
export type ObjectFields = ReadonlyMap<string, string>;

export interface Declarations {
  readonly variables: ReadonlySet<string>;
  /** Static types of some declared variables (dyn for the others), in the type names the checker shows ("list(string)", an object type's name). */
  readonly variableTypes?: ReadonlyMap<string, string>;
  /** The object types variableTypes name, by name. */
  readonly objectTypes?: ReadonlyMap<string, ObjectFields>;
  /** Kubernetes' ValidateHomogeneousAggregateLiterals: list and map literals may not mix element types. */
  readonly homogeneousLiterals: boolean;
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  readonly types: ReadonlyMap<string, CelType>;
}

export type Resolution =
  | { readonly kind: "var"; readonly name: string }
  | { readonly kind: "local"; readonly slot: number }
  | { readonly kind: "type"; readonly type: CelType }
  /** On comprehension, bind and optMap nodes: the slot of their (first) variable; a second one follows it. */
  | { readonly kind: "binder"; readonly slot: number }
  | {
      readonly kind: "call";
      readonly fn: FunctionDecl;
      /** Overloads that may apply, in declaration order. */
      readonly overloads: readonly OverloadDecl[];
      /** The call's target is part of a qualified function name (optional.of), not an argument. */
      readonly qualified: boolean;
      readonly specialized: Impl | undefined;
      /** The arguments' static types are all known and select the one overload left: no runtime type test is needed. */
      readonly exact: boolean;
    };

interface CheckError {
  readonly pos: number;
  readonly message: string;
}

export interface Checked {
  /** The expression's static type ("dyn" when unknown). */
  readonly type: string;
  readonly resolutions: ReadonlyMap<Expr, Resolution>;
  /** Number of local variable slots the program needs. */
  readonly slots: number;
  readonly errors: readonly CheckError[];
}

type Scope = ReadonlyMap<string, number>;

/** Function names whose list/map literal arguments may mix types (cel-go exempts string.format). */
const HOMOGENEITY_EXEMPT = new Set(["format"]);

export function check(expr: Expr, decls: Declarations): Checked {
  const c = new Checker(decls);
  const type = c.visit(expr, new Map(), false);
  return { type, resolutions: c.resolutions, slots: c.slots, errors: c.errors };
}

const base = (t: string): string => {
  const i = t.indexOf("(");
  return i < 0 ? t : t.slice(0, i);
};

const isBool = (t: string): boolean => t === "bool" || t === "dyn";

const accepts = (param: string, arg: string): boolean => param === "dyn" || arg === "dyn" || base(param) === base(arg);

/** The parameters of a type name: ["int"] of "list(int)", ["string", "list(string)"] of "map(string, list(string))". */
export function typeParameters(t: string): string[] {
  const open = t.indexOf("(");
  if (open < 0) return [];
  const params: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = start; i < t.length - 1; i++) {
    if (t[i] === "(") depth++;
    else if (t[i] === ")") depth--;
    else if (t[i] === "," && depth === 0) {
      params.push(t.slice(start, i).trim());
      start = i + 1;
    }
  }
  params.push(t.slice(start, t.length - 1).trim());
  return params;
}

/** Types the equality check compares: those whose values are never of another type (a library's or null's may be). */
const COMPARED = new Set(["int", "uint", "double", "bool", "string", "bytes", "list", "map", "google.protobuf.Timestamp", "google.protobuf.Duration"]);

/**
 * Whether cel-go's `_==_` (A, A) can unify two static types. null_type,
 * library and object types unify with more than their own name in cel-go
 * (null with messages and wrappers): those are let through.
 */
function unifies(a: string, b: string, objects: ReadonlyMap<string, ObjectFields> | undefined): boolean {
  if (a === b || a === "dyn" || b === "dyn") return true;
  const known = (t: string) => COMPARED.has(base(t)) || objects?.has(t) === true;
  if (!known(a) || !known(b)) return true;
  if (base(a) !== base(b)) return false;
  // A bare "list" or "map" (a library's result) has unknown parameters.
  const pa = typeParameters(a);
  const pb = typeParameters(b);
  return pa.length === 0 || pb.length === 0 || (pa.length === pb.length && pa.every((p, i) => unifies(p, pb[i] as string, objects)));
}

class Checker {
  readonly resolutions = new Map<Expr, Resolution>();
  readonly errors: CheckError[] = [];
  slots = 0;
  /** How many reads of a statically typed variable were checked: a call whose arguments read one keeps its runtime type test. */
  private typedReads = 0;

  constructor(private readonly decls: Declarations) {}

  private error(pos: number, message: string): "dyn" {
    this.errors.push({ pos, message });
    return "dyn";
  }

  private undeclared(pos: number, name: string): "dyn" {
    return this.error(pos, `undeclared reference to '${name}' (in container '')`);
  }

  /** Resolves a name to a declared variable or type, if it is one. */
  private global(name: string): Resolution | undefined {
    if (this.decls.variables.has(name)) return { kind: "var", name };
    const type = this.decls.types.get(name);
    return type && { kind: "type", type };
  }

  /** The static type of a resolved global. */
  private typeOfGlobal(r: Resolution): string {
    if (r.kind === "type") return "type";
    const declared = r.kind === "var" ? this.decls.variableTypes?.get(r.name) : undefined;
    if (declared === undefined || declared === "dyn") return "dyn";
    this.typedReads++;
    return declared;
  }

  /** The type of `operand.field`: an object type's field (its absence is cel-go's error), a map's value type, else dyn. */
  private field(pos: number, operand: string, field: string): string {
    const fields = this.decls.objectTypes?.get(operand);
    if (fields !== undefined) return fields.get(field) ?? this.error(pos, `undefined field '${field}'`);
    return base(operand) === "map" ? (typeParameters(operand)[1] ?? "dyn") : "dyn";
  }

  /** Checks e and returns its static type name ("dyn" when unknown). */
  visit(e: Expr, scope: Scope, exempt: boolean): string {
    switch (e.kind) {
      case "lit":
        return typeOf(e.value).name;
      case "ident": {
        const name = e.name.startsWith(".") ? e.name.slice(1) : e.name;
        const slot = e.name.startsWith(".") ? undefined : scope.get(name);
        if (slot !== undefined) {
          this.resolutions.set(e, { kind: "local", slot });
          return "dyn";
        }
        const r = this.global(name);
        if (r === undefined) return this.undeclared(e.pos, name);
        this.resolutions.set(e, r);
        return this.typeOfGlobal(r);
      }
      case "select": {
        const q = e.optional ? undefined : qualifiedName(e);
        if (q !== undefined && !scope.has(q.split(".")[0] as string)) {
          const r = this.global(q.startsWith(".") ? q.slice(1) : q);
          if (r !== undefined) {
            this.resolutions.set(e, r);
            return this.typeOfGlobal(r);
          }
        }
        const operand = this.visit(e.operand, scope, exempt);
        const type = this.field(e.pos, operand, e.field);
        return e.optional ? "dyn" : type;
      }
      case "has":
        this.field(e.pos, this.visit(e.operand, scope, exempt), e.field);
        return "bool";
      case "index": {
        const operand = this.visit(e.operand, scope, exempt);
        const index = this.visit(e.index, scope, exempt);
        const [first, second] = typeParameters(operand);
        const kind = base(operand);
        if (e.optional || (kind !== "list" && kind !== "map")) return "dyn";
        const expected = kind === "list" ? "int" : (first ?? "dyn");
        // cel-go's index overloads: list(A)[int], map(K, V)[K]; a list also takes a uint or double of integral value at run time.
        const fits = index === "dyn" || expected === "dyn" || index === expected || (kind === "list" && (index === "uint" || index === "double"));
        if (!fits) return this.error(e.pos, `found no matching overload for '_[_]' applied to '(${operand}, ${index})'`);
        return (kind === "list" ? first : second) ?? "dyn";
      }
      case "and":
      case "or": {
        const left = this.visit(e.left, scope, exempt);
        const right = this.visit(e.right, scope, exempt);
        if (!isBool(left) || !isBool(right)) {
          return this.error(e.pos, `found no matching overload for '${e.kind === "and" ? "_&&_" : "_||_"}' applied to '(${left}, ${right})'`);
        }
        return "bool";
      }
      case "cond": {
        const test = this.visit(e.test, scope, exempt);
        const a = this.visit(e.then, scope, exempt);
        const b = this.visit(e.otherwise, scope, exempt);
        if (test !== "bool" && test !== "dyn") {
          return this.error(e.pos, `found no matching overload for '_?_:_' applied to '(${test}, ${a}, ${b})'`);
        }
        return a === b ? a : "dyn";
      }
      case "list": {
        const types = e.elems.map((x, i) => {
          const t = this.visit(x, scope, exempt);
          return e.optional[i] ? "dyn" : t;
        });
        const elem = this.homogeneous(e.elems, types, exempt);
        return `list(${elem})`;
      }
      case "map": {
        const keys = e.entries.map((en) => this.visit(en.key, scope, exempt));
        const values = e.entries.map((en) => (en.optional ? (this.visit(en.value, scope, exempt), "dyn") : this.visit(en.value, scope, exempt)));
        const k = this.homogeneous(e.entries.map((en) => en.key), keys, exempt);
        const v = this.homogeneous(e.entries.map((en) => en.value), values, exempt);
        return `map(${k}, ${v})`;
      }
      case "struct":
        return this.undeclared(e.pos, e.typeName);
      case "comp": {
        const range = this.visit(e.range, scope, exempt);
        if (range !== "dyn" && base(range) !== "list" && base(range) !== "map") {
          this.error(e.range.pos, `expression of type '${range}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        }
        const inner = this.bind(e, scope, e.v1);
        if (e.v2 !== undefined) inner.set(e.v2, this.slots++);
        const argTypes = e.args.map((a) => this.visit(a, inner, exempt));
        this.predicate(e, argTypes[0] as string);
        if (e.macro === "map" || e.macro === "filter" || e.macro === "transformList") return "list(dyn)";
        return e.macro === "transformMap" || e.macro === "transformMapEntry" ? "map(dyn, dyn)" : "bool";
      }
      case "bind": {
        this.visit(e.init, scope, exempt);
        return this.visit(e.body, this.bind(e, scope, e.name), exempt);
      }
      case "optMap": {
        this.visit(e.target, scope, exempt);
        this.visit(e.body, this.bind(e, scope, e.name), exempt);
        return "optional_type";
      }
      case "call":
        return this.call(e, scope, exempt);
    }
  }

  /**
   * A macro's predicate must be a bool; cel-go reports a non-bool one as a
   * mismatch of the operator its expansion applies to it.
   */
  private predicate(e: Extract<Expr, { kind: "comp" }>, type: string): void {
    if (isBool(type) || e.args.length === 1 && (e.macro === "map" || e.macro.startsWith("transform"))) return;
    const shown: Partial<Record<string, string>> = {
      all: `'_&&_' applied to '(bool, ${type})'`,
      exists: `'_||_' applied to '(bool, ${type})'`,
      exists_one: `'_?_:_' applied to '(${type}, int, int)'`,
      filter: `'_?_:_' applied to '(${type}, list(dyn), list(dyn))'`,
      map: `'_?_:_' applied to '(${type}, list(dyn), list(dyn))'`,
    };
    const what = shown[e.macro];
    if (what !== undefined) this.error(e.pos, `found no matching overload for ${what}`);
  }

  /** A scope with name in a fresh slot, recorded on the node that introduces it. */
  private bind(e: Expr, scope: Scope, name: string): Map<string, number> {
    const inner = new Map(scope);
    const slot = this.slots++;
    inner.set(name, slot);
    this.resolutions.set(e, { kind: "binder", slot });
    return inner;
  }

  /** cel-go's homogeneous aggregate literal validator, for the types we know statically. */
  private homogeneous(exprs: readonly Expr[], types: readonly string[], exempt: boolean): string {
    let first: string | undefined;
    for (let i = 0; i < types.length; i++) {
      const t = types[i] as string;
      if (t === "dyn") continue;
      if (first === undefined) first = t;
      else if (t !== first && !exempt && this.decls.homogeneousLiterals) {
        this.error((exprs[i] as Expr).pos, `expected type '${first}' but found '${t}'`);
        return "dyn";
      }
    }
    // Mixed element types (allowed without the validator) make the literal's parameter dyn, as cel-go's join does.
    return first === undefined || types.some((t) => t !== first) ? "dyn" : first;
  }

  private call(e: Extract<Expr, { kind: "call" }>, scope: Scope, exempt: boolean): string {
    let name = e.name.startsWith(".") ? e.name.slice(1) : e.name;
    let target = e.target;
    let qualified = false;
    if (target !== undefined) {
      const q = qualifiedName(target);
      if (q !== undefined && !scope.has(q.split(".")[0] as string) && this.global(q)?.kind !== "var" && this.decls.functions.has(`${q}.${name}`)) {
        name = `${q}.${name}`;
        target = undefined;
        qualified = true;
      }
    }
    const fn = this.decls.functions.get(name);
    const innerExempt = exempt || HOMOGENEITY_EXEMPT.has(name);
    const typedReads = this.typedReads;
    const argTypes = (target === undefined ? e.args : [target, ...e.args]).map((a) => this.visit(a, scope, innerExempt));
    const typedArgs = this.typedReads !== typedReads;
    if (fn === undefined) return this.undeclared(e.pos, name);
    if ((name === "_==_" || name === "_!=_") && !unifies(argTypes[0] as string, argTypes[1] as string, this.decls.objectTypes)) {
      return this.error(e.pos, `found no matching overload for '${name}' applied to '(${argTypes.join(", ")})'`);
    }
    const receiver = target !== undefined;
    const overloads = fn.overloads.filter(
      (o) => !!o.receiver === receiver && o.params.length === argTypes.length && o.params.every((p, i) => accepts(p, argTypes[i] as string)),
    );
    if (overloads.length === 0) {
      const shown = receiver ? `${argTypes[0]}.(${argTypes.slice(1).join(", ")})` : `(${argTypes.join(", ")})`;
      return this.error(e.pos, `found no matching overload for '${name}' applied to '${shown}'`);
    }
    const specialized = this.specialize(overloads, target === undefined ? e.args : [target, ...e.args]);
    const exact = !typedArgs && overloads.length === 1 && argTypes.every((t, i) => t !== "dyn" && base(t) === base((overloads[0] as OverloadDecl).params[i] as string));
    this.resolutions.set(e, { kind: "call", fn, overloads, qualified, specialized, exact });
    const results = new Set(overloads.map((o) => o.result ?? "dyn"));
    return results.size === 1 ? ([...results][0] as string) : "dyn";
  }

  private specialize(overloads: readonly OverloadDecl[], args: readonly Expr[]): Impl | undefined {
    const o = overloads[0] as OverloadDecl;
    if (overloads.length !== 1 || o.specialize === undefined) return undefined;
    const constants = args.map((a) => (a.kind === "lit" ? (a.value as Value) : undefined));
    const result = o.specialize(constants);
    if (typeof result !== "string") return result;
    // The offending constant is the last literal (the pattern, the duration text).
    const at = args.filter((a) => a.kind === "lit").pop();
    this.error(at?.pos ?? 0, result);
    return undefined;
  }
}
