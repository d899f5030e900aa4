// A structural check of a value against the subset of OpenAPI v3 that CRD
// schemas use (type, properties, additionalProperties, items, required,
// enum): what the apiserver would reject, or prune without a word. Used by
// the tests to hold the reports the audit writes to the CRDs it installs.
import * as z from "zod/mini";

export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  [key: string]: unknown;
}

export const schemaNodeSchema: z.ZodMiniType<SchemaNode> = z.looseObject({
  type: z.optional(z.string()),
  properties: z.optional(z.record(z.string(), z.lazy(() => schemaNodeSchema))),
  additionalProperties: z.optional(z.union([z.boolean(), z.lazy(() => schemaNodeSchema)])),
  items: z.optional(z.lazy(() => schemaNodeSchema)),
  required: z.optional(z.array(z.string())),
  enum: z.optional(z.array(z.unknown())),
});

const typeOf = (value: unknown): string =>
  Array.isArray(value) ? "array" : value === null ? "null" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;

/** Every way `value` breaks `schema`, one line each with its path; [] when it conforms. A field the schema does not name counts: the apiserver would prune it. */
export function schemaViolations(value: unknown, schema: SchemaNode, path = ""): string[] {
  const where = path || ".";
  if (schema.type !== undefined) {
    const actual = typeOf(value);
    if (actual !== schema.type && !(schema.type === "number" && actual === "integer")) return [`${where}: ${actual}, not ${schema.type}`];
  }
  if (schema.enum && !schema.enum.includes(value)) return [`${where}: ${JSON.stringify(value)} is not one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`];
  const violations: string[] = [];
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => violations.push(...schemaViolations(item, schema.items!, `${path}[${i}]`)));
  if (typeOf(value) === "object" && (schema.properties || schema.additionalProperties !== undefined)) {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) violations.push(`${path}.${key}: required`);
    for (const [key, child] of Object.entries(object)) {
      const childSchema = schema.properties?.[key] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
      if (childSchema) violations.push(...schemaViolations(child, childSchema, `${path}.${key}`));
      else if (schema.additionalProperties !== true) violations.push(`${path}.${key}: not in the schema (pruned)`);
    }
  }
  return violations;
}
