// Node placement as the scheduler reads it (k8s.io/component-helpers
// nodeaffinity): a pod's nodeSelector ANDed with any one of its required
// nodeAffinity terms. And a sound test that one placement stays within another
// in time linear in the pod: the nodeSelector is decoded once, not copied into
// every term; a class (from the snapshot) is compiled once and indexed, so a
// pod term is tried only against the class terms it could imply; and all the
// work one review may do is bounded by a budget proportional to its size.
import type { NodeAffinity, NodeSelectorTerm } from "../schemas/index.js";
import { capped } from "../../text/index.js";

export type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

/** One requirement on a node label, or on a node field (`matchFields`: only `metadata.name`). */
export interface Requirement {
  key: string;
  operator: Operator;
  values: readonly string[];
  field?: boolean;
}
/** Requirements ANDed: the nodes one term admits. */
type Conjunction = readonly Requirement[];

/**
 * Every node a pod may run on, or a class allows: the `selector` (a
 * nodeSelector) ANDed with any one of `terms`. No required terms in the object
 * gives one empty term (the selector alone); an empty `terms` admits no node.
 */
interface Placement {
  selector: Conjunction;
  terms: readonly Conjunction[];
}

export function requiredTermsOf(nodeAffinity: NodeAffinity | null | undefined): readonly NodeSelectorTerm[] | undefined {
  return nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
}

/** The placement a nodeSelector and required node selector terms describe. An empty term matches no node, as in the scheduler. */
export function placementOf(nodeSelector: Readonly<Record<string, string>> | null | undefined, terms: readonly NodeSelectorTerm[] | null | undefined): Placement {
  const selector: Requirement[] = Object.entries(nodeSelector ?? {}).map(([key, value]) => ({ key, operator: "In", values: [value] }));
  if (!terms || terms.length === 0) return { selector, terms: [[]] };
  return {
    selector,
    terms: terms
      .filter((term) => (term.matchExpressions ?? []).length + (term.matchFields ?? []).length > 0)
      .map((term) => [
        ...(term.matchExpressions ?? []).map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [] })),
        ...(term.matchFields ?? []).map((r) => ({ key: r.key, operator: r.operator, values: r.values ?? [], field: true })),
      ]),
  };
}

const INTEGER = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A label value as Gt/Lt read it (Go's strconv.ParseInt base 10, 64 bits), or undefined. */
export function integerOf(value: string): bigint | undefined {
  if (!INTEGER.test(value)) return undefined;
  // Leading zeros are fine; more than 19 digits after them never fit 64 bits (and a long BigInt parse costs more than linear time).
  const sign = value[0] === "-" || value[0] === "+" ? 1 : 0;
  let start = sign;
  while (start < value.length - 1 && value[start] === "0") start++;
  if (value.length - start > 19) return undefined;
  const n = BigInt(value.slice(start)) * (value[0] === "-" ? -1n : 1n);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Why the scheduler cannot use this requirement (it fails the whole term), or undefined. Label syntax is checked elsewhere. */
export function requirementProblem(r: Requirement): string | undefined {
  if (r.field) {
    if (r.key !== "metadata.name") return `matchFields supports only the key metadata.name, not "${capped(r.key)}"`;
    if (r.operator !== "In" && r.operator !== "NotIn") return `matchFields supports only In and NotIn, not ${r.operator}`;
    if (r.values.length !== 1) return `matchFields ${r.operator} needs exactly one value`;
    return undefined;
  }
  switch (r.operator) {
    case "In":
    case "NotIn":
      return r.values.length === 0 ? `${capped(r.key)} ${r.operator} needs at least one value` : undefined;
    case "Exists":
    case "DoesNotExist":
      return r.values.length > 0 ? `${capped(r.key)} ${r.operator} must have no values` : undefined;
    case "Gt":
    case "Lt":
      return r.values.length !== 1 || integerOf(r.values[0]!) === undefined ? `${capped(r.key)} ${r.operator} needs exactly one integer value` : undefined;
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
  /** allowedValues, once worked out: a domain is not changed after it is read. */
  allowed?: readonly string[] | null;
}

const keyId = (r: Requirement) => (r.field ? `\u0000field\u0000${r.key}` : r.key);
const emptyDomain = (): KeyDomain => ({ exists: false, doesNotExist: false, notIn: new Set() });
const UNCONSTRAINED: KeyDomain = emptyDomain();
const copyOf = (d: KeyDomain): KeyDomain => ({ ...d, notIn: new Set(d.notIn), ...(d.in ? { in: new Set(d.in) } : {}), allowed: undefined });

const hasBounds = (d: KeyDomain) => d.gt !== undefined || d.lt !== undefined;
const absentAllowed = (d: KeyDomain) => !d.exists && !d.in && !hasBounds(d);

function valueAllowed(d: KeyDomain, value: string): boolean {
  if (d.doesNotExist || d.notIn.has(value) || (d.in && !d.in.has(value))) return false;
  if (!hasBounds(d)) return true;
  const n = integerOf(value);
  return n !== undefined && (d.gt === undefined || n > d.gt) && (d.lt === undefined || n < d.lt);
}

/** The values a domain admits, or undefined when there are infinitely many. */
function allowedValues(d: KeyDomain): readonly string[] | undefined {
  if (d.allowed === undefined) {
    if (d.doesNotExist) d.allowed = [];
    else if (d.in) d.allowed = [...d.in].filter((v) => valueAllowed(d, v));
    else d.allowed = d.gt !== undefined && d.lt !== undefined && d.gt + 1n >= d.lt ? [] : null;
  }
  return d.allowed ?? undefined;
}

const admitsNoNode = (d: KeyDomain) => !absentAllowed(d) && allowedValues(d)?.length === 0;

/** Narrows `d` by `r`, in place. Requirements the scheduler cannot use constrain nothing here (they fail their term elsewhere). */
function restrict(d: KeyDomain, r: Requirement): void {
  // Every node has its fields (metadata.name).
  if (r.field) d.exists = true;
  if (requirementProblem(r)) return;
  switch (r.operator) {
    case "In": {
      const previous = d.in;
      d.in = new Set(previous ? r.values.filter((v) => previous.has(v)) : r.values);
      break;
    }
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

/**
 * Per-key domains in layers: a term's own over the nodeSelector's, a split
 * value's over the term's. A layer never copies what lies below it.
 */
class Domains {
  readonly own = new Map<string, KeyDomain>();
  constructor(private readonly below?: Domains) {}

  get(id: string): KeyDomain {
    return this.own.get(id) ?? this.below?.get(id) ?? UNCONSTRAINED;
  }

  /** Adds `conjunction`'s requirements to this layer; false when it then admits no node. */
  add(conjunction: Conjunction): boolean {
    for (const r of conjunction) {
      const id = keyId(r);
      let d = this.own.get(id);
      if (!d) {
        const below = this.below?.get(id);
        d = below ? copyOf(below) : emptyDomain();
        this.own.set(id, d);
      }
      restrict(d, r);
    }
    for (const d of this.own.values()) if (admitsNoNode(d)) return false;
    return true;
  }
}

/** A requirement of a compiled class, with its values as a set. */
interface ClassRequirement extends Requirement {
  set: ReadonlySet<string>;
}
type ClassTerm = readonly ClassRequirement[];

/** Whether every value (or absence) `d` admits satisfies `r`. */
function domainImplies(d: KeyDomain, r: ClassRequirement): boolean {
  const values = allowedValues(d);
  const present = !absentAllowed(d);
  switch (r.operator) {
    case "Exists":
      return present;
    case "DoesNotExist":
      return values?.length === 0;
    case "In":
      return present && values !== undefined && values.every((v) => r.set.has(v));
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

/**
 * A class placement made ready for many pods: each class term with the class
 * selector merged in (terms that admit no node dropped), indexed by one of its
 * requirements. A pod term can only imply a class term whose every key it
 * constrains; for an `In` the pod's allowed values must all be listed, so any
 * one of them finds the term.
 */
export interface CompiledPlacement {
  placement: Placement;
  /** Class terms with no requirement: they admit every node. */
  everywhere: readonly ClassTerm[];
  /** Key → value → class terms indexed by their `key In (…, value, …)`. */
  byValue: ReadonlyMap<string, ReadonlyMap<string, readonly ClassTerm[]>>;
  /** Key → class terms indexed by another requirement on that key. */
  byKey: ReadonlyMap<string, readonly ClassTerm[]>;
  terms: readonly ClassTerm[];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function compilePlacement(placement: Placement): CompiledPlacement {
  const byValue = new Map<string, Map<string, ClassTerm[]>>();
  const byKey = new Map<string, ClassTerm[]>();
  const everywhere: ClassTerm[] = [];
  const terms: ClassTerm[] = [];
  for (const term of placement.terms) {
    const merged = [...placement.selector, ...term];
    // A term the scheduler cannot use, or that admits no node, adds no node to the class.
    if (merged.some((r) => requirementProblem(r)) || !new Domains().add(merged)) continue;
    const compiled: ClassTerm = merged.map((r) => ({ ...r, set: new Set(r.values) }));
    terms.push(compiled);
    const witness = compiled.filter((r) => r.operator === "In").sort((a, b) => a.set.size - b.set.size)[0] ?? compiled[0];
    if (!witness) everywhere.push(compiled);
    else if (witness.operator === "In") {
      let values = byValue.get(keyId(witness));
      if (!values) byValue.set(keyId(witness), (values = new Map()));
      for (const value of witness.set) push(values, value, compiled);
    } else push(byKey, keyId(witness), compiled);
  }
  return { placement, everywhere, byValue, byKey, terms };
}

/** The labels of a node by name, for the keys classes constrain; undefined for a node nobody reported. */
export type NodeLabels = (name: string) => Readonly<Record<string, string>> | undefined;

/** Whether `node` satisfies every requirement of `conjunction` (the scheduler's rules; an unusable requirement fails). */
export function admits(conjunction: Conjunction, node: { name: string; labels: Readonly<Record<string, string>> }): boolean {
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

/** A pod term found not to stay within the class. */
interface OutsideTerm {
  /** The term's own requirements; the pod's selector applies too. */
  requirements: Conjunction;
  /** Whether every node the term admits (selector included) satisfies `r`: what a message may say is missing. */
  guarantees(r: Requirement): boolean;
}

/** Work units one review may spend, beyond a share per requirement and value of the pod. */
const BASE_WORK = 200_000;
const WORK_PER_UNIT = 64;

/** The class terms a layer of domains could imply, through the keys that layer constrains. */
function candidatesOf(domains: Domains, cls: CompiledPlacement, into: Set<ClassTerm>): void {
  for (const [id, d] of domains.own) {
    for (const term of cls.byKey.get(id) ?? []) into.add(term);
    const first = allowedValues(d)?.[0];
    if (first !== undefined) for (const term of cls.byValue.get(id)?.get(first) ?? []) into.add(term);
  }
}

class Judge {
  /** Work left; when it runs out, what is not yet shown inside counts as outside (sound). */
  left: number;
  readonly base = new Domains();
  readonly baseAdmitsNoNode: boolean;
  readonly baseCandidates = new Set<ClassTerm>();

  constructor(
    readonly pod: Placement,
    readonly cls: CompiledPlacement,
    readonly nodeLabels: NodeLabels,
  ) {
    let size = pod.selector.length;
    for (const term of pod.terms) for (const r of term) size += 1 + r.values.length;
    this.left = BASE_WORK + WORK_PER_UNIT * size;
    this.baseAdmitsNoNode = !this.base.add(pod.selector);
    candidatesOf(this.base, cls, this.baseCandidates);
    for (const term of cls.everywhere) this.baseCandidates.add(term);
  }

  /** Whether some candidate class term is implied by `domains`. */
  impliesOne(domains: Domains, ...candidates: Array<Iterable<ClassTerm>>): boolean {
    for (const list of candidates) {
      for (const term of list) {
        this.left -= 1 + term.length;
        if (this.left < 0) return false;
        if (term.every((r) => domainImplies(domains.get(keyId(r)), r))) return true;
      }
    }
    return false;
  }

  /** The selector alone stays inside: then so does every term, which only narrows it. */
  selectorInside(): boolean {
    return this.baseAdmitsNoNode || this.impliesOne(this.base, this.baseCandidates);
  }

  covered(term: Conjunction): boolean {
    this.left -= 1 + term.length;
    if (this.left < 0) return false;
    const domains = new Domains(this.base);
    if (!domains.add(term)) return true;
    const candidates = new Set<ClassTerm>();
    candidatesOf(domains, this.cls, candidates);
    if (this.impliesOne(domains, this.baseCandidates, candidates)) return true;
    // A term pinned to a known node admits at most that node: it is covered when that node is inside.
    const pinned = term.find((r) => r.field && r.key === "metadata.name" && r.operator === "In" && !requirementProblem(r))?.values[0];
    const labels = pinned === undefined ? undefined : this.nodeLabels(pinned);
    if (pinned !== undefined && labels) {
      return this.cls.terms.some((c) => {
        this.left -= 1 + c.length;
        return this.left >= 0 && admits(c, { name: pinned, labels });
      });
    }
    // Keys whose values can be split: splitting one key leaves the others' values as they are.
    const splittable = [...domains.own.keys()].filter((id) => (allowedValues(domains.get(id))?.length ?? 0) > 1);
    return this.coveredBySplitting(domains, splittable, 0, [candidates]);
  }

  /** `zone In (dc1,dc2)` is `zone=dc1` or `zone=dc2`: each may fit a different class term. */
  coveredBySplitting(domains: Domains, splittable: readonly string[], next: number, candidates: ReadonlyArray<Iterable<ClassTerm>>): boolean {
    const key = splittable[next];
    if (key === undefined) return false;
    return allowedValues(domains.get(key))!.every((value) => {
      this.left -= 1;
      if (this.left < 0) return false;
      const one = new Domains(domains);
      // Only `value` is left for the key: present, and the one value the term allowed.
      one.own.set(key, { exists: true, doesNotExist: false, in: new Set([value]), notIn: new Set(), allowed: [value] });
      const more = [...candidates, this.cls.byValue.get(key)?.get(value) ?? []];
      return this.impliesOne(one, this.baseCandidates, ...more) || this.coveredBySplitting(one, splittable, next + 1, more);
    });
  }

  outside(term: Conjunction): OutsideTerm {
    const domains = new Domains(this.base);
    domains.add(term);
    return {
      requirements: term,
      guarantees: (r) => !requirementProblem(r) && domainImplies(domains.get(keyId(r)), { ...r, set: new Set(r.values) }),
    };
  }
}

/**
 * The terms of the pod's placement not shown to stay within the class: each
 * must imply one single class term (after splitting its multi-valued In
 * requirements) or admit no node; a term pinned by name to a node
 * `nodeLabels` knows is judged by that node's labels. Sound (given current
 * node labels): an empty answer means no node the pod may use lies outside
 * the class; incomplete for exotic unions, and past the work budget, where
 * terms count as outside.
 */
export function termsOutside(pod: Placement, cls: CompiledPlacement, nodeLabels: NodeLabels = () => undefined): OutsideTerm[] {
  const judge = new Judge(pod, cls, nodeLabels);
  if (judge.selectorInside()) return [];
  return pod.terms.filter((term) => !judge.covered(term)).map((term) => judge.outside(term));
}

/** How many requirements, and how many class terms, a message prints before it counts the rest. */
const MAX_DESCRIBED = 4;

export function describeRequirement(r: Requirement): string {
  const key = capped(r.field ? `field:${r.key}` : r.key);
  const values = r.values.slice(0, MAX_DESCRIBED).map((v) => capped(v)).join(",") + (r.values.length > MAX_DESCRIBED ? ",…" : "");
  switch (r.operator) {
    case "In":
      return r.values.length === 1 ? `${key}=${values}` : `${key} in (${values})`;
    case "NotIn":
      return r.values.length === 1 ? `${key}!=${values}` : `${key} notin (${values})`;
    case "Exists":
      return key;
    case "DoesNotExist":
      return `!${key}`;
    case "Gt":
      return `${key}>${values}`;
    case "Lt":
      return `${key}<${values}`;
  }
}

/** `{a=1, b in (x,y), …and 3 more}`: the first few requirements of one term, selector first. */
export function describeConjunction(...parts: Conjunction[]): string {
  const total = parts.reduce((n, part) => n + part.length, 0);
  if (total === 0) return "{any node}";
  const shown: string[] = [];
  for (const part of parts) for (const r of part.slice(0, MAX_DESCRIBED - shown.length)) shown.push(describeRequirement(r));
  return `{${shown.join(", ")}${total > shown.length ? `, …and ${total - shown.length} more` : ""}}`;
}

/** `{…} or {…} or 3 more terms`. */
export function describePlacement(placement: Placement): string {
  if (placement.terms.length === 0) return "{no node}";
  const shown = placement.terms.slice(0, MAX_DESCRIBED).map((term) => describeConjunction(placement.selector, term)).join(" or ");
  return placement.terms.length > MAX_DESCRIBED ? `${shown} or ${placement.terms.length - MAX_DESCRIBED} more terms` : shown;
}
