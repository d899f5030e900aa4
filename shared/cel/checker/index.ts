// Declaration checking: every identifier must be a declared variable, a
// comprehension/bind variable or a type name, and every call must name a
// declared function with an overload of matching style and arity. Full
// static typing is out of scope (Kubernetes types against OpenAPI schemas we
// do not have), but literals have static types, so `1 + 'a'`, mixed list
// literals and invalid constant regexes, durations and timestamps are compile
// errors as in cel-go with Kubernetes' validators.

import type { FunctionDecl, Impl, OverloadDecl } from "../declarations/index.js";
import { qualifiedName, type Expr } from "../parser/index.js";
import { typeOf, type CelType, type Value } from "../values/index.js";

export interface Declarations {
  readonly variables: ReadonlySet<string>;
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
  c.visit(expr, new Map(), false);
  return { resolutions: c.resolutions, slots: c.slots, errors: c.errors };
}

const base = (t: string): string => {
  const i = t.indexOf("(");
  return i < 0 ? t : t.slice(0, i);
};

const isBool = (t: string): boolean => t === "bool" || t === "dyn";

const accepts = (param: string, arg: string): boolean => param === "dyn" || arg === "dyn" || base(param) === base(arg);

class Checker {
  readonly resolutions = new Map<Expr, Resolution>();
  readonly errors: CheckError[] = [];
  slots = 0;

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
        return r.kind === "type" ? "type" : "dyn";
      }
      case "select": {
        const q = e.optional ? undefined : qualifiedName(e);
        if (q !== undefined && !scope.has(q.split(".")[0] as string)) {
          const r = this.global(q.startsWith(".") ? q.slice(1) : q);
          if (r !== undefined) {
            this.resolutions.set(e, r);
            return r.kind === "type" ? "type" : "dyn";
          }
        }
        this.visit(e.operand, scope, exempt);
        return "dyn";
      }
      case "has":
        this.visit(e.operand, scope, exempt);
        return "bool";
      case "index":
        this.visit(e.operand, scope, exempt);
        this.visit(e.index, scope, exempt);
        return "dyn";
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
    return first === undefined || types.includes("dyn") ? "dyn" : first;
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
    const argTypes = (target === undefined ? e.args : [target, ...e.args]).map((a) => this.visit(a, scope, innerExempt));
    if (fn === undefined) return this.undeclared(e.pos, name);
    const receiver = target !== undefined;
    const overloads = fn.overloads.filter(
      (o) => !!o.receiver === receiver && o.params.length === argTypes.length && o.params.every((p, i) => accepts(p, argTypes[i] as string)),
    );
    if (overloads.length === 0) {
      const shown = receiver ? `${argTypes[0]}.(${argTypes.slice(1).join(", ")})` : `(${argTypes.join(", ")})`;
      return this.error(e.pos, `found no matching overload for '${name}' applied to '${shown}'`);
    }
    const specialized = this.specialize(overloads, target === undefined ? e.args : [target, ...e.args]);
    const exact = overloads.length === 1 && argTypes.every((t, i) => t !== "dyn" && base(t) === base((overloads[0] as OverloadDecl).params[i] as string));
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
