// What leaves the cluster: the report `snapshot build` and `sync` print (and
// `-o json` carries) of a snapshot before it goes anywhere. One line per
// source: the kind, the fields of it that travel, how many objects, their
// bytes as JSON, and which policies asked for them. What never leaves the
// cluster is said with it (shared/inventory/secrets.ts).
import { describeKind } from "../../shared/inventory/index.js";
import { inventoryKinds } from "../../shared/snapshot/builder/policies.js";
import type { Snapshot } from "../../shared/snapshot/index.js";
import { utf8Length } from "../../shared/text/index.js";
import type { CliIo } from "../base/io.js";

export interface LeavingEntry {
  /** The kind (or kinds) the entry comes from, as messages name kinds: `networking.k8s.io/v1 Ingress`. */
  source: string;
  /** What travels of each object. */
  fields: string[];
  objects: number;
  /** Their bytes in the snapshot, as JSON. */
  bytes: number;
  /** The policies that asked: a bound ValidatingAdmissionPolicy's name, or `built-in <id>`. */
  policies: string[];
  /** Objects left out for breaking a limit (docs/inventory.md, "Limits"): of them, only their indexed values travel (counted in `bytes`). */
  leftOut?: number;
}

/** What never leaves, whatever a policy declares: said with every report. */
export const NEVER_LEAVES = [
  "a Secret's data, stringData and annotations (of a Secret only metadata.name, metadata.namespace, metadata.labels and type)",
  "TokenRequest and TokenReview objects",
  "metadata.managedFields of any kind",
  "the annotation kubectl.kubernetes.io/last-applied-configuration of any kind",
];

const bytesOf = (value: unknown) => (value === undefined ? 0 : utf8Length(JSON.stringify(value)));
const count = (record: object | undefined) => (record ? Object.keys(record).length : 0);
const builtIn = (...ids: string[]) => ids.map((id) => `built-in ${id}`);
const CLASS_POLICIES = builtIn("affinity-class", "affinity-class-references", "affinity-class-definitions");
/** Besides the whole object: what a param, a Namespace and a whole `metadata` never carry. */
const WITHOUT = "without metadata.managedFields and the last-applied-configuration annotation";

/** Each source of what `snapshot` carries, in the order the snapshot holds them; sources with no objects are left out, declared inventory kinds are not. */
export function leavingReport(snapshot: Snapshot): LeavingEntry[] {
  const entries: LeavingEntry[] = [];
  const add = (entry: LeavingEntry) => {
    if (entry.objects > 0) entries.push(entry);
  };
  add({ source: "cozystack.io AffinityClass", fields: ["spec.nodeSelector", "spec.nodeAffinity", "spec.enforcement"], objects: count(snapshot.affinityClasses), bytes: bytesOf(snapshot.affinityClasses), policies: CLASS_POLICIES });
  add({
    source: "apps.cozystack.io Tenant",
    fields: ["spec.allowedAffinityClasses", "spec.defaultAffinityClass", "spec.affinityClassEnforcement", "status.namespace"],
    objects: count(snapshot.tenants),
    bytes: bytesOf(snapshot.tenants),
    policies: CLASS_POLICIES,
  });
  add({
    source: "helm.toolkit.fluxcd.io HelmRelease",
    fields: ["metadata.labels['apps.cozystack.io/affinity-class']", "metadata.labels['apps.cozystack.io/application.group', '…kind', '…name']"],
    objects: count(snapshot.applications),
    bytes: bytesOf(snapshot.applications),
    policies: builtIn("affinity-class", "affinity-class-definitions"),
  });
  add({
    source: "v1 PersistentVolumeClaim, v1 PersistentVolume and the workloads mounting them",
    fields: ["a ReadWriteOnce claim's spec.accessModes", "whether its volume's spec.nodeAffinity pins it to one node", "the workloads whose pods mount it: kind, name, pod template labels"],
    objects: count(snapshot.volumeClaims),
    bytes: bytesOf(snapshot.volumeClaims),
    policies: builtIn("rwo-rollout", "rwo-shared", "ha-spread"),
  });
  add({ source: "v1 Node", fields: ["metadata.name", "the metadata.labels an AffinityClass constrains"], objects: count(snapshot.nodes), bytes: bytesOf(snapshot.nodes), policies: builtIn("affinity-class") });
  // One figure per resource, read from every Node.
  if (snapshot.largestAllocatable)
    add({ source: "v1 Node (status.allocatable)", fields: ["the largest status.allocatable of any node, per resource"], objects: count(snapshot.nodes), bytes: bytesOf(snapshot.largestAllocatable), policies: builtIn("ha-spread") });
  add({ source: "edgeadmit.io/v1alpha1 EdgeAdmissionException", fields: ["metadata.name", "spec"], objects: count(snapshot.exceptions), bytes: bytesOf(snapshot.exceptions), policies: ["every policy"] });

  const vaps = Object.keys(snapshot.validatingAdmissionPolicies);
  add({
    source: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (bound at the edge)",
    fields: ["metadata.name", "metadata.annotations['edgeadmit.io/inventory']", "spec"],
    objects: vaps.length,
    bytes: bytesOf(snapshot.validatingAdmissionPolicies),
    policies: vaps,
  });
  add({ source: "edgeadmit.io/v1alpha1 EdgeAdmissionPolicyBinding", fields: ["metadata.name", "spec"], objects: count(snapshot.policyBindings), bytes: bytesOf(snapshot.policyBindings), policies: vaps });
  const paramPolicies = new Map<string, string[]>();
  for (const [name, policy] of Object.entries(snapshot.validatingAdmissionPolicies)) {
    const paramKind = (policy as { spec?: { paramKind?: { apiVersion?: unknown; kind?: unknown } } }).spec?.paramKind;
    if (typeof paramKind?.apiVersion === "string" && typeof paramKind.kind === "string") {
      const key = `${paramKind.apiVersion}/${paramKind.kind}`;
      paramPolicies.set(key, [...(paramPolicies.get(key) ?? []), name]);
    }
  }
  for (const [key, { objects }] of Object.entries(snapshot.policyParams))
    add({ source: `${describeKind(key)} (params)`, fields: [`the whole object, ${WITHOUT}`], objects: objects.length, bytes: bytesOf(objects), policies: paramPolicies.get(key) ?? [] });
  add({ source: "v1 Namespace", fields: ["metadata (labels, annotations…)", "spec", "status", WITHOUT], objects: count(snapshot.namespaces), bytes: bytesOf(snapshot.namespaces), policies: vaps });

  const declared = inventoryKinds(snapshot.validatingAdmissionPolicies);
  for (const [key, entry] of Object.entries(snapshot.inventory))
    entries.push({
      source: `${describeKind(key)} (inventory)`,
      fields: ["apiVersion", "kind", "metadata.name", "metadata.namespace", ...(entry.fields ?? [])],
      objects: count(entry.objects),
      bytes: bytesOf(entry.objects) + bytesOf(entry.leftOut?.values),
      policies: declared.get(key)?.policies ?? [],
      ...(entry.leftOut ? { leftOut: entry.leftOut.total } : {}),
    });
  return entries;
}

/** The report as text: one line per source, then what never leaves. */
export function printLeaving(entries: readonly LeavingEntry[], write: CliIo["out"]): void {
  write(`what leaves the cluster (docs/inventory.md, "What leaves the cluster"):\n`);
  for (const entry of entries) {
    const leftOut = entry.leftOut ? `, ${entry.leftOut} left out (of ${entry.leftOut === 1 ? "it" : "them"}, only the indexed values)` : "";
    const objects = `${entry.objects} object${entry.objects === 1 ? "" : "s"}`;
    write(`  ${entry.source}: ${objects}${leftOut}, ${entry.bytes} bytes: ${entry.fields.join(", ")}; asked by ${entry.policies.join(", ") || "no bound policy"}\n`);
  }
  write(`  never: ${NEVER_LEAVES.join("; ")}\n`);
}
