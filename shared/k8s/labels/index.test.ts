import { describe, expect, it } from "vitest";
import { isLabelKey, isLabelValue, labelKeyError, labelValueError, parseSelector, selectorMatches, selectorText } from "./index.js";

// The syntax of k8s.io/apimachinery pkg/labels/selector.go (Parse); kubectl get -l reads it.
describe("parseSelector", () => {
  it("reads every requirement kubectl's -l takes, ANDed", () => {
    expect(parseSelector("env=prod,tier!=system")).toEqual({
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod"] },
        { key: "tier", operator: "NotIn", values: ["system"] },
      ],
    });
    expect(parseSelector("env==prod, ring in (canary, early),zone notin (a),gpu,!legacy")).toEqual({
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod"] },
        { key: "ring", operator: "In", values: ["canary", "early"] },
        { key: "zone", operator: "NotIn", values: ["a"] },
        { key: "gpu", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    });
    expect(parseSelector("")).toEqual({});
  });

  it("selects as the apiserver does: != also selects labels without the key", () => {
    const selector = parseSelector("env=prod,tier!=system");
    if (typeof selector === "string") throw new Error(selector);
    expect(selectorMatches(selector, { env: "prod" })).toBe(true);
    expect(selectorMatches(selector, { env: "prod", tier: "app" })).toBe(true);
    expect(selectorMatches(selector, { env: "prod", tier: "system" })).toBe(false);
    expect(selectorMatches(selector, { env: "dev" })).toBe(false);
  });

  it("says what is wrong with a selector it cannot read", () => {
    expect(parseSelector("env=prod,(")).toBe('selector "env=prod,(": unbalanced parentheses');
    expect(parseSelector("env>3")).toBe('selector: "env>3" is not a requirement: use key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)');
    expect(parseSelector("env=a b")).toBe('selector: "env=a b" is not a requirement: use key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)');
    expect(parseSelector("-env=prod")).toBe('selector: label key "-env": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric');
  });

  it("prints back what it read", () => {
    const selector = parseSelector("env=prod,ring in (canary,early),gpu,!legacy,tier!=system");
    if (typeof selector === "string") throw new Error(selector);
    expect(selectorText(selector)).toBe("env=prod,ring in (canary,early),gpu,!legacy,tier!=system");
    expect(selectorText({ matchLabels: { env: "prod" } })).toBe("env=prod");
  });
});

// The checks without messages (for callers that only count bad labels) accept exactly what the ones with messages accept.
describe("isLabelKey and isLabelValue", () => {
  const keys = ["zone", "topology.kubernetes.io/zone", "a/b/c", "/zone", "-zone", "zone_", "Zone.x", `${"p".repeat(254)}/zone`, `${"p".repeat(253)}/zone`, "x/", "z".repeat(64), "z".repeat(63), "", "UPPER.case/x"];
  const values = ["", "dc1", "-dc1", "dc1-", "a b", "v".repeat(63), "v".repeat(64), "A_b.c-D"];

  it("agree with labelKeyError and labelValueError", () => {
    expect(keys.map(isLabelKey)).toEqual(keys.map((key) => labelKeyError(key) === undefined));
    expect(values.map(isLabelValue)).toEqual(values.map((value) => labelValueError(value) === undefined));
    expect(keys.filter(isLabelKey)).toEqual(["zone", "topology.kubernetes.io/zone", "Zone.x", `${"p".repeat(253)}/zone`, "z".repeat(63)]);
    expect(values.filter(isLabelValue)).toEqual(["", "dc1", "v".repeat(63), "A_b.c-D"]);
  });
});
