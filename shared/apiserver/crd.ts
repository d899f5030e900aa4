// A custom resource's defaults, from its CRD's structural schema:
// k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go
// Default: every property the object leaves out (or sets to null where the
// schema is not nullable) takes the schema's default, and the same holds
// inside objects, array items and additionalProperties values.
import { fieldOf, isRecord, itemOf, type Defaulter, type Json } from "./fields.js";

const copyOf = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** Sets the defaults `schema` declares in `value`, in place. Linear in the object and the schema the object reaches. */
export function defaultBySchema(value: unknown, schema: Json, path: string, d: Defaulter): void {
  if (Array.isArray(value)) {
    const items = schema["items"];
    if (isRecord(items)) value.forEach((item, i) => defaultBySchema(item, items, itemOf(path, i), d));
    return;
  }
  if (!isRecord(value)) return;
  const properties = isRecord(schema["properties"]) ? schema["properties"] : undefined;
  if (properties)
    for (const [key, property] of Object.entries(properties)) {
      if (!isRecord(property)) continue;
      const present = value[key];
      // A null default is none (prop.Default.Object == nil).
      if (property["default"] !== undefined && property["default"] !== null && (present === undefined || (present === null && property["nullable"] !== true))) {
        value[key] = copyOf(property["default"]);
        d.note(fieldOf(path, key));
      }
      defaultBySchema(value[key], property, fieldOf(path, key), d);
    }
  const additional = schema["additionalProperties"];
  if (isRecord(additional)) for (const [key, item] of Object.entries(value)) if (!properties || !Object.hasOwn(properties, key)) defaultBySchema(item, additional, fieldOf(path, key), d);
}
