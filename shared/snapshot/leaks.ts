// The function's side of "what never leaves the cluster" (inventory/secrets.ts):
// a unit pushed with any of it is refused, whoever built it. The builder
// never writes such a unit (snapshot build and sync refuse the policy that
// asks); this holds the line for a snapshot written or edited by hand.
import { capped } from "../text/index.js";
import { declarationLeak, describeKind } from "../inventory/declaration.js";
import { parseFieldPath } from "../inventory/paths.js";
import { neverLeaves, objectLeak } from "../inventory/secrets.js";
import type { Snapshot } from "./schema.js";

/** `<apiVersion>/<kind>` → its parts (the kind is after the last slash). */
function split(key: string): [apiVersion: string, kind: string] {
  const slash = key.lastIndexOf("/");
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** What a cluster part or a shard carries that never leaves the cluster, naming where; undefined when nothing. */
export function unitLeak(unit: Partial<Pick<Snapshot, "validatingAdmissionPolicies" | "inventory" | "policyParams">>): string | undefined {
  for (const [name, policy] of Object.entries(unit.validatingAdmissionPolicies ?? {})) {
    const leak = declarationLeak(policy);
    if (leak) return `ValidatingAdmissionPolicy ${capped(name)}: ${leak}`;
  }
  for (const [key, entry] of Object.entries(unit.inventory ?? {})) {
    const [apiVersion, kind] = split(key);
    for (const field of entry.fields ?? []) {
      const path = parseFieldPath(field);
      const leak = typeof path === "string" ? undefined : neverLeaves(apiVersion, kind, path);
      if (leak) return `inventory ${capped(describeKind(key), 127)}: ${leak}`;
    }
    for (const [id, object] of Object.entries(entry.objects)) {
      const leak = objectLeak(apiVersion, kind, object);
      if (leak) return `inventory ${capped(describeKind(key), 127)} ${capped(id, 127)}: ${leak}`;
    }
  }
  for (const [key, { objects }] of Object.entries(unit.policyParams ?? {})) {
    const [apiVersion, kind] = split(key);
    for (const object of objects) {
      const leak = objectLeak(apiVersion, kind, object);
      if (leak) return `policyParams ${capped(describeKind(key), 127)}: ${leak}`;
    }
  }
  return undefined;
}
