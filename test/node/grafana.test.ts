// examples/grafana/edgeadmit-verdicts.json reads only what GET
// /v1/registry/metrics exports: every series a query names is a sample name
// of a family the route writes (a counter's with _total), every label it
// selects or groups by is one those samples carry. A rename on either side
// fails here, not on an operator's empty panel.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../infra/base/root.js";
import { FAMILIES } from "../../functions/metrics/index.js";

const dashboard = JSON.parse(readFileSync(join(PROJECT_ROOT, "examples/grafana/edgeadmit-verdicts.json"), "utf8")) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  templating: { list: Array<{ definition?: string }> };
  annotations: { list: Array<{ expr: string }> };
};

const SAMPLES = new Set(Object.values(FAMILIES).map((family) => (family.type === "counter" ? `${family.name}_total` : family.name)));
const LABELS = new Set(["cluster", "origin", "policy", "outcome", "when"]);

const expressions = [
  ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr)),
  ...dashboard.annotations.list.map((annotation) => annotation.expr),
  ...dashboard.templating.list.flatMap((variable) => (variable.definition ? [variable.definition] : [])),
];

describe("the Grafana dashboard", () => {
  it("queries only the series the metrics route exports", () => {
    expect(expressions.length).toBeGreaterThan(5);
    for (const expr of expressions) {
      const names = [...expr.matchAll(/\bedgeadmit_[a-z_]+/g)].map((match) => match[0]);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names) expect(SAMPLES, expr).toContain(name);
      const labels = [...expr.matchAll(/([a-z_]+)\s*(?:=~|!=|!~|=)\s*"/g), ...[...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((match) => match[1]!.split(",").map((label) => [label, label.trim()]))].map((match) => match[1]!.trim());
      for (const label of labels) expect(LABELS, expr).toContain(label);
    }
  });

  it("draws reviews by outcome per hour, as the Verdicts page does, and marks fleet revisions", () => {
    expect(dashboard.annotations.list.map((annotation) => annotation.expr)).toEqual(["changes(edgeadmit_fleet_revision[2m]) > 0"]);
    expect(dashboard.panels[0]!.targets[0]!.expr).toBe('sum by (outcome) (increase(edgeadmit_verdicts_total{origin="review",cluster=~"$cluster"}[1h]))');
  });
});
