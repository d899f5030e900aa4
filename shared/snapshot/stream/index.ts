// A snapshot's units made as a cluster's lists come in, for a cluster of any
// size: what `edgeadmit sync` pushes, byte for byte the units encodeSnapshot
// makes of the whole snapshot of the same objects, without that snapshot.
//
// The kinds whose objects grow with the cluster (HelmReleases, claims,
// workloads: builder/namespaced.ts) stream in through one lane per list;
// everything else (classes, tenants, volumes, nodes, policies and what they
// declare) is built first, whole, as the rest. The API server lists every
// kind in the order of its storage keys, `<namespace>/<name>`
// (k8s.io/apiserver storage/etcd3/store.go GetList: one etcd range read,
// continued after the last key; the watch cache serves lists from a B-tree
// of the same keys, storage/cacher/store_btree.go), so once every lane has
// gone past a namespace, nothing more of it can come: its shard is settled,
// encoded, handed on and dropped. What the stream holds is the namespaces
// between its lanes, not the cluster. An object of a namespace already
// handed on (a list out of that order) ends the stream with
// NotInNamespaceOrder, and the caller builds the whole snapshot instead.
// The shards are the same for every release of the function; the cluster
// part and the indexes over every namespace come last, once the caller knows
// which release they go to (finish).
import { utf8Length } from "../../text/index.js";
import { NamespacedFacts } from "../builder/namespaced.js";
import { compare, kindOf, type KubeObject } from "../builder/object.js";
import type { Snapshot } from "../schema.js";
import type { WrittenFeature } from "../../version/index.js";
import {
  classReferencesUnit,
  ClassReferenceIndex,
  clusterPartFor,
  CLUSTER_UNIT,
  cutSnapshot,
  emptyShard,
  encodeCheckedUnit,
  inventoryUnits,
  type ClusterPart,
  type EncodedUnit,
  type Shard,
} from "../units/index.js";

/** A list the stream cannot take: the caller builds the whole snapshot instead, as if there were no stream. */
export class NotInNamespaceOrder extends Error {
  override name = "NotInNamespaceOrder";
}

/**
 * Where a namespace sorts among the storage keys: `a-b/x` comes before `a/x`
 * ("-" is below "/"), so namespaces are compared with the slash that ends them.
 */
const orderOf = (namespace: string) => `${namespace}/`;

/** How many objects of a streamed field leave the cluster, and their bytes as the whole snapshot's record would be written (leaving.ts). */
export interface FieldMeasure {
  objects: number;
  bytes: number;
}
export type StreamedMeasures = Record<"applications" | "volumeClaims", FieldMeasure>;

/** One list's way into the stream. */
export interface StreamLane {
  /** Takes the object's facts; throws NotInNamespaceOrder for one the stream cannot place. */
  add(object: KubeObject): void;
  /** The list has no more pages. */
  end(): void;
}

interface Lane extends StreamLane {
  /** The order of the last object's namespace ("" before the first), or undefined once ended. */
  at: string | undefined;
  problems: string[];
}

export interface StreamSummary {
  /** What the streamed fields hold in all, for what leaves the cluster. */
  measures: StreamedMeasures;
  /** What was wrong with the streamed objects, lane by lane in the order the lanes were opened. */
  problems: string[];
}

/**
 * The units of `rest`, a snapshot built of everything but the streamed kinds,
 * joined with the facts its lanes take: each namespace's unit goes to
 * `onUnit` as soon as it is settled (see the module's comment), the last
 * ones at settle(); the cluster part and the indexes over every namespace at
 * finish().
 */
export class UnitStream {
  readonly #rest: Snapshot;
  readonly #pinned: ReadonlySet<string>;
  readonly #onUnit: (unit: EncodedUnit) => Promise<void> | void;
  readonly #lanes: Lane[] = [];
  /** Facts of the namespaces not yet handed on. */
  readonly #pending = new Map<string, NamespacedFacts>();
  /** The rest's shards (tenants, Namespaces, params, inventory), and their namespaces in order, from `#restAt` on not yet handed on. */
  readonly #restShards: Map<string, Shard>;
  readonly #restOrder: string[];
  #restAt = 0;
  readonly #cluster: ClusterPart;
  /** The order of the last namespace handed on. */
  #handedOn = "";
  readonly #classReferences = new ClassReferenceIndex();
  readonly #measures = { applications: { objects: 0, parts: 0, inner: 0 }, volumeClaims: { objects: 0, parts: 0, inner: 0 } };

  constructor(rest: Snapshot, pinned: ReadonlySet<string>, onUnit: (unit: EncodedUnit) => Promise<void> | void) {
    if (Object.keys(rest.applications).length > 0 || Object.keys(rest.volumeClaims).length > 0) throw new Error("the rest of a streamed snapshot holds applications or claims: they stream");
    this.#rest = rest;
    this.#pinned = pinned;
    this.#onUnit = onUnit;
    const { cluster, shards } = cutSnapshot(rest);
    this.#cluster = cluster;
    this.#restShards = shards;
    this.#restOrder = [...shards.keys()].sort((a, b) => compare(orderOf(a), orderOf(b)));
  }

  /** A lane for one list; its objects' problems are listed after those of the lanes opened before it. */
  lane(): StreamLane {
    const lane: Lane = {
      at: "",
      problems: [],
      add: (object) => {
        if (lane.at === undefined) throw new Error("an ended lane takes no more objects");
        const namespace = namespaceOf(object);
        if (namespace === undefined) throw new NotInNamespaceOrder(`a ${String(object.kind)} without a namespace a shard can be named by, in a list of namespaced objects`);
        const order = orderOf(namespace);
        if (order <= this.#handedOn) throw new NotInNamespaceOrder(`${String(object.kind)} ${namespace}/…: the list is not in namespace order, and namespace ${namespace} is already settled`);
        let facts = this.#pending.get(namespace);
        if (!facts) this.#pending.set(namespace, (facts = new NamespacedFacts()));
        const { group, kind } = kindOf(object);
        if (!facts.add(group, kind, object, lane.problems)) throw new Error(`${kind} is not a kind that streams`);
        if (order > lane.at) lane.at = order;
      },
      end: () => {
        lane.at = undefined;
      },
    };
    this.#lanes.push(lane);
    return lane;
  }

  /** The lanes not ended, the one furthest behind first (the first opened of equals): the one the others wait on. */
  behind(): StreamLane[] {
    return this.#lanes.filter((lane) => lane.at !== undefined).sort((a, b) => compare(a.at!, b.at!));
  }

  /** Hands on the units of every namespace all lanes have gone past. */
  async flush(): Promise<void> {
    const open = this.#lanes.filter((lane) => lane.at !== undefined);
    if (open.length === 0) return;
    await this.#handOnBefore(open.reduce((least, lane) => (lane.at! < least ? lane.at! : least), open[0]!.at!));
  }

  /** Once every lane has ended: the namespaces left, and what the streamed fields hold in all. */
  async settle(): Promise<StreamSummary> {
    if (this.#lanes.some((lane) => lane.at !== undefined)) throw new Error("settle() before every lane ended");
    await this.#handOnBefore(undefined);
    const measure = ({ objects, parts, inner }: { objects: number; parts: number; inner: number }) => ({ objects, bytes: 2 + inner + Math.max(parts - 1, 0) });
    return {
      measures: { applications: measure(this.#measures.applications), volumeClaims: measure(this.#measures.volumeClaims) },
      problems: this.#lanes.flatMap((lane) => lane.problems),
    };
  }

  /** After settle(): the cluster part and the indexes over every namespace, as a function that reads `features` stores them (splitSnapshot). */
  async finish(features: ReadonlySet<WrittenFeature>): Promise<void> {
    await this.#onUnit(await encodeCheckedUnit(CLUSTER_UNIT, clusterPartFor(this.#cluster, this.#rest.settings, features)));
    for (const [className, references] of Object.entries(this.#classReferences.references(this.#rest.tenants))) await this.#onUnit(await encodeCheckedUnit(classReferencesUnit(className), references));
    for (const [name, content] of inventoryUnits(this.#rest.inventory, features.has("inventoryLeftOutValues"))) await this.#onUnit(await encodeCheckedUnit(name, content));
  }

  /** Every namespace sorting before `bound` (all when undefined), in order. */
  async #handOnBefore(bound: string | undefined): Promise<void> {
    const before = (namespace: string) => bound === undefined || orderOf(namespace) < bound;
    const streamed = [...this.#pending.keys()].filter(before);
    const rest: string[] = [];
    while (this.#restAt < this.#restOrder.length && before(this.#restOrder[this.#restAt]!)) rest.push(this.#restOrder[this.#restAt++]!);
    const namespaces = [...new Set([...streamed, ...rest])].sort((a, b) => compare(orderOf(a), orderOf(b)));
    for (const namespace of namespaces) await this.#handOn(namespace);
  }

  async #handOn(namespace: string): Promise<void> {
    this.#handedOn = orderOf(namespace);
    const facts = this.#pending.get(namespace);
    this.#pending.delete(namespace);
    const { applications, volumeClaims } = facts?.settle(this.#pinned) ?? { applications: {}, volumeClaims: {} };
    const restShard = this.#restShards.get(namespace);
    this.#restShards.delete(namespace);
    this.#measure("applications", applications);
    this.#measure("volumeClaims", volumeClaims);
    // A namespace has a shard when some field holds an entry of it, as splitSnapshot cuts them.
    if (!restShard && Object.keys(applications).length === 0 && Object.keys(volumeClaims).length === 0) return;
    const shard = restShard ?? emptyShard();
    shard.applications = applications;
    shard.volumeClaims = volumeClaims;
    this.#classReferences.addApplications(applications);
    await this.#onUnit(await encodeCheckedUnit(namespace, shard));
  }

  #measure(field: keyof StreamedMeasures, record: Record<string, unknown>): void {
    const objects = Object.keys(record).length;
    if (objects === 0) return;
    const measure = this.#measures[field];
    measure.objects += objects;
    measure.parts++;
    // The record's entries without its braces: the whole record's are these, joined by commas.
    measure.inner += utf8Length(JSON.stringify(record)) - 2;
  }
}

/** The namespace an object of a namespaced list names: a storage key's first part, never empty, never holding "/". */
function namespaceOf(object: KubeObject): string | undefined {
  const metadata = object["metadata"];
  const namespace = typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)["namespace"] : undefined;
  return typeof namespace === "string" && namespace !== "" && !namespace.includes("/") ? namespace : undefined;
}
