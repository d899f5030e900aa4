// Tokenizer for CEL source (cel-spec langdef "Lexical structure").

import { Uint, UINT64_MAX, type Value, Double, intOf, utf8 } from "../values/index.js";

type TokenKind = "ident" | "quotedIdent" | "int" | "uint" | "double" | "string" | "bytes" | "op" | "eof";

export interface Token {
  readonly kind: TokenKind;
  /** Operator or punctuation text, identifier name, or the literal's source text. */
  readonly text: string;
  /** Offset of the token's first UTF-16 unit in the source. */
  readonly pos: number;
  /** Decoded value of string, bytes and numeric literals. */
  readonly value?: Value;
}

export class SyntaxError {
  constructor(
    readonly pos: number,
    readonly message: string,
  ) {}
}

const OPERATORS = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "?", ":", ".", ",", "[", "]", "(", ")", "{", "}", "+", "-", "*", "/", "%"];

const isDigit = (c: string): boolean => c >= "0" && c <= "9";
const isHex = (c: string): boolean => isDigit(c) || (c >= "a" && c <= "f") || (c >= "A" && c <= "F");
const isIdentStart = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c);

/** Tokenizes the whole source; a lexical error is thrown as SyntaxError. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src.charAt(i);
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === "/" && src.charAt(i + 1) === "/") {
      while (i < n && src.charAt(i) !== "\n") i++;
      continue;
    }
    const start = i;
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(src.charAt(i))) i++;
      const word = src.slice(start, i);
      const q = src.charAt(i);
      // String and bytes prefixes: r, b, rb, br in either case.
      if ((q === '"' || q === "'") && /^(?:[rR][bB]?|[bB][rR]?)$/.test(word)) {
        const lower = word.toLowerCase();
        const lit = readQuoted(src, i, lower.includes("r"), lower.includes("b"));
        tokens.push({ kind: lower.includes("b") ? "bytes" : "string", text: src.slice(start, lit.end), pos: start, value: lit.value });
        i = lit.end;
        continue;
      }
      tokens.push({ kind: "ident", text: word, pos: start });
      continue;
    }
    if (c === "`") {
      // Escaped field name (a.`b-c`): letters, digits and _ . - / and space.
      const m = /^`([A-Za-z0-9_.\-/ ]+)`/.exec(src.slice(i));
      if (m === null) throw new SyntaxError(i, "Syntax error: token recognition error at: '`'");
      tokens.push({ kind: "quotedIdent", text: m[1] as string, pos: start });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const lit = readQuoted(src, i, false, false);
      tokens.push({ kind: "string", text: src.slice(start, lit.end), pos: start, value: lit.value });
      i = lit.end;
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(src.charAt(i + 1)))) {
      const num = readNumber(src, i);
      tokens.push({ kind: num.kind, text: src.slice(start, num.end), pos: start });
      i = num.end;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) {
      // A lone | or & is reported with the character after it, which ANTLR consumed looking for || or &&.
      const text = c === "|" || c === "&" ? src.slice(i, i + 2) : String.fromCodePoint(src.codePointAt(i) ?? 0);
      throw new SyntaxError(i, `Syntax error: token recognition error at: '${text}'`);
    }
    tokens.push({ kind: "op", text: op, pos: start });
    i += op.length;
  }
  tokens.push({ kind: "eof", text: "<EOF>", pos: n });
  return tokens;
}

function readNumber(src: string, start: number): { kind: "int" | "uint" | "double"; end: number } {
  let i = start;
  if (src.charAt(i) === "0" && (src.charAt(i + 1) === "x" || src.charAt(i + 1) === "X") && isHex(src.charAt(i + 2))) {
    i += 2;
    while (isHex(src.charAt(i))) i++;
    if (src.charAt(i) === "u" || src.charAt(i) === "U") return { kind: "uint", end: i + 1 };
    return { kind: "int", end: i };
  }
  let isDouble = false;
  while (isDigit(src.charAt(i))) i++;
  if (src.charAt(i) === "." && isDigit(src.charAt(i + 1))) {
    isDouble = true;
    i++;
    while (isDigit(src.charAt(i))) i++;
  }
  const e = src.charAt(i);
  if (e === "e" || e === "E") {
    let j = i + 1;
    if (src.charAt(j) === "+" || src.charAt(j) === "-") j++;
    if (isDigit(src.charAt(j))) {
      isDouble = true;
      i = j;
      while (isDigit(src.charAt(i))) i++;
    }
  }
  if (isDouble) return { kind: "double", end: i };
  if (src.charAt(i) === "u" || src.charAt(i) === "U") return { kind: "uint", end: i + 1 };
  return { kind: "int", end: i };
}

/** Value of an int literal, negated when it carried a leading minus. */
export function intLiteral(text: string, negative: boolean): Value | undefined {
  let b = BigInt(text);
  if (negative) b = -b;
  try {
    return intOf(b);
  } catch {
    return undefined;
  }
}

export function uintLiteral(text: string): Value | undefined {
  const b = BigInt(text.slice(0, -1));
  return b > UINT64_MAX ? undefined : new Uint(b);
}

export function doubleLiteral(text: string, negative: boolean): Value | undefined {
  const d = Number(text);
  if (!Number.isFinite(d)) return undefined;
  const v = negative ? -d : d;
  return Number.isInteger(v) ? new Double(v) : v;
}

interface Quoted {
  value: Value;
  end: number;
}

function readQuoted(src: string, start: number, raw: boolean, bytes: boolean): Quoted {
  const q = src.charAt(start);
  const triple = src.startsWith(q + q + q, start);
  const delim = triple ? q + q + q : q;
  let i = start + delim.length;
  // Bytes collect raw byte values; strings collect UTF-16 text.
  const out: number[] = [];
  let text = "";
  const pushText = (s: string): void => {
    if (bytes) out.push(...utf8(s));
    else text += s;
  };
  for (;;) {
    if (i >= src.length) throw new SyntaxError(start, `Syntax error: token recognition error at: '${src.slice(start)}'`);
    if (src.startsWith(delim, i)) {
      i += delim.length;
      break;
    }
    const c = src.charAt(i);
    if (!triple && (c === "\n" || c === "\r")) throw new SyntaxError(start, `Syntax error: token recognition error at: '${src.slice(start, i)}'`);
    if (c !== "\\" || raw) {
      const cp = src.codePointAt(i) ?? 0;
      const ch = String.fromCodePoint(cp);
      pushText(ch);
      i += ch.length;
      continue;
    }
    const e = src.charAt(i + 1);
    const simple: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?" };
    const s = simple[e];
    if (s !== undefined) {
      pushText(s);
      i += 2;
      continue;
    }
    /** ANTLR reports the literal up to and including the character where the escape failed. */
    const bad = (failedAt = i + 1): never => {
      throw new SyntaxError(start, `Syntax error: token recognition error at: '${src.slice(start, failedAt + 1)}'`);
    };
    if (e >= "0" && e <= "3") {
      const digits = src.slice(i + 1, i + 4);
      if (!/^[0-3][0-7][0-7]$/.test(digits)) bad(i + 1 + (/^[0-3][0-7]?/.exec(digits)?.[0].length ?? 0));
      const code = parseInt(digits, 8);
      if (bytes) out.push(code);
      else text += String.fromCharCode(code);
      i += 4;
      continue;
    }
    if (e === "x" || e === "X" || e === "u" || e === "U") {
      const len = e === "u" ? 4 : e === "U" ? 8 : 2;
      const digits = src.slice(i + 2, i + 2 + len);
      if (digits.length !== len || !/^[0-9a-fA-F]+$/.test(digits)) bad(i + 2 + (/^[0-9a-fA-F]*/.exec(digits)?.[0].length ?? 0));
      const code = parseInt(digits, 16);
      if (len === 2 && bytes) out.push(code);
      else {
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
          throw new SyntaxError(start, `Syntax error: invalid unicode code point`);
        }
        pushText(String.fromCodePoint(code));
      }
      i += 2 + len;
      continue;
    }
    bad();
  }
  return { value: bytes ? Uint8Array.from(out) : text, end: i };
}
