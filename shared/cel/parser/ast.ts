// The parsed expression. Positions are UTF-16 offsets into the source; the
// error printer turns them into cel-go's line:column (code points).

import type { Value } from "../values/index.js";

/** Comprehension macros, after parse-time expansion. */
export type MacroName =
  | "all"
  | "exists"
  | "exists_one"
  | "map"
  | "filter"
  | "transformList"
  | "transformMap"
  | "transformMapEntry";

export type Expr =
  | { readonly kind: "lit"; readonly pos: number; readonly value: Value }
  | { readonly kind: "ident"; readonly pos: number; readonly name: string }
  /** a.b, or a.?b when optional. */
  | { readonly kind: "select"; readonly pos: number; readonly operand: Expr; readonly field: string; readonly optional: boolean }
  /** has(a.b) */
  | { readonly kind: "has"; readonly pos: number; readonly operand: Expr; readonly field: string }
  /** a[i], or a[?i] when optional. */
  | { readonly kind: "index"; readonly pos: number; readonly operand: Expr; readonly index: Expr; readonly optional: boolean }
  /** Function, method or operator call; operators use cel-go's names (_+_, !_, @in...). */
  | { readonly kind: "call"; readonly pos: number; readonly name: string; readonly target: Expr | undefined; readonly args: readonly Expr[] }
  | { readonly kind: "and" | "or"; readonly pos: number; readonly left: Expr; readonly right: Expr }
  | { readonly kind: "cond"; readonly pos: number; readonly test: Expr; readonly then: Expr; readonly otherwise: Expr }
  | { readonly kind: "list"; readonly pos: number; readonly elems: readonly Expr[]; readonly optional: readonly boolean[] }
  | { readonly kind: "map"; readonly pos: number; readonly entries: readonly MapEntry[] }
  /** Message construction Foo{...}: parsed so the checker can reject it clearly. */
  | { readonly kind: "struct"; readonly pos: number; readonly typeName: string }
  /**
   * A comprehension macro. For one-variable forms `v2` is undefined and `v1`
   * is the element (list) or key (map); for two-variable forms `v1` is the
   * index or key and `v2` the value. `args` are the macro's expressions after
   * the variables (predicate; or transform; or filter and transform).
   */
  | {
      readonly kind: "comp";
      readonly pos: number;
      readonly macro: MacroName;
      readonly range: Expr;
      readonly v1: string;
      readonly v2: string | undefined;
      readonly args: readonly Expr[];
    }
  /** cel.bind(name, init, body) */
  | { readonly kind: "bind"; readonly pos: number; readonly name: string; readonly init: Expr; readonly body: Expr }
  /** opt.optMap(v, body) / opt.optFlatMap(v, body) */
  | { readonly kind: "optMap"; readonly pos: number; readonly flat: boolean; readonly target: Expr; readonly name: string; readonly body: Expr };

export interface MapEntry {
  readonly pos: number;
  readonly key: Expr;
  readonly value: Expr;
  readonly optional: boolean;
}
