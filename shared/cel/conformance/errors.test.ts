// cel-go's own error texts for its parser tests (@bufbuild/cel-spec records
// them: cel-go parses, then checks in an empty environment), compared
// exactly, as a ratchet like index.test.ts: known-error-mismatches.txt lists
// the expressions whose text still differs (mostly ANTLR reporting further
// errors after recovering from the first, which this parser does not).
// Left out: tests run with non-default parser limits (recursion 32 and the
// error recovery limits). UPDATE_CEL_CONFORMANCE=1 rewrites the list.

import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tests } from "@bufbuild/cel-spec/testdata/parsing.js";
import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../index.js";

const NON_DEFAULT_LIMITS = /limit exceeded: (32|4)\b/;
const listPath = fileURLToPath(new URL("./known-error-mismatches.txt", import.meta.url));

describe("cel-go error texts", () => {
  it("match exactly except for the recorded expressions", () => {
    const env = createEnv({ variables: [], homogeneousLiterals: false });
    const mismatches: string[] = [];
    let total = 0;
    const walk = (suite: typeof tests): void => {
      for (const t of suite.tests ?? []) {
        const want = t.error?.replaceAll("ERROR: :", "ERROR: <input>:");
        if (want === undefined || NON_DEFAULT_LIMITS.test(want)) continue;
        total++;
        const c = compile(t.original.expr, env);
        if (c.ok || c.error !== want) mismatches.push(JSON.stringify(t.original.expr));
      }
      for (const sub of suite.suites ?? []) walk(sub);
    };
    walk(tests);
    console.log(`cel-go error texts: ${total - mismatches.length} of ${total} identical`);
    if (process.env.UPDATE_CEL_CONFORMANCE) writeFileSync(listPath, mismatches.join("\n") + "\n");
    const known = readFileSync(listPath, "utf8").split("\n").filter((l) => l !== "");
    expect({
      newlyDiffering: mismatches.filter((m) => !known.includes(m)),
      newlyIdentical: known.filter((m) => !mismatches.includes(m)),
    }).toEqual({ newlyDiffering: [], newlyIdentical: [] });
  });
});
