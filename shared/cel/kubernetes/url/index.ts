// Kubernetes' URL library (k8s.io/apiserver/pkg/cel/library/urls.go):
//   url(<string>) <URL>, isURL(<string>) <bool>, and on a URL getScheme(),
//   getHost(), getHostname(), getPort(), getEscapedPath(), getQuery().
// A string is a URL when Go's url.ParseRequestURI accepts it (an absolute URI
// or an absolute path); its parts are then read from url.Parse, which also
// splits off the #fragment, exactly as Kubernetes does. This file follows Go's
// net/url (parse, getScheme, parseAuthority, parseHost, unescape, escape,
// EscapedPath, ParseQuery) and its error texts; the input a message quotes is
// capped.
// Cost: url() and isURL() traverse the string (0.1 per code point; Kubernetes
// charges isURL a flat 1, but its parse is linear too); the getters read parts
// computed once per URL value, and cost 1.

import type { CallContext, Library } from "../../declarations/index.js";
import { CelMap, CelType, EvalError, LibraryValue, noSuchOverload, type Value } from "../../values/index.js";
import { onString } from "../overloads.js";
import { quoteCapped } from "../quote.js";

const URL_TYPE = new CelType("kubernetes.URL");

class UrlError {
  constructor(readonly message: string) {}
}

const enum Mode {
  Path,
  PathSegment,
  Host,
  Zone,
  UserPassword,
  QueryComponent,
  Fragment,
}

const isAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
const ishex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const unhex = (c: number): number => (c <= 0x39 ? c - 0x30 : c <= 0x46 ? c - 0x41 + 10 : c - 0x61 + 10);
/** A set of ASCII characters as a table: a test makes no one-character string (a path may be megabytes long, tested per character). */
function charSet(chars: string): (c: number) => boolean {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return (c) => c < 0x80 && table[c] === 1;
}
const hostSubDelims = charSet("!$&'()*+,;=:[]<>\"");
const unreserved = charSet("-_.~");
const reserved = charSet("$&+,/:;=?@");
const segmentReserved = charSet("/;,?");
const userPasswordReserved = charSet("@/?:");
const fragmentAllowed = charSet("!()*");
const encodedPathAllowed = charSet("!$&'()*+,;=:@[]%");
const userinfoAllowed = charSet("-._:~!$&'()*+,;=%@");

/** Go's shouldEscape for one ASCII character, from which ESCAPED is made. */
function escapedInGo(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === Mode.Host || mode === Mode.Zone) && hostSubDelims(c)) return false;
  if (unreserved(c)) return false;
  if (reserved(c)) {
    switch (mode) {
      case Mode.Path:
        return c === 0x3f;
      case Mode.PathSegment:
        return segmentReserved(c);
      case Mode.UserPassword:
        return userPasswordReserved(c);
      case Mode.QueryComponent:
        return true;
      case Mode.Fragment:
        return false;
      default:
        break;
    }
  }
  if (mode === Mode.Fragment && fragmentAllowed(c)) return false;
  return true;
}

const MODES = Mode.Fragment + 1;
/** escapedInGo for every mode (rows) and ASCII character: a URL's megabytes are tested per character. */
const ESCAPED = new Uint8Array(MODES * 128);
for (let mode = 0; mode < MODES; mode++) for (let c = 0; c < 128; c++) ESCAPED[mode * 128 + c] = escapedInGo(c, mode) ? 1 : 0;

/** Per mode, a character that escape() would change (anything outside the ASCII ones it keeps): a native scan of a long path. */
const NEEDS_ESCAPE = Array.from({ length: MODES }, (_, mode) => {
  let kept = "";
  for (let c = 0; c < 128; c++) if (ESCAPED[mode * 128 + c] === 0) kept += `\\u${c.toString(16).padStart(4, "0")}`;
  return new RegExp(`[^${kept}]`);
});

/** Go's shouldEscape for one byte (a UTF-16 unit at or above 0x80 stands for non-ASCII bytes, always escaped). */
const shouldEscape = (c: number, mode: Mode): boolean => c >= 0x80 || ESCAPED[mode * 128 + c] === 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Go's unescape: %XX to bytes (and + to space for query components), with its checks per mode. */
function unescape(s: string, mode: Mode): string {
  // Nothing to check or decode outside a host without a % (or a + in a query component): a native scan says so.
  if (mode !== Mode.Host && mode !== Mode.Zone && !s.includes("%") && (mode !== Mode.QueryComponent || !s.includes("+"))) return s;
  let percents = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      percents++;
      if (i + 2 >= s.length || !ishex(s.charCodeAt(i + 1)) || !ishex(s.charCodeAt(i + 2))) {
        throw new UrlError(`invalid URL escape ${quoteCapped(s.slice(i, i + 3))}`);
      }
      const v = (unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2));
      if (mode === Mode.Host && unhex(s.charCodeAt(i + 1)) < 8 && s.slice(i, i + 3) !== "%25") {
        throw new UrlError(`invalid URL escape ${quoteCapped(s.slice(i, i + 3))}`);
      }
      if (mode === Mode.Zone && s.slice(i, i + 3) !== "%25" && v !== 0x20 && shouldEscape(v, Mode.Host)) {
        throw new UrlError(`invalid URL escape ${quoteCapped(s.slice(i, i + 3))}`);
      }
      i += 3;
    } else {
      if (c === 0x2b) hasPlus = mode === Mode.QueryComponent;
      else if ((mode === Mode.Host || mode === Mode.Zone) && c < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${quoteCapped(s[i] as string)} in host name`);
      }
      i++;
    }
  }
  if (percents === 0 && !hasPlus) return s;
  const bytes: number[] = [];
  let run = 0;
  const flush = (end: number): void => {
    if (end > run) for (const b of encoder.encode(s.slice(run, end))) bytes.push(b);
  };
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      flush(i);
      bytes.push((unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2)));
      i += 3;
      run = i;
    } else if (c === 0x2b && mode === Mode.QueryComponent) {
      flush(i);
      bytes.push(0x20);
      run = ++i;
    } else i++;
  }
  flush(s.length);
  return decoder.decode(new Uint8Array(bytes));
}

const HEX = "0123456789ABCDEF";

/** Go's escape: bytes that shouldEscape become %XX. */
function escape(s: string, mode: Mode): string {
  if (!NEEDS_ESCAPE[mode]!.test(s)) return s;
  let out = "";
  for (const b of encoder.encode(s)) {
    if (b === 0x20 && mode === Mode.QueryComponent) out += "+";
    else if (shouldEscape(b, mode)) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
    else out += String.fromCharCode(b);
  }
  return out;
}

function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (encodedPathAllowed(c)) continue;
    if (shouldEscape(c, mode)) return false;
  }
  return true;
}

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  for (let i = 1; i < port.length; i++) if (port[i]! < "0" || port[i]! > "9") return false;
  return true;
}

function validUserinfo(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAlnum(c) && !userinfoAllowed(c)) return false;
  }
  return true;
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteCapped(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) return unescape(host.slice(0, zone), Mode.Host) + unescape(host.slice(zone, i), Mode.Zone) + unescape(host.slice(i), Mode.Host);
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteCapped(colonPort)} after host`);
    }
  }
  return unescape(host, Mode.Host);
}

function parseAuthority(authority: string): string {
  const i = authority.lastIndexOf("@");
  const host = parseHost(i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return host;
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) throw new UrlError("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) unescape(userinfo, Mode.UserPassword);
  else {
    unescape(userinfo.slice(0, colon), Mode.UserPassword);
    unescape(userinfo.slice(colon + 1), Mode.UserPassword);
  }
  return host;
}

/** Go's getScheme: the scheme and the rest; no scheme when the first character rules one out. */
function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new UrlError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

interface Parts {
  scheme: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
}

const hasCtl = (s: string): boolean => /[\x00-\x1f\x7f]/.test(s);

/** Go's url.parse. */
function parse(raw: string, viaRequest: boolean): Parts {
  if (hasCtl(raw)) throw new UrlError("net/url: invalid control character in URL");
  if (raw === "" && viaRequest) throw new UrlError("empty url");
  const parts: Parts = { scheme: "", host: "", path: "", rawPath: "", rawQuery: "" };
  if (raw === "*") {
    parts.path = "*";
    return parts;
  }
  let [scheme, rest] = getScheme(raw);
  parts.scheme = scheme.toLowerCase();
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      parts.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (parts.scheme !== "") return parts; // opaque
    if (viaRequest) throw new UrlError("invalid URI for request");
    const slash = rest.indexOf("/");
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(":")) throw new UrlError("first path segment in URL cannot contain colon");
  }
  if ((parts.scheme !== "" || (!viaRequest && !rest.startsWith("///"))) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    parts.host = parseAuthority(authority);
  }
  parts.path = unescape(rest, Mode.Path);
  parts.rawPath = escape(parts.path, Mode.Path) === rest ? "" : rest;
  return parts;
}

/** url.ParseRequestURI, the check Kubernetes applies; the error as Go's *url.Error prints it. */
function parseRequestURI(raw: string): Parts {
  try {
    return parse(raw, true);
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`parse ${quoteCapped(raw)}: ${e.message}`);
    throw e;
  }
}

/** url.Parse: the fragment cut off first, and checked. */
function parseURL(raw: string): Parts {
  const hash = raw.indexOf("#");
  const u = hash < 0 ? raw : raw.slice(0, hash);
  let parts: Parts;
  try {
    parts = parse(u, false);
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`parse ${quoteCapped(u)}: ${e.message}`);
    throw e;
  }
  if (hash >= 0) {
    try {
      unescape(raw.slice(hash + 1), Mode.Fragment);
    } catch (e) {
      if (e instanceof UrlError) throw new UrlError(`parse ${quoteCapped(raw)}: ${e.message}`);
      throw e;
    }
  }
  return parts;
}

/** Go's splitHostPort, for Hostname and Port. */
function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = "";
  const colon = host.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return [host, port];
}

/**
 * url.ParseQuery, errors skipped as URL.Query does: pairs in order, a
 * repeated key gathering its values. With the map, the pairs read into it
 * (one key and one value made for each), for the edge's meter.
 */
function parseQuery(query: string): { map: CelMap; pairs: number } {
  const values = new Map<string, string[]>();
  let pairs = 0;
  // Asked once of the whole query instead of each pair (62,500 pairs took 2.5 times what their cost pays for):
  // without % or +, no component needs unescaping (unescape gives it back as it is).
  const plain = !query.includes("%") && !query.includes("+");
  const semicolons = query.includes(";");
  for (const pair of query.split("&")) {
    if (pair === "" || (semicolons && pair.includes(";"))) continue;
    const eq = pair.indexOf("=");
    let key = eq < 0 ? pair : pair.slice(0, eq);
    let value = eq < 0 ? "" : pair.slice(eq + 1);
    if (!plain) {
      try {
        key = unescape(key, Mode.QueryComponent);
        value = unescape(value, Mode.QueryComponent);
      } catch (e) {
        if (e instanceof UrlError) continue;
        throw e;
      }
    }
    const list = values.get(key);
    if (list === undefined) values.set(key, [value]);
    else list.push(value);
    pairs++;
  }
  const m = new CelMap();
  for (const [k, list] of values) m.entries.set(k, [k, list]);
  return { map: m, pairs };
}

/** A kubernetes.URL value: url.Parse's parts, with the derived ones computed on first use and kept. */
class UrlValue extends LibraryValue {
  readonly celType = URL_TYPE;
  private query: CelMap | undefined;
  private escaped: string | undefined;
  constructor(
    readonly source: string,
    private readonly parts: Parts,
  ) {
    super();
  }
  /** Kubernetes compares URL.String(); equal sources print equal (the converse can fail, e.g. for HTTP: and http:). */
  equals(other: LibraryValue): boolean {
    return other instanceof UrlValue && other.source === this.source;
  }
  get scheme(): string {
    return this.parts.scheme;
  }
  get host(): string {
    return this.parts.host;
  }
  get hostname(): string {
    return splitHostPort(this.parts.host)[0];
  }
  get port(): string {
    return splitHostPort(this.parts.host)[1];
  }
  get escapedPath(): string {
    this.escaped ??= this.computeEscapedPath();
    return this.escaped;
  }
  /** URL.EscapedPath: RawPath when it is a valid encoding of Path, else Path escaped. */
  private computeEscapedPath(): string {
    const { path, rawPath } = this.parts;
    if (rawPath !== "" && validEncoded(rawPath, Mode.Path)) {
      try {
        if (unescape(rawPath, Mode.Path) === path) return rawPath;
      } catch (e) {
        if (!(e instanceof UrlError)) throw e;
      }
    }
    return path === "*" ? "*" : escape(path, Mode.Path);
  }
  /** Parsed once per value: the first call charges the edge's meter for the pairs it made (chargeCreated), later ones take the map. */
  getQuery(ctx: CallContext): CelMap {
    if (this.query === undefined) {
      const { map, pairs } = parseQuery(this.parts.rawQuery);
      ctx.chargeEdge(pairs);
      this.query = map;
    }
    return this.query;
  }
}

/** url(s): ParseRequestURI to check, Parse for the parts. */
function parseUrl(s: string): UrlValue {
  try {
    parseRequestURI(s);
    return new UrlValue(s, parseURL(s));
  } catch (e) {
    if (e instanceof UrlError) throw new EvalError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

/** url.ParseRequestURI's error text for s (`parse "s": ...`), or undefined when it parses. */
export function requestURIError(s: string): string | undefined {
  try {
    parseRequestURI(s);
    return undefined;
  } catch (e) {
    if (e instanceof UrlError) return e.message;
    throw e;
  }
}

function isURL(s: string): boolean {
  try {
    parseRequestURI(s);
    return true;
  } catch (e) {
    if (e instanceof UrlError) return false;
    throw e;
  }
}

const U = URL_TYPE.name;

function urlOf(v: Value | undefined): UrlValue {
  if (!(v instanceof UrlValue)) throw noSuchOverload();
  return v;
}

const getter = (name: string, result: string, read: (u: UrlValue, ctx: CallContext) => Value) => ({
  name,
  overloads: [{ receiver: true, params: [U], result, impl: ([u]: readonly Value[], ctx: CallContext) => read(urlOf(u), ctx) }],
});

export const urlLibrary: Library = {
  name: "kubernetes.urls",
  types: [URL_TYPE],
  functions: [
    onString("url", U, 1, parseUrl),
    onString("isURL", "bool", 1, isURL),
    getter("getScheme", "string", (u) => u.scheme),
    getter("getHost", "string", (u) => u.host),
    getter("getHostname", "string", (u) => u.hostname),
    getter("getPort", "string", (u) => u.port),
    getter("getEscapedPath", "string", (u) => u.escapedPath),
    getter("getQuery", "map", (u, ctx) => u.getQuery(ctx)),
  ],
};
