import { describe, expect, it } from "vitest";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { quantityLibrary } from "../quantity/index.js";
import { semverLibrary } from "./index.js";

// With quantity beside it, as in the base environment: compareTo and friends dispatch on the receiver's type.
const libraries = [semverLibrary, quantityLibrary];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const err = (source: string, activation = {}) => error(source, activation, { libraries });

describe("Kubernetes semver library", () => {
  // The examples of k8s.io/apiserver/pkg/cel/library/semverlib.go's documentation.
  it("parses semantic versions and reads their parts", () => {
    expect(String(v("semver('1.0.0')"))).toBe("1.0.0");
    expect(String(v("semver('0.1.0-alpha.1+build.7')"))).toBe("0.1.0-alpha.1+build.7");
    expect(v("semver('1.2.3').major()")).toBe(1);
    expect(v("semver('1.2.3').minor()")).toBe(2);
    expect(v("semver('1.2.3').patch()")).toBe(3);
    expect(v("isSemver('1.0.0')")).toBe(true);
    expect(v("isSemver('hello')")).toBe(false);
    expect(v("isSemver('v1.0')")).toBe(false);
  });

  it("refuses what blang/semver's Parse refuses, with its words", () => {
    expect(err("semver('200K')")).toBe("No Major.Minor.Patch elements found");
    expect(err("semver('Three')")).toBe("No Major.Minor.Patch elements found");
    expect(err("semver('')")).toBe("Version string empty");
    expect(err("semver('01.1.1')")).toBe('Major number must not contain leading zeroes "01"');
    expect(err("semver('1.x.1')")).toBe('Invalid character(s) found in minor number "x"');
    expect(err("semver('1.1.1-01')")).toBe('Numeric PreRelease version must not contain leading zeroes "01"');
    // blang/semver's Parse: each pre-release identifier digits, or letters, digits and hyphens.
    expect(err("semver('1.1.1-a.b_c')")).toBe('Invalid character(s) found in prerelease "b_c"');
    expect(err("semver('1.1.1-a.é')")).toBe('Invalid character(s) found in prerelease "é"');
    expect(v("[isSemver('1.1.1-0.a-Z.9-'), isSemver('1.1.1-a..b'), isSemver(s)]", { s: `1.2.3-${"a.1.".repeat(50_000)}z` })).toEqual([true, false, true]);
    expect(err("semver('1.1.1-a..b')")).toBe("Prerelease is empty");
    expect(err("semver('1.1.1+a_b')")).toBe('Invalid character(s) found in build meta data "a_b"');
    expect(err("semver('1.1.99999999999999999999')")).toBe('strconv.ParseUint: parsing "99999999999999999999": value out of range');
  });

  it("normalizes when asked: a leading v, missing minor and patch, leading zeros", () => {
    expect(String(v("semver('v1.0.0', true)"))).toBe("1.0.0");
    expect(String(v("semver('1.0', true)"))).toBe("1.0.0");
    expect(String(v("semver('01.01.01', true)"))).toBe("1.1.1");
    expect(v("isSemver('v1.0', true)")).toBe(true);
    expect(err("semver('1.0-rc1', true)")).toBe("short version cannot contain PreRelease/Build meta data");
    expect(v("isSemver('v1.0', false)")).toBe(false);
  });

  it("orders as semver.org: numbers, a release above its prereleases, identifiers numeric before alphanumeric", () => {
    expect(v("semver('1.2.3').compareTo(semver('1.2.3'))")).toBe(0);
    expect(v("semver('1.2.3').compareTo(semver('2.0.0'))")).toBe(-1);
    expect(v("semver('1.2.3').compareTo(semver('0.1.2'))")).toBe(1);
    expect(v("semver('1.0.0').isGreaterThan(semver('1.0.0-rc.1'))")).toBe(true);
    expect(v("semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))")).toBe(true);
    expect(v("semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))")).toBe(true);
    expect(v("semver('1.0.0-rc.2').isLessThan(semver('1.0.0-rc.10'))")).toBe(true);
    expect(v("semver('1.0.0+a') == semver('1.0.0+b')")).toBe(true);
    expect(v("quantity('1Gi').compareTo(quantity('1G'))")).toBe(1);
  });

  it("caps what an error quotes of the caller's string", () => {
    expect(err(`semver('1.1.${"x".repeat(100)}')`)).toBe(`Invalid character(s) found in patch number "${"x".repeat(64)}"...`);
  });

  // cost_test.go:1174 (TestSemverCost).
  it("costs what Kubernetes' cost tests say", () => {
    expect(cost('semver("1.0.0")', {}, { libraries })).toBe(1);
    expect(cost('isSemver("1234.56789012345.67890123456789")', {}, { libraries })).toBe(4);
  });
});
