import { describe, expect, it } from "vitest";
import { error, value } from "../../../../test/support/cel/index.js";
import { ipLibrary } from "../ip/index.js";
import { cidrLibrary } from "./index.js";

const libraries = [ipLibrary, cidrLibrary("overlaps")];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const err = (source: string, activation = {}) => error(source, activation, { libraries });

describe("Kubernetes CIDR library", () => {
  // Rows of k8s.io/apiserver/pkg/cel/library/cidr_test.go (TestCIDR).
  it("passes Kubernetes' TestCIDR rows", () => {
    expect(err("cidr(192168)")).toMatch(/^ERROR: <input>:1:5: found no matching overload for 'cidr' applied to '\(int\)'/);
    expect(String(v('cidr(dyn("192.168.0.0/24"))'))).toBe("192.168.0.0/24");
    expect(err('cidr("192.168.0.0/")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    );
    expect(v('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))')).toBe(true);
    expect(v('cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))')).toBe(false);
    expect(v('cidr("192.168.0.0/24").containsIP("192.168.0.1")')).toBe(true);
    expect(v('cidr("192.168.0.0/24").containsIP("192.168.1.1")')).toBe(false);
    expect(v('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))')).toBe(true);
    expect(v('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))')).toBe(false);
    expect(v('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")')).toBe(true);
    expect(v('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")')).toBe(false);
    expect(v('cidr("192.168.0.0/24").ip() == ip("192.168.0.0")')).toBe(true);
    expect(v('cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")')).toBe(true);
    expect(v('cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")')).toBe(true);
    expect(v('cidr("192.168.0.0/24").prefixLength()')).toBe(24);
    expect(String(v('cidr("2001:db8::/32")'))).toBe("2001:db8::/32");
    expect(err('cidr("2001:db8::/")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    );
    expect(v('cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))')).toBe(true);
    expect(v('cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))')).toBe(false);
    expect(v('cidr("2001:db8::/32").containsIP("2001:db8::1")')).toBe(true);
    expect(v('cidr("2001:db8::/32").containsIP("2001:dc8::1")')).toBe(false);
    expect(v('cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))')).toBe(true);
    expect(v('cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))')).toBe(false);
    expect(v('cidr("2001:db8::/32").containsCIDR("2001:db8::/33")')).toBe(true);
    expect(v('cidr("2001:db8::/32").containsCIDR("2001:db8::/31")')).toBe(false);
    expect(v('cidr("2001:db8::/32").ip() == ip("2001:db8::")')).toBe(true);
    expect(v('cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")')).toBe(true);
    expect(v('cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")')).toBe(true);
    expect(v('cidr("2001:db8::/32").prefixLength()')).toBe(32);
    expect(v('string(cidr("192.168.0.0/24"))')).toBe("192.168.0.0/24");
    expect(v('type(cidr("192.168.0.0/24")) == net.CIDR')).toBe(true);
  });

  it("keeps host bits, as Kubernetes does", () => {
    expect(v('cidr("192.168.0.1/24") == cidr("192.168.0.1/24").masked()')).toBe(false);
    expect(v('string(cidr("192.168.0.1/24").masked())')).toBe("192.168.0.0/24");
    expect(v('cidr("192.168.0.1/24").ip() == ip("192.168.0.1")')).toBe(true);
    expect(v('cidr("10.0.0.0/8").containsCIDR("10.0.0.0/16")')).toBe(true);
    expect(v('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")')).toBe(true);
    expect(v('cidr("10.0.0.0/8").containsIP("10.1.0.0")')).toBe(true);
    expect(v('cidr("10.0.0.0/8").containsIP("::1") || cidr("::/0").containsIP("1.2.3.4")')).toBe(false);
    expect(v('cidr("0.0.0.0/0").containsIP("255.255.255.255") && cidr("::/0").containsCIDR("::/0")')).toBe(true);
  });

  // cidr.go:232 since kubernetes/apiserver 64791740a (v1.33.0): Overlaps and no longer prefix; cidr_test.go:156 is its row.
  it("compares containsCIDR's other address unmasked before Kubernetes 1.33, by overlap since", () => {
    const before = (source: string) => value(source, {}, { libraries: [ipLibrary, cidrLibrary("masked-equal")] });
    for (const [source, old, now] of [
      ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', false, true],
      ['cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', false, true],
      ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true, true],
      ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false, false],
      ['cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', false, false],
      ['cidr("2001:db8::/32").containsCIDR("2001:db8:1::/48")', false, true],
      ['cidr("0.0.0.0/0").containsCIDR("::/0")', false, false],
    ] as const) {
      expect(before(source), source).toBe(old);
      expect(v(source), source).toBe(now);
    }
  });

  it("reports errors as Kubernetes does", () => {
    expect(err('cidr("10.0.0.0/8").containsIP("x")')).toBe("no such overload");
    expect(err('cidr("10.0.0.0/8").containsCIDR("x")')).toBe(
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("x"): no \'/\'',
    );
    expect(err('cidr("::ffff:1.2.3.4/120")')).toBe('network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed');
    expect(err('cidr("10.0.0.0/33")')).toMatch(/netip.ParsePrefix\("10.0.0.0\/33"\): prefix length out of range$/);
    expect(err('cidr("10.0.0.0/08")')).toMatch(/netip.ParsePrefix\("10.0.0.0\/08"\): bad bits after slash: "08"$/);
    expect(err('cidr("10.0.0.0/+8")')).toMatch(/bad bits after slash: "\+8"$/);
    expect(err('cidr("10.0.0.0/99999999999999999999")')).toMatch(/bad bits after slash: "99999999999999999999"$/);
    expect(err('cidr("fe80::%eth0/64")')).toMatch(/netip.ParsePrefix\("fe80::%eth0\/64"\): IPv6 zones cannot be present in a prefix$/);
    expect(err('cidr("1.2.3/8")')).toMatch(/netip.ParsePrefix\("1.2.3\/8"\): ParseAddr\("1.2.3"\): IPv4 address too short$/);
    expect(v('isCIDR("10.0.0.0/8") && isCIDR("::/0") && !isCIDR("10.0.0.0") && !isCIDR("::ffff:0.0.0.0/96")')).toBe(true);
  });
});
