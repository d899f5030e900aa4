import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { labelSelectorSchema, nodeAffinitySchema, objectMetaSchema, podSpecSchema, podTemplateSchema, quantityMapSchema } from "../k8s/schemas/index.js";
import { matchResourcesSchema } from "../vap/schema/index.js";
import { describeZodError } from "./index.js";
import { isStringMap, parseUnchanged } from "./unchanged.js";
import { near } from "../../test/support/zod.js";

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
      // The fast path is taken, or this test proves nothing about it: 46 times or more for each schema asked, over 100 random seeds (podSpec the fewest).
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

  it("walks a large label map once, and still answers as zod for one that is not a string map", () => {
    // As JSON.parse makes them: `extra` is JSON text of more entries, where "__proto__" is a key like any other.
    const many = (extra = "") => JSON.parse(`{${Array.from({ length: 100 }, (_, i) => `"l${i}":"v${i}"`).join(",")}${extra}}`) as unknown;
    const labels = many();
    expect(isStringMap(labels)).toBe(true);
    // Remembered, and returned itself on every later parse.
    expect(isStringMap(labels)).toBe(true);
    expect((parseUnchanged(objectMetaSchema, { labels }) as { data: { labels: unknown } }).data.labels).toBe(labels);
    for (const bad of [many(',"l99":7'), many(',"__proto__":"x"')]) {
      expect(isStringMap(bad)).toBe(false);
      expect(isStringMap(bad)).toBe(false);
      expect(parseUnchanged(objectMetaSchema, { labels: bad })).toStrictEqual(objectMetaSchema.safeParse({ labels: bad }));
    }
    expect(isStringMap([])).toBe(false);
  });

  it("reads an object's fields as zod does: absent, present with undefined, defaulted, unknown, inherited", () => {
    const loose = z.looseObject({ name: z.string(), note: z.optional(z.nullable(z.string())) });
    const defaulted = z.looseObject({ name: z.string(), mode: z.optional(z._default(z.string(), "d")) });
    const strict = z.object({ key: z.string(), values: z.optional(z.array(z.string())) });
    // agrees: zod's own result, and whether the value itself came back.
    // An optional field absent or present with undefined: zod's result equals the value, which comes back itself.
    expect(agrees(loose, { name: "a" })).toBe(true);
    expect(agrees(loose, { name: "a", note: undefined, other: 1 })).toBe(true);
    // A defaulted field, absent or present with undefined, gets zod's default: zod's copy.
    expect(agrees(defaulted, { name: "a" })).toBe(false);
    expect(agrees(defaulted, { name: "a", mode: undefined })).toBe(false);
    expect(agrees(defaulted, { name: "a", mode: "m" })).toBe(true);
    expect(agrees(loose, { note: "x" })).toBe(false);
    // A plain object schema: every key known, required ones present, none undefined.
    expect(agrees(strict, { key: "k", values: ["v"] })).toBe(true);
    expect(agrees(strict, { values: ["v"], key: "k" })).toBe(true);
    expect(agrees(strict, { key: "k", extra: 1 })).toBe(false);
    expect(agrees(strict, { key: "k", values: undefined })).toBe(false);
    expect(agrees(strict, { values: [] })).toBe(false);
    expect(agrees(strict, { key: undefined })).toBe(false);
    // A shape key Object.prototype also has: left to zod, which reads the inherited value.
    expect(agrees(z.object({ toString: z.optional(z.string()) }), {})).toBe(false);
  });

  it("names the same fields as zod for invalid input", () => {
    const parsed = parseUnchanged(podSpecSchema, { containers: [{ name: 7 }] });
    expect(parsed.success).toBe(false);
    expect(!parsed.success && describeZodError(parsed.error)).toBe("containers.0.name: Invalid input: expected string, received number");
  });
});
