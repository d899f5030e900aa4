// Kubernetes' CIDR library (k8s.io/apiserver/pkg/cel/library/cidr.go, base
// environment 1.30+): cidr(<string>) <net.CIDR>, isCIDR(<string>), and on a
// CIDR containsIP(<net.IP>|<string>), containsCIDR(<net.CIDR>|<string>),
// ip(), masked(), prefixLength(), string(<net.CIDR>).
// Parsing is Go's netip.ParsePrefix (no zones, no leading zeros, no sign or
// leading zero in the bits), and Kubernetes rejects IPv4-mapped IPv6; like
// Kubernetes, host bits after the prefix are kept (cidr('10.0.0.1/8') is
// valid; masked() clears them).
// containsCIDR changed meaning in Kubernetes 1.33 (cidr.go, kubernetes/apiserver
// 64791740a "Fix implementation of ContainsCIDR to allow non-equal addresses"):
//   - "overlaps" (1.33+): the other CIDR lies inside the receiver, bits
//     past the receiver's prefix free: cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16');
//   - "masked-equal" (up to 1.32): the receiver, masked, equals the other
//     CIDR's address at the receiver's length without masking that address,
//     so that example is false.
// Either way containsIP('not an ip') is "no such overload", while
// containsCIDR('not a cidr') reports the parse error.
// Cost as Kubernetes' CostEstimator.

import { costSize, type CallContext, type Library } from "../../declarations/index.js";
import { CelType, EvalError, LibraryValue, noSuchOverload, type Value } from "../../values/index.js";
import { onString, parses } from "../overloads.js";
import { quoteCapped } from "../quote.js";
import { AddrError, formatAddr, IP_TYPE, IPValue, is4In6, parseAddr, parseIP, sameAddr, type Addr } from "../ip/index.js";

const CIDR_TYPE = new CelType("net.CIDR");

/** The address with the bits past `bits` cleared (netip.Addr.Prefix). */
function maskAddr(a: Addr, bits: number): Addr {
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    out[i] = (a[i] as number) & ((0xff00 >> keep) & 0xff);
  }
  return out;
}

/** A net.CIDR value: netip.Prefix, the address as written and the prefix length. */
class CIDRValue extends LibraryValue {
  readonly celType = CIDR_TYPE;
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {
    super();
  }
  equals(other: LibraryValue): boolean {
    return other instanceof CIDRValue && other.bits === this.bits && sameAddr(this.addr, other.addr);
  }
  masked(): CIDRValue {
    return new CIDRValue(maskAddr(this.addr, this.bits), this.bits);
  }
  /** netip.Prefix.Contains: same family, equal in the first `bits` bits. */
  contains(ip: Addr): boolean {
    return ip.length === this.addr.length && sameAddr(maskAddr(ip, this.bits), maskAddr(this.addr, this.bits));
  }
  override toString(): string {
    return `${formatAddr(this.addr)}/${this.bits}`;
  }
}

/** netip.ParsePrefix; the error as parsePrefixError prints it. */
function parsePrefix(s: string): CIDRValue {
  const fail = (msg: string): never => {
    throw new EvalError(`netip.ParsePrefix(${quoteCapped(s)}): ${msg}`);
  };
  const slash = s.lastIndexOf("/");
  if (slash < 0) fail("no '/'");
  let parsed: { addr: Addr; zone: string };
  try {
    parsed = parseAddr(s.slice(0, slash));
  } catch (e) {
    if (e instanceof AddrError) return fail(e.message);
    throw e;
  }
  if (parsed.zone !== "") fail("IPv6 zones cannot be present in a prefix");
  const bitsText = s.slice(slash + 1);
  if ((bitsText.length > 1 && (bitsText[0]! < "1" || bitsText[0]! > "9")) || !/^[0-9]+$/.test(bitsText) || BigInt(bitsText) > 9223372036854775807n) {
    // strconv.Atoi also refuses an empty string, a lone sign and numbers past int64.
    fail(`bad bits after slash: ${quoteCapped(bitsText)}`);
  }
  const bits = Number(bitsText);
  if (bits > parsed.addr.length * 8) fail("prefix length out of range");
  return new CIDRValue(parsed.addr, bits);
}

/** Kubernetes' parseCIDR, and stringToCIDR's message around it (which repeats the prefix, as Kubernetes' does). */
function parseCIDR(raw: string): CIDRValue {
  const PREFIX = "network address parse error during conversion from string";
  let cidr: CIDRValue;
  try {
    cidr = parsePrefix(raw);
  } catch (e) {
    if (e instanceof EvalError) throw new EvalError(`${PREFIX}: ${PREFIX}: ${e.message}`);
    throw e;
  }
  if (is4In6(cidr.addr)) throw new EvalError(`${PREFIX}: IPv4-mapped IPv6 address ${quoteCapped(raw)} is not allowed`);
  return cidr;
}

const C = CIDR_TYPE.name;

function cidrOf(v: Value | undefined): CIDRValue {
  if (!(v instanceof CIDRValue)) throw noSuchOverload();
  return v;
}

/** How containsCIDR compares: cidr.go before and since Kubernetes 1.33. */
export type ContainsCIDR = "masked-equal" | "overlaps";

/** cidrContainsCIDR: cidr.go:232 Overlaps(other) && bits <= other's bits (1.33+); before, Masked() == PrefixFrom(other's address, bits). */
function containsCIDR(how: ContainsCIDR, cidr: CIDRValue, other: CIDRValue): boolean {
  if (cidr.bits > other.bits) return false;
  return how === "overlaps" ? cidr.contains(other.addr) : other.addr.length === cidr.addr.length && sameAddr(maskAddr(cidr.addr, cidr.bits), other.addr);
}

/** containsIP's and containsCIDR's cost: comparing the CIDR (size 1) twice, 0.1 each, rounded up: 1, the call's own unit. */
const chargeString = (ctx: CallContext, s: string): void => ctx.charge(Math.ceil(costSize(s) * 0.1));

/** Kubernetes' CIDR library, its containsCIDR as the cluster's version has it. */
export const cidrLibrary = (how: ContainsCIDR): Library => ({
  name: "net.cidr",
  types: [CIDR_TYPE],
  functions: [
    onString("cidr", C, 1, parseCIDR),
    onString("isCIDR", "bool", 1, (s) => parses(() => parseCIDR(s))),
    {
      name: "containsIP",
      overloads: [
        {
          receiver: true,
          params: [C, "string"],
          result: "bool",
          impl: ([c, s], ctx) => {
            chargeString(ctx, s as string);
            let ip: Addr;
            try {
              ip = parseIP(s as string);
            } catch (e) {
              // Kubernetes passes the parse error on as an argument, and the type check reports no such overload.
              if (e instanceof EvalError) throw noSuchOverload();
              throw e;
            }
            return cidrOf(c).contains(ip);
          },
        },
        {
          receiver: true,
          params: [C, IP_TYPE.name],
          result: "bool",
          impl: ([c, ip]) => {
            if (!(ip instanceof IPValue)) throw noSuchOverload();
            return cidrOf(c).contains(ip.addr);
          },
        },
      ],
    },
    {
      name: "containsCIDR",
      overloads: [
        {
          receiver: true,
          params: [C, "string"],
          result: "bool",
          impl: ([c, s], ctx) => {
            ctx.charge(2);
            chargeString(ctx, s as string);
            return containsCIDR(how, cidrOf(c), parseCIDR(s as string));
          },
        },
        {
          receiver: true,
          params: [C, C],
          result: "bool",
          impl: ([c, other], ctx) => {
            ctx.charge(2);
            return containsCIDR(how, cidrOf(c), cidrOf(other));
          },
        },
      ],
    },
    { name: "ip", overloads: [{ receiver: true, params: [C], result: IP_TYPE.name, impl: ([c]) => new IPValue(cidrOf(c).addr) }] },
    { name: "masked", overloads: [{ receiver: true, params: [C], result: C, impl: ([c]) => cidrOf(c).masked() }] },
    { name: "prefixLength", overloads: [{ receiver: true, params: [C], result: "int", impl: ([c]) => cidrOf(c).bits }] },
    { name: "string", overloads: [{ params: [C], result: "string", impl: ([c]) => cidrOf(c).toString() }] },
  ],
});
