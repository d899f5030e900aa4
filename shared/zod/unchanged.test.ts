import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { labelSelectorSchema, nodeAffinitySchema, objectMetaSchema, podSpecSchema, podTemplateSchema, quantityMapSchema } from "../k8s/schemas/index.js";
import { matchResourcesSchema } from "../vap/schema/index.js";
import { describeZodError } from "./index.js";
import { parseUnchanged } from "./unchanged.js";

/** Values shaped after `schema`, mostly valid, with wrong types, nulls, undefined, extra keys and `__proto__` keys mixed in. */
function near(schema: z.core.$ZodType, depth = 0): fc.Arbitrary<unknown> {
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
        valid = fc.tuple(fields, fc.dictionary(keys, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })).map(([known, others]) => ({ ...others, ...known }));
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

const SCHEMAS: Record<string, z.ZodMiniType<unknown>> = {
  podSpec: podSpecSchema,
  podTemplate: podTemplateSchema,
  objectMeta: objectMetaSchema,
  quantities: quantityMapSchema,
  labelSelector: labelSelectorSchema,
  nodeAffinity: nodeAffinitySchema,
  matchResources: matchResourcesSchema,
  synthetic: z.looseObject({
    anything: z.unknown(),
    count: z.optional(z.number().check(z.int(), z.minimum(0))),
    strict: z.optional(z.strictObject({ a: z.string() })),
    mode: z.optional(z.literal("x")),
  }),
  defaulted: z.looseObject({ name: z.string(), defaulted: z.optional(z._default(z.string(), "d")) }),
};
/** Schemas whose values zod always rewrites (defaults): only the slow path answers. */
const ALWAYS_COPIED = new Set(["matchResources", "defaulted"]);

/** Same success, and the same data or the same error text, as zod's own safeParse; whether the value itself came back. */
function agrees(schema: z.ZodMiniType<unknown>, value: unknown): boolean {
  const ours = parseUnchanged(schema, value);
  const zods = schema.safeParse(value);
  expect(ours.success).toBe(zods.success);
  if (ours.success && zods.success) expect(ours.data).toStrictEqual(zods.data);
  if (!ours.success && !zods.success) expect(describeZodError(ours.error)).toBe(describeZodError(zods.error));
  return ours.success && ours.data === value;
}

describe("parseUnchanged", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: the same result as zod's safeParse, as JSON and as objects built in code`, () => {
      let unchanged = 0;
      fc.assert(
        fc.property(near(schema), (value) => {
          if (agrees(schema, value)) unchanged++;
          if (value !== undefined && agrees(schema, JSON.parse(JSON.stringify(value)))) unchanged++;
        }),
        { numRuns: 400 },
      );
      // The fast path is taken, or this test proves nothing about it.
      if (!ALWAYS_COPIED.has(name)) expect(unchanged).toBeGreaterThan(20);
    });
  }

  it("returns a valid object itself, and zod's copy when zod would change it", () => {
    const spec = { containers: [{ name: "app", image: "nginx" }], nodeSelector: { zone: "a" } };
    expect(parseUnchanged(podSpecSchema, spec)).toEqual({ success: true, data: spec });
    expect((parseUnchanged(podSpecSchema, spec) as { data: unknown }).data).toBe(spec);
    // Strips unknown keys of a plain object schema: zod's copy.
    const selector = { matchLabels: { app: "web" }, extra: 1 };
    expect((parseUnchanged(labelSelectorSchema, selector) as { data: unknown }).data).toStrictEqual({ matchLabels: { app: "web" } });
    // Numbers as quantities become their text.
    expect((parseUnchanged(quantityMapSchema, { cpu: 1 }) as { data: unknown }).data).toStrictEqual({ cpu: "1" });
  });

  it("leaves __proto__ keys to zod, which drops them", () => {
    const labels = JSON.parse('{"app":"web","__proto__":{"polluted":"yes"}}') as unknown;
    const parsed = parseUnchanged(objectMetaSchema, { labels });
    expect(parsed.success && parsed.data.labels).toStrictEqual({ app: "web" });
    const spec = JSON.parse('{"containers":[{"name":"a","__proto__":{"x":1}}]}') as unknown;
    expect(parseUnchanged(podSpecSchema, spec)).toStrictEqual(podSpecSchema.safeParse(spec));
  });

  it("names the same fields as zod for invalid input", () => {
    const parsed = parseUnchanged(podSpecSchema, { containers: [{ name: 7 }] });
    expect(parsed.success).toBe(false);
    expect(!parsed.success && describeZodError(parsed.error)).toBe("containers.0.name: Invalid input: expected string, received number");
  });
});
