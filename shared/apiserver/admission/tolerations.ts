// Tolerations as the admission plugins compare and merge them: pkg/util/tolerations
// (MergeTolerations, isSuperset), which RuntimeClass uses, and the two that
// DefaultTolerationSeconds adds.
import { isRecord, type Json } from "../fields.js";

interface Toleration {
  key: string;
  operator: string;
  value: string;
  effect: string;
  seconds: number | undefined;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** A toleration's fields with Go's zero values for what JSON leaves out. */
const read = (t: Json): Toleration => ({
  key: text(t["key"]),
  operator: text(t["operator"]),
  value: text(t["value"]),
  effect: text(t["effect"]),
  seconds: typeof t["tolerationSeconds"] === "number" ? t["tolerationSeconds"] : undefined,
});

const equal = (a: Toleration, b: Toleration) => a.key === b.key && a.operator === b.operator && a.value === b.value && a.effect === b.effect && a.seconds === b.seconds;

/** isSuperset: whether `ss` tolerates every taint `t` tolerates. */
function isSuperset(ss: Toleration, t: Toleration): boolean {
  if (equal(ss, t)) return true;
  // An empty key with the Exists operator matches every key and value.
  if (t.key !== ss.key && (ss.key !== "" || ss.operator !== "Exists")) return false;
  // An empty effect matches every effect.
  if (t.effect !== ss.effect && ss.effect !== "") return false;
  if (ss.effect === "NoExecute" && ss.seconds !== undefined && (t.seconds === undefined || t.seconds > ss.seconds)) return false;
  if (ss.operator === "Equal" || ss.operator === "") return t.operator === "Equal" && t.value === ss.value;
  return ss.operator === "Exists";
}

/** MergeTolerations: both lists, in order, without any toleration another one (kept) covers; of two equal ones, the first. */
export function mergeTolerations(first: readonly Json[], second: readonly Json[]): Json[] {
  const all = [...first, ...second];
  const read_ = all.map(read);
  const merged: number[] = [];
  next: for (let i = 0; i < all.length; i++) {
    const t = read_[i]!;
    for (const kept of merged) if (isSuperset(read_[kept]!, t)) continue next;
    for (let j = i + 1; j < all.length; j++) if (!equal(t, read_[j]!) && isSuperset(read_[j]!, t)) continue next;
    merged.push(i);
  }
  return merged.map((i) => all[i]!);
}

/** Whether a pod's tolerations already tolerate `key`'s NoExecute taint, as DefaultTolerationSeconds asks: the key or any key, NoExecute or any effect. */
export const toleratesNoExecute = (tolerations: readonly unknown[], key: string): boolean =>
  tolerations.some((t) => isRecord(t) && (text(t["key"]) === key || text(t["key"]) === "") && (text(t["effect"]) === "NoExecute" || text(t["effect"]) === ""));
