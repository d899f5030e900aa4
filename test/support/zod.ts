// Values for property tests of code that reads what a zod schema reads.
import fc from "fast-check";
import type * as z from "zod/mini";

/** Values shaped after `schema`, mostly valid, with wrong types, nulls, undefined, extra keys and `__proto__` keys mixed in. */
export function near(schema: z.core.$ZodType, depth = 0): fc.Arbitrary<unknown> {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const inner = (key: string) => near(def[key] as z.core.$ZodType, depth + 1);
  const noise = fc.oneof(fc.constant(null), fc.constant(undefined), fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}));
  const keys = fc.constantFrom("a", "cpu", "memory", "extra", "__proto__");
  let valid: fc.Arbitrary<unknown>;
  if (depth > 8) valid = noise;
  else
    switch (def.type) {
      case "string":
        valid = fc.string({ maxLength: 4 });
        break;
      case "number":
        valid = fc.oneof(fc.integer({ min: -5, max: 70_000 }), fc.double());
        break;
      case "boolean":
        valid = fc.boolean();
        break;
      case "enum":
      case "literal":
        valid = fc.constantFrom(...[...schema._zod.values!]);
        break;
      case "optional":
        valid = fc.option(inner("innerType"), { nil: undefined });
        break;
      case "nullable":
        valid = fc.option(inner("innerType"), { nil: null });
        break;
      case "array":
        valid = fc.array(inner("element"), { maxLength: 3 });
        break;
      case "record":
        valid = fc.dictionary(keys, inner("valueType"), { maxKeys: 3 });
        break;
      case "object": {
        const shape = def["shape"] as Record<string, z.core.$ZodType>;
        const fields = fc.record(Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, near(field, depth + 1)])), { requiredKeys: [] });
        valid = fc
          .tuple(fields, fc.dictionary(keys, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), fc.boolean())
          .map(([known, others, knownFirst]) => (knownFirst ? { ...known, ...others } : { ...others, ...known }));
        break;
      }
      case "pipe":
        valid = inner("in");
        break;
      case "union":
        valid = fc.oneof(...(def["options"] as z.core.$ZodType[]).map((option) => near(option, depth + 1)));
        break;
      default:
        valid = fc.jsonValue({ maxDepth: 2 });
    }
  return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: noise, weight: 1 });
}
