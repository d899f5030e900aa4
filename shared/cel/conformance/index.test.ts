// cel-spec conformance (the data of @bufbuild/cel-spec), as a ratchet: every
// test must pass or fail exactly as known-failures.txt records, so a fix that
// makes a test pass and a regression that makes one fail both fail here.
// Run with UPDATE_CEL_CONFORMANCE=1 to rewrite the list after a deliberate change.
//
// Files: the core language suites a dynamically typed evaluator should pass.
// Left out: proto2, proto3, wrappers, enums, dynamic, type_deductions,
// proto2_ext (protobuf messages, wrappers and enums: Kubernetes values are
// JSON), math_ext, encoders_ext, block_ext (libraries Kubernetes does not
// enable), unknowns (empty). Within the chosen files, tests that construct or
// read protobuf messages, or only check static types (checkOnly), are skipped
// and counted as such, as are tests that switch cel-go's checker off when ours
// refuses them with that checker's own error (`1.0 == 1`).

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../index.js";
import { asDouble, CelMap, CelType, Uint, doubleOf, equals, intOf, isList, isMap, mapGet, mapKeys, mapSize, typeOf, type Value } from "../values/index.js";
import { mapInsert } from "../eval/index.js";
import { parseDuration, parseTimestamp } from "../time/index.js";

export const FILES = [
  "basic",
  "comparisons",
  "conversions",
  "fields",
  "fp_math",
  "integer_math",
  "lists",
  "logic",
  "macros",
  "namespace",
  "optionals",
  "parse",
  "plumbing",
  "string",
  "string_ext",
  "timestamps",
  "unknowns",
  "macros2",
  "bindings_ext",
];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonRecord = { [k: string]: Json };

const PROTO = /TestAllTypes|NestedTestAllTypes|google\.protobuf\.(?!Timestamp\b|Duration\b)|cel\.expr\.conformance|TestRequired|GlobalEnum|\.proto[23]\./;

/** Converts a cel.expr.Value in protobuf JSON form; undefined when it holds a protobuf message. */
function fromJson(v: JsonRecord): Value | undefined {
  if ("int64Value" in v) return intOf(BigInt(v.int64Value as string));
  if ("uint64Value" in v) return new Uint(BigInt(v.uint64Value as string));
  if ("doubleValue" in v) return doubleOf(Number(v.doubleValue));
  if ("stringValue" in v) return v.stringValue as string;
  if ("boolValue" in v) return v.boolValue as boolean;
  if ("bytesValue" in v) return Uint8Array.from(atob(v.bytesValue as string), (c) => c.charCodeAt(0));
  if ("nullValue" in v) return null;
  if ("typeValue" in v) return new CelType(v.typeValue as string);
  if ("listValue" in v) {
    const out: Value[] = [];
    for (const x of ((v.listValue as JsonRecord).values ?? []) as JsonRecord[]) {
      const e = fromJson(x);
      if (e === undefined) return undefined;
      out.push(e);
    }
    return out;
  }
  if ("mapValue" in v) {
    const m = new CelMap();
    for (const en of ((v.mapValue as JsonRecord).entries ?? []) as JsonRecord[]) {
      const k = fromJson(en.key as JsonRecord);
      const x = fromJson(en.value as JsonRecord);
      if (k === undefined || x === undefined) return undefined;
      mapInsert(m, k, x);
    }
    return m;
  }
  if ("objectValue" in v) {
    const o = v.objectValue as JsonRecord;
    const type = String(o["@type"]);
    if (type.endsWith("google.protobuf.Duration")) return parseDuration(String(o.value));
    if (type.endsWith("google.protobuf.Timestamp")) return parseTimestamp(String(o.value));
  }
  return undefined;
}

/** Equal values of the same types, recursively (CEL's == is heterogeneous, a test's expectation is not). */
function same(a: Value, b: Value): boolean {
  if (typeOf(a) !== typeOf(b) && typeOf(a).name !== typeOf(b).name) return false;
  if (isList(a) && isList(b)) return a.length === b.length && a.every((x, i) => same(x, b[i] as Value));
  if (isMap(a) && isMap(b)) {
    return mapSize(a) === mapSize(b) && mapKeys(a).every((k) => {
      const x = mapGet(b, k);
      return x !== undefined && same(mapGet(a, k) as Value, x) && mapKeys(b).some((kb) => same(k, kb));
    });
  }
  const x = asDouble(a);
  if (x !== undefined) return Number.isNaN(x) ? Number.isNaN(asDouble(b) ?? 0) : x === asDouble(b);
  return equals(a, b);
}

type Outcome = "pass" | "fail" | "skip";

/** `checkerError`: cel-go's checker's error for the expression, which the data records. */
function run(t: JsonRecord, checkerError: unknown): Outcome {
  const expr = String(t.expr);
  const container = String(t.container ?? "");
  if (t.checkOnly || PROTO.test(expr) || container.includes("conformance") || PROTO.test(JSON.stringify(t.typeEnv ?? ""))) return "skip";
  const expected = t.value as JsonRecord | undefined;
  const want = expected === undefined ? undefined : fromJson(expected);
  if (expected !== undefined && want === undefined) return "skip";
  const typeEnv = (t.typeEnv ?? []) as JsonRecord[];
  const bindings = (t.bindings ?? {}) as Record<string, JsonRecord>;
  const names = new Set([...typeEnv.filter((d) => "ident" in d).map((d) => String(d.name)), ...Object.keys(bindings)]);
  if (typeEnv.some((d) => "function" in d)) return "fail";
  const activation: Record<string, Value> = {};
  for (const [name, b] of Object.entries(bindings)) {
    const v = fromJson(b.value as JsonRecord);
    if (v === undefined) return "skip";
    activation[name] = v;
  }
  // Plain CEL: without Kubernetes' homogeneous literal validator, which the suites predate.
  const compiled = compile(expr, createEnv({ variables: [...names], homogeneousLiterals: false }));
  const expectsError = t.evalError !== undefined;
  if (!compiled.ok) {
    if (expectsError) return "pass";
    // A test of the evaluator with cel-go's checker off, refused with that checker's own error: ours is always on.
    return t.disableCheck === true && compiled.error === checkerError ? "skip" : "fail";
  }
  let result;
  try {
    result = compiled.program.evaluate(activation);
  } catch {
    // An exception escaping evaluate is a bug, never an acceptable error.
    return "fail";
  }
  if (!result.ok) return expectsError ? "pass" : "fail";
  if (expectsError) return "fail";
  return want === undefined ? (result.value === true ? "pass" : "fail") : same(result.value, want) ? "pass" : "fail";
}

function collect(): Map<string, { file: string; outcome: Outcome }> {
  const results = new Map<string, { file: string; outcome: Outcome }>();
  for (const file of tests.suites ?? []) {
    if (!FILES.includes(file.name)) continue;
    const walk = (s: typeof file, path: string): void => {
      for (const t of s.tests ?? []) {
        let id = `${path}/${String(t.original.name)}`;
        while (results.has(id)) id += "'";
        results.set(id, { file: file.name, outcome: run(t.original as JsonRecord, (t as { error?: unknown }).error) });
      }
      for (const sub of s.suites ?? []) walk(sub, `${path}/${sub.name}`);
    };
    walk(file, file.name);
  }
  return results;
}

const listPath = fileURLToPath(new URL("./known-failures.txt", import.meta.url));

describe("cel-spec conformance", () => {
  it("passes and fails exactly the recorded tests", () => {
    const results = collect();
    const failing = [...results].filter(([, r]) => r.outcome === "fail").map(([id]) => id);
    const perFile = new Map<string, { pass: number; fail: number; skip: number }>();
    for (const { file, outcome } of results.values()) {
      const c = perFile.get(file) ?? { pass: 0, fail: 0, skip: 0 };
      c[outcome]++;
      perFile.set(file, c);
    }
    const total = { pass: 0, fail: 0, skip: 0 };
    const lines = [...perFile].map(([file, c]) => {
      total.pass += c.pass;
      total.fail += c.fail;
      total.skip += c.skip;
      return `${file.padEnd(14)} ${String(c.pass).padStart(4)} pass ${String(c.fail).padStart(4)} fail ${String(c.skip).padStart(4)} skipped (proto)`;
    });
    const all = total.pass + total.fail + total.skip;
    lines.push(`total          ${total.pass} of ${all} pass (${((100 * total.pass) / all).toFixed(1)}%), ${total.fail} fail, ${total.skip} skipped`);
    console.log(lines.join("\n"));
    if (process.env.UPDATE_CEL_CONFORMANCE) writeFileSync(listPath, failing.sort().join("\n") + "\n");
    const known = readFileSync(listPath, "utf8").split("\n").filter((l) => l !== "");
    const knownSet = new Set(known);
    const failingSet = new Set(failing);
    expect({
      newlyFailing: failing.filter((id) => !knownSet.has(id)),
      newlyPassing: known.filter((id) => !failingSet.has(id)),
    }).toEqual({ newlyFailing: [], newlyPassing: [] });
  });
});
