// Whether a ValidatingAdmissionPolicy's matchConstraints, or a binding's
// matchResources, select a request: the apiserver's rules
// (k8s.io/apiserver policy/matching, webhook/predicates), with one
// difference forced by the edge: namespace labels come from the snapshot.
import type { AdmissionRequest } from "../../admission/index.js";
import { NAMESPACE_NAME_LABEL, selectorIsEmpty, selectorKeys, selectorMatches, type Labels } from "../../k8s/labels/index.js";
import type { LabelSelector } from "../../k8s/schemas/index.js";
import { isStringMap } from "../../zod/unchanged.js";
import type { MatchResources, NamedRule } from "../schema/index.js";

/** What matching needs to know of the cluster: a namespace's labels, or undefined when the snapshot does not have it. */
export type NamespaceLabels = (name: string) => Labels | undefined;

type MatchResult = { matches: boolean; error?: undefined } | { matches: false; error: string };

const NAMESPACES = "namespaces";

/** Resources the apiserver serves under more than one group: with matchPolicy Equivalent a rule for one matches the other. */
const CROSS_GROUP_EQUIVALENTS: ReadonlyArray<readonly [string, string]> = [["", "events.k8s.io"]];

/** A rule list as a set; undefined when it holds "*" (any value). */
type Listed = ReadonlySet<string> | undefined;

const listOf = (values: readonly string[]): Listed => (values.includes("*") ? undefined : new Set(values));
const listed = (list: Listed, value: string): boolean => list === undefined || list.has(value);

// A NamedRule, read once per policy set: its lists as sets, its `resources`
// entries split at the slash: "*" (every resource, no subresource), "*/*"
// (everything), "pods/*", "*/status", "pods/status".
interface PreparedRule {
  operations: Listed;
  apiGroups: Listed;
  apiVersions: Listed;
  /** The resources an entry names without a subresource or with "/*", which also take the resource itself; undefined when one is "*". */
  resources: Listed;
  /** Every entry as [resource, subresource] ("" when it names none), for requests of a subresource. */
  entries: ReadonlyArray<readonly [string, string]>;
  scope: NamedRule["scope"];
  resourceNames: readonly string[];
}

function prepareRule(rule: NamedRule): PreparedRule {
  const entries = rule.resources.map((entry): readonly [string, string] => {
    const slash = entry.indexOf("/");
    return slash < 0 ? [entry, ""] : [entry.slice(0, slash), entry.slice(slash + 1)];
  });
  // An entry with no subresource or "/*" also names the resource itself.
  const whole = entries.filter(([, sub]) => sub === "" || sub === "*").map(([res]) => res);
  return {
    operations: listOf(rule.operations),
    apiGroups: listOf(rule.apiGroups),
    apiVersions: listOf(rule.apiVersions),
    resources: listOf(whole),
    entries,
    scope: rule.scope,
    resourceNames: rule.resourceNames,
  };
}

function resourceMatches(rule: PreparedRule, resource: string, subResource: string): boolean {
  if (subResource === "") return listed(rule.resources, resource);
  for (const [res, sub] of rule.entries) if ((sub === "*" || sub === subResource) && (res === "*" || res === resource)) return true;
  return false;
}

/** matchResources criteria read once per policy set (prepareMatch), so a request pays only for what they ask. */
export interface PreparedMatch {
  /** Undefined when empty: it selects everything. */
  namespaceSelector: LabelSelector | undefined;
  objectSelector: LabelSelector | undefined;
  excludeResourceRules: readonly PreparedRule[];
  resourceRules: readonly PreparedRule[];
  equivalent: boolean;
  /** Its place among a MatchCriteria's distinct criteria, under which a RequestMatcher keeps its result. */
  index?: number;
}

export function prepareMatch(criteria: MatchResources, index?: number): PreparedMatch {
  const selector = (s: LabelSelector | undefined) => (s === undefined || selectorIsEmpty(s) ? undefined : s);
  return {
    namespaceSelector: selector(criteria.namespaceSelector),
    objectSelector: selector(criteria.objectSelector),
    excludeResourceRules: criteria.excludeResourceRules.map(prepareRule),
    resourceRules: criteria.resourceRules.map(prepareRule),
    equivalent: criteria.matchPolicy === "Equivalent",
    ...(index === undefined ? {} : { index }),
  };
}

/**
 * A policy set's criteria, each distinct one prepared once: policies of one
 * library share their matchConstraints, bindings their selectors (kubescape's
 * 60 policies and bindings have 18 distinct criteria among 120), and a
 * RequestMatcher matches a request against each distinct one once.
 */
export class MatchCriteria {
  readonly #prepared = new Map<string, PreparedMatch>();

  prepare(criteria: MatchResources): PreparedMatch {
    const key = JSON.stringify(criteria);
    let prepared = this.#prepared.get(key);
    if (prepared === undefined) this.#prepared.set(key, (prepared = prepareMatch(criteria, this.#prepared.size)));
    return prepared;
  }
}

/** What rules are matched against: the request's resource, taken once per request. */
interface RuleTarget {
  group: string;
  version: string;
  resource: string;
  subResource: string;
  namespace: string;
  operation: string;
  /** The groups serving the same resource: its own and, for a few, a twin (events). */
  groups: readonly string[];
}

/**
 * rules.Matcher: operation, group, version, resource (with subresource) and
 * scope, against the target's resource under `group`; `anyVersion` reads the
 * rule as if its apiVersions were ["*"].
 */
function ruleMatches(rule: PreparedRule, target: RuleTarget, group: string, anyVersion: boolean): boolean {
  if (!listed(rule.operations, target.operation)) return false;
  if (!listed(rule.apiGroups, group) || (!anyVersion && !listed(rule.apiVersions, target.version))) return false;
  if (!resourceMatches(rule, target.resource, target.subResource)) return false;
  // A Namespace object is cluster-scoped, though the request names it as its namespace.
  if (rule.scope === "Namespaced") return target.resource !== NAMESPACES && target.namespace !== "";
  if (rule.scope === "Cluster") return target.resource === NAMESPACES || target.namespace === "";
  return true;
}

/** A rule's resourceNames, when given, name the object. */
const names = (rule: PreparedRule, name: string) => rule.resourceNames.length === 0 || rule.resourceNames.includes(name);

function targetOf(request: AdmissionRequest): RuleTarget {
  const group = request.resource?.group ?? request.kind.group;
  return {
    group,
    version: request.resource?.version ?? request.kind.version,
    resource: request.resource?.resource ?? "",
    subResource: request.subResource ?? "",
    namespace: request.namespace ?? "",
    operation: request.operation,
    groups: equivalentGroups(group),
  };
}

/** The groups serving the same resource: its own and, for a few, a twin (events). */
function equivalentGroups(group: string): string[] {
  return [group, ...CROSS_GROUP_EQUIVALENTS.flatMap(([a, b]) => (group === a ? [b] : group === b ? [a] : []))];
}

function labelsOf(object: unknown): Labels | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const labels = (object as { metadata?: { labels?: unknown } }).metadata?.labels;
  if (labels === undefined || labels === null) return {};
  if (typeof labels !== "object" || Array.isArray(labels)) return undefined;
  // Labels some policy's decode already walked are not walked again.
  if (isStringMap(labels)) return labels;
  for (const key in labels) if (Object.hasOwn(labels, key) && typeof (labels as Record<string, unknown>)[key] !== "string") return undefined;
  return labels as Labels;
}

const MATCHES: MatchResult = { matches: true };
const NO_MATCH: MatchResult = { matches: false };
/** Not looked up yet (undefined is a lookup's answer: the snapshot lacks the namespace). */
const UNREAD = Symbol("unread");

/**
 * One request, matched against every policy's matchConstraints and every
 * binding's matchResources of a review: what matching reads of the request
 * (its resource, its objects' labels, its namespace's labels) is taken once.
 */
export class RequestMatcher {
  readonly #request: AdmissionRequest;
  readonly #namespaceLabels: NamespaceLabels;
  readonly #target: RuleTarget;
  #objectLabels: Labels | undefined | typeof UNREAD = UNREAD;
  #oldObjectLabels: Labels | undefined | typeof UNREAD = UNREAD;
  #ownLabels: Labels | undefined | typeof UNREAD = UNREAD;
  #snapshotLabels: Labels | undefined | typeof UNREAD = UNREAD;

  /** Results by criteria index (PreparedMatch.index): one matcher takes the criteria of one MatchCriteria. */
  readonly #results: MatchResult[] = [];

  constructor(request: AdmissionRequest, namespaceLabels: NamespaceLabels) {
    this.#request = request;
    this.#namespaceLabels = namespaceLabels;
    this.#target = targetOf(request);
  }

  /**
   * matching.Matcher.Matches: the selectors (whose errors only count when the
   * rules otherwise match), then excludeResourceRules, then resourceRules (all
   * resources when none are given, as for a binding's matchResources).
   */
  matches(criteria: PreparedMatch): MatchResult {
    if (criteria.index === undefined) return this.#matches(criteria);
    return (this.#results[criteria.index] ??= this.#matches(criteria));
  }

  #matches(criteria: PreparedMatch): MatchResult {
    const namespace = criteria.namespaceSelector === undefined ? MATCHES : this.#namespaceSelectorMatches(criteria.namespaceSelector);
    if (!namespace.matches && namespace.error === undefined) return NO_MATCH;
    if (criteria.objectSelector !== undefined && !this.#objectSelectorMatches(criteria.objectSelector)) return NO_MATCH;
    if (this.#rulesMatch(criteria.excludeResourceRules, criteria.equivalent)) return NO_MATCH;
    if (criteria.resourceRules.length > 0 && !this.#rulesMatch(criteria.resourceRules, criteria.equivalent)) return NO_MATCH;
    return namespace.error !== undefined ? namespace : MATCHES;
  }

  /**
   * namespace.Matcher: cluster-scoped objects other than Namespaces always
   * match; a Namespace written is judged by its own labels. A namespace the
   * snapshot lacks is still known by its name (the apiserver labels every
   * namespace with NAMESPACE_NAME_LABEL), so a selector on that label alone
   * decides; one that needs any other label is an error naming what is missing.
   */
  #namespaceSelectorMatches(selector: LabelSelector): MatchResult {
    const { resource, namespace } = this.#target;
    if (namespace === "" && resource !== NAMESPACES) return MATCHES;
    const labels = this.#namespaceLabelsOf();
    if (labels !== undefined) return selectorMatches(selector, labels) ? MATCHES : NO_MATCH;
    const missing = selectorKeys(selector).filter((key) => key !== NAMESPACE_NAME_LABEL);
    if (missing.length === 0) return { matches: selectorMatches(selector, { [NAMESPACE_NAME_LABEL]: namespace }) };
    const shown = missing.slice(0, 5).map((key) => key.slice(0, 317));
    return {
      matches: false,
      error: `namespace "${namespace.slice(0, 253)}" is not in the snapshot, so only its name is known; the namespaceSelector needs its label ${shown.join(", ")}${missing.length > shown.length ? ` and ${missing.length - shown.length} more` : ""}`,
    };
  }

  /** A Namespace written: its own labels; anything else: its namespace's labels in the snapshot. */
  #namespaceLabelsOf(): Labels | undefined {
    const request = this.#request;
    if (this.#target.resource === NAMESPACES && !request.subResource && (request.operation === "CREATE" || request.operation === "UPDATE")) {
      if (this.#ownLabels === UNREAD) this.#ownLabels = labelsOf(request.object) ?? {};
      return this.#ownLabels;
    }
    if (this.#snapshotLabels === UNREAD) this.#snapshotLabels = this.#namespaceLabels(this.#target.namespace);
    return this.#snapshotLabels;
  }

  /** object.Matcher: the object's or the old object's labels; an absent object does not match a non-empty selector. */
  #objectSelectorMatches(selector: LabelSelector): boolean {
    if (this.#objectLabels === UNREAD) this.#objectLabels = labelsOf(this.#request.object);
    if (this.#objectLabels !== undefined && selectorMatches(selector, this.#objectLabels)) return true;
    if (this.#oldObjectLabels === UNREAD) this.#oldObjectLabels = labelsOf(this.#request.oldObject);
    return this.#oldObjectLabels !== undefined && selectorMatches(selector, this.#oldObjectLabels);
  }

  /**
   * Any matching rule (with resourceNames naming the object, when given). With
   * matchPolicy Equivalent, also the same resource under another version or its
   * twin group: the apiserver would convert the object for such a rule; the edge
   * judges it in the version it was sent.
   */
  #rulesMatch(rules: readonly PreparedRule[], equivalent: boolean): boolean {
    if (rules.length === 0) return false;
    const target = this.#target;
    const name = this.#request.name ?? "";
    for (const rule of rules) if (ruleMatches(rule, target, target.group, false) && names(rule, name)) return true;
    if (!equivalent) return false;
    for (const rule of rules) {
      if (!names(rule, name)) continue;
      for (const group of target.groups) if (ruleMatches(rule, target, group, true)) return true;
    }
    return false;
  }
}

/** Whether `criteria` select `request`: one matching; a review matching many criteria makes one RequestMatcher. */
export function matchResources(criteria: MatchResources, request: AdmissionRequest, namespaceLabels: NamespaceLabels): MatchResult {
  return new RequestMatcher(request, namespaceLabels).matches(prepareMatch(criteria));
}

/** What a request names, for finding the policies whose rules can select it: `group/resource` in every equivalent group. */
export function requestKeys(request: AdmissionRequest): string[] {
  const target = targetOf(request);
  return target.groups.map((group) => `${group}/${target.resource}`);
}

/** The `group/resource` keys a rule set selects, or undefined when a wildcard lets it select any resource. */
export function ruleKeys(rules: readonly NamedRule[]): string[] | undefined {
  const keys: string[] = [];
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const entry of rule.resources) {
        const resource = entry.split("/")[0]!;
        if (group === "*" || resource === "*") return undefined;
        keys.push(...equivalentGroups(group).map((g) => `${g}/${resource}`));
      }
    }
  }
  return keys;
}
