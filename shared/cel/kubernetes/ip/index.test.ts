import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../../index.js";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { cidrLibrary } from "../cidr/index.js";
import { formatAddr, ipLibrary, IPValue, parseAddr } from "./index.js";

const libraries = [ipLibrary, cidrLibrary("overlaps")];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const err = (source: string, activation = {}) => error(source, activation, { libraries });

describe("Kubernetes IP library", () => {
  // Rows of k8s.io/apiserver/pkg/cel/library/ip_test.go (TestIP).
  it("passes Kubernetes' TestIP rows", () => {
    expect(String(v('ip("192.168.0.1")'))).toBe("192.168.0.1");
    expect(err('ip("192.168.0.1.0")')).toBe('IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long');
    expect(v('isIP("192.168.0.1")')).toBe(true);
    expect(v('isIP("192.168.0.1.0")')).toBe(false);
    expect(v('ip.isCanonical("127.0.0.1")')).toBe(true);
    expect(err('ip.isCanonical("127.0.0.1.0")')).toBe('IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long');
    expect(v('ip("192.168.0.1").family()')).toBe(4);
    expect(v('ip("0.0.0.0").isUnspecified()')).toBe(true);
    expect(v('ip("127.0.0.1").isUnspecified()')).toBe(false);
    expect(v('ip("127.0.0.1").isLoopback()')).toBe(true);
    expect(v('ip("1.2.3.4").isLoopback()')).toBe(false);
    expect(v('ip("224.0.0.1").isLinkLocalMulticast()')).toBe(true);
    expect(v('ip("224.0.1.1").isLinkLocalMulticast()')).toBe(false);
    expect(v('ip("169.254.169.254").isLinkLocalUnicast()')).toBe(true);
    expect(v('ip("192.168.0.1").isLinkLocalUnicast()')).toBe(false);
    expect(v('ip("192.168.0.1").isGlobalUnicast()')).toBe(true);
    expect(v('ip("255.255.255.255").isGlobalUnicast()')).toBe(false);
    expect(v('ip("2001:db8::68") == ip("2001:0db8:0:0::68")')).toBe(true);
    expect(err('ip("2001:db8:::68")')).toBe(
      'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    );
    expect(v('isIP("2001:db8::68")')).toBe(true);
    expect(v('isIP("2001:db8:::68")')).toBe(false);
    expect(v('ip.isCanonical("2001:db8::68")')).toBe(true);
    expect(v('ip.isCanonical("2001:DB8::68")')).toBe(false);
    expect(v('ip("2001:db8::68").family()')).toBe(6);
    expect(v('ip("::").isUnspecified()')).toBe(true);
    expect(v('ip("::1").isUnspecified()')).toBe(false);
    expect(v('ip("::1").isLoopback()')).toBe(true);
    expect(v('ip("2001:db8::abcd").isLoopback()')).toBe(false);
    expect(v('ip("ff02::1").isLinkLocalMulticast()')).toBe(true);
    expect(v('ip("fd00::1").isLinkLocalMulticast()')).toBe(false);
    expect(v('ip("fe80::1").isLinkLocalUnicast()')).toBe(true);
    expect(v('ip("fd80::1").isLinkLocalUnicast()')).toBe(false);
    expect(v('ip("2001:db8::abcd").isGlobalUnicast()')).toBe(true);
    expect(v('ip("ff00::1").isGlobalUnicast()')).toBe(false);
    expect(err('isIP(cidr("192.168.0.0/24"))')).toMatch(/^ERROR: <input>:1:5: found no matching overload for 'isIP' applied to '\(net.CIDR\)'/);
    expect(v('string(ip("192.168.0.1"))')).toBe("192.168.0.1");
    expect(v('type(ip("192.168.0.1")) == net.IP')).toBe(true);
  });

  it("rejects zones, IPv4-mapped IPv6 and leading zeros, as Kubernetes does", () => {
    expect(err('ip("fe80::1%eth0")')).toBe('IP address "fe80::1%eth0" with zone value is not allowed');
    expect(err('ip("::ffff:1.2.3.4")')).toBe('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    expect(err('ip("010.0.0.1")')).toBe('IP Address "010.0.0.1" parse error during conversion from string: ParseAddr("010.0.0.1"): IPv4 field has octet with leading zero');
    expect(v('isIP("::ffff:1.2.3.4") || isIP("fe80::1%eth0") || isIP("") || isIP("1.2.3") || isIP("1.2.3.256")')).toBe(false);
    expect(v('isIP("::1.2.3.4") && isIP("64:ff9b::1.2.3.4")')).toBe(true);
  });

  it("reports netip.ParseAddr's errors", () => {
    const message = (s: string) => {
      try {
        parseAddr(s);
        return "ok";
      } catch (e) {
        return (e as { message: string }).message;
      }
    };
    expect(message("")).toBe('ParseAddr(""): unable to parse IP');
    expect(message("%eth0")).toBe('ParseAddr("%eth0"): missing IPv6 address');
    expect(message("1.2.3")).toBe('ParseAddr("1.2.3"): IPv4 address too short');
    expect(message("1..2.3")).toBe('ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")');
    expect(message("1.2.3.x")).toBe('ParseAddr("1.2.3.x"): unexpected character (at "x")');
    expect(message("1.2.3.256")).toBe('ParseAddr("1.2.3.256"): IPv4 field has value >255');
    expect(message("1:2:3:4:5:6:7")).toBe('ParseAddr("1:2:3:4:5:6:7"): address string too short');
    expect(message("12345::")).toBe('ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")');
    expect(message("1::2::3")).toBe('ParseAddr("1::2::3"): multiple :: in address (at ":3")');
    expect(message("1:2:3:4:5:6:7:8::")).toBe('ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros');
    expect(message("1:2:3:4:5:6:7:8:9")).toBe('ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")');
    expect(message("1:")).toBe('ParseAddr("1:"): colon must be followed by more characters (at ":")');
    expect(message("1:2.3.4.5")).toBe('ParseAddr("1:2.3.4.5"): embedded IPv4 address must replace the final 2 fields of the address (at "2.3.4.5")');
    expect(message("fe80::1%")).toBe('ParseAddr("fe80::1%"): zone must be a non-empty string');
  });

  it("prints the canonical form (RFC 5952)", () => {
    const canonical = (s: string) => formatAddr(parseAddr(s).addr);
    expect(canonical("2001:0DB8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(canonical("2001:db8:0:1:0:0:0:1")).toBe("2001:db8:0:1::1");
    expect(canonical("2001:0:0:1:0:0:0:1")).toBe("2001:0:0:1::1");
    expect(canonical("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    expect(canonical("2001:db8:1:1:1:1:0:1")).toBe("2001:db8:1:1:1:1:0:1");
    expect(canonical("::")).toBe("::");
    expect(canonical("1::")).toBe("1::");
    expect(canonical("::1.2.3.4")).toBe("::102:304");
    expect(v('ip.isCanonical("2001:db8::0:0:0:abcd")')).toBe(false);
  });

  it("caps the input an error quotes", () => {
    const long = `1.2.3.${"4".repeat(100)}`;
    expect(err("ip(s)", { s: long })).toBe(`IP Address "${long.slice(0, 64)}"... parse error during conversion from string: ParseAddr("${long.slice(0, 64)}"...): IPv4 field has value >255`);
  });

  it("charges parsing by length, twice for isCanonical", () => {
    const env = createEnv({ variables: ["s"], libraries });
    const cost = (src: string, s: string) => {
      const c = compile(src, env);
      if (!c.ok) throw new Error(c.error);
      return c.program.evaluate({ s }).cost;
    };
    const s = `1:2:3:4:5:6:7:${"0".repeat(193)}8`; // 208 code points: invalid, but parsed first
    // library/cost.go:138 isIP: ceil(size × 0.1), so 21 here and 0 for '' (only reading s is left).
    expect(cost("isIP(s)", s) - cost("isIP(s)", "")).toBe(21);
    // 15 code points: one traversal is 2, two are 3.
    expect(cost("ip.isCanonical(s)", "0:0:0:0:0:0:0:1") - cost("isIP(s)", "0:0:0:0:0:0:0:1")).toBe(1);
    expect(v("x == ip('::1')", { x: new IPValue(parseAddr("::1").addr) })).toBe(true);
  });

  // cost_test.go:293 and :344 (TestIPCost, TestIPIsCanonicalCost); :374 (TestCIDRCost).
  it("costs what Kubernetes' cost tests say", () => {
    expect(cost("ip('192.168.0.1')", {}, { libraries })).toBe(2);
    expect(cost("ip('2001:db8:3333:4444:5555:6666:7777:8888').family()", {}, { libraries })).toBe(5);
    expect(cost("ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", {}, { libraries })).toBe(8);
    expect(cost("cidr('192.168.0.0/16').containsCIDR(cidr('192.0.0.0/30'))", {}, { libraries })).toBe(7);
    expect(cost("cidr('2001:db8::/32').containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", {}, { libraries })).toBe(7);
  });
});
