import { describe, expect, it } from "vitest";
import { compile, createBudget, createEnv, LazyMap, type Value } from "../index.js";
import { error, run, value } from "../../../test/support/cel/index.js";
import { Boxed, Double, EvalError, Optional, Types, Uint } from "../values/index.js";
import { check } from "../checker/index.js";
import { parse } from "../parser/index.js";
import { KUBERNETES_LIBRARIES } from "../kubernetes/index.js";
import { compileExpr, CostLimitExceeded, Frame } from "./index.js";

const deployment: Value = {
  metadata: { name: "web", labels: { app: "web" } },
  spec: {
    replicas: 3,
    template: {
      spec: {
        containers: [
          { name: "a", image: "nginx:1.25", securityContext: { privileged: false } },
          { name: "b", image: "busybox" },
        ],
      },
    },
  },
};

describe("numbers", () => {
  it("keeps int and double apart in computed values", () => {
    expect(value("type(2.0) == double")).toBe(true);
    expect(value("type(1) == int")).toBe(true);
    expect(value("2.0 + 1.5")).toBe(3.5);
    expect(value("2.0 * 2.0")).toEqual(new Double(4));
    expect(value("type(2.0 * 2.0)")).toBe(Types.double);
    expect(error("dyn(2.0) * 3")).toBe("no such overload");
    expect(error("2.0 * 3")).toBe(
      "ERROR: <input>:1:5: found no matching overload for '_*_' applied to '(double, int)'\n | 2.0 * 3\n | ....^",
    );
  });

  it("reads JSON integers as ints and fractions as doubles", () => {
    expect(value("type(o.i) == int && type(o.d) == double", { o: { i: 3, d: 2.5 } })).toBe(true);
    expect(value("o.i / 2", { o: { i: 7 } })).toBe(3);
    expect(error("o.i + o.d", { o: { i: 1, d: 0.5 } })).toBe("no such overload");
  });

  it("compares across numeric types and uses heterogeneous equality", () => {
    // Heterogeneous at run time; cel-go's checker refuses two different known types (cel-spec's eq_mixed_types disables it).
    expect(error("1 == 1.0")).toBe("ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^");
    expect(value("dyn(1) == 1.0")).toBe(true);
    expect(value("dyn(1) == 1u")).toBe(true);
    expect(value("1 < 1.5")).toBe(true);
    expect(value("2u > 1")).toBe(true);
    expect(value("dyn(1) == 'a'")).toBe(false);
    expect(error("1 != 'a'")).toBe("ERROR: <input>:1:3: found no matching overload for '_!=_' applied to '(int, string)'\n | 1 != 'a'\n | ..^");
    expect(value("[1, 2] == [dyn(1.0), dyn(2u)]")).toBe(true);
  });

  it("reports int64 and uint64 overflow and division errors with cel-go's texts", () => {
    expect(error("9223372036854775807 + 1")).toBe("integer overflow");
    expect(error("-9223372036854775808 - 1")).toBe("integer overflow");
    expect(error("-9223372036854775808 / -1")).toBe("integer overflow");
    expect(error("0u - 1u")).toBe("unsigned integer overflow");
    expect(error("1 / 0")).toBe("division by zero");
    expect(error("1 % 0")).toBe("modulus by zero");
    expect(value("9223372036854775807")).toBe(9223372036854775807n);
    expect(value("4611686018427387904 - 1 + 4611686018427387904")).toBe(9223372036854775807n);
    expect(value("1u + 2u")).toEqual(new Uint(3n));
  });
});

describe("logic", () => {
  it("lets a determining operand absorb an error on either side", () => {
    expect(value("1/0 == 1 || true")).toBe(true);
    expect(value("true || 1/0 == 1")).toBe(true);
    expect(value("1/0 == 1 && false")).toBe(false);
    expect(error("1/0 == 1 && true")).toBe("division by zero");
    expect(error("false || dyn('x')")).toBe("no such overload");
    expect(error("false || 'x'")).toBe("ERROR: <input>:1:7: found no matching overload for '_||_' applied to '(bool, string)'\n | false || 'x'\n | ......^");
  });

  it("evaluates the conditional lazily and requires a bool test", () => {
    expect(value("true ? 1 : 1/0")).toBe(1);
    expect(error("'x' ? 1 : 2")).toBe(
      "ERROR: <input>:1:5: found no matching overload for '_?_:_' applied to '(string, int, int)'\n | 'x' ? 1 : 2\n | ....^",
    );
    expect(error("dyn('x') ? 1 : 2")).toBe("no such overload");
  });
});

describe("fields and indexes", () => {
  it("selects JSON fields and reports missing keys", () => {
    expect(value("object.spec.replicas", { object: deployment })).toBe(3);
    expect(error("object.spec.paused", { object: deployment })).toBe("no such key: paused");
    expect(error("object.spec.template.spec.containers[5]", { object: deployment })).toBe("index out of bounds: 5");
    expect(value("object.spec.template.spec.containers[1].name", { object: deployment })).toBe("b");
    expect(value("has(object.metadata.labels) && 'app' in object.metadata.labels", { object: deployment })).toBe(true);
    expect(value("has(object.spec.paused)", { object: deployment })).toBe(false);
  });

  it("never reads inherited properties of JSON objects", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": 1}, "a": {}}') as Value;
    expect(error("o.a.constructor", { o: hostile })).toBe("no such key: constructor");
    expect(value("has(o.a.toString)", { o: hostile })).toBe(false);
    expect(value("o.__proto__.polluted", { o: hostile })).toBe(1);
  });

  it("compares arbitrarily deep input without overflowing the stack", () => {
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000)) as Value;
    const other = JSON.parse("[".repeat(100_000) + "1" + "]".repeat(100_000)) as Value;
    expect(value("a == a && a != b", { a: deep, b: other })).toBe(true);
  });

  it("reads inputs lazily: touching two fields reads two of its 10,000 fields", () => {
    let reads = 0;
    const big = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, { v: i }]));
    const counted = new Proxy(big, {
      get(target, key, receiver) {
        if (Object.hasOwn(target, key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
      getPrototypeOf: () => Object.prototype,
    });
    expect(value("o.k5.v + o.k9999.v", { o: counted as Value })).toBe(10004);
    expect(reads).toBe(2);
  });
});

describe("comprehensions", () => {
  it("runs the Kubernetes macros", () => {
    const rule =
      "object.spec.template.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)";
    expect(value(rule, { object: deployment })).toBe(true);
    expect(value("[1, 2, 3].map(x, x * 2)")).toEqual([2, 4, 6]);
    expect(value("[1, 2, 3].map(x, x > 1, x * 10)")).toEqual([20, 30]);
    expect(value("[1, 2, 3].filter(x, x % 2 == 1)")).toEqual([1, 3]);
    expect(value("[1, 2, 3].exists_one(x, x == 2)")).toBe(true);
    expect(value("{'a': 1, 'b': 2}.all(k, k.size() == 1)")).toBe(true);
    expect(value("cel.bind(x, 'abc', x + x)")).toBe("abcabc");
  });

  it("supports two-variable comprehensions", () => {
    expect(value("[10, 20].all(i, v, v == (i + 1) * 10)")).toBe(true);
    expect(value("{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)")).toBe(true);
    expect(value("[1, 2].transformList(i, v, i + v)")).toEqual([1, 3]);
    expect(value("{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}")).toBe(true);
    expect(value("{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v) == {'b': 2}")).toBe(true);
  });

  it("lets a determining element absorb errors of others, and shadows outer names", () => {
    expect(value("[0, 1].exists(x, 1 / x == 1)")).toBe(true);
    expect(value("[0, 1].all(x, 1 / x == 5)")).toBe(false);
    expect(error("[0, 1].all(x, 1 / x == 1)")).toBe("division by zero");
    expect(value("[1, 2].all(x, [3].all(x, x == 3))")).toBe(true);
    expect(value("[5].map(object, object + 1)", { object: deployment })).toEqual([6]);
  });
});

describe("optionals", () => {
  it("chains optional selection and indexing", () => {
    expect(value("object.?spec.?paused.orValue(false)", { object: deployment })).toBe(false);
    expect(value("object.?spec.replicas.value()", { object: deployment })).toBe(3);
    expect(value("object.spec.template.spec.containers[?9].hasValue()", { object: deployment })).toBe(false);
    expect(value("[?optional.none(), ?optional.of(1), 2]")).toEqual([1, 2]);
    expect(value("{?'a': optional.none(), 'b': 1} == {'b': 1}")).toBe(true);
    expect(value("optional.of(2).optMap(x, x * 2).value()")).toBe(4);
    expect(value("optional.none().or(optional.of(3)).value()")).toBe(3);
    expect(value("optional.of(1).orValue(1/0)")).toBe(1);
    expect(error("optional.none().value()")).toBe("optional.none() dereference");
    expect(value("optional.ofNonZeroValue('')")).toBe(Optional.none);
  });
});

describe("lazy variables", () => {
  it("computes a LazyMap entry on first access only", () => {
    const env = createEnv({ variables: ["variables"] });
    const inner = compile("21 * 2", env);
    if (!inner.ok) throw new Error(inner.error);
    let evaluations = 0;
    const cache = new Map<string, Value>();
    const variables = new LazyMap(
      (name) => {
        if (name !== "answer") return undefined;
        if (!cache.has(name)) {
          evaluations++;
          const r = inner.program.evaluate({});
          if (r.ok) cache.set(name, r.value);
        }
        return cache.get(name);
      },
      ["answer"],
    );
    expect(value("variables.answer + variables.answer", { variables })).toBe(84);
    expect(evaluations).toBe(1);
    expect(error("variables.other", { variables })).toBe("no such key: other");
  });
});

/** Costs Kubernetes' cost stability tests expect of the apiserver for the same expressions and data. */
const KUBERNETES_COSTS: [string, Value, number][] = [
  ["self.val1 == self.val6", { val1: 1, val6: 1 }, 5],
  ["type(self.val1) == int", { val1: 1 }, 4],
  ["self.val3 + 1 == 2147483647 + 1", { val3: 2147483647 }, 5],
  ["double(self.val1) < 10.0", { val1: 5 }, 4],
  ["double(5) < 10.0", {}, 1],
  ["self.val1.startsWith('Rook')", { val1: "Rook takes 👑" }, 4],
  ["!self.val1.startsWith('knight')", { val1: "Rook takes 👑" }, 5],
  ["size(self.val1) == 12", { val1: "Rook takes 👑" }, 4],
  ["self.val1.charAt(3) == 'k'", { val1: "Rook takes 👑" }, 4],
  ["self.val1.indexOf('o', 2) == 2", { val1: "Rook takes 👑" }, 4],
  ["self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", { val1: "Rook takes 👑" }, 7],
  ["self.val1.split(' ') == ['Rook', 'takes', '👑']", { val1: "Rook takes 👑" }, 6],
  ["self.val1.substring(4, 10).trim() == 'takes'", { val1: "Rook takes 👑" }, 6],
  ["self.val1.upperAscii() == 'ROOK TAKES 👑'", { val1: "Rook takes 👑" }, 6],
  ["'k1' in self.val1", { val1: { k1: "a", k2: "b" } }, 3],
  ["!('k3' in self.val1)", { val1: { k1: "a", k2: "b" } }, 4],
  ["self.val1 == {'k1': 'a', 'k2': 'b'}", { val1: { k1: "a", k2: "b" } }, 3],
  ["self.enumStr in ['Pending', 'Available']", { enumStr: "Pending" }, 2],
  ["2 in self.array", { array: [1, 1, 2, 2, 3, 3, 4, 5] }, 10],
  ["self.array.all(e, e > 0)", { array: [1, 1, 2, 2, 3, 3, 4, 5] }, 43],
  ["self.array.exists(e, e > 2)", { array: [1, 1, 2, 2, 3, 3, 4, 5] }, 36],
  ["self.array.exists_one(e, e > 4)", { array: [1, 1, 2, 2, 3, 3, 4, 5] }, 22],
  ["!self.array.all(e, e < 2)", { array: [1, 1, 2, 2, 3, 3, 4, 5] }, 21],
  ["self.val.all(k, self.val[k] > 0)", { val: { b: 1, d: 2 } }, 17],
  ["self.val.exists_one(k, self.val[k] == 2)", { val: { b: 1, d: 2 } }, 14],
  ["size(self.val.filter(k, self.val[k] > 1)) == 1", { val: { b: 1, d: 2 } }, 26],
  ["has(self.a.b)", { a: { b: 1 } }, 2],
  ["!has(self.a1.d2)", { a1: { b1: { c1: 4 } } }, 3],
  ["self.objs[0] == self.objs[1]", { objs: [{ f1: "a" }, { f1: "a" }] }, 7],
  ["self.listMap.all(m, m.k.startsWith('a'))", { listMap: [{ k: "a1", v: "b1" }, { k: "a2", v: "b2" }, { k: "a3", v: "b3", v2: "z" }] }, 21],
  ["self.listMap.exists_one(m, m.k == 'a3')", { listMap: [{ k: "a1", v: "b1" }, { k: "a2", v: "b2" }, { k: "a3", v: "b3", v2: "z" }] }, 15],
  ["size(self.listMap.filter(m, m.k == 'a1')) == 1", { listMap: [{ k: "a1", v: "b1" }, { k: "a2", v: "b2" }, { k: "a3", v: "b3", v2: "z" }] }, 27],
  ["self.listMap.map(m, m.v).exists(v, v == 'b1')", { listMap: [{ k: "a1", v: "b1" }, { k: "a2", v: "b2" }, { k: "a3", v: "b3", v2: "z" }] }, 55],
  ["self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1", { listMap: [{ k: "a1", v: "b1" }, { k: "a2", v: "b2" }, { k: "a3", v: "b3", v2: "z" }] }, 25],
  ["!self.listMap.all(m, has(m.v2) && m.v2 != 'z')", { listMap: [{ k: "a1", v: "b1" }, { k: "a2", v: "b2" }, { k: "a3", v: "b3", v2: "z" }] }, 10],
];

describe("cost", () => {
  it.each(KUBERNETES_COSTS)("%s costs what the apiserver charges", (source, self, cost) => {
    const c = compile(source, createEnv({ variables: ["self"] }));
    if (!c.ok) throw new Error(c.error);
    expect(c.program.evaluate({ self })).toEqual({ ok: true, value: true, cost });
  });

  it("charges cel-go's units", () => {
    const env = createEnv({ variables: ["object"] });
    const c = compile("object.spec.replicas <= 5", env);
    if (!c.ok) throw new Error(c.error);
    const r = c.program.evaluate({ object: deployment });
    expect(r).toEqual({ ok: true, value: true, cost: 4 });
  });

  it("stops runaway expressions at the limit", () => {
    const nested = "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, [1,2,3,4,5,6,7,8,9,10])))))";
    expect(error(nested)).toBe("operation cancelled: actual cost limit exceeded");
    const doubling = "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30].map(i, 'ab').all(s, s.size() > 0) && cel.bind(s, 'x', [1,2,3].map(i, s + s + s + s + s + s + s + s + s + s + s + s + s + s + s + s)).size() == 3";
    expect(value(doubling)).toBe(true);
    const growth =
      "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40].map(i, cel.bind(s, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', [s + s, s + s + s + s].map(t, t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t + t).map(u, u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u + u)))";
    expect(error(growth)).toBe("operation cancelled: actual cost limit exceeded");
  });

  it("draws several evaluations from one shared budget", () => {
    const env = createEnv({ variables: [] });
    const c = compile("[1,2,3].map(x, x).size()", env);
    if (!c.ok) throw new Error(c.error);
    const budget = createBudget(82);
    const first = c.program.evaluate({}, budget);
    // the constant list is free; three map steps of 12 plus the element read, the result 1, size() 1
    expect(first).toEqual({ ok: true, value: 3, cost: 41 });
    expect(c.program.evaluate({}, budget).ok).toBe(true);
    expect(budget.spent).toBe(82);
    const third = c.program.evaluate({}, budget);
    expect(third.ok).toBe(false);
    expect(third).toMatchObject({ error: "operation cancelled: actual cost limit exceeded", exhausted: "budget" });
    expect(run("[1,2,3].map(x, x).size()", {}, { costLimit: 10 })).toEqual({ error: "operation cancelled: actual cost limit exceeded" });
  });
});

describe("loop-invariant values", () => {
  const env = createEnv({ variables: ["p", "l"], libraries: KUBERNETES_LIBRARIES });
  const activation = { p: { s: "Production", q: "0.1", e: "", n: 2.5, names: ["aws", "gcp", "token"] }, l: [1, 2, 3, 4] };
  /** Every outcome at every limit up to the full cost: value or error, and the cost reported. */
  const outcomes = (source: string, keep: boolean): string[] => {
    const parsed = parse(source, env.macros);
    if ("errors" in parsed) throw new Error(source);
    const checked = check(parsed.expr, env.declarations);
    expect(checked.errors).toEqual([]);
    const { root, slots, invariants } = compileExpr(parsed.expr, checked, keep);
    // Each source has values to keep: the comparison is not of two identical programs.
    expect(invariants > 0, source).toBe(keep);
    const run = (limit: number): string => {
      const frame = new Frame(activation, limit, Infinity, slots, invariants);
      try {
        const v = root(frame);
        return `${JSON.stringify(v instanceof Boxed ? String(v) : v)} @${frame.cost}`;
      } catch (e) {
        if (e instanceof EvalError || e instanceof CostLimitExceeded) return `${e.message} @${frame.cost}`;
        throw e;
      }
    };
    const full = Number(/@(-?\d+)$/.exec(run(Infinity))![1]);
    return Array.from({ length: full + 3 }, (_, limit) => run(limit)).concat(run(Infinity));
  };

  it("gives each loop the value, error and cost at every limit that evaluating it on every iteration gives", () => {
    const sources = [
      // A call on params in a loop over the list: kept after the first element.
      "l.all(x, quantity(string(p.n)).compareTo(quantity(p.q)) == 1 && x > 0)",
      "l.exists(x, p.names.exists(n, p.s.lowerAscii().contains(n)) || x == 4)",
      // An empty string's traversal gives the call's unit back (a charge below zero) inside the kept value.
      "l.all(x, p.e.lowerAscii() == '' && p.s.upperAscii() != '')",
      // An uncharged conditional branch (the cost goes down after it) inside the kept value.
      "l.map(x, (p.s.size() > 3 ? p.names : l).size() + x)",
      // An error kept and thrown again, absorbed by || where the loop variable decides.
      "l.all(x, x > 0 || p.s.matches(p.e + '['))",
      "l.all(x, int(p.s) > x || x < 5)",
      // Nested loops: the inner loop's invariant read of the outer variable, and the outer's of params.
      "l.all(x, l.filter(y, y > x).size() <= p.names.map(n, n.size()).size() + x)",
      "l.map(x, l.map(y, string(x) + p.s.lowerAscii() + string(y)))",
      // Bindings inside and around the kept value.
      "l.all(x, cel.bind(v, p.names.size(), v > 0 && x > 0))",
    ];
    for (const source of sources) expect(outcomes(source, true), source).toEqual(outcomes(source, false));
  });
});
