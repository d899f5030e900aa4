import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../index.js";
import { DEFAULT_VERSION, environmentFor, NEWEST_VERSION, OLDEST_VERSION, parseVersion } from "./environment.js";

function outcome(source: string, minor: number, mode: "new" | "stored" = "stored"): unknown {
  const compiled = compile(source, createEnv(environmentFor({ major: 1, minor }, mode).options));
  if (!compiled.ok) return compiled.error.split("\n")[0];
  const r = compiled.program.evaluate({});
  return r.ok ? r.value : r.error;
}

describe("environmentFor: each Kubernetes version's CEL environment (pkg/cel/environment/base.go)", () => {
  // base.go:179 ext.Lists v3 from 1.34.
  it("has ext.Lists v3 from 1.34", () => {
    expect(outcome("[3, 1, 2].sort() == [1, 2, 3]", 33)).toBe("ERROR: <input>:1:15: undeclared reference to 'sort' (in container '')");
    expect(outcome("[3, 1, 2].sort() == [1, 2, 3]", 34)).toBe(true);
    expect(outcome("[{'a': 2}, {'a': 1}].sortBy(e, e.a)[0].a", 33)).toMatch(/undeclared reference to 'sortBy'/);
    expect(outcome("[{'a': 2}, {'a': 1}].sortBy(e, e.a)[0].a", 35)).toBe(1);
  });

  // base.go:57 baseOpts add no ext.Bindings in any version: cel.bind is no macro, so `cel` is an undeclared name.
  it("has no cel.bind", () => {
    for (const minor of [30, 37]) for (const mode of ["new", "stored"] as const) expect(outcome("cel.bind(x, 1, x + 1) == 2", minor, mode)).toBe("ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')");
  });

  // base.go:186 library.Lists v1 (includes) from 1.37; environment_test.go:318-343.
  it("has includes from 1.37", () => {
    expect(outcome("[1, 2].includes(2)", 36)).toMatch(/undeclared reference to 'includes'/);
    expect(outcome("[1, 2].includes(2)", 37)).toBe(true);
    expect(outcome("[1, 2].includes(2)", 37, "new")).toMatch(/undeclared reference to 'includes'/);
  });

  // cidr.go:232, changed in kubernetes/apiserver 64791740a (v1.33.0); cidr_test.go:156.
  it("answers containsCIDR as the version does", () => {
    const source = 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))';
    expect(outcome(source, 32)).toBe(false);
    expect(outcome(source, 33)).toBe(true);
  });

  // base.go: format 1.31, two-variable comprehensions 1.32, semver 1.33.
  it("adds format, two-variable comprehensions and semver in their versions", () => {
    expect(outcome("format.dns1123Label().validate('a').hasValue()", 30)).toMatch(/undeclared reference to 'format'/);
    expect(outcome("format.dns1123Label().validate('a').hasValue()", 31)).toBe(false);
    expect(outcome("{'a': 1}.all(k, v, v > 0)", 31)).toMatch(/^ERROR: <input>:1:\d+: /);
    expect(outcome("{'a': 1}.all(k, v, v > 0)", 32)).toBe(true);
    expect(outcome("semver('1.2.3').major()", 32)).toMatch(/undeclared reference to 'semver'/);
    expect(outcome("semver('1.2.3').major()", 33)).toBe(1);
  });

  it("checks new expressions at the compatibility version, one minor below (environment.go:257)", () => {
    expect(outcome("[3, 1, 2].sort()[0]", 34, "new")).toMatch(/undeclared reference to 'sort'/);
    expect(outcome("[3, 1, 2].sort()[0]", 35, "new")).toBe(1);
  });

  it("clamps versions outside the supported range and reads version texts", () => {
    expect(environmentFor({ major: 1, minor: 12 }, "stored").version).toEqual(OLDEST_VERSION);
    expect(environmentFor({ major: 1, minor: 99 }, "stored").version).toEqual(NEWEST_VERSION);
    expect(environmentFor({ major: 2, minor: 0 }, "stored").version).toEqual(NEWEST_VERSION);
    expect(environmentFor(DEFAULT_VERSION, "stored")).toBe(environmentFor(DEFAULT_VERSION, "stored"));
    expect(parseVersion("v1.33.2")).toEqual({ major: 1, minor: 33 });
    expect(parseVersion("1.30")).toEqual({ major: 1, minor: 30 });
    expect(parseVersion("1.31+")).toEqual({ major: 1, minor: 31 });
    expect(parseVersion("latest")).toBeUndefined();
  });
});
