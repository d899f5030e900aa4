// Go's string formatting where Kubernetes' error texts use it: strconv.Quote
// (fmt's %q), with a cap on how much of a caller's string is echoed back, so
// a megabyte input does not become a megabyte error message.

/** How many code points of a caller's string an error message quotes. */
const QUOTE_CAP = 64;

const ESCAPES: Readonly<Record<string, string>> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");

/**
 * strconv.Quote. A lone surrogate, which Go's JSON decoding would have made
 * U+FFFD, is quoted as U+FFFD.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escaped = ESCAPES[ch];
    if (escaped !== undefined) {
      out += escaped;
      continue;
    }
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0xd800 && cp <= 0xdfff) out += "\ufffd";
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return `${out}"`;
}

/** The first `cap` code points of s, and whether anything was cut. */
export function truncated(s: string, cap = QUOTE_CAP): { text: string; cut: boolean } {
  // Code points never outnumber UTF-16 units: a short string needs no count.
  if (s.length <= cap) return { text: s, cut: false };
  let i = 0;
  let n = 0;
  while (i < s.length && n < cap) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    n++;
  }
  return i >= s.length ? { text: s, cut: false } : { text: s.slice(0, i), cut: true };
}

/** goQuote of a caller's string, cut to QUOTE_CAP code points and marked with "..." after the closing quote when cut. */
export function quoteCapped(s: string, cap = QUOTE_CAP): string {
  const t = truncated(s, cap);
  return t.cut ? `${goQuote(t.text)}...` : goQuote(t.text);
}
