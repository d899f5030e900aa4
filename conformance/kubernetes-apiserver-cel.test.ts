// Kubernetes' own CEL test tables (conformance/data/kubernetes-apiserver,
// kinds `expr` and `cost`), run against the CEL the function runs: the
// apiserver environment of the newest Kubernetes version this build knows
// (shared/cel/kubernetes/environment.ts), in workerd. Every counted case
// (those without `scope`) must hold; the README there says how each is
// judged, and each case names the upstream test line it comes from.
//   expr: the value (library values through their `$probe` expression and
//         `$type` name), the compile error (regexes, as the Go tests match
//         them) or the runtime error (exact, regex or substring).
//   cost: the runtime cost with cel.OptOptimize, as the VAP environment
//         evaluates (expect.cost).
import { describe, expect, it } from "vitest";
import { compile, createEnv, CelMap, Double, equals, intOf, Optional, typeOf, Uint, type Value } from "../shared/cel/index.js";
import { mapInsert } from "../shared/cel/eval/index.js";
import { environmentFor, NEWEST_VERSION } from "../shared/cel/kubernetes/environment.js";

const DATA = import.meta.glob("./data/kubernetes-apiserver/cases.json", { import: "default", eager: true }) as Record<string, { cases: Case[] }>;

type Expected = unknown;
interface Case {
  file: string;
  line: number;
  test: string;
  kind: string;
  env: string;
  expr: string;
  vars?: Record<string, Value>;
  scope?: string;
  expect: {
    value?: Expected;
    compileError?: string[];
    runtimeError?: string;
    match?: "exact" | "regex" | "substring";
    cost?: number;
  };
}

const cases = Object.values(DATA)[0]!.cases.filter((c) => (c.kind === "expr" || c.kind === "cost") && c.scope === undefined);
const { options } = environmentFor(NEWEST_VERSION, "stored");

/** The case data's encoding of a CEL value ({$int}, {$double}, {$optional}, lists, maps) as a value. */
function decode(x: Expected): Value {
  if (Array.isArray(x)) return x.map(decode);
  if (typeof x === "number") return Number.isInteger(x) ? new Double(x) : x;
  if (typeof x !== "object" || x === null) return x as Value;
  const o = x as Record<string, Expected>;
  if ("$int" in o) return intOf(BigInt(o.$int as string));
  if ("$uint" in o) return new Uint(BigInt(o.$uint as string));
  if ("$double" in o) return Number.isInteger(o.$double) ? new Double(o.$double as number) : (o.$double as number);
  if ("$optional" in o) return o.$optional === null ? Optional.none : new Optional(decode(o.$optional));
  const m = new CelMap();
  for (const [k, v] of Object.entries(o)) mapInsert(m, k, decode(v));
  return m;
}

/** Equal and of one type, all the way down (CEL's == would let 1 equal 1.0). */
function same(a: Value, b: Value): boolean {
  if (typeOf(a).name !== typeOf(b).name) return false;
  if (a instanceof Optional && b instanceof Optional) return a.value === undefined ? b.value === undefined : b.value !== undefined && same(a.value, b.value);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x as Value, b[i] as Value));
  return equals(a, b);
}

function run(source: string, vars: Record<string, Value>) {
  const env = createEnv({ ...options, variables: Object.keys(vars) });
  const compiled = compile(source, env);
  if (!compiled.ok) return { compileError: compiled.error } as const;
  return { result: compiled.program.evaluate(vars) } as const;
}

const matches = (actual: string, expected: string, how: string | undefined): boolean =>
  how === "exact" ? actual === expected : how === "substring" ? actual.includes(expected) : new RegExp(expected).test(actual);

/** What is wrong with the case's outcome, or undefined when it holds. */
function judge(c: Case): string | undefined {
  const vars = c.vars ?? {};
  const outcome = run(c.expr, vars);
  const { expect: want } = c;
  if (want.compileError !== undefined) {
    if (!("compileError" in outcome)) return "compiled";
    const missing = want.compileError.filter((re) => !new RegExp(re).test(outcome.compileError!));
    return missing.length === 0 ? undefined : `compile error ${JSON.stringify(outcome.compileError)} does not match ${JSON.stringify(missing)}`;
  }
  if ("compileError" in outcome) return `compile error: ${outcome.compileError}`;
  const r = outcome.result;
  if (c.kind === "cost") return r.cost === want.cost ? undefined : `cost ${r.cost}, expected ${want.cost}${r.ok ? "" : ` (error: ${r.error})`}`;
  if (want.runtimeError !== undefined) {
    if (r.ok) return `value ${String(r.value)}, expected error ${want.runtimeError}`;
    return matches(r.error, want.runtimeError, want.match) ? undefined : `error ${JSON.stringify(r.error)}, expected (${want.match}) ${JSON.stringify(want.runtimeError)}`;
  }
  if (!r.ok) return `error ${r.error}`;
  const expected = want.value as Record<string, Expected>;
  if (typeof expected === "object" && expected !== null && "$type" in expected) {
    if (typeOf(r.value).name !== expected.$type) return `type ${typeOf(r.value).name}, expected ${String(expected.$type)}`;
    const probe = run((expected.$probe as string).replaceAll("%s", `(${c.expr})`), vars);
    if ("compileError" in probe) return `probe: ${probe.compileError}`;
    if (!probe.result.ok) return `probe: ${probe.result.error}`;
    return same(probe.result.value, decode(expected.$equals)) ? undefined : `probe gave ${JSON.stringify(String(probe.result.value))}`;
  }
  return same(r.value, decode(want.value)) ? undefined : `value ${JSON.stringify(r.value, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v instanceof Optional ? { optional: v.value ?? null } : v))}`;
}

const byFile = new Map<string, Case[]>();
for (const c of cases) byFile.set(`${c.kind} ${c.file}`, [...(byFile.get(`${c.kind} ${c.file}`) ?? []), c]);

describe("Kubernetes' CEL library and environment tables (kinds expr and cost)", () => {
  it("reads every counted case", () => {
    expect(cases.length).toBe(563);
  });
  for (const [file, group] of byFile) {
    it(`${file}: ${group.length} cases`, () => {
      const failures = group.flatMap((c) => {
        const wrong = judge(c);
        return wrong === undefined ? [] : [`${c.file}:${c.line} ${c.test}: ${c.expr} → ${wrong}`];
      });
      console.log(`kubernetes-apiserver ${file}: ${group.length - failures.length} of ${group.length} pass`);
      expect(failures).toEqual([]);
    });
  }
});
