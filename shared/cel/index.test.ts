import { describe, expect, it } from "vitest";
import { CelType, compile, createEnv, EvalError, LibraryValue, type Library, type Value } from "./index.js";
import { error, value } from "../../test/support/cel/index.js";

const vapVariables = ["object", "oldObject", "request", "params", "namespaceObject", "variables"];

describe("compile", () => {
  it("rejects undeclared variables with cel-go's text, source line and caret", () => {
    const env = createEnv({ variables: vapVariables });
    const r = compile("authorizer.group('apps').check('create').allowed()", env);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.split("\n").slice(0, 3).join("\n")).toBe(
      "ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.group('apps').check('create').allowed()\n | ^",
    );
  });

  it("reports every error, in source order", () => {
    expect(error("foo(1) + bar")).toBe(
      [
        "ERROR: <input>:1:4: undeclared reference to 'foo' (in container '')",
        " | foo(1) + bar",
        " | ...^",
        "ERROR: <input>:1:10: undeclared reference to 'bar' (in container '')",
        " | foo(1) + bar",
        " | .........^",
      ].join("\n"),
    );
  });

  it("checks function arity and style", () => {
    expect(error("size(1, 2)")).toBe("ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int, int)'\n | size(1, 2)\n | ....^");
    expect(error("'a'.startsWith(1)")).toBe(
      "ERROR: <input>:1:15: found no matching overload for 'startsWith' applied to 'string.(int)'\n | 'a'.startsWith(1)\n | ..............^",
    );
    expect(error("Pod{name: 'x'}")).toBe("ERROR: <input>:1:4: undeclared reference to 'Pod' (in container '')\n | Pod{name: 'x'}\n | ...^");
  });

  it("rejects mixed literals as Kubernetes' validators do", () => {
    expect(error("[1, 'a']")).toBe("ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^");
    expect(value("[1, 'a']", {}, { homogeneousLiterals: false })).toEqual([1, "a"]);
  });
});

/** A library with its own value type: type name for type(), equality and ordering hooks. */
class Version extends LibraryValue {
  static readonly type = new CelType("example.Version");
  readonly celType = Version.type;
  constructor(readonly parts: readonly number[]) {
    super();
  }
  equals(other: LibraryValue): boolean {
    return other instanceof Version && this.compare(other) === 0;
  }
  override compare(other: LibraryValue): number {
    const o = (other as Version).parts;
    for (let i = 0; i < 3; i++) if ((this.parts[i] ?? 0) !== (o[i] ?? 0)) return (this.parts[i] ?? 0) - (o[i] ?? 0);
    return 0;
  }
}

const versions: Library = {
  name: "example.versions",
  types: [Version.type],
  orderedTypes: [Version.type],
  functions: [
    {
      name: "version",
      overloads: [
        {
          params: ["string"],
          result: "example.Version",
          impl: ([s]) => {
            const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(s as string);
            if (m === null) throw new EvalError(`invalid version: ${String(s)}`);
            return new Version(m.slice(1).map(Number));
          },
        },
      ],
    },
    { name: "major", overloads: [{ receiver: true, params: ["example.Version"], result: "int", impl: ([v]) => (v as Version).parts[0] as number }] },
    // Adds an overload to the standard size() without touching the core.
    { name: "size", overloads: [{ receiver: true, params: ["example.Version"], result: "int", impl: () => 3 }] },
  ],
};

describe("libraries", () => {
  it("register functions, types, equality and ordering", () => {
    const libraries = [versions];
    expect(value("version('1.2.3').major()", {}, { libraries })).toBe(1);
    expect(value("type(version('1.2.3')) == example.Version", {}, { libraries })).toBe(true);
    expect(value("version('1.2.3') == version('1.2.3') && version('1.2.3') < version('1.10.0')", {}, { libraries })).toBe(true);
    expect(value("version('1.2.3').size() + size('ab')", {}, { libraries })).toBe(5);
    expect(error("version('x')", {}, { libraries })).toBe("invalid version: x");
    expect(error("dyn(1).major()", {}, { libraries })).toBe("no such overload: major(int)");
  });

  it("evaluate with activations of plain JSON", () => {
    const env = createEnv({ variables: vapVariables });
    const c = compile("object.metadata.name.startsWith(params.prefix)", env);
    if (!c.ok) throw new Error(c.error);
    const object = JSON.parse('{"metadata": {"name": "team-a-web"}}') as Value;
    expect(c.program.evaluate({ object, params: { prefix: "team-a-" } })).toEqual({ ok: true, value: true, cost: 6 });
    expect(c.program.evaluate({ object })).toEqual({ ok: false, error: "no such attribute(s): params", cost: 4 });
  });
});

describe("robustness", () => {
  const TOKENS = ["a", "b", ".", "?", ":", "(", ")", "[", "]", "{", "}", ",", "+", "-", "*", "/", "%", "!", "&&", "||", "==", "<", "in", "1", "2.5", "0u", "'s'", "b'x'", "null", "true", "all", "map", "exists_one", "has", "cel", "bind", "size", "x", "optional", "of", "`f`", "@", "\\"];

  it("never throws from compile or evaluate, whatever the source", async () => {
    const fc = await import("fast-check");
    const env = createEnv({ variables: ["a", "b"] });
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }), fc.string({ maxLength: 20 }), (tokens, noise) => {
        for (const source of [tokens.join(" "), tokens.join(""), noise]) {
          const c = compile(source, env);
          if (c.ok) c.program.evaluate({ a: { b: [1, "x", { c: null }] }, b: [1, 2] });
        }
      }),
      { numRuns: 3000 },
    );
  });
});
