// Node placement as the scheduler reads it (k8s.io/component-helpers
// nodeaffinity): a pod's nodeSelector ANDed with any one of its required
// nodeAffinity terms. And a sound test that one placement stays within another.
import type { NodeAffinity, NodeSelectorTerm } from "../schemas/index.js";

export type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

/** One requirement on a node label, or on a node field (`matchFields`: only `metadata.name`). */
export interface Requirement {
  key: string;
  operator: Operator;
  values: readonly string[];
  field?: boolean;
}
/** Requirements ANDed: the nodes one term admits. */
export type Conjunction = readonly Requirement[];
/** Conjunctions ORed: every node a pod may run on, or a class allows. An empty list admits no node. */
export type Placement = readonly Conjunction[];

export function requiredTermsOf(nodeAffinity: NodeAffinity | null | undefined): readonly NodeSelectorTerm[] | undefined {
  return nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
}

/**
 * The placement a nodeSelector and required node selector terms describe. No
 * terms: the nodeSelector alone. An empty term matches no node, as in the scheduler.
 */
export function placementOf(nodeSelector: Readonly<Record<string, string>> | null | undefined, terms: readonly NodeSelectorTerm[] | null | undefined): Placement {
  const selector: Requirement[] = Object.entries(nodeSelector ?? {}).map(([key, value]) => ({ key, operator: "In", values: [value] }));
  if (!terms || terms.length === 0) return [selector];
  return terms
    .filter((term) => (term.matchExpressions ?? []).length + (term.matchFields ?? []).length > 0)
    .map((term) => [
      ...selector,
      ...(term.matchExpressions ?? []).map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [] })),
      ...(term.matchFields ?? []).map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [], field: true })),
    ]);
}

const INTEGER = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A label value as Gt/Lt read it (Go's strconv.ParseInt base 10, 64 bits), or undefined. */
export function integerOf(value: string): bigint | undefined {
  if (!INTEGER.test(value)) return undefined;
  const n = BigInt(value);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Why the scheduler cannot use this requirement (it fails the whole term), or undefined. Label syntax is checked elsewhere. */
export function requirementProblem(r: Requirement): string | undefined {
  if (r.field) {
    if (r.key !== "metadata.name") return `matchFields supports only the key metadata.name, not "${r.key}"`;
    if (r.operator !== "In" && r.operator !== "NotIn") return `matchFields supports only In and NotIn, not ${r.operator}`;
    if (r.values.length !== 1) return `matchFields ${r.operator} needs exactly one value`;
    return undefined;
  }
  switch (r.operator) {
    case "In":
    case "NotIn":
      return r.values.length === 0 ? `${r.key} ${r.operator} needs at least one value` : undefined;
    case "Exists":
    case "DoesNotExist":
      return r.values.length > 0 ? `${r.key} ${r.operator} must have no values` : undefined;
    case "Gt":
    case "Lt":
      return r.values.length !== 1 || integerOf(r.values[0]!) === undefined ? `${r.key} ${r.operator} needs exactly one integer value` : undefined;
  }
}

/**
 * What one conjunction allows for one key. Over-approximates the values it
 * admits (every integer has infinitely many spellings, "7", "07", …; any
 * finite NotIn leaves infinitely many strings), which keeps every test below sound.
 */
interface KeyDomain {
  exists: boolean;
  doesNotExist: boolean;
  in?: Set<string>;
  notIn: Set<string>;
  gt?: bigint;
  lt?: bigint;
}

const keyId = (r: Requirement) => (r.field ? `\u0000field\u0000${r.key}` : r.key);
const emptyDomain = (): KeyDomain => ({ exists: false, doesNotExist: false, notIn: new Set() });

const hasBounds = (d: KeyDomain) => d.gt !== undefined || d.lt !== undefined;
const absentAllowed = (d: KeyDomain) => !d.exists && !d.in && !hasBounds(d);

function valueAllowed(d: KeyDomain, value: string): boolean {
  if (d.doesNotExist || d.notIn.has(value) || (d.in && !d.in.has(value))) return false;
  if (!hasBounds(d)) return true;
  const n = integerOf(value);
  return n !== undefined && (d.gt === undefined || n > d.gt) && (d.lt === undefined || n < d.lt);
}

/** The values a domain admits, or undefined when there are infinitely many. */
function allowedValues(d: KeyDomain): string[] | undefined {
  if (d.doesNotExist) return [];
  if (d.in) return [...d.in].filter((v) => valueAllowed(d, v));
  if (d.gt !== undefined && d.lt !== undefined && d.gt + 1n >= d.lt) return [];
  return undefined;
}

const someValueAllowed = (d: KeyDomain) => allowedValues(d)?.length !== 0;

/** Per-key domains of a conjunction, or undefined when it admits no node. Requirements the scheduler cannot use constrain nothing. */
function domainsOf(conjunction: Conjunction): Map<string, KeyDomain> | undefined {
  const domains = new Map<string, KeyDomain>();
  for (const r of conjunction) {
    const id = keyId(r);
    const d = domains.get(id) ?? emptyDomain();
    domains.set(id, d);
    // Every node has its fields (metadata.name).
    if (r.field) d.exists = true;
    if (requirementProblem(r)) continue;
    switch (r.operator) {
      case "In":
        d.in = new Set(d.in ? r.values.filter((v) => d.in!.has(v)) : r.values);
        break;
      case "NotIn":
        for (const v of r.values) d.notIn.add(v);
        break;
      case "Exists":
        d.exists = true;
        break;
      case "DoesNotExist":
        d.doesNotExist = true;
        break;
      case "Gt": {
        const n = integerOf(r.values[0]!)!;
        if (d.gt === undefined || n > d.gt) d.gt = n;
        break;
      }
      case "Lt": {
        const n = integerOf(r.values[0]!)!;
        if (d.lt === undefined || n < d.lt) d.lt = n;
        break;
      }
    }
  }
  for (const d of domains.values()) if (!absentAllowed(d) && !someValueAllowed(d)) return undefined;
  return domains;
}

/** Whether every value (or absence) `d` admits satisfies `r`. A requirement the scheduler cannot use admits nothing. */
function domainImplies(d: KeyDomain, r: Requirement): boolean {
  if (requirementProblem(r)) return false;
  const values = allowedValues(d);
  const present = !absentAllowed(d);
  switch (r.operator) {
    case "Exists":
      return present;
    case "DoesNotExist":
      return values?.length === 0;
    case "In":
      return present && values !== undefined && values.every((v) => r.values.includes(v));
    case "NotIn":
      return r.values.every((v) => !valueAllowed(d, v));
    case "Gt":
    case "Lt": {
      const bound = integerOf(r.values[0]!)!;
      const beyond = (n: bigint | undefined) => n !== undefined && (r.operator === "Gt" ? n > bound : n < bound);
      if (!present) return false;
      if (values !== undefined) return values.every((v) => beyond(integerOf(v)));
      // Infinitely many integers: only the domain's own bound can keep them all beyond.
      return r.operator === "Gt" ? d.gt !== undefined && d.gt >= bound : d.lt !== undefined && d.lt <= bound;
    }
  }
}

function impliesWithin(domains: Map<string, KeyDomain>, conjunction: Conjunction): boolean {
  return conjunction.every((r) => domainImplies(domains.get(keyId(r)) ?? emptyDomain(), r));
}

/** Whether every node `premise` admits satisfies `conclusion` (true when `premise` admits none). */
export function implies(premise: Conjunction, conclusion: Conjunction): boolean {
  const domains = domainsOf(premise);
  return !domains || impliesWithin(domains, conclusion);
}

/** How many sub-terms splitting one pod term on its In values may produce before giving up (unproven counts as outside). */
const SPLIT_BUDGET = 256;

/** A node the snapshot knows: its name and the labels the class constrains. */
export interface KnownNode {
  name: string;
  labels: Readonly<Record<string, string>>;
}

/** Whether `node` satisfies every requirement of `conjunction` (the scheduler's rules; an unusable requirement fails). */
export function admits(conjunction: Conjunction, node: KnownNode): boolean {
  return conjunction.every((r) => {
    if (requirementProblem(r)) return false;
    const has = r.field ? true : Object.hasOwn(node.labels, r.key);
    const value = r.field ? node.name : node.labels[r.key];
    switch (r.operator) {
      case "In":
        return has && r.values.includes(value!);
      case "NotIn":
        return !has || !r.values.includes(value!);
      case "Exists":
        return has;
      case "DoesNotExist":
        return !has;
      case "Gt":
      case "Lt": {
        const n = has ? integerOf(value!) : undefined;
        const bound = integerOf(r.values[0]!)!;
        return n !== undefined && (r.operator === "Gt" ? n > bound : n < bound);
      }
    }
  });
}

/** The one node a term pins by name (`matchFields metadata.name In [n]`, as the DaemonSet controller writes), if any. */
function pinnedNodeName(term: Conjunction): string | undefined {
  return term.find((r) => r.field && r.key === "metadata.name" && r.operator === "In" && !requirementProblem(r))?.values[0];
}

function covered(term: Conjunction, within: Placement, budget: { left: number }, nodeLabels: NodeLabels): boolean {
  const domains = domainsOf(term);
  if (!domains || within.some((c) => impliesWithin(domains, c))) return true;
  // A term pinned to a known node admits at most that node: it is covered when that node is inside.
  const pinned = pinnedNodeName(term);
  const labels = pinned === undefined ? undefined : nodeLabels(pinned);
  if (pinned !== undefined && labels) return within.some((c) => admits(c, { name: pinned, labels }));
  // `zone In (dc1,dc2)` is `zone=dc1` or `zone=dc2`: each may fit a different term of `within`.
  const at = term.findIndex((r) => r.operator === "In" && r.values.length > 1 && !requirementProblem(r));
  const split = term[at];
  if (!split || budget.left < split.values.length) return false;
  budget.left -= split.values.length;
  return split.values.every((v) => covered(term.with(at, { ...split, values: [v] }), within, budget, nodeLabels));
}

/**
 * The labels of a node by name, for the keys `within` constrains; undefined
 * for a node nobody reported. Only trusted for terms that pin one node.
 */
export type NodeLabels = (name: string) => Readonly<Record<string, string>> | undefined;

const noNodes: NodeLabels = () => undefined;

/**
 * The terms of `placement` not shown to stay within `within`: each must imply
 * one single conjunction of `within` (after splitting its multi-valued In
 * requirements) or admit no node; a term pinned by name to a node in
 * `nodeLabels` is judged by that node's labels. Sound (given current node
 * labels): an empty answer means no node `placement` admits lies outside
 * `within`; incomplete for exotic unions.
 */
export function termsOutside(placement: Placement, within: Placement, nodeLabels: NodeLabels = noNodes): Conjunction[] {
  return placement.filter((term) => !covered(term, within, { left: SPLIT_BUDGET }, nodeLabels));
}

export function describeRequirement(r: Requirement): string {
  const key = r.field ? `field:${r.key}` : r.key;
  switch (r.operator) {
    case "In":
      return r.values.length === 1 ? `${key}=${r.values[0]}` : `${key} in (${r.values.join(",")})`;
    case "NotIn":
      return r.values.length === 1 ? `${key}!=${r.values[0]}` : `${key} notin (${r.values.join(",")})`;
    case "Exists":
      return key;
    case "DoesNotExist":
      return `!${key}`;
    case "Gt":
      return `${key}>${r.values.join(",")}`;
    case "Lt":
      return `${key}<${r.values.join(",")}`;
  }
}

export function describeConjunction(conjunction: Conjunction): string {
  return conjunction.length === 0 ? "{any node}" : `{${conjunction.map(describeRequirement).join(", ")}}`;
}

export function describePlacement(placement: Placement): string {
  return placement.length === 0 ? "{no node}" : placement.map(describeConjunction).join(" or ");
}
