// Label and label-selector semantics as in k8s.io/apimachinery/pkg/labels.
import type { LabelSelector } from "../schemas/index.js";
import { capped } from "../../text/index.js";
import { DNS1123_SUBDOMAIN } from "../names/index.js";

export type Labels = Readonly<Record<string, string>>;

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why `key` is not a valid label key, or undefined when it is (IsQualifiedName). */
export function labelKeyError(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)))
    return `label key "${capped(key)}": prefix must be a DNS subdomain of at most 253 characters`;
  if (name.length === 0 || name.length > 63 || !NAME.test(name))
    return `label key "${capped(key)}": name must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is. */
export function labelValueError(value: string): string | undefined {
  if (value === "") return undefined;
  if (value.length > 63 || !NAME.test(value))
    return `label value "${capped(value)}": must be at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
  return undefined;
}

/**
 * Whether `selector` selects `labels`. Kubernetes semantics: matchLabels and
 * every matchExpression are ANDed; an empty selector selects everything; a
 * null/absent selector is handled by the caller (in pod affinity it selects nothing).
 */
export function selectorMatches(selector: LabelSelector, labels: Labels): boolean {
  const matchLabels = selector.matchLabels;
  if (matchLabels) for (const key in matchLabels) if (Object.hasOwn(matchLabels, key) && (!Object.hasOwn(labels, key) || labels[key] !== matchLabels[key])) return false;
  for (const requirement of selector.matchExpressions ?? []) {
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
  if ((selector.matchExpressions ?? []).length > 0) return false;
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
