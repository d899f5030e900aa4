// zod's safeParse without its copy. A parse builds a new object for every
// object, array and record it reads; the policies read a request's object
// several times a review, each through a schema of its own, so the copies
// were most of what judging a workload cost. When the input already is what
// the parse would return (valid, nothing stripped, defaulted or transformed)
// it is returned itself; anything else is parsed by zod, so the value or the
// error is zod's own. One difference remains, by design: a loose object comes
// back with its keys in the input's order, where zod's copy puts the schema's
// keys first; it is read field by field, never iterated in order.
import * as z from "zod/mini";
import type { util } from "zod/v4/core";
import { ownKeys } from "../json/index.js";

/** Whether zod accepts `value` and would return a value equal to it (the same primitive, or objects and arrays with the same entries). */
type Unchanged = (value: unknown) => boolean;

const checkers = new WeakMap<z.core.$ZodType, Unchanged>();

/**
 * schema.safeParse(value), except that a value zod would copy unchanged is
 * returned as is. The caller must not write to what it gets: it may be the
 * request's own object. Cost: one walk of what the schema reads, then zod's
 * parse only when that walk finds a difference.
 */
export function parseUnchanged<T>(schema: z.ZodMiniType<T>, value: unknown): util.SafeParseResult<T> {
  return unchangedBy(schema)(value) ? { success: true, data: value as T } : schema.safeParse(value);
}

function unchangedBy(schema: z.core.$ZodType): Unchanged {
  let checker = checkers.get(schema);
  if (checker === undefined) checkers.set(schema, (checker = compile(schema)));
  return checker;
}

/** An object as JSON.parse makes them (zod builds its copies as these: one without Object.prototype would come back with it). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** Plain objects of at least this many keys are remembered once found to be string maps. */
const REMEMBERED_KEYS = 64;
/**
 * Large string maps already walked: a request's labels and annotations are
 * read by the decode of each policy's schema and by VAP matching, and walking
 * 100,000 labels costs about as much as parsing them. Held by identity, weakly
 * (the request's own objects, never written: parseUnchanged's callers may not
 * write to what they get), so what a caller sends neither picks what is kept
 * nor keeps it past its review.
 */
const stringMaps = new WeakSet<object>();

/** Whether `value` is what z.record(z.string(), z.string()) returns unchanged: a plain object, no `__proto__` key, only string values. */
export function isStringMap(value: unknown): value is Record<string, string> {
  if (!isPlainObject(value)) return false;
  if (stringMaps.has(value)) return true;
  if (Object.hasOwn(value, "__proto__")) return false;
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) if (typeof value[keys[i]!] !== "string") return false;
  if (keys.length >= REMEMBERED_KEYS) stringMaps.add(value);
  return true;
}

/**
 * The check for one schema, built from its definition. A kind it does not
 * know (pipes, transforms), one with checks (minLength, int), and a union
 * whose first option does not take the value are asked of zod itself, and
 * count as unchanged only if zod returns the very value: a primitive, in
 * practice. A `__proto__` key, which zod leaves out of
 * what it builds, always sends the value to zod.
 */
function compile(schema: z.core.$ZodType): Unchanged {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const byZod: Unchanged = (value) => {
    const result = z.safeParse(schema, value);
    return result.success && Object.is(result.data, value);
  };
  if ((def.checks?.length ?? 0) > 0 || def["coerce"] === true) return byZod;
  switch (def.type) {
    case "string":
      return (value) => typeof value === "string";
    case "boolean":
      return (value) => typeof value === "boolean";
    case "number":
      return (value) => typeof value === "number" && Number.isFinite(value);
    case "unknown":
    case "any":
      return () => true;
    case "enum":
    case "literal": {
      const values = schema._zod.values!;
      return (value) => values.has(value as util.Primitive);
    }
    case "optional": {
      const inner = (def as unknown as z.core.$ZodOptionalDef).innerType;
      if (inner._zod.optin === "defaulted") return byZod;
      const unchanged = unchangedBy(inner);
      return (value) => value === undefined || unchanged(value);
    }
    case "nullable": {
      const unchanged = unchangedBy((def as unknown as z.core.$ZodNullableDef).innerType);
      return (value) => value === null || unchanged(value);
    }
    case "array": {
      const element = unchangedBy((def as unknown as z.core.$ZodArrayDef).element);
      return (value) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          // A hole reads as undefined, which zod would write in its place.
          if (item === undefined || !element(item)) return false;
        }
        return true;
      };
    }
    case "record": {
      const { keyType, valueType } = def as unknown as z.core.$ZodRecordDef;
      if (keyType._zod.def.type !== "string" || (keyType._zod.def.checks?.length ?? 0) > 0 || keyType._zod.values !== undefined) return byZod;
      const valueDef = valueType._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
      if (valueDef.type === "string" && (valueDef.checks?.length ?? 0) === 0 && valueDef["coerce"] !== true) return isStringMap;
      const unchanged = unchangedBy(valueType);
      return (value) => {
        if (!isPlainObject(value) || Object.hasOwn(value, "__proto__")) return false;
        for (const key in value) if (!unchanged(value[key])) return false;
        return true;
      };
    }
    case "object": {
      const { shape, catchall } = def as unknown as z.core.$ZodObjectDef;
      const catchallType = catchall?._zod.def.type;
      // Loose objects keep every other key as it is; others strip or reject them.
      if (catchall !== undefined && catchallType !== "unknown" && catchallType !== "any" && catchallType !== "never") return byZod;
      const keepsOthers = catchall !== undefined && catchallType !== "never";
      const keys = Object.keys(shape);
      const fields = keys.map((key) => unchangedBy(shape[key]!));
      // zod leaves out an absent key only when its schema is optional both ways; it fails or fills in any other.
      const omittable = keys.map((key) => shape[key]!._zod.optin === "optional" && shape[key]!._zod.optout === "optional");
      // A key Object.prototype also has reads as inherited where absent: left to zod.
      if (keys.some((key) => key in Object.prototype)) return byZod;
      if (!keepsOthers) {
        // Every key of the value is read anyway (an unknown one is stripped
        // or refused): one pass over them, each looked up among the shape's.
        const indexOf = new Map(keys.map((key, i) => [key, i]));
        const required = omittable.filter((canOmit) => !canOmit).length;
        return (value) => {
          if (!isPlainObject(value) || Object.hasOwn(value, "__proto__")) return false;
          let present = 0;
          for (const key in value) {
            const i = indexOf.get(key);
            if (i === undefined) return false;
            const field = value[key];
            // Present with undefined, zod writes its own result back.
            if (field === undefined || !fields[i]!(field)) return false;
            if (!omittable[i]) present++;
          }
          return present === required;
        };
      }
      // A loose object may hold any number of other keys: only the shape's are
      // read. A field that takes undefined as it is (optional, not defaulted)
      // is unchanged whether its key is absent or present with undefined.
      const takesUndefined = keys.map((_, i) => omittable[i]! && fields[i]!(undefined));
      return (value) => {
        if (!isPlainObject(value) || Object.hasOwn(value, "__proto__")) return false;
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          const field = value[key];
          if (field === undefined) {
            // Present with undefined, zod writes its own result back: asked
            // only of a field whose result could differ.
            if (!takesUndefined[i] && (!omittable[i] || Object.hasOwn(value, key))) return false;
          } else if (!fields[i]!(field)) return false;
        }
        return true;
      };
    }
    case "union": {
      // zod answers with the first option that accepts: when that is the first, its value is the union's.
      const { options, inclusive, discriminator } = def as unknown as z.core.$ZodUnionDef & { inclusive?: boolean; discriminator?: unknown };
      if (inclusive === false || discriminator !== undefined || options.length === 0) return byZod;
      const first = unchangedBy(options[0]!);
      return (value) => first(value) || byZod(value);
    }
    default:
      return byZod;
  }
}
