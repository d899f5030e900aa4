// The CEL library over the cluster's inventory: `inventory` is a variable of
// type edgeadmit.Inventory in every expression at the edge, and the calls are
// receiver-style overloads on it, so the per-review data is the variable's
// value in the activation (one InventoryValue per policy invocation).
//
//   inventory.list('networking.k8s.io/v1', 'Ingress')           every namespace (a cluster-scoped kind: all objects)
//   inventory.list('v1', 'Service', object.metadata.namespace)   one namespace
//   inventory.get('apps/v1', 'Deployment', 'shop', 'web')         an optional
//   inventory.index('networking.k8s.io/v1', 'Ingress', 'spec.rules[*].host')[host]
//                                                                  value → the objects having it; `h in …`, `….?[h]`
//
// Rules:
// - A kind must be declared in the policy's annotation (and an index field as
//   `index` there): with constant arguments a compile error, else a runtime error.
// - A kind declared but absent from the snapshot (the sync job could not list
//   it) is unknown, never empty: a runtime error, so failurePolicy decides.
// - The object under review is never in its own inventory: every result
//   leaves out the object of the request's group, kind, namespace and name,
//   so an UPDATE never meets its stored copy.
// - An object left out of the snapshot for breaking a limit (shared/snapshot/builder
//   INVENTORY_LIMITS) makes every call that could have read it an evaluation
//   error: an answer that may miss an object is not given as complete. Where
//   the snapshot indexes the left-out objects' values (their kind's
//   leftOut.indexed), a lookup by value fails only for one of them.
// - An index bucket holds the keys of the objects; a lookup reads each from
//   its namespace's shard (or the cluster part), counted like any other unit.
// - Cost: a list is charged as a traversal of its result (cel-go's 0.1 per
//   element), before it is built; get and an index lookup as one call.
// - Bounded: a list across namespaces spans at most MAX_LIST_NAMESPACES
//   namespaces and MAX_LIST_OBJECTS objects, and one invocation reads at most
//   MAX_UNITS storage units (shards, index buckets), as decided from the
//   snapshot alone, so the function and check agree.
import { chargeTraversal, CelType, EvalError, LibraryValue, mapKey, MapValue, noSuchOverload, Optional, type CallContext, type Library, type OverloadDecl, type Value } from "../cel/index.js";
import { capped } from "../text/index.js";
import { ANNOTATION_FIELD, describeKind, kindKey, type InventoryDeclaration } from "./declaration.js";
import { indexKey, isObject, parseFieldPath, type FieldPath } from "./paths.js";
import { UnloadedUnitError, type InventoryFacts, type KindEntry } from "./facts.js";
import { indexBucketOf, inventoryIndexUnit, inventoryKindUnit } from "./units.js";

export const INVENTORY_VARIABLE = "inventory";
const INVENTORY_TYPE = new CelType("edgeadmit.Inventory");

export const MAX_LIST_NAMESPACES = 256;
const MAX_LIST_OBJECTS = 10_000;
const MAX_UNITS = 512;
/** How many times the function judges a review again with the parts of the snapshot its evaluation asked for. */
export const MAX_LOAD_ROUNDS = 4;

/** The object under review: group, kind, namespace ("" when cluster-scoped) and name. */
export interface Reviewed {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

/**
 * What the snapshot answers, or an evaluation error when the function could
 * not load the part asked for within one review (shared/snapshot's view
 * throws UnloadedUnitError only then: functions/routes/validate.ts).
 */
function answer<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof UnloadedUnitError)
      throw new EvalError(`inventory: this evaluation reads parts of the snapshot it names only one after another, more than one review loads (${MAX_LOAD_ROUNDS} rounds)`);
    throw e;
  }
}

/** One policy invocation's view of the inventory: its declaration, the snapshot, and who is under review. */
export class InventoryValue extends LibraryValue {
  readonly celType = INVENTORY_TYPE;
  readonly #units = new Set<string>();

  constructor(
    readonly facts: InventoryFacts,
    readonly declaration: InventoryDeclaration,
    readonly reviewed: Reviewed | undefined,
  ) {
    super();
  }

  equals(other: LibraryValue): boolean {
    return other === this;
  }

  /** Counts a storage unit this invocation reads; past MAX_UNITS the evaluation stops. */
  #read(unit: string): void {
    if (this.#units.has(unit)) return;
    if (this.#units.size >= MAX_UNITS)
      throw new EvalError(`inventory: one evaluation reads at most ${MAX_UNITS} parts of the snapshot (namespaces, index buckets); look fewer values up, or list one namespace`);
    this.#units.add(unit);
  }

  /** The kind's snapshot entry, when the policy declared it and the snapshot knows it. */
  #kind(apiVersion: Value, kind: Value) {
    if (typeof apiVersion !== "string" || typeof kind !== "string") throw noSuchOverload();
    const key = kindKey(apiVersion, kind);
    const problem = undeclared(this.declaration, key, undefined, "this policy's");
    if (problem) throw new EvalError(problem);
    const entry = this.facts.inventoryKind(key);
    if (!entry)
      throw new EvalError(
        `inventory: ${describeKind(key)} is not in the snapshot: the sync job could not list it (RBAC, or the API server does not serve it; see its warnings)`,
      );
    return { key, entry, self: this.reviewed && this.reviewed.group === groupOf(apiVersion) && this.reviewed.kind === kind ? this.reviewed : undefined };
  }

  list(ctx: CallContext, apiVersion: Value, kind: Value, namespace?: Value): Value {
    const { key, entry, self } = this.#kind(apiVersion, kind);
    if (namespace !== undefined && typeof namespace !== "string") throw noSuchOverload();
    const kept = (objects: Readonly<Record<string, unknown>>, out: Value[]) => {
      for (const object of Object.values(objects)) if (!isSelf(object, self)) out.push(object as Value);
    };
    const out: Value[] = [];
    if (!entry.namespaced) {
      if (namespace !== undefined && namespace !== "") throw new EvalError(`inventory: ${describeKind(key)} is cluster-scoped: list it without a namespace, or with ''`);
      leftOutCheck(key, entry, () => true);
      chargeTraversal(ctx, Object.keys(entry.objects).length);
      kept(entry.objects, out);
      return out;
    }
    if (namespace !== undefined) {
      if (namespace === "") throw new EvalError(`inventory: ${describeKind(key)} is namespaced: name a namespace, or list every one without`);
      leftOutCheck(key, entry, (id) => id.startsWith(`${namespace}/`));
      this.#read(namespace);
      const objects = answer(() => this.facts.inventoryInNamespace(key, namespace));
      chargeTraversal(ctx, Object.keys(objects).length);
      kept(objects, out);
      return out;
    }
    leftOutCheck(key, entry, () => true);
    this.#read(inventoryKindUnit(key));
    const counts = answer(() => this.facts.inventoryNamespaces(key));
    const namespaces = Object.keys(counts);
    const total = namespaces.reduce((sum, name) => sum + counts[name]!, 0);
    if (namespaces.length > MAX_LIST_NAMESPACES || total > MAX_LIST_OBJECTS)
      throw new EvalError(
        `inventory: ${describeKind(key)} spans ${namespaces.length} namespaces and ${total} objects, more than one list reads (${MAX_LIST_NAMESPACES} namespaces, ${MAX_LIST_OBJECTS} objects): list one namespace, or look values up with inventory.index`,
      );
    chargeTraversal(ctx, total);
    for (const name of namespaces) {
      this.#read(name);
      kept(answer(() => this.facts.inventoryInNamespace(key, name)), out);
    }
    return out;
  }

  get(apiVersion: Value, kind: Value, namespace: Value, name: Value): Value {
    const { key, entry, self } = this.#kind(apiVersion, kind);
    if (typeof namespace !== "string" || typeof name !== "string") throw noSuchOverload();
    let object: unknown;
    leftOutCheck(key, entry, (id) => id === (entry.namespaced ? `${namespace}/${name}` : name));
    if (entry.namespaced) {
      if (namespace === "") throw new EvalError(`inventory: ${describeKind(key)} is namespaced: get needs the namespace`);
      this.#read(namespace);
      object = own(answer(() => this.facts.inventoryInNamespace(key, namespace)), `${namespace}/${name}`);
    } else {
      if (namespace !== "") throw new EvalError(`inventory: ${describeKind(key)} is cluster-scoped: get it with namespace ''`);
      object = own(entry.objects, name);
    }
    return object === undefined || isSelf(object, self) ? Optional.none : new Optional(object as Value);
  }

  index(apiVersion: Value, kind: Value, field: Value): Value {
    const { key, entry, self } = this.#kind(apiVersion, kind);
    if (typeof field !== "string") throw noSuchOverload();
    const path = parseFieldPath(field);
    if (typeof path === "string") throw new EvalError(`inventory: ${capped(path, 127)}`);
    const problem = undeclared(this.declaration, key, path, "this policy's");
    if (problem) throw new EvalError(problem);
    if (!entry.index?.includes(path.text))
      throw new EvalError(`inventory: the snapshot has no index of ${describeKind(key)} by ${path.text}: the sync job that built it ran before the policy declared it`);
    // Any value may be one a left-out object has, unless the snapshot says which they hold.
    if (!entry.leftOut?.indexed) leftOutCheck(key, entry, () => true);
    return new IndexMap(this, key, entry, path.text, self);
  }

  /**
   * The objects with the value, leaving out the one under review; undefined
   * when none is left. The bucket holds their keys: each is read from its
   * namespace's shard (or the cluster part), a part of the snapshot like any other.
   */
  lookup(key: string, entry: KindEntry, field: string, value: Value, self: Reviewed | undefined): Value[] | undefined {
    const normal = mapKey(value);
    const valueKey = normal === undefined ? undefined : indexKey(normal);
    if (valueKey === undefined) return undefined;
    const bucket = indexBucketOf(key, field, valueKey);
    this.#read(inventoryIndexUnit(bucket));
    if (entry.leftOut?.indexed) leftOutValueCheck(key, entry, field, bucket, value, answer(() => this.facts.inventoryLeftOut(key, field, valueKey)));
    const found: Value[] = [];
    for (const id of answer(() => this.facts.inventoryLookup(key, field, valueKey))) {
      const slash = id.indexOf("/");
      let object: unknown;
      if (!entry.namespaced) object = own(entry.objects, id);
      else if (slash > 0) {
        const namespace = id.slice(0, slash);
        this.#read(namespace);
        object = own(answer(() => this.facts.inventoryInNamespace(key, namespace)), id);
      }
      if (object !== undefined && !isSelf(object, self)) found.push(object as Value);
    }
    return found.length > 0 ? found : undefined;
  }
}

/**
 * An evaluation error when an object this call could read was left out of the
 * snapshot for breaking a limit (`inScope` says which keys the call reads):
 * the answer would be incomplete, so the policy's failurePolicy decides.
 */
function leftOutCheck(key: string, entry: KindEntry, inScope: (id: string) => boolean): void {
  const leftOut = entry.leftOut;
  if (!leftOut) return;
  const named = Object.keys(leftOut.objects);
  const id = named.find(inScope);
  if (id !== undefined)
    throw new EvalError(`inventory: ${describeKind(key)} ${capped(id, 127)} was left out of the snapshot (${leftOut.objects[id]}), so this call could miss it; the sync job's output names it`);
  if (leftOut.total > named.length)
    throw new EvalError(`inventory: ${leftOut.total} objects of ${describeKind(key)} were left out of the snapshot for breaking its limits, so this call could miss one; the sync job's output names them`);
}

/**
 * An evaluation error when an object left out of the snapshot holds the
 * value looked up (`held`), or may (the value's bucket is crowded): the
 * answer could miss it. Any other value is answered exactly, so one tenant's
 * object over a limit fails only the lookups of its own values.
 */
function leftOutValueCheck(key: string, entry: KindEntry, field: string, bucket: number, value: Value, held: boolean): void {
  if (held)
    throw new EvalError(
      `inventory: an object of ${describeKind(key)} whose ${field} holds ${typeof value === "string" ? `"${capped(value, 127)}"` : String(value)} was left out of the snapshot for breaking its limits, so this lookup could miss it; the sync job's output names it`,
    );
  if (entry.leftOut?.crowded?.[field]?.includes(bucket))
    throw new EvalError(
      `inventory: objects of ${describeKind(key)} left out of the snapshot hold more values of ${field} in this value's index bucket than the snapshot records, so this lookup could miss one; the sync job's output names them`,
    );
}

function own(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether `object` is the one under review (same kind already established). */
function isSelf(object: unknown, self: Reviewed | undefined): boolean {
  if (!self || !isObject(object) || !isObject(object["metadata"])) return false;
  const { name, namespace } = object["metadata"];
  return name === self.name && (typeof namespace === "string" ? namespace : "") === self.namespace;
}

/**
 * inventory.index(...): a map looked up by value, one bucket per lookup.
 * Its keys cannot be listed (that would read every bucket): list the kind instead.
 */
class IndexMap extends MapValue {
  constructor(
    private readonly inventory: InventoryValue,
    private readonly key: string,
    private readonly entry: KindEntry,
    private readonly field: string,
    private readonly self: Reviewed | undefined,
  ) {
    super();
  }
  get(key: Value): Value | undefined {
    return this.inventory.lookup(this.key, this.entry, this.field, key, this.self);
  }
  keys(): readonly Value[] {
    throw new EvalError(`inventory.index(${describeKind(this.key)}, ${this.field}) is looked up by value (in, [ ], .?[ ]); to go through every object, use inventory.list`);
  }
  get size(): number {
    return this.keys().length;
  }
}

const receiver = (value: Value): InventoryValue => {
  if (!(value instanceof InventoryValue)) throw noSuchOverload();
  return value;
};

/** Why the declaration does not let a policy read kind `key` (by the index `path`, when given); `whose` names the declaration as the message's reader sees it. */
function undeclared(declaration: InventoryDeclaration, key: string, path: FieldPath | undefined, whose: "this policy's" | "the policy's"): string | undefined {
  const declared = declaration.kinds.get(key);
  if (!declared) return `inventory: ${capped(describeKind(key), 127)} is not declared in ${whose} ${ANNOTATION_FIELD}`;
  if (path && !declared.index.some((one) => one.text === path.text)) return `inventory: ${path.text} is not declared as an index of ${describeKind(key)} in ${whose} ${ANNOTATION_FIELD}`;
  return undefined;
}

/**
 * The compile-time check of constant arguments: a kind (and an index field)
 * the declaration does not name is a compile error at the call.
 */
function checked(declaration: InventoryDeclaration, fieldAt?: number) {
  return (constants: readonly (Value | undefined)[]): string | undefined => {
    const [, apiVersion, kind] = constants;
    if (typeof apiVersion !== "string" || typeof kind !== "string") return undefined;
    const key = kindKey(apiVersion, kind);
    const field = fieldAt === undefined ? undefined : constants[fieldAt];
    if (typeof field !== "string") return undeclared(declaration, key, undefined, "the policy's");
    const path = parseFieldPath(field);
    if (typeof path === "string") return undeclared(declaration, key, undefined, "the policy's") ?? `inventory: ${capped(path, 127)}`;
    return undeclared(declaration, key, path, "the policy's");
  };
}

const method = (params: string[], impl: OverloadDecl["impl"], specialize: OverloadDecl["specialize"], result?: string): OverloadDecl => ({
  receiver: true,
  params: [INVENTORY_TYPE.name, ...params],
  impl,
  specialize,
  ...(result ? { result } : {}),
});

/** The library for policies with `declaration` (NO_DECLARATION for one without the annotation: every kind is then undeclared). */
export function inventoryLibrary(declaration: InventoryDeclaration): Library {
  const kindOnly = checked(declaration);
  return {
    name: "edgeadmit.inventory",
    functions: [
      {
        name: "list",
        overloads: [
          method(["string", "string"], ([inv, a, k], ctx) => receiver(inv!).list(ctx, a!, k!), kindOnly, "list"),
          method(["string", "string", "string"], ([inv, a, k, n], ctx) => receiver(inv!).list(ctx, a!, k!, n!), kindOnly, "list"),
        ],
      },
      { name: "get", overloads: [method(["string", "string", "string", "string"], ([inv, a, k, n, name]) => receiver(inv!).get(a!, k!, n!, name!), kindOnly, "optional_type")] },
      { name: "index", overloads: [method(["string", "string", "string"], ([inv, a, k, f]) => receiver(inv!).index(a!, k!, f!), checked(declaration, 3), "map")] },
    ],
  };
}
