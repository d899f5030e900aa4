// zod/mini with English messages loaded (it ships without locales, and
// "Invalid input" alone names nothing). Modules import `* as z from "zod/mini"`
// themselves: re-exporting the namespace object would defeat tree-shaking and
// put every locale in the worker bundle.
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { nestingError } from "../json/index.js";

z.config(en());

/** One line naming every problem: `request.uid: Invalid input: expected string, received undefined`. */
export function describeZodError(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * JSON text → a value of `schema`, or one line saying what is wrong:
 * `<subject> is not JSON: …`, `<subject> nests deeper than …` (with
 * `maxDepth`) or `<subject> <mismatch>: <field>: …`.
 */
export function decodeJson<T>(text: string, schema: Pick<z.ZodMiniType<T>, "safeParse">, subject: string, mismatch: string, maxDepth?: number): Decoded<T> {
  const tooDeep = maxDepth === undefined ? undefined : nestingError(text, maxDepth);
  if (tooDeep) return { ok: false, error: `${subject} ${tooDeep}` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${subject} is not JSON: ${(e as Error).message}` };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: `${subject} ${mismatch}: ${describeZodError(parsed.error)}` };
}
