// Reads a request body up to a limit: a declared Content-Length over it is
// refused before a byte is read, and a body that streams past it is cut off
// there, so no caller makes the isolate hold more than the limit.
import type { Context } from "hono";

type BodyResult = { ok: true; bytes: Uint8Array } | { ok: false; status: 400 | 413; error: string };

export async function readBody(c: Context, limitBytes: number, what: string): Promise<BodyResult> {
  const tooLarge = { ok: false as const, status: 413 as const, error: `${what} is larger than the limit of ${limitBytes} bytes` };
  const declared = c.req.header("content-length");
  if (declared !== undefined && !/^\d{1,15}$/.test(declared)) return { ok: false, status: 400, error: "Content-Length is not a number of bytes" };
  if (declared !== undefined && Number(declared) > limitBytes) return tooLarge;
  const stream = c.req.raw.body;
  if (!stream) return { ok: true, bytes: new Uint8Array() };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel();
      return tooLarge;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return { ok: true, bytes: chunks[0]! };
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
