// Recursive-descent parser for CEL with parse-time macro expansion, in the
// manner of cel-go's parser: operator precedence, signed numeric literals,
// balanced && / || trees, the optional syntax (a.?b, a[?i], [?x], {?k: v}),
// and the macros Kubernetes enables.

import { doubleLiteral, intLiteral, SyntaxError, tokenize, uintLiteral, type Token } from "../lexer/index.js";
import type { Value } from "../values/index.js";
import type { Expr, MacroName, MapEntry } from "./ast.js";

export type { Expr, MacroName, MapEntry } from "./ast.js";
export { SyntaxError } from "../lexer/index.js";

/** cel-go's default parser limits (parser.MaxRecursionDepth, ExpressionSizeCodePointLimit). */
export const MAX_RECURSION_DEPTH = 250;
export const MAX_CODE_POINTS = 100_000;

/** Position of errors about the whole expression, which cel-go prints as line -1, column 0. */
export const NO_LOCATION = -1;

const RESERVED = new Set(["as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"]);

const EXPECTING_OPERAND =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
/** What ANTLR expects right after '[' or '{' (an element, the closing bracket, ',' or '?'). */
const EXPECTING_ELEMENT = (close: "]" | "}"): string =>
  `{'[', ${close === "]" ? "']', '{'" : "'{', '}'"}, '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`;

const RELATIONS: Record<string, string> = { "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_" };

/** The function sortBy() expands to (cel-go ext/lists.go sortByMacro); '@' keeps it out of a user's reach. */
export const SORT_BY_KEYS = "@sortByAssociatedKeys";
/** The variable sortBy's expansion binds the list to (cel-go's name). */
const SORT_BY_INPUT = "@__sortBy_input__";

/** Macros only some environments have: the library that brings them must be in it. */
export interface MacroOptions {
  /** ext.TwoVarComprehensions (Kubernetes 1.32+): all/exists/existsOne with two variables, transformList/Map/MapEntry. */
  readonly twoVariable: boolean;
  /** ext.Lists v2+ (Kubernetes 1.34+): <list>.sortBy(e, key). */
  readonly sortBy: boolean;
  /** ext.Bindings' cel.bind(name, init, body); without it, cel.bind is an ordinary call (to an undeclared function). Kubernetes' base environment does not have it. */
  readonly bindings: boolean;
}

const ALL_MACROS: MacroOptions = { twoVariable: true, sortBy: true, bindings: true };

/** Parses source into an expression; errors are collected, not thrown. */
export function parse(src: string, macros: MacroOptions = ALL_MACROS): { expr: Expr } | { errors: SyntaxError[] } {
  const size = [...src].length;
  if (size > MAX_CODE_POINTS) {
    return { errors: [new SyntaxError(NO_LOCATION, `expression code point size exceeds limit: size: ${size}, limit ${MAX_CODE_POINTS}`)] };
  }
  try {
    return { expr: new Parser(tokenize(src), macros).parseAll() };
  } catch (e) {
    if (e instanceof SyntaxError) return { errors: [e] };
    throw e;
  }
}

class Parser {
  private i = 0;
  private nesting = 0;
  /** AST depth, tracked per node so chains built by loops stay bounded like nested ones; a Map per parse (a global WeakMap costs more in GC than the parse). */
  private readonly depthOf = new Map<Expr, number>();

  constructor(
    private readonly tokens: readonly Token[],
    private readonly macros: MacroOptions,
  ) {}

  parseAll(): Expr {
    const e = this.expr();
    const t = this.peek();
    if (t.kind !== "eof") this.fail(t, `Syntax error: mismatched input ${show(t)} expecting <EOF>`);
    return e;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== "eof") this.i++;
    return t;
  }

  private isOp(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "op" && t.text === text;
  }

  private accept(text: string): boolean {
    if (!this.isOp(text)) return false;
    this.i++;
    return true;
  }

  private expect(text: string): Token {
    const t = this.peek();
    if (t.kind === "op" && t.text === text) return this.next();
    if (t.kind === "eof") return this.fail(t, `Syntax error: missing '${text}' at '<EOF>'`);
    return this.fail(t, `Syntax error: mismatched input ${show(t)} expecting '${text}'`);
  }

  private fail(t: Token, message: string): never {
    throw new SyntaxError(t.pos, message);
  }

  private node<E extends Expr>(e: E, ...children: Expr[]): E {
    let d = 0;
    for (const c of children) d = Math.max(d, this.depthOf.get(c) ?? 0);
    if (d + 1 > MAX_RECURSION_DEPTH) throw new SyntaxError(NO_LOCATION, `max recursion depth exceeded`);
    this.depthOf.set(e, d + 1);
    return e;
  }

  private expr(): Expr {
    if (++this.nesting > MAX_RECURSION_DEPTH) {
      throw new SyntaxError(NO_LOCATION, `expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`);
    }
    const test = this.logical("||");
    let result = test;
    if (this.isOp("?")) {
      const pos = this.next().pos;
      const then = this.logical("||");
      this.expect(":");
      const otherwise = this.expr();
      result = this.node({ kind: "cond", pos, test, then, otherwise }, test, then, otherwise);
    }
    this.nesting--;
    return result;
  }

  /** || and && chains, built balanced as cel-go does so long chains stay shallow. */
  private logical(op: "||" | "&&"): Expr {
    const operand = (): Expr => (op === "||" ? this.logical("&&") : this.relation());
    const terms = [operand()];
    const ops: number[] = [];
    while (this.isOp(op)) {
      ops.push(this.next().pos);
      terms.push(operand());
    }
    const kind = op === "||" ? "or" : "and";
    const build = (lo: number, hi: number): Expr => {
      if (lo === hi) return terms[lo] as Expr;
      const mid = (lo + hi) >> 1;
      const left = build(lo, mid);
      const right = build(mid + 1, hi);
      return this.node({ kind, pos: ops[mid] as number, left, right }, left, right);
    };
    return build(0, terms.length - 1);
  }

  private relation(): Expr {
    let left = this.additive();
    for (;;) {
      const t = this.peek();
      let name: string | undefined;
      if (t.kind === "op") name = RELATIONS[t.text];
      else if (t.kind === "ident" && t.text === "in") name = "@in";
      if (name === undefined) return left;
      this.next();
      const right = this.additive();
      left = this.node({ kind: "call", pos: t.pos, name, target: undefined, args: [left, right] }, left, right);
    }
  }

  private additive(): Expr {
    let left = this.multiplicative();
    while (this.isOp("+") || this.isOp("-")) {
      const t = this.next();
      const right = this.multiplicative();
      left = this.node({ kind: "call", pos: t.pos, name: t.text === "+" ? "_+_" : "_-_", target: undefined, args: [left, right] }, left, right);
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("%")) {
      const t = this.next();
      const right = this.unary();
      left = this.node({ kind: "call", pos: t.pos, name: `_${t.text}_`, target: undefined, args: [left, right] }, left, right);
    }
    return left;
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind !== "op" || (t.text !== "!" && t.text !== "-")) return this.member(this.primary());
    const ops: Token[] = [];
    while (this.isOp(t.text)) ops.push(this.next());
    let count = ops.length;
    let operand: Expr;
    const num = this.peek();
    if (t.text === "-" && (num.kind === "int" || num.kind === "double")) {
      // A minus directly before a number is part of the literal (so that
      // -9223372036854775808 is an int), as in cel-go's grammar.
      this.next();
      operand = this.member(this.numberLiteral(num, ops[count - 1]?.pos ?? num.pos, true));
      count--;
    } else {
      operand = this.member(this.primary());
    }
    // cel-go drops pairs of ! or - entirely.
    if (count % 2 === 0) return operand;
    const name = t.text === "!" ? "!_" : "-_";
    return this.node({ kind: "call", pos: t.pos, name, target: undefined, args: [operand] }, operand);
  }

  private member(start: Expr): Expr {
    let e = start;
    for (;;) {
      if (this.isOp(".")) {
        const dot = this.next();
        const optional = this.accept("?");
        const id = this.next();
        if (id.kind !== "ident" && id.kind !== "quotedIdent") this.fail(id, `Syntax error: mismatched input ${show(id)} expecting IDENTIFIER`);
        if (!optional && id.kind === "ident" && this.isOp("(")) {
          const open = this.next();
          const args = this.args(")");
          e = this.call(open.pos, id.text, e, args);
          continue;
        }
        e = this.node({ kind: "select", pos: dot.pos, operand: e, field: id.text, optional }, e);
        continue;
      }
      if (this.isOp("[")) {
        const open = this.next();
        const optional = this.accept("?");
        const index = this.expr();
        this.expect("]");
        e = this.node({ kind: "index", pos: open.pos, operand: e, index, optional }, e, index);
        continue;
      }
      if (this.isOp("{") && isQualifiedName(e)) {
        const pos = this.next().pos;
        this.skipBalanced("}");
        e = this.node({ kind: "struct", pos, typeName: qualifiedName(e) ?? "" });
        continue;
      }
      return e;
    }
  }

  private skipBalanced(close: string): void {
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === "eof") this.fail(t, `Syntax error: missing '${close}' at '<EOF>'`);
      if (t.kind === "op" && (t.text === "{" || t.text === "(" || t.text === "[")) depth++;
      if (t.kind === "op" && (t.text === "}" || t.text === ")" || t.text === "]")) depth--;
    }
  }

  private args(close: string): Expr[] {
    const args: Expr[] = [];
    if (this.accept(close)) return args;
    for (;;) {
      args.push(this.expr());
      if (this.accept(close)) return args;
      // At the end of the input ANTLR reports the missing closing token, not the comma (compile_test.go:41).
      this.expect(this.peek().kind === "eof" ? close : ",");
    }
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case "int":
      case "double":
        return this.numberLiteral(t, t.pos, false);
      case "uint": {
        const v = uintLiteral(t.text);
        if (v === undefined) this.fail(t, "invalid uint literal");
        return this.lit(t.pos, v);
      }
      case "string":
      case "bytes":
        return this.lit(t.pos, t.value as Value);
      case "ident":
        return this.identOrCall(t, false);
      case "eof":
        return this.fail(t, `Syntax error: mismatched input '<EOF>' expecting ${EXPECTING_OPERAND}`);
    }
    switch (t.text) {
      case ".": {
        const id = this.next();
        if (id.kind !== "ident") this.fail(id, `Syntax error: mismatched input ${show(id)} expecting IDENTIFIER`);
        return this.identOrCall(id, true);
      }
      case "(": {
        const e = this.expr();
        this.expect(")");
        return e;
      }
      case "[": {
        const elems: Expr[] = [];
        const optional: boolean[] = [];
        this.expectElement("]");
        while (!this.accept("]")) {
          optional.push(this.accept("?"));
          elems.push(this.expr());
          if (!this.accept(",")) {
            this.expect("]");
            break;
          }
        }
        return this.node({ kind: "list", pos: t.pos, elems, optional }, ...elems);
      }
      case "{": {
        const entries: MapEntry[] = [];
        this.expectElement("}");
        while (!this.accept("}")) {
          const optional = this.accept("?");
          const key = this.expr();
          const colon = this.expect(":");
          const value = this.expr();
          entries.push({ pos: colon.pos, key, value, optional });
          if (!this.accept(",")) {
            this.expect("}");
            break;
          }
        }
        return this.node({ kind: "map", pos: t.pos, entries }, ...entries.flatMap((en) => [en.key, en.value]));
      }
    }
    return this.fail(t, `Syntax error: mismatched input ${show(t)} expecting ${EXPECTING_OPERAND}`);
  }

  private expectElement(close: "]" | "}"): void {
    const t = this.peek();
    if (t.kind === "eof") this.fail(t, `Syntax error: mismatched input '<EOF>' expecting ${EXPECTING_ELEMENT(close)}`);
  }

  private lit(pos: number, value: Value): Expr {
    return this.node({ kind: "lit", pos, value });
  }

  private numberLiteral(t: Token, pos: number, negative: boolean): Expr {
    if (t.kind === "double") {
      const d = doubleLiteral(t.text, negative);
      if (d === undefined) this.fail(t, "invalid double literal");
      return this.lit(pos, d);
    }
    const v = intLiteral(t.text, negative);
    if (v === undefined) this.fail(t, "invalid int literal");
    return this.lit(pos, v);
  }

  private identOrCall(t: Token, leadingDot: boolean): Expr {
    const name = t.text;
    if (name === "true" || name === "false") return this.lit(t.pos, name === "true");
    if (name === "null") return this.lit(t.pos, null);
    if (name === "in") this.fail(t, `Syntax error: mismatched input 'in' expecting ${EXPECTING_OPERAND}`);
    if (RESERVED.has(name)) this.fail(t, `reserved identifier: ${name}`);
    if (this.isOp("(")) {
      // cel-go places a call at its opening parenthesis.
      const open = this.next();
      const args = this.args(")");
      return this.call(open.pos, leadingDot ? `.${name}` : name, undefined, args);
    }
    return this.node({ kind: "ident", pos: t.pos, name: leadingDot ? `.${name}` : name });
  }

  /** A call, or the macro it names (cel-go expands macros while parsing). */
  private call(pos: number, name: string, target: Expr | undefined, args: Expr[]): Expr {
    const macro = this.macro(pos, name, target, args);
    if (macro !== undefined) return macro;
    const children = target === undefined ? args : [target, ...args];
    return this.node({ kind: "call", pos, name, target, args }, ...children);
  }

  private macro(pos: number, name: string, target: Expr | undefined, args: Expr[]): Expr | undefined {
    const n = args.length;
    if (target === undefined) {
      if (name !== "has" || n !== 1) return undefined;
      const arg = args[0] as Expr;
      if (arg.kind !== "select") throw new SyntaxError(arg.pos, "invalid argument to has() macro");
      return this.node({ kind: "has", pos, operand: arg.operand, field: arg.field }, arg.operand);
    }
    if (this.macros.bindings && name === "bind" && n === 3 && target.kind === "ident" && target.name === "cel") {
      const [v, init, body] = args as [Expr, Expr, Expr];
      if (v.kind !== "ident") throw new SyntaxError(v.pos, "cel.bind() variable names must be simple identifiers");
      return this.node({ kind: "bind", pos, name: v.name, init, body }, init, body);
    }
    if ((name === "optMap" || name === "optFlatMap") && n === 2) {
      const [v, body] = args as [Expr, Expr];
      if (v.kind !== "ident") throw new SyntaxError(v.pos, `${name}() variable name must be a simple identifier`);
      return this.node({ kind: "optMap", pos, flat: name === "optFlatMap", target, name: v.name, body }, target, body);
    }
    if (name === "sortBy" && n === 2 && this.macros.sortBy) return this.sortBy(pos, target, args as [Expr, Expr]);
    const shape = MACROS[`${name}/${n}`];
    if (shape === undefined || (shape.vars === 2 && !this.macros.twoVariable)) return undefined;
    const vars = args.slice(0, shape.vars);
    const quantifier = shape.macro === "all" || shape.macro === "exists" || shape.macro === "exists_one";
    for (const v of vars) {
      if (v.kind !== "ident") throw new SyntaxError(v.pos, quantifier ? "argument must be a simple name" : "argument is not an identifier");
      if (v.name === ACCUMULATOR) throw new SyntaxError(v.pos, "iteration variable overwrites accumulator variable");
    }
    const [v1, v2] = vars.map((v) => (v.kind === "ident" ? v.name : ""));
    const rest = args.slice(shape.vars);
    return this.node({ kind: "comp", pos, macro: shape.macro, range: target, v1: v1 as string, v2, args: rest }, target, ...rest);
  }

  /**
   * cel-go's sortByMacro: the list bound once, then sorted by its elements' keys:
   * cel.bind(@__sortBy_input__, target, @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))).
   */
  private sortBy(pos: number, target: Expr, [v, key]: [Expr, Expr]): Expr {
    if (!["list", "select", "ident", "comp", "call"].includes(target.kind)) {
      throw new SyntaxError(target.pos, "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
    }
    if (v.kind !== "ident") throw new SyntaxError(v.pos, "argument is not an identifier");
    const input = (): Expr => this.node({ kind: "ident", pos, name: SORT_BY_INPUT });
    const range = input();
    const keys = this.node({ kind: "comp", pos, macro: "map", range, v1: v.name, v2: undefined, args: [key] }, range, key);
    const receiver = input();
    const body = this.node({ kind: "call", pos, name: SORT_BY_KEYS, target: receiver, args: [keys] }, receiver, keys);
    return this.node({ kind: "bind", pos, name: SORT_BY_INPUT, init: target, body }, target, body);
  }
}

/** cel-go's name for a comprehension's accumulator, which iteration variables may not take. */
const ACCUMULATOR = "__result__";

/** Receiver macros by name/argument count: how many leading args are variables. */
const MACROS: Record<string, { macro: MacroName; vars: number }> = {
  "all/2": { macro: "all", vars: 1 },
  "exists/2": { macro: "exists", vars: 1 },
  "exists_one/2": { macro: "exists_one", vars: 1 },
  "map/2": { macro: "map", vars: 1 },
  "map/3": { macro: "map", vars: 1 },
  "filter/2": { macro: "filter", vars: 1 },
  "all/3": { macro: "all", vars: 2 },
  "exists/3": { macro: "exists", vars: 2 },
  "exists_one/3": { macro: "exists_one", vars: 2 },
  "existsOne/3": { macro: "exists_one", vars: 2 },
  "transformList/3": { macro: "transformList", vars: 2 },
  "transformList/4": { macro: "transformList", vars: 2 },
  "transformMap/3": { macro: "transformMap", vars: 2 },
  "transformMap/4": { macro: "transformMap", vars: 2 },
  "transformMapEntry/3": { macro: "transformMapEntry", vars: 2 },
  "transformMapEntry/4": { macro: "transformMapEntry", vars: 2 },
};

function show(t: Token): string {
  return t.kind === "eof" ? "'<EOF>'" : `'${t.text}'`;
}

function isQualifiedName(e: Expr): boolean {
  return qualifiedName(e) !== undefined;
}

/** "a.b.c" for an identifier or a chain of plain selections on one, else undefined. */
export function qualifiedName(e: Expr): string | undefined {
  if (e.kind === "ident") return e.name;
  if (e.kind === "select" && !e.optional) {
    const base = qualifiedName(e.operand);
    return base === undefined ? undefined : `${base}.${e.field}`;
  }
  return undefined;
}
