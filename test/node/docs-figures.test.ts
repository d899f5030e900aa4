// Figures in the docs come from bench/results.json, never copied by hand: every
// generated block (`<!-- bench: <section id> -->`, bench/report.ts) must read
// exactly as a full `npm run bench` wrote it from the results it recorded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIGURE_DOCS, withFigureBlocks, type Results } from "../../bench/report.js";
import { PROJECT_ROOT } from "../../infra/base/root.js";

const results = JSON.parse(readFileSync(join(PROJECT_ROOT, "bench", "results.json"), "utf8")) as Results;

describe("figures in the docs", () => {
  for (const doc of FIGURE_DOCS) {
    it(`${doc}: every generated block is results.json's, and there is one`, () => {
      const text = readFileSync(join(PROJECT_ROOT, doc), "utf8");
      expect(text).toMatch(/<!-- bench: [\w-]+ -->/);
      expect(text).toBe(withFigureBlocks(text, results));
    });
  }

  it("a figure edited by hand inside a block is rewritten, so the test above fails on it", () => {
    const text = readFileSync(join(PROJECT_ROOT, FIGURE_DOCS[0]!), "utf8");
    const edited = text.replace(/(<!-- bench: [\w-]+ -->\n[^\n]*\n\n(?:[^\n]*\n){2}\| [^|]*\| )[^|]*/, "$19.99 s ");
    expect(edited).not.toBe(text);
    expect(withFigureBlocks(edited, results)).toBe(text);
  });

  it("a block naming no section of results.json is an error", () => {
    expect(() => withFigureBlocks("<!-- bench: nowhere -->\n<!-- /bench -->", results)).toThrow(/<!-- bench: nowhere -->: no section with that id/);
  });
});
