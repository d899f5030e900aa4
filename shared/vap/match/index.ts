// Whether a ValidatingAdmissionPolicy's matchConstraints, or a binding's
// matchResources, select a request: the apiserver's rules
// (k8s.io/apiserver policy/matching, webhook/predicates), with one
// difference forced by the edge: namespace labels come from the snapshot.
import type { AdmissionRequest } from "../../admission/index.js";
import { selectorIsEmpty, selectorMatches, type Labels } from "../../k8s/labels/index.js";
import type { LabelSelector } from "../../k8s/schemas/index.js";
import type { MatchResources, NamedRule } from "../schema/index.js";

/** What matching needs to know of the cluster: a namespace's labels, or undefined when the snapshot does not have it. */
export type NamespaceLabels = (name: string) => Labels | undefined;

export type MatchResult = { matches: boolean; error?: undefined } | { matches: false; error: string };

const NAMESPACES = "namespaces";

/** Resources the apiserver serves under more than one group: with matchPolicy Equivalent a rule for one matches the other. */
const CROSS_GROUP_EQUIVALENTS: ReadonlyArray<readonly [string, string]> = [["", "events.k8s.io"]];

function listed(values: readonly string[], value: string): boolean {
  return values.includes("*") || values.includes(value);
}

// A rule's `resources` entries against `resource` and `subResource`: "*" (every
// resource, no subresource), "*/*" (everything), "pods/*", "*/status", "pods/status".
function resourceMatches(entries: readonly string[], resource: string, subResource: string): boolean {
  for (const entry of entries) {
    const slash = entry.indexOf("/");
    const [res, sub] = slash < 0 ? [entry, ""] : [entry.slice(0, slash), entry.slice(slash + 1)];
    if (res === "*" && sub === "*") return true;
    if (sub === "" ? subResource !== "" : sub !== "*" && sub !== subResource) continue;
    if (res === "*" || res === resource) return true;
  }
  return false;
}

interface RuleTarget {
  group: string;
  version: string;
  resource: string;
  subResource: string;
  namespace: string;
  operation: string;
}

/** rules.Matcher: operation, group, version, resource (with subresource) and scope. */
function ruleMatches(rule: NamedRule, target: RuleTarget): boolean {
  if (!listed(rule.operations, target.operation)) return false;
  if (!listed(rule.apiGroups, target.group) || !listed(rule.apiVersions, target.version)) return false;
  if (!resourceMatches(rule.resources, target.resource, target.subResource)) return false;
  // A Namespace object is cluster-scoped, though the request names it as its namespace.
  if (rule.scope === "Namespaced") return target.resource !== NAMESPACES && target.namespace !== "";
  if (rule.scope === "Cluster") return target.resource === NAMESPACES || target.namespace === "";
  return true;
}

function targetOf(request: AdmissionRequest): RuleTarget {
  return {
    group: request.resource?.group ?? request.kind.group,
    version: request.resource?.version ?? request.kind.version,
    resource: request.resource?.resource ?? "",
    subResource: request.subResource ?? "",
    namespace: request.namespace ?? "",
    operation: request.operation,
  };
}

/** The groups serving the same resource: its own and, for a few, a twin (events). */
function equivalentGroups(group: string): string[] {
  return [group, ...CROSS_GROUP_EQUIVALENTS.flatMap(([a, b]) => (group === a ? [b] : group === b ? [a] : []))];
}

/**
 * Any matching rule (with resourceNames naming the object, when given). With
 * matchPolicy Equivalent, also the same resource under another version or its
 * twin group: the apiserver would convert the object for such a rule; the edge
 * judges it in the version it was sent.
 */
function rulesMatch(rules: readonly NamedRule[], matchPolicy: MatchResources["matchPolicy"], request: AdmissionRequest): boolean {
  const target = targetOf(request);
  const named = (rule: NamedRule) => rule.resourceNames.length === 0 || rule.resourceNames.includes(request.name ?? "");
  if (rules.some((rule) => ruleMatches(rule, target) && named(rule))) return true;
  if (matchPolicy !== "Equivalent") return false;
  return rules.some((rule) => named(rule) && equivalentGroups(target.group).some((group) => ruleMatches({ ...rule, apiVersions: ["*"] }, { ...target, group })));
}

function labelsOf(object: unknown): Labels | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const labels = (object as { metadata?: { labels?: unknown } }).metadata?.labels;
  if (labels === undefined || labels === null) return {};
  return typeof labels === "object" && !Array.isArray(labels) && Object.values(labels).every((v) => typeof v === "string") ? (labels as Labels) : undefined;
}

/** The label the apiserver sets on every Namespace (NamespaceDefaultLabelName): its name, known even of a namespace the snapshot lacks. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** The label keys a selector reads, in order, once each. */
export function selectorKeys(selector: LabelSelector): string[] {
  return [...new Set([...Object.keys(selector.matchLabels ?? {}), ...(selector.matchExpressions ?? []).map((requirement) => requirement.key)])];
}

/**
 * namespace.Matcher: cluster-scoped objects other than Namespaces always
 * match; a Namespace written is judged by its own labels. A namespace the
 * snapshot lacks is still known by its name (the apiserver labels every
 * namespace with NAMESPACE_NAME_LABEL), so a selector on that label alone
 * decides; one that needs any other label is an error naming what is missing.
 */
function namespaceSelectorMatches(selector: LabelSelector, request: AdmissionRequest, namespaceLabels: NamespaceLabels): MatchResult {
  const resource = request.resource?.resource ?? "";
  const namespace = request.namespace ?? "";
  if (namespace === "" && resource !== NAMESPACES) return { matches: true };
  if (selectorIsEmpty(selector)) return { matches: true };
  let labels: Labels | undefined;
  if (resource === NAMESPACES && !request.subResource && (request.operation === "CREATE" || request.operation === "UPDATE")) labels = labelsOf(request.object) ?? {};
  else labels = namespaceLabels(namespace);
  if (labels !== undefined) return { matches: selectorMatches(selector, labels) };
  const missing = selectorKeys(selector).filter((key) => key !== NAMESPACE_NAME_LABEL);
  if (missing.length === 0) return { matches: selectorMatches(selector, { [NAMESPACE_NAME_LABEL]: namespace }) };
  const shown = missing.slice(0, 5).map((key) => key.slice(0, 317));
  return {
    matches: false,
    error: `namespace "${namespace.slice(0, 253)}" is not in the snapshot, so only its name is known; the namespaceSelector needs its label ${shown.join(", ")}${missing.length > shown.length ? ` and ${missing.length - shown.length} more` : ""}`,
  };
}

/** object.Matcher: the object's or the old object's labels; an absent object does not match a non-empty selector. */
function objectSelectorMatches(selector: LabelSelector, request: AdmissionRequest): boolean {
  if (selectorIsEmpty(selector)) return true;
  return [request.object, request.oldObject].some((object) => {
    const labels = object === null || object === undefined ? undefined : labelsOf(object);
    return labels !== undefined && selectorMatches(selector, labels);
  });
}

/**
 * matching.Matcher.Matches: the selectors (whose errors only count when the
 * rules otherwise match), then excludeResourceRules, then resourceRules (all
 * resources when none are given, as for a binding's matchResources).
 */
export function matchResources(criteria: MatchResources, request: AdmissionRequest, namespaceLabels: NamespaceLabels): MatchResult {
  const namespace = namespaceSelectorMatches(criteria.namespaceSelector ?? {}, request, namespaceLabels);
  if (!namespace.matches && namespace.error === undefined) return { matches: false };
  if (!objectSelectorMatches(criteria.objectSelector ?? {}, request)) return { matches: false };
  if (rulesMatch(criteria.excludeResourceRules, criteria.matchPolicy, request)) return { matches: false };
  if (criteria.resourceRules.length > 0 && !rulesMatch(criteria.resourceRules, criteria.matchPolicy, request)) return { matches: false };
  return namespace.error !== undefined ? namespace : { matches: true };
}

/** What a request names, for finding the policies whose rules can select it: `group/resource` in every equivalent group. */
export function requestKeys(request: AdmissionRequest): string[] {
  const target = targetOf(request);
  return equivalentGroups(target.group).map((group) => `${group}/${target.resource}`);
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
