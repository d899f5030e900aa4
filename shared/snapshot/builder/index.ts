// Kubernetes objects → snapshot. Pure: the CLI feeds it objects from YAML
// files, the sync job feeds it the same objects listed from the API, so both
// produce the same snapshot for the same cluster.
import * as z from "zod/mini";
import { describeZodError } from "../../zod/index.js";
import { nodeAffinitySchema, objectMetaSchema, quantityMapSchema, stringMapSchema } from "../../k8s/schemas/index.js";
import { ENFORCEMENT_MODES, POLICY_MODES } from "../modes.js";
import {
  DEFAULT_MAX_AGE_SECONDS,
  SNAPSHOT_API_VERSION,
  type AffinityClass,
  type Application,
  type Settings,
  type Snapshot,
  type Tenant,
  type VolumeClaim,
  type VolumeUser,
} from "../schema.js";
import { AFFINITY_CLASS_LABEL, lineageOf, tenantNamespaceOf, type Lineage } from "../view.js";

export { ROOT_TENANT_NAMESPACE, tenantNamespaceOf } from "../view.js";
import { InvalidObjectError, isWorkloadKind, workloadOf, type Workload, type WorkloadKind } from "../../k8s/workload/index.js";
import { madeByWorkloadController, WORKLOAD_API_GROUPS } from "../../k8s/controller/index.js";
import { sharedClaimNames } from "../../k8s/volumes/index.js";
import type { KubeObject } from "./object.js";
import { collectPolicyObjects, usedByPolicies } from "./policies.js";
import { parseQuantity, QuantityError, type Quantity } from "../../k8s/quantity/index.js";
import { EXCEPTION_GROUP, EXCEPTION_KIND, exceptionObjectSchema, type Exception } from "../../exceptions/index.js";
import { slashedNameProblem } from "./policies.js";

export const SETTINGS_CONFIGMAP = "edgeadmit-settings";

const named = z.looseObject({ metadata: z.looseObject({ name: z.string(), namespace: z.optional(z.string()), labels: objectMetaSchema.shape.labels }) });

const affinityClassObject = z.looseObject({
  metadata: z.looseObject({ name: z.string() }),
  spec: z.looseObject({
    nodeSelector: z.optional(z.nullable(stringMapSchema)),
    nodeAffinity: z.optional(z.nullable(nodeAffinitySchema)),
    enforcement: z.optional(z.enum(ENFORCEMENT_MODES)),
  }),
});

const tenantObject = z.looseObject({
  metadata: z.looseObject({ name: z.string(), namespace: z.string() }),
  spec: z.optional(
    z.nullable(
      z.looseObject({
        allowedAffinityClasses: z.optional(z.nullable(z.array(z.string()))),
        defaultAffinityClass: z.optional(z.nullable(z.string())),
        affinityClassEnforcement: z.optional(z.nullable(z.enum(ENFORCEMENT_MODES))),
      }),
    ),
  ),
  status: z.optional(z.nullable(z.looseObject({ namespace: z.optional(z.nullable(z.string())) }))),
});

const pvcObject = z.looseObject({
  metadata: z.looseObject({ name: z.string(), namespace: z.string() }),
  spec: z.looseObject({
    accessModes: z.optional(z.nullable(z.array(z.string()))),
    volumeName: z.optional(z.nullable(z.string())),
  }),
});

const pvObject = z.looseObject({
  metadata: z.looseObject({ name: z.string() }),
  spec: z.looseObject({ nodeAffinity: z.optional(z.nullable(z.looseObject({ required: z.optional(z.nullable(nodeAffinitySchema.shape.requiredDuringSchedulingIgnoredDuringExecution.def.innerType)) }))) }),
});

const nodeObject = z.looseObject({
  metadata: z.looseObject({ name: z.string(), labels: objectMetaSchema.shape.labels }),
  status: z.optional(z.nullable(z.looseObject({ allocatable: z.optional(z.nullable(quantityMapSchema)) }))),
});

const settingsObject = z.looseObject({
  metadata: z.looseObject({ name: z.literal(SETTINGS_CONFIGMAP), namespace: z.optional(z.string()) }),
  data: z.optional(z.nullable(stringMapSchema)),
});

/**
 * An application as one literal of its final shape: V8 keeps such an
 * object's fields inside it, where one grown field by field takes about
 * three times the memory (100,000 HelmReleases: 35 MB against 12).
 */
function applicationOf(lineage: Lineage | undefined, affinityClass: string | undefined): Application {
  if (lineage) return affinityClass ? { group: lineage.group, kind: lineage.kind, name: lineage.name, affinityClass } : { group: lineage.group, kind: lineage.kind, name: lineage.name };
  return affinityClass ? { affinityClass } : {};
}

/** What a Node gives the snapshot: its labels (for the classes) and what it can allocate. */
interface NodeFacts {
  name: string;
  labels: Record<string, string>;
  allocatable: Record<string, string>;
}

type TenantObject = z.infer<typeof tenantObject>;

/** The fields of a Tenant that resolveTenants reads: what the builder holds of it, not the whole object. */
function tenantFacts({ metadata, spec, status }: TenantObject): TenantObject {
  return {
    metadata: { name: metadata.name, namespace: metadata.namespace },
    ...(spec ? { spec: { allowedAffinityClasses: spec.allowedAffinityClasses, defaultAffinityClass: spec.defaultAffinityClass, affinityClassEnforcement: spec.affinityClassEnforcement } } : {}),
    ...(status ? { status: { namespace: status.namespace } } : {}),
  };
}

export type { KubeObject };

export interface BuildOptions {
  generation: number;
  builtAt: string;
  /** The cluster's Kubernetes version, "major.minor" (its /version); the snapshot then carries it. */
  kubernetesVersion?: string;
  /** `group/Kind` → namespaced, as the API server's discovery answered: how the inventory of a kind with no objects is cut. */
  namespacedKinds?: ReadonlyMap<string, boolean>;
  /** Only a ConfigMap `edgeadmit-settings` in this namespace counts; any namespace when unset. */
  settingsNamespace?: string;
  /** The policy ids settings may name (`policy.<id>`); when given, any other id is a problem (still carried: a newer function may know it). */
  policyIds?: readonly string[];
}

export interface BuildResult {
  snapshot: Snapshot;
  /** Objects that were skipped, each with why: `Tenant tenant-root/acme: spec.defaultAffinityClass: …`. */
  problems: string[];
  /** Objects the snapshot does not use, in input order: kinds it does not read, ConfigMaps other than the settings, unbound policies. */
  ignored: KubeObject[];
  /**
   * What bound policies ask for that never leaves the cluster (a Secret's
   * data, a managedField…), one line each naming the policy and the field.
   * The snapshot holds none of it, but it must not be written or pushed:
   * snapshot build, sync and check refuse it.
   */
  refused: string[];
}

const RWO_MODES = new Set(["ReadWriteOnce", "ReadWriteOncePod"]);
/** With one of these the attach/detach controller lets the volume attach to many nodes (isMultiAttachAllowed). */
const MULTI_NODE_MODES = new Set(["ReadWriteMany", "ReadOnlyMany"]);


function kindOf(object: KubeObject): { group: string; kind: string } {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  return { group: slash >= 0 ? apiVersion.slice(0, slash) : "", kind: typeof object.kind === "string" ? object.kind : "" };
}

function describeKubeObject(object: KubeObject): string {
  const meta = named.safeParse(object);
  const { kind } = kindOf(object);
  if (!meta.success) return kind || "object";
  return `${kind} ${meta.data.metadata.namespace ? `${meta.data.metadata.namespace}/` : ""}${meta.data.metadata.name}`;
}

/** A PV's required node affinity pins it to one node when every term names one `kubernetes.io/hostname`. */
function pinsOneNode(pv: z.infer<typeof pvObject>): boolean {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  const hosts = new Set<string>();
  for (const term of terms) {
    const hostname = (term.matchExpressions ?? []).find((r) => r.key === "kubernetes.io/hostname" && r.operator === "In");
    if (!hostname || (hostname.values ?? []).length !== 1) return false;
    hosts.add(hostname.values![0]!);
  }
  return hosts.size === 1;
}

/** The most kinds `fleetInventory` lists: every kind a cluster would let the fleet read, with room to spare. */
const MAX_FLEET_INVENTORY_KINDS = 100;
const FLEET_INVENTORY_KIND = /^(?:[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?v[0-9][a-z0-9]{0,20}\/[A-Z][A-Za-z0-9]{0,62}$/;

/** `fleetInventory`'s kinds (`<apiVersion>/<kind>`, by commas, spaces or lines), each one checked; a malformed one is skipped and said. */
function fleetInventoryOf(value: string, where: string, problems: string[]): string[] {
  const kinds: string[] = [];
  for (const entry of value.split(/[\s,]+/).filter((text) => text !== "")) {
    if (!FLEET_INVENTORY_KIND.test(entry)) problems.push(`${where}: "${entry.slice(0, 80)}" is not <apiVersion>/<kind>, e.g. networking.k8s.io/v1/Ingress or v1/Service`);
    else if (kinds.length >= MAX_FLEET_INVENTORY_KINDS) problems.push(`${where}: at most ${MAX_FLEET_INVENTORY_KINDS} kinds; "${entry}" and those after it are left out`);
    else if (!kinds.includes(entry)) kinds.push(entry);
  }
  return kinds;
}

function settingsFrom(data: Record<string, string>, policyIds: readonly string[] | undefined, problems: string[]): Settings {
  const settings: Settings = { policies: {}, maxAgeSeconds: DEFAULT_MAX_AGE_SECONDS, onStale: "Warn" };
  for (const [key, value] of Object.entries(data)) {
    const where = `ConfigMap ${SETTINGS_CONFIGMAP} data.${key}`;
    if (key.startsWith("policy.")) {
      const id = key.slice("policy.".length);
      if (policyIds && !policyIds.includes(id)) problems.push(`${where}: no policy "${id}" (known: ${policyIds.join(", ")}); carried, but no policy here reads it`);
      if ((POLICY_MODES as readonly string[]).includes(value)) settings.policies[id] = value as Settings["policies"][string];
      else problems.push(`${where}: "${value}" is not one of ${POLICY_MODES.join(", ")}`);
    } else if (key === "maxAgeSeconds") {
      if (/^\d+$/.test(value) && Number(value) >= 60) settings.maxAgeSeconds = Number(value);
      else problems.push(`${where}: "${value}" is not a whole number of seconds ≥ 60`);
    } else if (key === "onStale") {
      if (value === "Warn" || value === "Deny") settings.onStale = value;
      else problems.push(`${where}: "${value}" is not Warn or Deny`);
    } else if (key === "fleetInventory") {
      const kinds = fleetInventoryOf(value, where, problems);
      if (kinds.length > 0) settings.fleetInventory = kinds;
    } else problems.push(`${where}: unknown key (expected policy.<id>, maxAgeSeconds, onStale, fleetInventory)`);
  }
  return settings;
}

export function buildSnapshot(objects: readonly KubeObject[], options: BuildOptions): BuildResult {
  const builder = new SnapshotBuilder(options);
  for (const object of objects) builder.add(object);
  return builder.build();
}

interface BuilderOptions extends BuildOptions {
  /**
   * Which objects are kept until build(), where the cluster's policies, their
   * params and the Namespaces are sorted out of them (and the rest reported
   * as ignored). Unset: every object. Set: only objects no fact branch has
   * already reduced to its facts, and of those the ones it accepts; a caller
   * that streams many objects keeps the policies' kinds only, so memory holds
   * the facts, not the input.
   */
  retain?: (object: KubeObject) => boolean;
}

/**
 * The snapshot built one object at a time: each object is reduced to the
 * facts it gives as it is added (a workload to the claims it mounts), so what
 * the builder holds is the snapshot, not its input.
 */
export class SnapshotBuilder {
  readonly #options: BuilderOptions;
  readonly #problems: string[] = [];
  readonly #affinityClasses: Record<string, AffinityClass> = {};
  readonly #tenantObjects: TenantObject[] = [];
  readonly #applications: Record<string, Application> = {};
  /** Claims that attach to one node only, by `namespace/name`, and the volumes they are bound to. */
  readonly #volumeClaims: Record<string, VolumeClaim> = {};
  readonly #volumeNames = new Map<string, string>();
  /** PersistentVolumes pinned to one node: all a claim asks of its volume. */
  readonly #pinned = new Set<string>();
  readonly #nodeObjects: NodeFacts[] = [];
  readonly #usersByClaim = new Map<string, VolumeUser[]>();
  #settings: Settings = { policies: {}, maxAgeSeconds: DEFAULT_MAX_AGE_SECONDS, onStale: "Warn" };
  readonly #exceptions: Record<string, Exception> = {};
  /** Objects kept for the policies (see BuilderOptions.retain), and which of them no fact branch read. */
  readonly #kept: KubeObject[] = [];
  readonly #unread = new Set<KubeObject>();
  /** Objects given only for the inventory (addInventory). */
  readonly #inventoryCandidates: KubeObject[] = [];
  /** The problems of each lane's objects, in the order the lanes were opened. */
  readonly #lanes: string[][] = [];

  /** One copy of each label value and access mode list: they repeat across thousands of objects, and each parsed object brings its own. */
  readonly #strings = new Map<string, string>();
  readonly #lists = new Map<string, string[]>();

  constructor(options: BuilderOptions) {
    this.#options = options;
  }

  #shared(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    this.#strings.set(value, value);
    return value;
  }

  #sharedList(values: string[]): string[] {
    const key = values.join("\u0000");
    const known = this.#lists.get(key);
    if (known !== undefined) return known;
    this.#lists.set(key, values);
    return values;
  }

  #decode<T>(schema: z.ZodMiniType<T>, object: KubeObject, problems: string[]): T | undefined {
    const result = schema.safeParse(object);
    if (result.success) return result.data;
    problems.push(`${describeKubeObject(object)}: ${describeZodError(result.error)}`);
    return undefined;
  }

  add(object: KubeObject): void {
    this.#add(object, this.#problems);
  }

  #add(object: KubeObject, problems: string[]): void {
    const { group, kind } = kindOf(object);
    const read = this.#read(group, kind, object, problems);
    if (this.#options.retain && (read || !this.#options.retain(object))) return;
    this.#kept.push(object);
    if (!read) this.#unread.add(object);
  }

  /**
   * Another way in for add(): the problems of the objects added through a lane
   * are listed after those of add(), lane by lane in the order they were
   * opened. A caller that lists several kinds at once adds each through its
   * own lane, and the problems read as if one list had come after the other.
   */
  lane(): { add(object: KubeObject): void } {
    const problems: string[] = [];
    this.#lanes.push(problems);
    return { add: (object) => this.#add(object, problems) };
  }

  /**
   * An object kept for the policies as it is, whether a fact branch reads its
   * kind or not: how a caller that streams with `retain` hands over the
   * objects of a bound policy's paramKind, which it learned before listing them.
   */
  keep(object: KubeObject): void {
    this.#kept.push(object);
  }

  /**
   * An object that counts only for the inventory, if a bound policy declares
   * its kind: how a caller that streams with `retain` hands over objects of
   * kinds it learned were declared after it had added them.
   */
  addInventory(object: KubeObject): void {
    this.#inventoryCandidates.push(object);
  }

  /** Takes the object's facts (what is wrong with it goes to `problems`); false when no branch reads its kind. */
  #read(group: string, kind: string, object: KubeObject, problems: string[]): boolean {
    const options = this.#options;
    if (group === "cozystack.io" && kind === "AffinityClass") {
      const ac = this.#decode(affinityClassObject, object, problems);
      if (ac) {
        const entry: AffinityClass = {};
        if (ac.spec.nodeSelector) entry.nodeSelector = ac.spec.nodeSelector;
        if (ac.spec.nodeAffinity) entry.nodeAffinity = ac.spec.nodeAffinity;
        if (ac.spec.enforcement) entry.enforcement = ac.spec.enforcement;
        this.#affinityClasses[ac.metadata.name] = entry;
      }
    } else if (group === "apps.cozystack.io" && kind === "Tenant") {
      const tenant = this.#decode(tenantObject, object, problems);
      if (tenant) this.#tenantObjects.push(tenantFacts(tenant));
    } else if (group === "helm.toolkit.fluxcd.io" && kind === "HelmRelease") {
      const hr = this.#decode(named, object, problems);
      if (hr && hr.metadata.namespace) {
        const labels = hr.metadata.labels ?? {};
        const lineage = lineageOf(labels);
        const affinityClass = labels[AFFINITY_CLASS_LABEL] ? this.#shared(labels[AFFINITY_CLASS_LABEL]) : undefined;
        this.#applications[`${hr.metadata.namespace}/${hr.metadata.name}`] = applicationOf(
          lineage && { group: this.#shared(lineage.group), kind: this.#shared(lineage.kind), name: lineage.name },
          affinityClass,
        );
      }
    } else if (group === "" && kind === "PersistentVolumeClaim") {
      const pvc = this.#decode(pvcObject, object, problems);
      const accessModes = pvc?.spec.accessModes ?? [];
      if (pvc && accessModes.some((mode) => RWO_MODES.has(mode)) && !accessModes.some((mode) => MULTI_NODE_MODES.has(mode))) {
        const key = `${pvc.metadata.namespace}/${pvc.metadata.name}`;
        // pinnedToNode and mountedBy are settled in build(), once every volume and workload is in.
        this.#volumeClaims[key] = { accessModes: this.#sharedList(accessModes), pinnedToNode: false };
        if (pvc.spec.volumeName) this.#volumeNames.set(key, pvc.spec.volumeName);
        else this.#volumeNames.delete(key);
      }
    } else if (group === "" && kind === "PersistentVolume") {
      const pv = this.#decode(pvObject, object, problems);
      if (pv && pinsOneNode(pv)) this.#pinned.add(pv.metadata.name);
      else if (pv) this.#pinned.delete(pv.metadata.name);
    } else if (group === "" && kind === "Node") {
      const node = this.#decode(nodeObject, object, problems);
      if (node) this.#nodeObjects.push({ name: node.metadata.name, labels: node.metadata.labels ?? {}, allocatable: node.status?.allocatable ?? {} });
    } else if (isWorkloadKind(kind) && group === WORKLOAD_API_GROUPS[kind]) {
      collectVolumeUsers(kind, object, this.#usersByClaim, problems);
    } else if (group === EXCEPTION_GROUP && kind === EXCEPTION_KIND) {
      const exception = this.#decode(exceptionObjectSchema, object, problems);
      if (!exception) return true;
      const name = exception.metadata.name;
      if (name.includes("/")) {
        problems.push(slashedNameProblem(EXCEPTION_KIND, name));
        return true;
      }
      if (Object.hasOwn(this.#exceptions, name)) problems.push(`${EXCEPTION_KIND} ${name}: an exception of that name came before; this one wins`);
      this.#exceptions[name] = exception.spec;
    } else if (group === "" && kind === "ConfigMap" && named.safeParse(object).data?.metadata.name === SETTINGS_CONFIGMAP) {
      const cm = this.#decode(settingsObject, object, problems);
      if (!cm) return true;
      if (!options.settingsNamespace || cm.metadata.namespace === options.settingsNamespace) this.#settings = settingsFrom(cm.data ?? {}, options.policyIds, problems);
      else problems.push(`${describeKubeObject(object)}: not in the settings namespace ${options.settingsNamespace}; ignored`);
    } else return false;
    return true;
  }

  build(): BuildResult {
    const options = this.#options;
    const problems = [...this.#problems, ...this.#lanes.flat()];
    const { refused, ...policyObjects } = collectPolicyObjects(this.#kept, problems, {
      inventoryCandidates: this.#inventoryCandidates,
      ...(options.namespacedKinds ? { namespacedKinds: options.namespacedKinds } : {}),
    });

    const volumeClaims = this.#volumeClaims;
    for (const [key, claim] of Object.entries(volumeClaims)) {
      const volumeName = this.#volumeNames.get(key);
      claim.pinnedToNode = volumeName !== undefined && this.#pinned.has(volumeName);
      const users = this.#usersByClaim.get(key);
      if (users) claim.mountedBy = [...users].sort((a, b) => (a.kind === b.kind ? compare(a.name, b.name) : compare(a.kind, b.kind)));
    }

    return {
      snapshot: {
        apiVersion: SNAPSHOT_API_VERSION,
        kind: "Snapshot",
        generation: options.generation,
        builtAt: options.builtAt,
        ...(options.kubernetesVersion !== undefined ? { kubernetesVersion: options.kubernetesVersion } : {}),
        settings: this.#settings,
        affinityClasses: this.#affinityClasses,
        tenants: resolveTenants(this.#tenantObjects, problems),
        applications: this.#applications,
        volumeClaims,
        nodes: classLabelsOfNodes(this.#nodeObjects, this.#affinityClasses),
        ...policyObjects,
        exceptions: this.#exceptions,
        ...(this.#nodeObjects.length > 0 ? { largestAllocatable: largestAllocatable(this.#nodeObjects, problems) } : {}),
      },
      problems,
      refused,
      ignored: this.#kept.filter((object) => this.#unread.has(object) && !usedByPolicies(object, policyObjects)),
    };
  }
}

/** Per resource, the most any one node can give a pod: a small map, whatever the number of nodes. */
function largestAllocatable(nodes: readonly NodeFacts[], problems: string[]): Record<string, string> {
  const largest = new Map<string, Quantity>();
  for (const node of nodes) {
    for (const [resource, text] of Object.entries(node.allocatable)) {
      let quantity: Quantity;
      try {
        quantity = parseQuantity(text);
      } catch (e) {
        if (!(e instanceof QuantityError)) throw e;
        problems.push(`Node ${node.name}: status.allocatable.${resource}: ${e.message}`);
        continue;
      }
      const known = largest.get(resource);
      if (!known || quantity.compareTo(known) > 0) largest.set(resource, quantity);
    }
  }
  return Object.fromEntries([...largest].sort(([a], [b]) => compare(a, b)).map(([resource, quantity]) => [resource, quantity.toString()]));
}

/** Each node's labels, kept only for the keys some AffinityClass constrains: all a class check reads, at a fraction of the bytes. */
function classLabelsOfNodes(nodes: readonly NodeFacts[], classes: Record<string, AffinityClass>): Record<string, Record<string, string>> {
  const keys = new Set<string>();
  for (const cls of Object.values(classes)) {
    for (const key of Object.keys(cls.nodeSelector ?? {})) keys.add(key);
    for (const term of cls.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
      for (const requirement of term.matchExpressions ?? []) keys.add(requirement.key);
    }
  }
  const result: Record<string, Record<string, string>> = {};
  for (const node of nodes) result[node.name] = Object.fromEntries(Object.entries(node.labels).filter(([key]) => keys.has(key)));
  return result;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Records which claims a workload's pods share, under `namespace/claim`.
 * Objects a workload controller made count as their owner, so a Deployment's
 * ReplicaSets and Pods do not count it twice.
 */
function collectVolumeUsers(kind: WorkloadKind, object: KubeObject, usersByClaim: Map<string, VolumeUser[]>, problems: string[]): void {
  let workload: Workload;
  try {
    workload = workloadOf(kind, object);
  } catch (e) {
    if (!(e instanceof InvalidObjectError)) throw e;
    problems.push(`${describeKubeObject(object)}: ${e.message.replace(/^request\.object is not a valid \w+: /, "")}`);
    return;
  }
  const { name, namespace } = workload.metadata;
  if (!name || !namespace || madeByWorkloadController(workload.metadata)) return;
  const podLabels = workload.podMetadata.labels ?? undefined;
  for (const claim of sharedClaimNames(workload)) {
    const key = `${namespace}/${claim}`;
    const users = usersByClaim.get(key) ?? [];
    users.push(podLabels && Object.keys(podLabels).length > 0 ? { kind, name, podLabels } : { kind, name });
    usersByClaim.set(key, users);
  }
}

/**
 * Keys tenants by the namespace each owns (status.namespace when the Tenant
 * reports it, else CozyStack's naming) and resolves what a child inherits: a
 * child that sets no allowed list (absent or empty, as Helm values leave it),
 * default or enforcement takes its parent's. A child only narrows: classes its
 * parent does not allow are dropped, and so is a default outside the allowed
 * list; each such drop is a problem.
 */
function resolveTenants(objects: readonly TenantObject[], problems: string[]): Record<string, Tenant> {
  const byOwned = new Map<string, TenantObject>();
  for (const object of objects) {
    const owned = object.status?.namespace || tenantNamespaceOf(object.metadata.name, object.metadata.namespace);
    const other = byOwned.get(owned);
    if (other) problems.push(`Tenant ${object.metadata.namespace}/${object.metadata.name}: owns namespace ${owned}, as does Tenant ${other.metadata.namespace}/${other.metadata.name}; skipped`);
    else byOwned.set(owned, object);
  }
  const resolved: Record<string, Tenant> = {};

  const resolve = (owned: string, seen: Set<string>): Tenant | undefined => {
    if (Object.hasOwn(resolved, owned)) return resolved[owned];
    const object = byOwned.get(owned);
    if (!object || seen.has(owned)) return undefined;
    seen.add(owned);
    const parentNamespace = object.metadata.namespace;
    const parent = parentNamespace === owned ? undefined : resolve(parentNamespace, seen);
    const spec = object.spec ?? {};
    const where = `Tenant ${parentNamespace}/${object.metadata.name}`;
    const tenant: Tenant = {
      name: object.metadata.name,
      namespace: parentNamespace,
      chain: [...(parent?.chain ?? []), owned],
    };
    let allowed = spec.allowedAffinityClasses?.length ? [...new Set(spec.allowedAffinityClasses)] : parent?.allowedAffinityClasses;
    if (allowed && parent?.allowedAffinityClasses && allowed !== parent.allowedAffinityClasses) {
      const parentAllowed = new Set(parent.allowedAffinityClasses);
      const widening = allowed.filter((c) => !parentAllowed.has(c));
      if (widening.length > 0) {
        problems.push(`${where}: spec.allowedAffinityClasses ${widening.join(", ")} not allowed by its parent tenant; dropped`);
        allowed = allowed.filter((c) => parentAllowed.has(c));
      }
    }
    if (allowed) tenant.allowedAffinityClasses = allowed;
    const defaultClass = spec.defaultAffinityClass || parent?.defaultAffinityClass;
    if (defaultClass && allowed && !allowed.includes(defaultClass)) {
      const inherited = spec.defaultAffinityClass ? "" : " (inherited)";
      problems.push(`${where}: defaultAffinityClass "${defaultClass}"${inherited} is not among its allowed classes ${allowed.join(", ") || "(none)"}; no default applies`);
    } else if (defaultClass) tenant.defaultAffinityClass = defaultClass;
    const enforcement = spec.affinityClassEnforcement ?? parent?.affinityClassEnforcement;
    if (enforcement) tenant.affinityClassEnforcement = enforcement;
    resolved[owned] = tenant;
    return tenant;
  };
  for (const owned of byOwned.keys()) resolve(owned, new Set());
  return resolved;
}
