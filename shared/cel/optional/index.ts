// cel.OptionalTypes: optional.of / none / ofNonZeroValue and the methods on
// optional values. The syntax (a.?b, a[?k], [?x], {?k: v}) and the optMap /
// optFlatMap macros live in the parser and evaluator; or/orValue are
// evaluated lazily there as well.

import type { Library, OverloadDecl } from "../declarations/index.js";
import { Double, Duration, EvalError, isList, isMap, mapSize, Optional, Timestamp, Uint, type Value } from "../values/index.js";

/** cel-go's IsZeroValue: the default value of the value's type. */
function isZero(v: Value): boolean {
  switch (typeof v) {
    case "number":
      return v === 0;
    case "bigint":
      return v === 0n;
    case "string":
      return v === "";
    case "boolean":
      return !v;
  }
  if (v === null) return true;
  if (isList(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof Uint) return v.v === 0n;
  if (v instanceof Double) return v.v === 0;
  if (v instanceof Duration || v instanceof Timestamp) return v.ns === 0n;
  if (v instanceof Optional) return v.value === undefined;
  return isMap(v) && mapSize(v) === 0;
}

const opt = (v: Value): Optional => {
  if (!(v instanceof Optional)) throw new EvalError("no such overload");
  return v;
};

const method = (params: string[], impl: OverloadDecl["impl"], result?: string): OverloadDecl => ({ receiver: true, params, impl, result });

export const optionalLibrary: Library = {
  name: "cel.lib.optional",
  functions: [
    { name: "optional.of", overloads: [{ params: ["dyn"], result: "optional_type", impl: ([v]) => new Optional(v as Value) }] },
    { name: "optional.none", overloads: [{ params: [], result: "optional_type", impl: () => Optional.none }] },
    {
      name: "optional.ofNonZeroValue",
      overloads: [{ params: ["dyn"], result: "optional_type", impl: ([v]) => (isZero(v as Value) ? Optional.none : new Optional(v as Value)) }],
    },
    { name: "hasValue", overloads: [method(["optional_type"], ([o]) => opt(o as Value).value !== undefined, "bool")] },
    {
      name: "value",
      overloads: [
        method(["optional_type"], ([o]) => {
          const v = opt(o as Value).value;
          if (v === undefined) throw new EvalError("optional.none() dereference");
          return v;
        }),
      ],
    },
    { name: "or", overloads: [method(["optional_type", "optional_type"], ([o, other]) => (opt(o as Value).value !== undefined ? (o as Value) : opt(other as Value)), "optional_type")] },
    { name: "orValue", overloads: [method(["optional_type", "dyn"], ([o, v]) => opt(o as Value).value ?? (v as Value))] },
    {
      name: "first",
      overloads: [method(["list"], ([l]) => ((l as Value[]).length === 0 ? Optional.none : new Optional((l as Value[])[0] as Value)), "optional_type")],
    },
    {
      name: "last",
      overloads: [method(["list"], ([l]) => ((l as Value[]).length === 0 ? Optional.none : new Optional((l as Value[]).at(-1) as Value)), "optional_type")],
    },
  ],
};
