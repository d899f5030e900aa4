// The project's CEL against the JavaScript CEL engines, expression by
// expression: kubescape's validations and variables evaluated on the
// Deployment of section 7, each engine with the same input (converted to its
// own representation once, outside the timing) and checked to give the same
// result as ours before it is timed.
//
// Stand-ins where an engine lacks a Kubernetes function (documented in the
// section's notes): quantity(s) is a small value type holding the amount as
// a double, with compareTo; findAll(pattern) is JS RegExp's matchAll. Neither
// engine has Kubernetes' cost accounting, which ours pays on every step.
import { celEnv, celFunc, celMethod, CelScalar, parse as bufParse, plan as bufPlan, isCelError, isCelList, isCelMap, type CelInput } from "@bufbuild/cel";
import { strings as bufStrings } from "@bufbuild/cel/ext";
import { Environment } from "@marcbachmann/cel-js";
import { compile, createBudget, createEnv, MapValue, type Activation, type Value } from "../shared/cel/index.js";
import { KUBERNETES_LIBRARIES } from "../shared/cel/kubernetes/index.js";
import { VARIABLES } from "../shared/vap/index.js";
import { nowNs, quantile } from "./stats.js";

interface KubescapeExpression {
  /** `<policy> variables.<name>` or `<policy> validations[i]`. */
  name: string;
  source: string;
  /** The policy's activation, `variables` computed in declaration order with our CEL. */
  activation: Record<string, unknown>;
}

/** A compiled expression of one engine: evaluate with the engine's own input representation. */
type Runner = () => unknown;

interface Engine {
  name: string;
  /** Prepares the expression and its input; undefined when the engine cannot compile it. */
  prepare(expression: KubescapeExpression): Runner | undefined;
}

const env = createEnv({ variables: VARIABLES, libraries: KUBERNETES_LIBRARIES });

/** Ours, as the VAP evaluator runs it: a fresh budget per evaluation. */
const ours: Engine = {
  name: "edgeadmit",
  prepare(expression) {
    const compiled = compile(expression.source, env);
    if (!compiled.ok) return undefined;
    const activation = expression.activation as Activation;
    return () => {
      const result = compiled.program.evaluate(activation, createBudget());
      return result.ok ? result.value : new Error(result.error);
    };
  },
};

/** The input as both engines represent ints: JSON's whole numbers become bigints. */
function withBigInts(value: unknown): unknown {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(withBigInts);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withBigInts(v)]));
  return value;
}

/** The stand-in for kubernetes.Quantity: its amount as a double (enough to order the Deployment's quantities). */
class StandInQuantity {
  constructor(readonly amount: number) {}
}
const SUFFIXES: Record<string, number> = { "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
function standInQuantity(text: string): StandInQuantity {
  const match = /^([+-]?\d+(?:\.\d*)?)([a-zA-Z]*)$/.exec(text);
  const factor = match ? SUFFIXES[match[2]!] : undefined;
  if (!match || factor === undefined) throw new Error(`quantity stand-in: cannot parse ${text}`);
  return new StandInQuantity(Number(match[1]) * factor);
}
const order = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);
const findAll = (s: string, pattern: string) => [...s.matchAll(new RegExp(pattern, "g"))].map((m) => m[0]);

function celJsEnvironment(): Environment {
  const environment = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false });
  for (const name of VARIABLES) environment.registerVariable(name, "dyn");
  return environment
    .registerType("Quantity", StandInQuantity)
    .registerFunction("quantity(string): Quantity", (s: string) => standInQuantity(s))
    .registerFunction("Quantity.compareTo(Quantity): int", (a: StandInQuantity, b: StandInQuantity) => BigInt(order(a.amount, b.amount)))
    .registerFunction("string.findAll(string): list<string>", (s: string, p: string) => findAll(s, p));
}

const celJs = (): Engine => {
  const environment = celJsEnvironment();
  return {
    name: "@marcbachmann/cel-js",
    prepare(expression) {
      let evaluate: (context: Record<string, unknown>) => unknown;
      try {
        evaluate = environment.parse(expression.source) as unknown as typeof evaluate;
      } catch {
        return undefined;
      }
      const context = withBigInts(expression.activation) as Record<string, unknown>;
      return () => {
        try {
          return evaluate(context);
        } catch (e) {
          return e instanceof Error ? e : new Error(String(e));
        }
      };
    },
  };
};

/** @bufbuild/cel reads maps as Map (JSON objects would be messages) and ints as bigints. */
function bufInput(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(bufInput);
  if (value !== null && typeof value === "object") return new Map(Object.entries(value).map(([k, v]) => [k, bufInput(v)]));
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return value as CelInput;
}

const bufbuild = (): Engine => {
  // The quantity stand-in as a double, ordered by a method on doubles (bufbuild's custom types are protobuf messages).
  const environment = celEnv({
    funcs: [
      ...bufStrings,
      celFunc("quantity", [CelScalar.STRING], CelScalar.DOUBLE, (s) => standInQuantity(s).amount),
      celMethod("compareTo", CelScalar.DOUBLE, [CelScalar.DOUBLE], CelScalar.INT, function (this: number, other) {
        return BigInt(order(this, other));
      }),
      celMethod("findAll", CelScalar.STRING, [CelScalar.STRING], CelScalar.DYN, function (this: string, p) {
        return findAll(this, p);
      }),
    ],
  });
  return {
    name: "@bufbuild/cel",
    prepare(expression) {
      let evaluate: (context: Record<string, CelInput>) => unknown;
      try {
        evaluate = bufPlan(environment, bufParse(expression.source)) as unknown as typeof evaluate;
      } catch {
        return undefined;
      }
      const context = Object.fromEntries(Object.entries(expression.activation).map(([k, v]) => [k, bufInput(v)]));
      return () => evaluate(context);
    },
  };
};

/** Results compared across engines: bigints and numbers alike, Maps as objects; undefined for an error. */
function comparable(value: unknown): unknown {
  if (value instanceof Error || isCelError(value)) return undefined;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(comparable);
  if (value instanceof MapValue) return Object.fromEntries(value.keys().map((k) => [String(k), comparable(value.get(k))]));
  if (isCelList(value)) return [...value].map(comparable);
  if (value instanceof Map || isCelMap(value)) return Object.fromEntries([...value].map(([k, v]) => [String(k), comparable(v)]));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

const same = (a: unknown, b: unknown) => JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));

interface EngineComparison {
  /** Per engine other than ours: how many expressions it ran with our result, and the geomean of ours / its per-call median. */
  engines: Array<{ name: string; compared: number; skipped: string[]; geomeanRatio: number; sumOfMediansUs: number; oursSumUs: number }>;
  expressions: number;
}

const ROUNDS = 5;
const BATCH_NS = 4e6;
const WARMUP_CALLS = 200;
let sink = 0;

/** Median ns per call of each runner, in rounds that take turns (rotating who goes first). */
function timeSideBySide(runners: readonly Runner[]): number[] {
  const perCall = runners.map(() => [] as number[]);
  const batch = runners.map((run) => {
    for (let i = 0; i < WARMUP_CALLS; i++) sink ^= run() === undefined ? 1 : 0;
    const started = nowNs();
    let calls = 0;
    while (nowNs() - started < BATCH_NS / 4) {
      sink ^= run() === undefined ? 1 : 0;
      calls++;
    }
    return Math.max(20, calls * 4);
  });
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < runners.length; k++) {
      const i = (round + k) % runners.length;
      const run = runners[i]!;
      const n = batch[i]!;
      const started = nowNs();
      for (let j = 0; j < n; j++) sink ^= run() === undefined ? 1 : 0;
      perCall[i]!.push((nowNs() - started) / n);
    }
  }
  if (sink === 0.5) console.log(sink);
  return perCall.map((samples) => quantile(samples, 0.5));
}

export function compareEngines(expressions: readonly KubescapeExpression[]): EngineComparison {
  const others = [celJs(), bufbuild()];
  const logs = others.map(() => ({ ratios: [] as number[], skipped: [] as string[], theirs: 0, ours: 0 }));
  for (const expression of expressions) {
    const mine = ours.prepare(expression);
    if (!mine) throw new Error(`${expression.name}: does not compile with edgeadmit's CEL`);
    const expected = mine();
    const runners: Runner[] = [mine];
    const slots: number[] = [];
    others.forEach((engine, i) => {
      const runner = engine.prepare(expression);
      let reason: string | undefined;
      if (!runner) reason = "does not compile";
      else if (!same(runner(), expected)) reason = "gives another result";
      if (reason !== undefined || !runner) {
        logs[i]!.skipped.push(`${expression.name} (${reason})`);
        return;
      }
      slots[i] = runners.length;
      runners.push(runner);
    });
    const medians = timeSideBySide(runners);
    others.forEach((_, i) => {
      const slot = slots[i];
      if (slot === undefined) return;
      logs[i]!.ratios.push(medians[0]! / medians[slot]!);
      logs[i]!.theirs += medians[slot]! / 1e3;
      logs[i]!.ours += medians[0]! / 1e3;
    });
  }
  return {
    expressions: expressions.length,
    engines: others.map((engine, i) => {
      const log = logs[i]!;
      const geomean = Math.exp(log.ratios.reduce((sum, r) => sum + Math.log(r), 0) / Math.max(1, log.ratios.length));
      return { name: engine.name, compared: log.ratios.length, skipped: log.skipped, geomeanRatio: geomean, sumOfMediansUs: log.theirs, oursSumUs: log.ours };
    }),
  };
}

/** Each policy's validations and variables, with its activation for the review's object, `variables` evaluated with our CEL in declaration order. */
export function kubescapeExpressions(
  policies: ReadonlyArray<{ name: string; spec: { validations?: Array<{ expression: string }>; variables?: Array<{ name: string; expression: string }> } }>,
  base: { object: unknown; oldObject: unknown; request: unknown; params: unknown; namespaceObject: unknown },
): KubescapeExpression[] {
  const out: KubescapeExpression[] = [];
  for (const policy of policies) {
    const variables: Record<string, Value> = {};
    const activation = { ...base, variables } as Record<string, unknown>;
    for (const variable of policy.spec.variables ?? []) {
      out.push({ name: `${policy.name} variables.${variable.name}`, source: variable.expression, activation });
      const compiled = compile(variable.expression, env);
      if (!compiled.ok) throw new Error(`${policy.name}: variable ${variable.name}: ${compiled.error}`);
      const result = compiled.program.evaluate(activation as Activation);
      if (result.ok) variables[variable.name] = result.value;
    }
    (policy.spec.validations ?? []).forEach((validation, i) => out.push({ name: `${policy.name} validations[${i}]`, source: validation.expression, activation }));
  }
  return out;
}
