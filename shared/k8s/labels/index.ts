// Label and label-selector semantics as in k8s.io/apimachinery/pkg/labels.
import type { LabelSelector } from "../schemas/index.js";
import { capped } from "../../text/index.js";
import { DNS1123_SUBDOMAIN } from "../names/index.js";

export type Labels = Readonly<Record<string, string>>;

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** What is wrong with `key` as a label key (IsQualifiedName), or undefined when it is one: no message built, for callers that check thousands. */
function labelKeyFault(key: string): "prefix" | "name" | undefined {
  const slash = key.indexOf("/");
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0 && (slash === 0 || slash > 253 || !DNS1123_SUBDOMAIN.test(key.slice(0, slash)))) return "prefix";
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) return "name";
  return undefined;
}

/** Whether `key` is a valid label key (what labelKeyError accepts). */
export const isLabelKey = (key: string): boolean => labelKeyFault(key) === undefined;

/** Why `key` is not a valid label key, or undefined when it is (IsQualifiedName). */
export function labelKeyError(key: string): string | undefined {
  switch (labelKeyFault(key)) {
    case "prefix":
      return `label key "${capped(key)}": prefix must be a DNS subdomain of at most 253 characters`;
    case "name":
      return `label key "${capped(key)}": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
    default:
      return undefined;
  }
}

/** Whether `value` is a valid label value (what labelValueError accepts). */
export const isLabelValue = (value: string): boolean => value === "" || (value.length <= 63 && NAME.test(value));

/** Why `value` is not a valid label value, or undefined when it is. */
export function labelValueError(value: string): string | undefined {
  if (isLabelValue(value)) return undefined;
  return `label value "${capped(value)}": must be at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
}

/** In place of an absent matchExpressions: selectors are read per term, and a workload may repeat its terms by the ten thousand. */
const NO_REQUIREMENTS: NonNullable<LabelSelector["matchExpressions"]> = [];

/**
 * Whether `selector` selects `labels`. Kubernetes semantics: matchLabels and
 * every matchExpression are ANDed; an empty selector selects everything; a
 * null/absent selector is handled by the caller (in pod affinity it selects nothing).
 */
export function selectorMatches(selector: LabelSelector, labels: Labels): boolean {
  const matchLabels = selector.matchLabels;
  if (matchLabels) for (const key in matchLabels) if (Object.hasOwn(matchLabels, key) && (!Object.hasOwn(labels, key) || labels[key] !== matchLabels[key])) return false;
  for (const requirement of selector.matchExpressions ?? NO_REQUIREMENTS) {
    const has = Object.hasOwn(labels, requirement.key);
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case "In":
        if (!has || !values.includes(labels[requirement.key]!)) return false;
        break;
      case "NotIn":
        if (has && values.includes(labels[requirement.key]!)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
    }
  }
  return true;
}

/** Whether the selector has no requirement at all (selects every pod). */
export function selectorIsEmpty(selector: LabelSelector): boolean {
  if ((selector.matchExpressions?.length ?? 0) > 0) return false;
  const matchLabels = selector.matchLabels;
  if (matchLabels) for (const key in matchLabels) if (Object.hasOwn(matchLabels, key)) return false;
  return true;
}

/** The label the apiserver sets on every Namespace (NamespaceDefaultLabelName): its name, known even of a namespace the snapshot lacks. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** The label keys a selector reads, in order, once each. */
export function selectorKeys(selector: LabelSelector): string[] {
  return [...new Set([...Object.keys(selector.matchLabels ?? {}), ...(selector.matchExpressions ?? []).map((requirement) => requirement.key)])];
}

/** Requirements one selector string may hold: `-l` comes from a person, not a cluster. */
const MAX_REQUIREMENTS = 64;

type Requirement = NonNullable<LabelSelector["matchExpressions"]>[number];

/** One requirement of a selector string (`k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`), or why not. */
function requirementOf(text: string): Requirement | string {
  const part = text.trim();
  const set = /^(\S+?)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part);
  const compared = /^([^=!<>\s]+)\s*(==|=|!=)\s*([^=!\s]*)$/.exec(part);
  const exists = /^(!?)\s*([^=!<>\s()]+)$/.exec(part);
  let requirement: Requirement;
  if (set) requirement = { key: set[1]!, operator: set[2] === "in" ? "In" : "NotIn", values: set[3]!.split(",").map((value) => value.trim()) };
  else if (compared) requirement = { key: compared[1]!, operator: compared[2] === "!=" ? "NotIn" : "In", values: [compared[3]!] };
  else if (exists) requirement = { key: exists[2]!, operator: exists[1] === "!" ? "DoesNotExist" : "Exists" };
  else return `"${capped(part)}" is not a requirement: use key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)`;
  const problem = labelKeyError(requirement.key) ?? (requirement.values ?? []).map(labelValueError).find((error) => error !== undefined);
  return problem ?? requirement;
}

/**
 * A selector string as kubectl's `-l` takes it (k8s.io/apimachinery
 * pkg/labels/selector.go Parse, less the numeric `>`/`<`), as the
 * LabelSelector it means: requirements separated by commas, all ANDed;
 * `k!=v` and `k notin (…)` also select objects without `k`. Empty selects everything.
 */
export function parseSelector(text: string): LabelSelector | string {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
    if (depth < 0 || depth > 1) return `selector "${capped(text)}": unbalanced parentheses`;
  }
  if (depth !== 0) return `selector "${capped(text)}": unbalanced parentheses`;
  parts.push(text.slice(start));
  if (text.trim() === "") return {};
  if (parts.length > MAX_REQUIREMENTS) return `selector: more than ${MAX_REQUIREMENTS} requirements`;
  const matchExpressions: Requirement[] = [];
  for (const part of parts) {
    const requirement = requirementOf(part);
    if (typeof requirement === "string") return `selector: ${requirement}`;
    matchExpressions.push(requirement);
  }
  return { matchExpressions };
}

/** The selector in kubectl's string form, as `parseSelector` reads it: what a table prints. */
export function selectorText(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`);
  for (const { key, operator, values } of selector.matchExpressions ?? []) {
    const list = values ?? [];
    if (operator === "Exists") parts.push(key);
    else if (operator === "DoesNotExist") parts.push(`!${key}`);
    else if (list.length === 1) parts.push(`${key}${operator === "In" ? "=" : "!="}${list[0]}`);
    else parts.push(`${key} ${operator === "In" ? "in" : "notin"} (${list.join(",")})`);
  }
  return parts.join(",");
}
