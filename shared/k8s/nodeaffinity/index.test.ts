import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { NodeSelectorRequirement, NodeSelectorTerm } from "../schemas/index.js";
import { compilePlacement, describePlacement, integerOf, placementOf, requirementProblem, termsOutside, type Requirement } from "./index.js";

const ZONE = "topology.kubernetes.io/zone";
const zoneIn = (...values: string[]): NodeSelectorTerm => ({ matchExpressions: [{ key: ZONE, operator: "In", values }] });

/** Whether a pod with `pod` constraints is shown to stay within a class with `cls` constraints. */
function within(
  pod: { nodeSelector?: Record<string, string>; terms?: NodeSelectorTerm[] },
  cls: { nodeSelector?: Record<string, string>; terms?: NodeSelectorTerm[] },
): boolean {
  return termsOutside(placementOf(pod.nodeSelector, pod.terms), compilePlacement(placementOf(cls.nodeSelector, cls.terms))).length === 0;
}

describe("placementOf", () => {
  it("keeps the nodeSelector apart from the terms and drops empty terms (they match no node)", () => {
    expect(placementOf({ a: "1" }, [zoneIn("dc1"), {}, { matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }])).toEqual({
      selector: [{ key: "a", operator: "In", values: ["1"] }],
      terms: [[{ key: ZONE, operator: "In", values: ["dc1"] }], [{ key: "metadata.name", operator: "In", values: ["n1"], field: true }]],
    });
    expect(placementOf(undefined, [{}])).toEqual({ selector: [], terms: [] });
    expect(placementOf(undefined, [])).toEqual({ selector: [], terms: [[]] });
  });
});

describe("requirementProblem and integerOf", () => {
  it("follows the scheduler's rules for values", () => {
    const r = (operator: Requirement["operator"], values: string[], field?: boolean): Requirement => ({ key: field ? "metadata.name" : "k", operator, values, field });
    expect(requirementProblem(r("In", []))).toBe("k In needs at least one value");
    expect(requirementProblem(r("Exists", ["x"]))).toBe("k Exists must have no values");
    expect(requirementProblem(r("Gt", ["1", "2"]))).toBe("k Gt needs exactly one integer value");
    expect(requirementProblem(r("Lt", ["1.5"]))).toBe("k Lt needs exactly one integer value");
    expect(requirementProblem(r("Gt", ["-3"]))).toBeUndefined();
    expect(requirementProblem(r("Exists", [], true))).toBe("matchFields supports only In and NotIn, not Exists");
    expect(requirementProblem(r("In", ["a", "b"], true))).toBe("matchFields In needs exactly one value");
    expect(requirementProblem({ key: "metadata.uid", operator: "In", values: ["a"], field: true })).toBe(
      'matchFields supports only the key metadata.name, not "metadata.uid"',
    );
    expect(integerOf("007")).toBe(7n);
    expect(integerOf("+7")).toBe(7n);
    expect(integerOf("9223372036854775808")).toBeUndefined();
    expect(integerOf("7a")).toBeUndefined();
    expect(integerOf(`-${"0".repeat(60)}12`)).toBe(-12n);
    expect(integerOf("9".repeat(1_000_000))).toBeUndefined();
  });
});

describe("termsOutside: the common cases are admitted", () => {
  const twoZones = { terms: [zoneIn("dc1"), zoneIn("dc2")] };
  const twoZonesOneTerm = { terms: [zoneIn("dc1", "dc2")] };

  it("admits a pod pinned to one zone of a two-zone class, by nodeSelector or by nodeAffinity", () => {
    for (const cls of [twoZones, twoZonesOneTerm]) {
      expect(within({ nodeSelector: { [ZONE]: "dc1" } }, cls)).toBe(true);
      expect(within({ terms: [zoneIn("dc2")] }, cls)).toBe(true);
    }
  });

  it("admits a pod allowed in both zones, as one In or as two terms", () => {
    for (const cls of [twoZones, twoZonesOneTerm]) {
      expect(within({ terms: [zoneIn("dc1", "dc2")] }, cls)).toBe(true);
      expect(within({ terms: [zoneIn("dc1"), zoneIn("dc2")] }, cls)).toBe(true);
    }
  });

  it("denies a third zone, no constraint, and a pod term that only narrows another key", () => {
    for (const cls of [twoZones, twoZonesOneTerm]) {
      expect(within({ nodeSelector: { [ZONE]: "dc3" } }, cls)).toBe(false);
      expect(within({}, cls)).toBe(false);
      expect(within({ terms: [zoneIn("dc1"), zoneIn("dc3")] }, cls)).toBe(false);
      expect(within({ terms: [{ matchExpressions: [{ key: ZONE, operator: "Exists" }] }] }, cls)).toBe(false);
      expect(within({ terms: [{ matchExpressions: [{ key: ZONE, operator: "NotIn", values: ["dc3"] }] }] }, cls)).toBe(false);
    }
  });

  it("combines the pod's nodeSelector with its terms, and admits a pod whose constraints admit no node", () => {
    expect(within({ nodeSelector: { [ZONE]: "dc1" }, terms: [{ matchExpressions: [{ key: "gpu", operator: "Exists" }] }] }, twoZones)).toBe(true);
    expect(within({ nodeSelector: { [ZONE]: "dc3" }, terms: [zoneIn("dc1")] }, twoZones)).toBe(true);
  });

  it("requires the class's nodeSelector on every class term", () => {
    const cls = { nodeSelector: { gpu: "true" }, terms: [zoneIn("dc1"), zoneIn("dc2")] };
    expect(within({ nodeSelector: { gpu: "true", [ZONE]: "dc1" } }, cls)).toBe(true);
    expect(within({ nodeSelector: { [ZONE]: "dc1" } }, cls)).toBe(false);
  });

  it("reasons about Gt/Lt, NotIn, DoesNotExist and node names", () => {
    const req = (key: string, operator: NodeSelectorRequirement["operator"], values?: string[]): NodeSelectorTerm => ({
      matchExpressions: [{ key, operator, ...(values ? { values } : {}) }],
    });
    expect(within({ terms: [req("cpu", "Gt", ["8"])] }, { terms: [req("cpu", "Gt", ["4"])] })).toBe(true);
    expect(within({ terms: [req("cpu", "Gt", ["4"])] }, { terms: [req("cpu", "Gt", ["8"])] })).toBe(false);
    expect(within({ nodeSelector: { cpu: "16" } }, { terms: [req("cpu", "Gt", ["8"])] })).toBe(true);
    expect(within({ nodeSelector: { cpu: "many" } }, { terms: [req("cpu", "Gt", ["8"])] })).toBe(false);
    expect(within({ terms: [req("cpu", "Lt", ["4"])] }, { terms: [req("cpu", "Exists")] })).toBe(true);
    expect(within({ nodeSelector: { [ZONE]: "dc1" } }, { terms: [req(ZONE, "NotIn", ["dc3"])] })).toBe(true);
    expect(within({ terms: [req("spot", "DoesNotExist")] }, { terms: [req("spot", "NotIn", ["true"])] })).toBe(true);
    expect(within({ terms: [req("spot", "NotIn", ["true"])] }, { terms: [req("spot", "DoesNotExist")] })).toBe(false);
    const node1 = { matchFields: [{ key: "metadata.name", operator: "In" as const, values: ["node1"] }] };
    expect(within({ terms: [node1] }, { terms: [node1] })).toBe(true);
    expect(within({ terms: [zoneIn("dc1")] }, { terms: [node1] })).toBe(false);
  });

  it("never relies on a class requirement the scheduler cannot use", () => {
    expect(within({ nodeSelector: { cpu: "9" } }, { terms: [{ matchExpressions: [{ key: "cpu", operator: "Gt", values: ["x"] }] }] })).toBe(false);
    expect(within({ nodeSelector: { k: "a" } }, { terms: [{ matchExpressions: [{ key: "k", operator: "In", values: [] }] }] })).toBe(false);
  });

  it("describes placements the way messages print them", () => {
    expect(describePlacement(placementOf({ gpu: "true" }, [zoneIn("dc1", "dc2"), { matchExpressions: [{ key: "spot", operator: "DoesNotExist" }] }]))).toBe(
      `{gpu=true, ${ZONE} in (dc1,dc2)} or {gpu=true, !spot}`,
    );
    expect(describePlacement(placementOf(undefined, undefined))).toBe("{any node}");
    expect(describePlacement({ selector: [], terms: [] })).toBe("{no node}");
  });
});

// Soundness against brute force: over every node of a small universe (a few
// keys, values including integers and an integer spelled two ways, the label
// absent, two node names), a pod admitted as within its class never matches a
// node the class does not. The oracle below is written from the scheduler's
// rules, independently of the implication code.
const KEYS = ["zone", "cpu"] as const;
const VALUES = ["a", "0", "1", "2", "01"] as const;
const NAMES = ["n1", "n2"] as const;

interface Node {
  labels: Record<string, string>;
  name: string;
}

const UNIVERSE: Node[] = (() => {
  let labelSets: Array<Record<string, string>> = [{}];
  for (const key of KEYS) labelSets = labelSets.flatMap((labels) => [labels, ...VALUES.map((v) => ({ ...labels, [key]: v }))]);
  return labelSets.flatMap((labels) => NAMES.map((name) => ({ labels, name })));
})();

function oracleRequirement(r: NodeSelectorRequirement, value: string | undefined, field: boolean): boolean | "error" {
  const values = r.values ?? [];
  if (field && (r.key !== "metadata.name" || (r.operator !== "In" && r.operator !== "NotIn") || values.length !== 1)) return "error";
  switch (r.operator) {
    case "In":
      return values.length === 0 ? "error" : value !== undefined && values.includes(value);
    case "NotIn":
      return values.length === 0 ? "error" : value === undefined || !values.includes(value);
    case "Exists":
      return values.length > 0 ? "error" : value !== undefined;
    case "DoesNotExist":
      return values.length > 0 ? "error" : value === undefined;
    case "Gt":
    case "Lt": {
      if (values.length !== 1 || !/^[+-]?\d+$/.test(values[0]!)) return "error";
      if (value === undefined || !/^[+-]?\d+$/.test(value)) return false;
      return r.operator === "Gt" ? Number(value) > Number(values[0]) : Number(value) < Number(values[0]);
    }
  }
}

/** The scheduler: nodeSelector AND any one non-empty term; a term with an unusable requirement matches nothing. */
function oracleMatches(node: Node, nodeSelector: Record<string, string>, terms: NodeSelectorTerm[] | undefined): boolean {
  if (!Object.entries(nodeSelector).every(([k, v]) => node.labels[k] === v)) return false;
  if (!terms || terms.length === 0) return true;
  return terms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (expressions.length + fields.length === 0) return false;
    return (
      expressions.every((r) => oracleRequirement(r, node.labels[r.key], false) === true) &&
      fields.every((r) => oracleRequirement(r, r.key === "metadata.name" ? node.name : undefined, true) === true)
    );
  });
}

const valuesArb = fc.subarray([...VALUES, "x"], { maxLength: 2 });
const requirementArb: fc.Arbitrary<NodeSelectorRequirement> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom("In" as const, "NotIn" as const), values: valuesArb }) },
  { weight: 2, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom("Exists" as const, "DoesNotExist" as const) }) },
  { weight: 3, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom("Gt" as const, "Lt" as const), values: fc.tuple(fc.constantFrom("0", "1", "2")) }) },
  // Rarely: values where none belong, to exercise unusable requirements.
  { weight: 1, arbitrary: fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom("Exists" as const, "Gt" as const), values: fc.constantFrom<string[]>(["x"], ["1", "2"], []) }) },
);
const fieldArb: fc.Arbitrary<NodeSelectorRequirement> = fc.record({
  key: fc.constant("metadata.name"),
  operator: fc.constantFrom("In" as const, "NotIn" as const),
  values: fc.subarray([...NAMES], { minLength: 1, maxLength: 1 }),
});
const termArb: fc.Arbitrary<NodeSelectorTerm> = fc.record(
  { matchExpressions: fc.array(requirementArb, { minLength: 1, maxLength: 2 }), matchFields: fc.array(fieldArb, { maxLength: 1 }) },
  { requiredKeys: ["matchExpressions"] },
);
const constraintsArb: fc.Arbitrary<Constraints> = fc.record({
  nodeSelector: fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 1 }),
  terms: fc.option(fc.array(termArb, { maxLength: 2 }), { nil: undefined }),
});

type Constraints = { nodeSelector: Record<string, string>; terms: NodeSelectorTerm[] | undefined };

/** The constraints and each of their terms alone: small cases (one pod term against one class term) are where bugs show. */
const variantsOf = (c: Constraints): Constraints[] => [c, ...(c.terms ?? []).map((term) => ({ nodeSelector: {}, terms: [term] }))];

describe("termsOutside is sound", () => {
  it("never admits a pod that the scheduler could place on a node outside its class (10,000 cases)", () => {
    let admitted = 0;
    fc.assert(
      fc.property(constraintsArb, constraintsArb, (podConstraints, classConstraints) => {
        for (const pod of variantsOf(podConstraints)) {
          for (const cls of variantsOf(classConstraints)) {
            if (termsOutside(placementOf(pod.nodeSelector, pod.terms), compilePlacement(placementOf(cls.nodeSelector, cls.terms))).length > 0) continue;
            admitted++;
            const escapes = UNIVERSE.find((node) => oracleMatches(node, pod.nodeSelector, pod.terms) && !oracleMatches(node, cls.nodeSelector, cls.terms));
            if (escapes) throw new Error(`admitted ${JSON.stringify(pod)} within ${JSON.stringify(cls)}, yet it may run on ${JSON.stringify(escapes)}`);
          }
        }
      }),
      { numRuns: 10_000 },
    );
    // Not vacuous: many generated pods are admitted (6,888 to 7,198 over six random seeds).
    expect(admitted).toBeGreaterThan(5_000);
  });
});

describe("terms pinned to one node (DaemonSet pods)", () => {
  const ZONE_KEY = "topology.kubernetes.io/zone";
  const twoZones = compilePlacement(placementOf(undefined, [
    { matchExpressions: [{ key: ZONE_KEY, operator: "In", values: ["dc1"] }] },
    { matchExpressions: [{ key: ZONE_KEY, operator: "In", values: ["dc2"] }] },
  ]));
  // What the DaemonSet controller writes in place of the template's node affinity.
  const pinnedTo = (node: string) => placementOf(undefined, [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }]);
  const nodes: Record<string, Record<string, string>> = { "node-a": { [ZONE_KEY]: "dc1" }, "node-c": { [ZONE_KEY]: "dc3" }, "node-x": {} };
  const lookup = (name: string) => nodes[name];

  it("admits a pod pinned to a known node inside the class", () => {
    expect(termsOutside(pinnedTo("node-a"), twoZones, lookup)).toEqual([]);
  });

  it("refuses a pod pinned to a known node outside the class, or to a node the snapshot does not know", () => {
    expect(termsOutside(pinnedTo("node-c"), twoZones, lookup)).toHaveLength(1);
    expect(termsOutside(pinnedTo("node-x"), twoZones, lookup)).toHaveLength(1);
    expect(termsOutside(pinnedTo("node-new"), twoZones, lookup)).toHaveLength(1);
    expect(termsOutside(pinnedTo("node-a"), twoZones)).toHaveLength(1);
  });

  it("stays sound against brute force when the snapshot knows some nodes' labels (10,000 cases)", () => {
    const labelSets = [...new Set(UNIVERSE.map((node) => JSON.stringify(node.labels)))].map((json) => JSON.parse(json) as Record<string, string>);
    const knownArb = fc.dictionary(fc.constantFrom(...NAMES), fc.constantFrom(...labelSets), { maxKeys: NAMES.length });
    const pinnedPods: Constraints[] = NAMES.map((name) => ({ nodeSelector: {}, terms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [name] }] }] }));
    let admittedByNode = 0;
    fc.assert(
      fc.property(constraintsArb, constraintsArb, knownArb, (podConstraints, classConstraints, known) => {
        // The cluster as the snapshot describes it: a known node has exactly the reported labels.
        const cluster = UNIVERSE.filter((node) => !Object.hasOwn(known, node.name) || JSON.stringify(known[node.name]) === JSON.stringify(node.labels));
        const lookup = (name: string) => (Object.hasOwn(known, name) ? known[name] : undefined);
        for (const pod of [...variantsOf(podConstraints), ...pinnedPods]) {
          for (const cls of variantsOf(classConstraints)) {
            const podPlacement = placementOf(pod.nodeSelector, pod.terms);
            const classPlacement = compilePlacement(placementOf(cls.nodeSelector, cls.terms));
            if (termsOutside(podPlacement, classPlacement, lookup).length > 0) continue;
            if (termsOutside(podPlacement, classPlacement).length > 0) admittedByNode++;
            const escapes = cluster.find((node) => oracleMatches(node, pod.nodeSelector, pod.terms) && !oracleMatches(node, cls.nodeSelector, cls.terms));
            if (escapes) throw new Error(`admitted ${JSON.stringify(pod)} within ${JSON.stringify(cls)} knowing ${JSON.stringify(known)}, yet it may run on ${JSON.stringify(escapes)}`);
          }
        }
      }),
      { numRuns: 10_000 },
    );
    // Not vacuous: node facts admit pods that implication alone could not (2,261 to 2,464 over six random seeds).
    expect(admittedByNode).toBeGreaterThan(1_000);
  });
});

describe("cost: linear in the pod, bounded by the class index", () => {
  const twoZones = { terms: [zoneIn("dc1"), zoneIn("dc2")] };
  const manyKeys = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`example.org/k${i}`, "v"]));

  it("splits on several keys: each combination may fit a different class term", () => {
    const rack = (...values: string[]) => ({ key: "rack", operator: "In" as const, values });
    const grid = { terms: ["dc1", "dc2"].flatMap((zone) => ["r1", "r2"].map((r) => ({ matchExpressions: [{ key: ZONE, operator: "In" as const, values: [zone] }, rack(r)] }))) };
    expect(within({ terms: [{ matchExpressions: [{ key: ZONE, operator: "In", values: ["dc1", "dc2"] }, rack("r1", "r2")] }] }, grid)).toBe(true);
    expect(within({ terms: [{ matchExpressions: [{ key: ZONE, operator: "In", values: ["dc1", "dc2"] }, rack("r1", "r3")] }] }, grid)).toBe(false);
  });

  it("judges thousands of terms over thousands of nodeSelector keys, each split", () => {
    const terms = Array.from({ length: 2_000 }, () => zoneIn(...Array.from({ length: 256 }, (_, i) => (i % 2 ? "dc1" : "dc2"))));
    expect(within({ nodeSelector: manyKeys, terms }, twoZones)).toBe(true);
    expect(within({ nodeSelector: manyKeys, terms: [...terms, zoneIn("dc1", "dc3")] }, twoZones)).toBe(false);
  });

  it("finds the one class term of a thousand that a pod implies", () => {
    const wide = { terms: Array.from({ length: 1_000 }, (_, i) => ({ matchExpressions: [{ key: ZONE, operator: "In" as const, values: [`z${i}`] }, { key: "pool", operator: "In" as const, values: [`p${i}`] }] })) };
    expect(within({ nodeSelector: { [ZONE]: "z999", pool: "p999" } }, wide)).toBe(true);
    expect(within({ nodeSelector: { [ZONE]: "z999", pool: "p998" } }, wide)).toBe(false);
    expect(within({ nodeSelector: { [ZONE]: "z3" }, terms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["p3"] }] }] }, wide)).toBe(true);
  });

  it("counts a term as outside once the work budget is spent, never as inside", () => {
    // 1,000 class terms a pod term on the zone must be tried against before the one it implies.
    const decoys = Array.from({ length: 1_000 }, (_, i) => ({ matchExpressions: [{ key: ZONE, operator: "NotIn" as const, values: [`z${i}`] }, { key: `other-${i}`, operator: "Exists" as const }] }));
    const cls = compilePlacement(placementOf(undefined, [...decoys, zoneIn("a")]));
    const term = zoneIn("a");
    expect(termsOutside(placementOf(undefined, [term]), cls)).toEqual([]);
    const outside = termsOutside(placementOf(undefined, Array(5_000).fill(term)), cls);
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.length).toBeLessThan(5_000);
  });
});
