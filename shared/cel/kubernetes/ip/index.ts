// Kubernetes' IP library (k8s.io/apiserver/pkg/cel/library/ip.go, base
// environment 1.30+): ip(<string>) <net.IP>, isIP(<string>),
// ip.isCanonical(<string>), and on an IP family(), isUnspecified(),
// isLoopback(), isLinkLocalMulticast(), isLinkLocalUnicast(),
// isGlobalUnicast(), string(<net.IP>).
// Parsing is Go's netip.ParseAddr, with its error texts: no leading zeros in
// IPv4 octets, and Kubernetes rejects zones and IPv4-mapped IPv6 addresses.
// Printing is netip.Addr.String (RFC 5952, the canonical form).
// Cost as Kubernetes' CostEstimator: parsing traverses the string (0.1 per
// code point; twice for ip.isCanonical), accessors cost 1.

import type { Library } from "../../declarations/index.js";
import { CelType, EvalError, LibraryValue, noSuchOverload, type Value } from "../../values/index.js";
import { onString, parses } from "../overloads.js";
import { quoteCapped } from "../quote.js";

export const IP_TYPE = new CelType("net.IP");

/** A netip.ParseAddr error, printed as Go prints parseAddrError. */
export class AddrError {
  constructor(
    readonly input: string,
    readonly msg: string,
    readonly at = "",
  ) {}
  get message(): string {
    const at = this.at === "" ? "" : ` (at ${quoteCapped(this.at)})`;
    return `ParseAddr(${quoteCapped(this.input)}): ${this.msg}${at}`;
  }
}

/** netip.Addr without zone: 4 or 16 bytes. */
export type Addr = Uint8Array;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Go's parseIPv4Fields over in[off:end]; errors name the whole input. */
function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isDigit(c)) {
      if (digits === 1 && val === 0) throw new AddrError(input, "IPv4 field has octet with leading zero");
      val = val * 10 + c - 0x30;
      digits++;
      if (val > 255) throw new AddrError(input, "IPv4 field has value >255");
    } else if (c === 0x2e) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".") throw new AddrError(input, "IPv4 field must have at least one digit", s.slice(i));
      if (pos === 3) throw new AddrError(input, "IPv4 address too long");
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else throw new AddrError(input, "unexpected character", s.slice(i));
  }
  if (pos < 3) throw new AddrError(input, "IPv4 address too short");
  out[at + 3] = val;
}

/** Go's parseIPv6; returns the address and its zone ("" for none). */
function parseIPv6(input: string): { addr: Addr; zone: string } {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") throw new AddrError(input, "zone must be a non-empty string");
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { addr: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s.charCodeAt(off));
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw new AddrError(input, "each group must have 4 or less digits", s);
      if (acc > 0xffff) throw new AddrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) throw new AddrError(input, "each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) throw new AddrError(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      if (i + 4 > 16) throw new AddrError(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":") throw new AddrError(input, "unexpected character, want colon", s);
    if (s.length === 1) throw new AddrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) throw new AddrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw new AddrError(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) throw new AddrError(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw new AddrError(input, "the :: must expand to at least one field of zeros", s);
  return { addr: ip, zone };
}

/** Go's netip.ParseAddr. */
export function parseAddr(s: string): { addr: Addr; zone: string } {
  for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case ".": {
        const ip = new Uint8Array(4);
        parseIPv4Fields(s, 0, s.length, ip, 0);
        return { addr: ip, zone: "" };
      }
      case ":":
        return parseIPv6(s);
      case "%":
        throw new AddrError(s, "missing IPv6 address");
    }
  }
  throw new AddrError(s, "unable to parse IP");
}

/** netip.Addr.Is4In6: ::ffff:a.b.c.d. */
export function is4In6(a: Addr): boolean {
  if (a.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (a[i] !== 0) return false;
  return a[10] === 0xff && a[11] === 0xff;
}

/** Kubernetes' parseIPAddr: netip.ParseAddr without zones or IPv4-mapped IPv6; the error text as Kubernetes words it. */
export function parseIP(raw: string): Addr {
  let parsed: { addr: Addr; zone: string };
  try {
    parsed = parseAddr(raw);
  } catch (e) {
    if (e instanceof AddrError) throw new EvalError(`IP Address ${quoteCapped(raw)} parse error during conversion from string: ${e.message}`);
    throw e;
  }
  if (parsed.zone !== "") throw new EvalError(`IP address ${quoteCapped(raw)} with zone value is not allowed`);
  if (is4In6(parsed.addr)) throw new EvalError(`IPv4-mapped IPv6 address ${quoteCapped(raw)} is not allowed`);
  return parsed.addr;
}

const u16 = (a: Addr, i: number): number => ((a[2 * i] as number) << 8) | (a[2 * i + 1] as number);

/** netip.Addr.String without zone: dotted IPv4, RFC 5952 IPv6 (the longest run of two or more zero groups is ::). */
export function formatAddr(a: Addr): string {
  if (a.length === 4) return Array.from(a).join(".");
  if (is4In6(a)) return `::ffff:${Array.from(a.subarray(12)).join(".")}`;
  let zeroStart = 255;
  let zeroEnd = 255;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && u16(a, j) === 0) j++;
    const l = j - i;
    if (l >= 2 && l > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += "::";
      i = zeroEnd;
      if (i >= 8) break;
    } else if (i > 0) out += ":";
    out += u16(a, i).toString(16);
  }
  return out;
}

export function sameAddr(a: Addr, b: Addr): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const isUnspecified = (a: Addr): boolean => a.every((b) => b === 0);
const isLoopback = (a: Addr): boolean => (a.length === 4 ? a[0] === 127 : a.every((b, i) => b === (i === 15 ? 1 : 0)));
const isMulticast = (a: Addr): boolean => (a.length === 4 ? ((a[0] as number) & 0xf0) === 0xe0 : a[0] === 0xff);
const isLinkLocalMulticast = (a: Addr): boolean => (a.length === 4 ? a[0] === 224 && a[1] === 0 && a[2] === 0 : (u16(a, 0) & 0xff0f) === 0xff02);
const isLinkLocalUnicast = (a: Addr): boolean => (a.length === 4 ? a[0] === 169 && a[1] === 254 : (u16(a, 0) & 0xffc0) === 0xfe80);
/** netip.Addr.IsGlobalUnicast: not unspecified, IPv4 broadcast, loopback, multicast or link-local unicast. */
const isGlobalUnicast = (a: Addr): boolean =>
  !isUnspecified(a) && !(a.length === 4 && a.every((b) => b === 255)) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);

/** A net.IP value. */
export class IPValue extends LibraryValue {
  readonly celType = IP_TYPE;
  constructor(readonly addr: Addr) {
    super();
  }
  equals(other: LibraryValue): boolean {
    return other instanceof IPValue && sameAddr(this.addr, other.addr);
  }
  override toString(): string {
    return formatAddr(this.addr);
  }
}

const I = IP_TYPE.name;

function addrOf(v: Value | undefined): Addr {
  if (!(v instanceof IPValue)) throw noSuchOverload();
  return v.addr;
}

const predicate = (name: string, test: (a: Addr) => boolean) => ({
  name,
  overloads: [{ receiver: true, params: [I], result: "bool", impl: ([ip]: readonly Value[]) => test(addrOf(ip)) }],
});


export const ipLibrary: Library = {
  name: "kubernetes.net.ip",
  types: [IP_TYPE],
  functions: [
    onString("ip", I, 1, (s) => new IPValue(parseIP(s))),
    onString("isIP", "bool", 1, (s) => parses(() => parseIP(s))),
    onString("ip.isCanonical", "bool", 2, (s) => formatAddr(parseIP(s)) === s),
    { name: "family", overloads: [{ receiver: true, params: [I], result: "int", impl: ([ip]) => (addrOf(ip).length === 4 ? 4 : 6) }] },
    predicate("isUnspecified", isUnspecified),
    predicate("isLoopback", isLoopback),
    predicate("isLinkLocalMulticast", isLinkLocalMulticast),
    predicate("isLinkLocalUnicast", isLinkLocalUnicast),
    predicate("isGlobalUnicast", isGlobalUnicast),
    { name: "string", overloads: [{ params: [I], result: "string", impl: ([ip]) => formatAddr(addrOf(ip)) }] },
  ],
};
