// What a fleet change does to the registered clusters: for each fleet
// policy (and each built-in policy an EdgeAdmissionPolicyModes floors), on
// how many clusters it stops applying, starts applying, or applies with
// other actions. fleet apply, promote and rollback print it before they
// send and ask before a change that does any of it; clusters label
// --dry-run prints it for its one cluster (docs/fleet.md, "Guard rails").
import { actionsFor, stricter, type FleetSet } from "../../shared/fleet/index.js";
import { selectorMatches, type Labels } from "../../shared/k8s/labels/index.js";
import { ENFORCEMENT_MODES, type EnforcementMode } from "../../shared/snapshot/modes.js";

/** A fleet revision as far as what clusters enforce goes: its set and how far each binding's waves are promoted. */
export interface FleetState {
  set?: FleetSet | undefined;
  stages?: Readonly<Record<string, number>> | undefined;
}

/** A built-in policy the fleet floors, named apart from a fleet policy of the same name: the fleet binds it at its floor's mode. */
const floorOf = (policy: string) => `built-in ${policy}`;

/**
 * What the fleet enforces on a cluster labelled `labels`: each fleet policy
 * bound there with its actions (those of every binding of it, joined), each
 * built-in policy's floor (the strictest selecting EdgeAdmissionPolicyModes names).
 */
export function enforcedOn({ set, stages = {} }: FleetState, labels: Labels): Map<string, string> {
  const actions = new Map<string, Set<EnforcementMode>>();
  const floors = new Map<string, EnforcementMode>();
  for (const binding of set?.bindings ?? []) {
    const bound = actionsFor(binding, stages[binding.metadata.name] ?? 0, labels);
    if (!bound) continue;
    const policy = binding.spec.policyName;
    actions.set(policy, new Set([...(actions.get(policy) ?? []), ...bound]));
  }
  for (const modes of set?.modes ?? [])
    if (selectorMatches(modes.spec.clusterSelector, labels))
      for (const [policy, mode] of Object.entries(modes.spec.policies)) floors.set(policy, floors.has(policy) ? stricter(floors.get(policy)!, mode) : mode);
  const enforced = new Map<string, string>();
  for (const [policy, modes] of actions) enforced.set(policy, ENFORCEMENT_MODES.filter((mode) => modes.has(mode)).join(","));
  for (const [policy, mode] of floors) enforced.set(floorOf(policy), mode);
  return enforced;
}

/** Clusters by what they had or get: `Deny` → 12, or `Audit → Deny` → 10. */
type Tally = Map<string, number>;

/** One policy's effect over the clusters: those it leaves, those it reaches, those whose actions change. */
export interface PolicyEffect {
  policy: string;
  removed: Tally;
  bound: Tally;
  changed: Tally;
}

const add = (tally: Tally, key: string, n: number) => tally.set(key, (tally.get(key) ?? 0) + n);
const total = (tally: Tally) => [...tally.values()].reduce((sum, n) => sum + n, 0);
const thousands = (n: number) => n.toLocaleString("en-US");

/** What changes for one cluster, by policy: what it had and what it gets (undefined: not bound). */
function changesOn(was: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): Array<{ policy: string; old?: string; next?: string }> {
  const changes: Array<{ policy: string; old?: string; next?: string }> = [];
  for (const policy of new Set([...was.keys(), ...now.keys()])) {
    const [old, next] = [was.get(policy), now.get(policy)];
    if (old !== next) changes.push({ policy, ...(old !== undefined ? { old } : {}), ...(next !== undefined ? { next } : {}) });
  }
  return changes.sort((a, b) => (a.policy < b.policy ? -1 : 1));
}

/** What a change does: by policy (those no cluster sees a change of left out), and how many clusters see any. */
export interface FleetEffect {
  policies: PolicyEffect[];
  clusters: number;
}

/** The effect of going from `before` to `after` on clusters labelled as `labelsOf` gives; clusters alike in labels are worked out once. */
export function fleetEffect(before: FleetState, after: FleetState, labelsOf: ReadonlyArray<Labels | undefined>): FleetEffect {
  const byLabels = new Map<string, { labels: Labels; alike: number }>();
  for (const labels of labelsOf) {
    const key = JSON.stringify(Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const seen = byLabels.get(key);
    if (seen) seen.alike++;
    else byLabels.set(key, { labels: labels ?? {}, alike: 1 });
  }
  const effects = new Map<string, PolicyEffect>();
  let affected = 0;
  for (const { labels, alike } of byLabels.values()) {
    const changes = changesOn(enforcedOn(before, labels), enforcedOn(after, labels));
    if (changes.length > 0) affected += alike;
    for (const { policy, old, next } of changes) {
      const effect = effects.get(policy) ?? { policy, removed: new Map(), bound: new Map(), changed: new Map() };
      effects.set(policy, effect);
      if (next === undefined) add(effect.removed, old!, alike);
      else if (old === undefined) add(effect.bound, next, alike);
      else add(effect.changed, `${old} → ${next}`, alike);
    }
  }
  return { policies: [...effects.values()].sort((a, b) => (a.policy < b.policy ? -1 : 1)), clusters: affected };
}

/** `(Deny)` for one kind, `(Deny on 300, Audit on 40)` for several, the most first. */
function breakdown(tally: Tally): string {
  const entries = [...tally].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  return entries.length === 1 ? `(${entries[0]![0]})` : `(${entries.map(([what, n]) => `${what} on ${thousands(n)}`).join(", ")})`;
}

export const clustersText = (n: number, more = "") => `${thousands(n)} ${more}cluster${n === 1 ? "" : "s"}`;

/** One line per kind of change: `removes require-team from 9,812 clusters (Deny)`, `binds max-replicas on 340 more clusters (Deny)`, `changes require-team's actions on 12 clusters (Audit → Deny)`. */
export function effectLines(effects: readonly PolicyEffect[]): string[] {
  return effects.flatMap(({ policy, removed, bound, changed }) => [
    ...(removed.size > 0 ? [`removes ${policy} from ${clustersText(total(removed))} ${breakdown(removed)}`] : []),
    ...(bound.size > 0 ? [`binds ${policy} on ${clustersText(total(bound), "more ")} ${breakdown(bound)}`] : []),
    ...(changed.size > 0 ? [`changes ${policy}'s actions on ${clustersText(total(changed))} ${breakdown(changed)}`] : []),
  ]);
}

/** What one cluster's new labels do to what the fleet enforces on it: `binds require-team (Audit)`, `removes max-replicas (Deny)`, `changes …'s actions (Audit → Deny)`. */
export function relabelLines(state: FleetState, before: Labels, after: Labels): string[] {
  return changesOn(enforcedOn(state, before), enforcedOn(state, after)).map(({ policy, old, next }) =>
    next === undefined ? `removes ${policy} (${old})` : old === undefined ? `binds ${policy} (${next})` : `changes ${policy}'s actions (${old} → ${next})`,
  );
}
