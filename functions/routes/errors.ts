import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Every error the function answers is JSON: `{"error": "<what is wrong>"}`. */
export function jsonError(c: Context, status: ContentfulStatusCode, error: string) {
  return c.json({ error }, status);
}

export function tooLarge(limitBytes: number, what: string) {
  return (c: Context) => jsonError(c, 413, `${what} is larger than the limit of ${limitBytes} bytes`);
}
