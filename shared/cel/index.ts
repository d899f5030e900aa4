// edgeadmit's CEL: parser, declaration checker and closure-compiling
// evaluator with runtime cost limits, behaving as cel-go does inside the
// Kubernetes apiserver (its base environment: optional types, cross-type
// numeric comparisons, ext.Strings v2, two-variable comprehensions,
// homogeneous literal and regex/duration/timestamp literal validation), and
// ext.Bindings' cel.bind unless an environment leaves it out as Kubernetes'
// base environment does.
//
//   const env = createEnv({ variables: ["object", "oldObject", "request", "params"], libraries: KUBERNETES_LIBRARIES });
//   const compiled = compile("object.spec.replicas <= params.maxReplicas", env);
//   if (!compiled.ok) return compiled.error;           // cel-go's "ERROR: <input>:1:1: ..." text
//   const budget = createBudget(RUNTIME_COST_BUDGET);   // shared by a binding's expressions
//   const r = compiled.program.evaluate({ object, oldObject, request, params }, budget);
//   r.ok ? r.value : r.error                            // value, or cel-go's runtime error text
//
// Values: JSON as JSON.parse returns it, read lazily and never copied; see
// values/index.ts for int vs double, uint and the other CEL types. A variable
// whose entries are computed on demand (the admission layer's `variables`) is
// a LazyMap; its lookup may throw EvalError to report an entry's error.
// The folders: parser/ (lexer/ below it), checker/, eval/ (one builder per
// node kind), values/; the base libraries stdlib/, optional/, strings/;
// declarations/ (how a library declares functions: kubernetes/lists is a
// complete example); kubernetes/ (Kubernetes' libraries, apart from the
// core); regex/ (every function that takes a pattern, over shared/re2);
// cache/ (bounded caches of values parsed at run time). docs/contributing.md
// says how to add a function.
//
// Limits: sources of at most MAX_CODE_POINTS code points, nesting of at most
// MAX_RECURSION_DEPTH (cel-go's defaults), and cost: each evaluation stops at
// its cost limit (PER_CALL_LIMIT) or when the shared Budget runs out. A Budget
// is charged when an evaluation ends, so one nested inside another (a lazy
// variable) sees the outer one's cost only afterwards. An EdgeMeter (the
// review's edge budget) is charged the units the edge adds beyond the
// apiserver's cost (CallContext.chargeEdge), and stops an evaluation that
// would take more than it has left; the cost reported stays the apiserver's.
//
// Not covered: static types beyond literals and declared variable types
// (declareVariables; Kubernetes checks `object` against OpenAPI schemas,
// here such mismatches are runtime errors), containers and namespaced
// names, protobuf messages.

import { check, type Declarations, type ObjectFields } from "./checker/index.js";
import { compileExpr, CostLimitExceeded, EdgeLimitExceeded, Frame, type Activation, type CompiledExpr } from "./eval/index.js";
import type { FunctionDecl, Library, OverloadDecl, TypeName } from "./declarations/index.js";
import { optionalLibrary } from "./optional/index.js";
import { NO_LOCATION, parse, SORT_BY_KEYS, type MacroOptions } from "./parser/index.js";
import { DEFAULT_REGEX_ENGINE, type RegexCompiler, type RegexLibrary } from "./regex/index.js";
import { standardLibrary } from "./stdlib/index.js";
import { stringsLibrary } from "./strings/index.js";
import { EvalError, type CelType, type Value } from "./values/index.js";

export type { Activation } from "./eval/index.js";
export { typeParameters, type ObjectFields } from "./checker/index.js";
export type { CallContext, FunctionDecl, Impl, Library, OverloadDecl, TypeName } from "./declarations/index.js";
export { chargeTraversal, costSize } from "./declarations/index.js";
export type { Regex, RegexCompiler, RegexLibrary } from "./regex/index.js";
export * from "./values/index.js";
export { MAX_CODE_POINTS, MAX_RECURSION_DEPTH } from "./parser/index.js";

/** Kubernetes' per-expression runtime cost limit (k8s.io/apiserver/pkg/apis/cel PerCallLimit). */
const PER_CALL_LIMIT = 1_000_000;
/** Kubernetes' runtime cost budget per policy binding evaluation, shared by its expressions (RuntimeCELCostBudget). */
export const RUNTIME_COST_BUDGET = 10_000_000;

export interface EnvOptions {
  /** Declared top-level variables; any other identifier is a compile error. */
  readonly variables: readonly string[];
  /** Libraries beyond the base ones (standard, optional types, strings v2), e.g. KUBERNETES_LIBRARIES; one that takes patterns is made for the environment's regex engine. */
  readonly libraries?: readonly (Library | RegexLibrary)[];
  /** Cost limit of one evaluation; default PER_CALL_LIMIT. */
  readonly costLimit?: number;
  /**
   * Reject list and map literals mixing element types, as Kubernetes'
   * validators do (`[1, 'a']`); default true. Off only for plain-CEL checks.
   */
  readonly homogeneousLiterals?: boolean;
  /** The regex engine for matches() and the libraries' patterns: shared/re2 unless a test of the wiring brings its own. */
  readonly regex?: RegexCompiler;
  /** ext.TwoVarComprehensions' macros (Kubernetes 1.32+); default true. */
  readonly twoVariableComprehensions?: boolean;
  /** ext.Bindings' cel.bind macro; default true. Kubernetes' base environment does not have it (pkg/cel/environment/base.go). */
  readonly bindings?: boolean;
}

export interface Env {
  readonly declarations: Declarations;
  readonly costLimit: number;
  /** The macros beyond the standard ones the parser expands: sortBy only with the library that sorts by keys. */
  readonly macros: MacroOptions;
}

/** Cost units shared by several evaluations (one policy's expressions); evaluations draw from it as they run. */
export interface Budget {
  readonly limit: number;
  spent: number;
}

export const createBudget = (limit: number = RUNTIME_COST_BUDGET): Budget => ({ limit, spent: 0 });

/**
 * The edge's own units across evaluations (a review's edge budget): an
 * evaluation may take cost plus edge units up to what is left, and adds its
 * edge units (not its cost, which its caller charges) when it ends.
 */
export interface EdgeMeter {
  readonly limit: number;
  spent: number;
}

export type EvalResult =
  | { readonly ok: true; readonly value: Value; readonly cost: number }
  | {
      readonly ok: false;
      readonly error: string;
      readonly cost: number;
      /** Set when the evaluation was stopped for cost: its own limit ("call"), the shared budget ("budget") or the edge's meter ("edge"). */
      readonly exhausted?: "call" | "budget" | "edge";
    };

export interface Program {
  readonly source: string;
  /** The expression's static type as the checker found it ("dyn" when unknown). */
  readonly type: string;
  /** The declared variables the expression reads, found in its checked tree. */
  readonly variables: ReadonlySet<string>;
  evaluate(activation: Activation, budget?: Budget, edge?: EdgeMeter): EvalResult;
}

export type CompileResult = { readonly ok: true; readonly program: Program } | { readonly ok: false; readonly error: string };

export function createEnv(options: EnvOptions): Env {
  const regex = options.regex ?? DEFAULT_REGEX_ENGINE;
  const libraries = [standardLibrary(regex), optionalLibrary, stringsLibrary(2), ...(options.libraries ?? []).map((lib) => (typeof lib === "function" ? lib(regex) : lib))];
  const functions = new Map<string, FunctionDecl>();
  const types = new Map<string, CelType>();
  for (const lib of libraries) {
    for (const fn of lib.functions) {
      const prior = functions.get(fn.name);
      // A library may add overloads to a function another one declared (e.g. size() of a new type).
      functions.set(fn.name, prior === undefined ? fn : { name: fn.name, overloads: [...withImpls(prior), ...withImpls(fn)] });
    }
    for (const t of lib.types ?? []) types.set(t.name, t);
    for (const t of lib.orderedTypes ?? []) {
      for (const op of ["_<_", "_<=_", "_>_", "_>=_"]) {
        const fn = functions.get(op) as FunctionDecl;
        functions.set(op, { ...fn, overloads: [...fn.overloads, { params: [t.name, t.name], result: "bool" }] });
      }
    }
  }
  return {
    declarations: { variables: new Set(options.variables), functions, types, homogeneousLiterals: options.homogeneousLiterals ?? true },
    costLimit: options.costLimit ?? PER_CALL_LIMIT,
    macros: { twoVariable: options.twoVariableComprehensions ?? true, sortBy: functions.has(SORT_BY_KEYS), bindings: options.bindings ?? true },
  };
}

/**
 * The environment with its variables declared anew, names and static types
 * (dyn for an untyped one), sharing its functions and types: cheap enough
 * for each policy's own declarations.
 */
export function declareVariables(env: Env, variables: ReadonlyMap<string, TypeName>, objectTypes: ReadonlyMap<string, ObjectFields>): Env {
  return { ...env, declarations: { ...env.declarations, variables: new Set(variables.keys()), variableTypes: variables, objectTypes } };
}

/** Overloads carrying their function's singleton implementation, for merging two declarations of one name. */
const withImpls = (fn: FunctionDecl): readonly OverloadDecl[] =>
  fn.impl === undefined ? fn.overloads : fn.overloads.map((o) => ({ ...o, impl: o.impl ?? fn.impl }));

export function compile(source: string, env: Env): CompileResult {
  const parsed = parse(source, env.macros);
  if ("errors" in parsed) return { ok: false, error: formatErrors(source, parsed.errors) };
  const checked = check(parsed.expr, env.declarations);
  if (checked.errors.length > 0) return { ok: false, error: formatErrors(source, checked.errors) };
  const compiled = compileExpr(parsed.expr, checked);
  const variables = new Set<string>();
  for (const r of checked.resolutions.values()) if (r.kind === "var") variables.add(r.name);
  return { ok: true, program: new CompiledProgram(source, checked.type, variables, compiled, env.costLimit) };
}

class CompiledProgram implements Program {
  constructor(
    readonly source: string,
    readonly type: string,
    readonly variables: ReadonlySet<string>,
    private readonly compiled: CompiledExpr,
    private readonly costLimit: number,
  ) {}

  /** The frame of the last evaluation, reused by the next unless one is still running (a variable evaluating another). */
  #spare: Frame | undefined;

  evaluate(activation: Activation, budget?: Budget, edge?: EdgeMeter): EvalResult {
    const available = budget === undefined ? Infinity : budget.limit - budget.spent;
    const edgeLimit = edge === undefined ? Infinity : edge.limit - edge.spent;
    const frame =
      this.#spare?.reset(activation, Math.min(this.costLimit, available), edgeLimit) ??
      new Frame(activation, Math.min(this.costLimit, available), edgeLimit, this.compiled.slots, this.compiled.invariants);
    this.#spare = undefined;
    try {
      const value = this.compiled.root(frame);
      return { ok: true, value, cost: frame.cost };
    } catch (e) {
      if (e instanceof EvalError) return { ok: false, error: e.message, cost: frame.cost };
      if (e instanceof EdgeLimitExceeded) return { ok: false, error: e.message, cost: frame.cost, exhausted: "edge" };
      if (e instanceof CostLimitExceeded) {
        return { ok: false, error: e.message, cost: frame.cost, exhausted: available < this.costLimit ? "budget" : "call" };
      }
      // Input nested deeper than the JS stack allows (a formatted or library-walked value).
      if (e instanceof RangeError) return { ok: false, error: "max recursion depth exceeded", cost: frame.cost };
      throw e;
    } finally {
      if (budget !== undefined) budget.spent += frame.cost;
      if (edge !== undefined) edge.spent += frame.edge;
      this.#spare = frame;
    }
  }
}

/** cel-go's common.Errors.ToDisplayString: one "ERROR: <input>:line:col: msg" block per error, with the line and a caret. */
function formatErrors(source: string, errors: readonly { pos: number; message: string }[]): string {
  const lines = source.split("\n");
  return [...errors]
    .sort((a, b) => a.pos - b.pos)
    .map(({ pos, message }) => {
      if (pos === NO_LOCATION) return `ERROR: <input>:-1:0: ${message}`;
      const before = source.slice(0, pos);
      const line = before.split("\n").length;
      const col = Array.from(before.slice(before.lastIndexOf("\n") + 1)).length;
      const snippet = (lines[line - 1] ?? "").replaceAll("\t", " ");
      const marker = Array.from(snippet)
        .slice(0, col)
        .map((c) => (c.length > 1 || c.charCodeAt(0) > 0x7f ? "\uff0e" : "."))
        .join("");
      const atWide = (Array.from(snippet)[col] ?? "").charCodeAt(0) > 0x7f;
      return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${snippet}\n | ${marker}${atWide ? "\uff3e" : "^"}`;
    })
    .join("\n");
}
