// Caller strings in messages. A name, a label or a selector in a request can be
// megabytes long or hold newlines; every policy quotes them through here, so a
// message stays one printable line whose length does not grow with the input.

/** How many characters of one caller string a message quotes: a label value's limit. */
export const MAX_QUOTED = 63;
/**
 * A Kubernetes object name's limit. Names from the snapshot (classes, tenants)
 * are the cluster's own, which may be quoted whole; a list of them still stops
 * after a few.
 */
export const MAX_NAME = 253;
/** How many names a list in a message shows before it counts the rest. */
export const MAX_LISTED = 5;

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` cut to at most `max` characters (ending in "…" when cut, never inside
 * a surrogate pair), with control characters shown as "?". Costs O(max),
 * whatever the length of `text`.
 */
export function capped(text: string, max = MAX_QUOTED): string {
  let shown = text;
  if (text.length > max) {
    let end = max - 1;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    shown = `${text.slice(0, end)}…`;
  }
  return shown.replace(UNPRINTABLE, "?");
}

interface ListOptions {
  /** Names shown before the rest are counted. */
  max?: number;
  /** Characters of each name shown. */
  each?: number;
  /** Each name in double quotes. */
  quoted?: boolean;
  /** How many names there are in all, when `names` holds only the first of them. */
  total?: number;
}

/** `a, b, c and 4 more`: the first few names, each capped; "none" for an empty list. */
export function listed(names: readonly string[], { max = MAX_LISTED, each = MAX_QUOTED, quoted = false, total = names.length }: ListOptions = {}): string {
  if (total === 0) return "none";
  const shown = names
    .slice(0, max)
    .map((name) => (quoted ? `"${capped(name, each)}"` : capped(name, each)))
    .join(", ");
  const counted = Math.min(max, names.length);
  return total > counted ? `${shown} and ${total - counted} more` : shown;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Whether `text` is all ASCII: one regular expression test, much faster than a charCodeAt loop on an unflattened concatenation. */
export const isAscii = (text: string): boolean => !NON_ASCII.test(text);

/** The UTF-8 length of `text`, without encoding it (a lone surrogate counts as the 3 bytes of U+FFFD, as TextEncoder writes it). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  if (isAscii(text)) return bytes;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
