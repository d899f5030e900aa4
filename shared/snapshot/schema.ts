// The snapshot: everything policies know about a cluster. Built by the sync
// job or `edgeadmit snapshot build`, signed, pushed, decoded once per isolate.
import * as z from "zod/mini";
import "../zod/index.js";
import { exceptionSchema } from "../exceptions/index.js";
import { isQuantity } from "../k8s/quantity/index.js";
import { nodeAffinitySchema, stringMapSchema, webhookRuleSchema } from "../k8s/schemas/index.js";
import { ENFORCEMENT_MODES, POLICY_MODES } from "./modes.js";

export const SNAPSHOT_API_VERSION = "edgeadmit.io/v1alpha1";

export const affinityClassSchema = z.object({
  nodeSelector: z.optional(stringMapSchema),
  nodeAffinity: z.optional(nodeAffinitySchema),
  enforcement: z.optional(z.enum(ENFORCEMENT_MODES)),
});
export type AffinityClass = z.infer<typeof affinityClassSchema>;

/** A tenant, keyed in the snapshot by the namespace it owns (CozyStack naming). */
export const tenantSchema = z.object({
  /** The Tenant object: its name and the namespace it lives in (its parent's). */
  name: z.string(),
  namespace: z.string(),
  /** Owned namespaces from the root tenant down to this one. */
  chain: z.array(z.string()),
  /** Resolved along the chain: a child that sets nothing inherits. Absent: every class is allowed. */
  allowedAffinityClasses: z.optional(z.array(z.string())),
  defaultAffinityClass: z.optional(z.string()),
  /** Resolved along the chain; overrides the classes' own enforcement. */
  affinityClassEnforcement: z.optional(z.enum(ENFORCEMENT_MODES)),
});
export type Tenant = z.infer<typeof tenantSchema>;

/** An application's HelmRelease, keyed by `namespace/helmReleaseName`. */
export const applicationSchema = z.object({
  group: z.optional(z.string()),
  kind: z.optional(z.string()),
  name: z.optional(z.string()),
  affinityClass: z.optional(z.string()),
});
export type Application = z.infer<typeof applicationSchema>;

/** A workload whose pod template mounts a claim: enough to name it and to test whether a pod affinity selects its pods. */
const volumeUserSchema = z.object({
  kind: z.string(),
  name: z.string(),
  podLabels: z.optional(stringMapSchema),
});
export type VolumeUser = z.infer<typeof volumeUserSchema>;

/** A ReadWriteOnce(Pod) PVC (and not also ReadWriteMany/ReadOnlyMany, which may attach to many nodes), keyed by `namespace/name`. */
const volumeClaimSchema = z.object({
  accessModes: z.array(z.string()),
  /**
   * The bound PV's node affinity admits exactly one node, so the scheduler
   * puts every pod using it there. Without that, ReadWriteOnce does not steer
   * pods to the attached node (kubernetes/kubernetes#26567).
   */
  pinnedToNode: z.boolean(),
  /**
   * Workloads users wrote (not ReplicaSets, Jobs or Pods their controllers
   * made) whose pod templates mount the claim, sorted by kind and name.
   * Absent when none does.
   */
  mountedBy: z.optional(z.array(volumeUserSchema)),
});
export type VolumeClaim = z.infer<typeof volumeClaimSchema>;

/** One inventory kind. The cluster part keeps every kind with its fields and index, and the objects of cluster-scoped kinds; a namespace's shard the kind's objects in it. */
const inventoryKindSchema = z.object({
  namespaced: z.boolean(),
  /** The fields kept besides the identity, and those indexed by value (canonical paths): what the policies declare, merged. */
  fields: z.optional(z.array(z.string())),
  index: z.optional(z.array(z.string())),
  objects: z.record(z.string(), z.unknown()),
  /**
   * Objects of the kind left out because one broke a limit (shared/snapshot/builder
   * INVENTORY_LIMITS), in the cluster part: `total`, and the first of them by
   * key with why. A policy reading what one of them would be in fails, and its
   * failurePolicy decides: a get of one, a list of its namespace or of every
   * one, and, without `indexed`, every lookup by value of the kind.
   */
  leftOut: z.optional(
    z.object({
      total: z.number().check(z.int(), z.minimum(1)),
      objects: z.record(z.string(), z.string()),
      /**
       * Every left-out object's indexed values, by index field, in code-unit
       * order, each once (the whole snapshot only: splitSnapshot puts them in
       * their index buckets and `indexed` in the cluster part).
       */
      values: z.optional(z.record(z.string(), z.array(z.string()))),
      /**
       * The left-out objects' values are in their index buckets (`leftOut` of
       * each): a lookup by value meets an evaluation error only for one of
       * them, or in a crowded bucket. Written from 0.2.0 (shared/version
       * WRITTEN_FEATURES); 0.1.0 drops it and fails every lookup of the kind.
       */
      indexed: z.optional(z.literal(true)),
      /** By index field, the buckets whose left-out values passed INVENTORY_LIMITS.bucketBytes: every lookup there meets an evaluation error. */
      crowded: z.optional(z.record(z.string(), z.array(z.number().check(z.int(), z.minimum(0))))),
    }),
  ),
});
export type InventoryKind = z.infer<typeof inventoryKindSchema>;

export const DEFAULT_MAX_AGE_SECONDS = 3600;

const settingsSchema = z.object({
  /** Per-policy mode; a policy not named runs in its default mode. */
  policies: z._default(z.record(z.string(), z.enum(POLICY_MODES)), {}),
  /** A snapshot older than this gets `onStale`. */
  maxAgeSeconds: z._default(z.number().check(z.int(), z.minimum(60)), DEFAULT_MAX_AGE_SECONDS),
  onStale: z._default(z.enum(["Warn", "Deny"]), "Warn"),
  /**
   * The inventory kinds (`<apiVersion>/<kind>`) the cluster's owner lets the
   * fleet's policies read; absent or empty: none (shared/fleet). Set in the
   * cluster (its settings ConfigMap), where no operator key reaches.
   * Written to functions that read it (shared/version WRITTEN_FEATURES);
   * 0.1.0 drops it, and lets fleet policies read every kind, as it did.
   */
  fleetInventory: z.optional(z.array(z.string().check(z.maxLength(300))).check(z.maxLength(100))),
});
export type Settings = z.infer<typeof settingsSchema>;

export const snapshotSchema = z.object({
  apiVersion: z.literal(SNAPSHOT_API_VERSION),
  kind: z.literal("Snapshot"),
  /** Strictly increasing per cluster; the function refuses anything not newer. */
  generation: z.number().check(z.int(), z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER)),
  /** When it was built (UTC, as toISOString writes it): metadata the function stores and echoes, so a bounded timestamp. */
  builtAt: z.iso.datetime(),
  /**
   * The cluster's Kubernetes version, major.minor, as its /version answered
   * the sync job: the CEL environment its policies compile with
   * (shared/cel/kubernetes/environment.ts). Absent in a snapshot written
   * before it was carried, or built offline without --kubernetes-version:
   * DEFAULT_VERSION then.
   */
  kubernetesVersion: z.optional(z.string().check(z.regex(/^\d{1,3}\.\d{1,3}$/, 'must be major.minor, e.g. "1.33"'))),
  settings: z._default(settingsSchema, { policies: {}, maxAgeSeconds: DEFAULT_MAX_AGE_SECONDS, onStale: "Warn" }),
  affinityClasses: z.record(z.string(), affinityClassSchema),
  tenants: z.record(z.string(), tenantSchema),
  applications: z.record(z.string(), applicationSchema),
  volumeClaims: z.record(z.string(), volumeClaimSchema),
  /**
   * Node name → the node's labels whose keys some AffinityClass constrains.
   * The DaemonSet controller pins each pod to its node with a matchFields
   * `metadata.name` term in place of the template's node affinity; these
   * labels say whether that node is inside the pod's class.
   */
  nodes: z._default(z.record(z.string(), stringMapSchema), {}),
  /**
   * The cluster's ValidatingAdmissionPolicies that an EdgeAdmissionPolicyBinding
   * binds at the edge, by name, as listed (shared/vap checks and compiles them:
   * a malformed one is reported, not refused, so one policy cannot block a push).
   */
  validatingAdmissionPolicies: z._default(z.record(z.string(), z.unknown()), {}),
  /** EdgeAdmissionPolicyBindings (offline also ValidatingAdmissionPolicyBindings) by name. */
  policyBindings: z._default(z.record(z.string(), z.unknown()), {}),
  /** The objects of each bound policy's paramKind, by `<apiVersion>/<kind>`. */
  policyParams: z._default(z.record(z.string(), z.object({ namespaced: z.boolean(), objects: z.array(z.unknown()) })), {}),
  /**
   * The objects of the kinds bound policies declare in their edgeadmit.io/inventory
   * annotation, by `<apiVersion>/<kind>` (shared/inventory): each object
   * projected to its identity and the declared fields, keyed `namespace/name`
   * (namespaced kinds) or `name`. A kind that was listed is here, possibly
   * empty; one that could not be listed is absent, so policies meet it as unknown.
   */
  inventory: z._default(z.record(z.string(), inventoryKindSchema), {}),
  /** Namespaces by name (metadata without managed fields, spec, status): namespaceSelector labels and namespaceObject. */
  namespaces: z._default(z.record(z.string(), z.unknown()), {}),
  /**
   * Resource name → the largest allocatable any node reports, as a canonical
   * quantity; absent when the snapshot was built without Nodes. A pod that
   * asks for more than half of it cannot share a node with another replica.
   */
  /** EdgeAdmissionExceptions by name: objects exempt from named policies (shared/exceptions). Cluster-wide. */
  exceptions: z._default(z.record(z.string(), exceptionSchema), {}),
  /**
   * The rules of the cluster's ValidatingWebhookConfiguration edgeadmit, as
   * the sync job read them: what the apiserver sends the function, so it
   * knows which fleet policies each cluster reaches (docs/fleet.md,
   * Coverage). Absent when not read: coverage unknown.
   */
  webhookRules: z.optional(z.array(webhookRuleSchema).check(z.maxLength(1_000))),
  largestAllocatable: z.optional(z.record(z.string(), z.string().check(z.refine(isQuantity, "must be a Kubernetes quantity")))),
});
export type Snapshot = z.infer<typeof snapshotSchema>;
export type SnapshotInput = z.input<typeof snapshotSchema>;
