// What the inventory reads from a snapshot, declared below both: the snapshot's
// view answers it (shared/snapshot/view.ts), the CEL library asks it
// (library.ts), and neither imports the other.

/** What the snapshot answers about the inventory (a snapshot view). */
export interface InventoryFacts {
  /** Kind `key` (`<apiVersion>/<kind>`) as the cluster part holds it; undefined when it was not listed. */
  inventoryKind(key: string): KindEntry | undefined;
  /** The objects of a namespaced kind in one namespace, by `namespace/name`. */
  inventoryInNamespace(key: string, namespace: string): Readonly<Record<string, unknown>>;
  /** Namespace → how many objects of a namespaced kind it holds. */
  inventoryNamespaces(key: string): Readonly<Record<string, number>>;
  /** The keys (`namespace/name`, or `name`) of the objects whose indexed `field` holds the value keyed `valueKey` (paths.indexKey). */
  inventoryLookup(key: string, field: string, valueKey: string): readonly string[];
  /** Whether an object left out of the snapshot holds that value (read from the value's bucket when the kind's `leftOut.indexed`). */
  inventoryLeftOut(key: string, field: string, valueKey: string): boolean;
}

/** A kind as the cluster part holds it. */
export interface KindEntry {
  namespaced: boolean;
  index?: readonly string[] | undefined;
  objects: Readonly<Record<string, unknown>>;
  /**
   * The objects left out for breaking a limit (shared/snapshot/builder
   * INVENTORY_LIMITS): how many, and the first by key with why; `indexed`:
   * their values are in the index buckets, so a lookup fails only for one of
   * them, or in a bucket `crowded` names for the field.
   */
  leftOut?: { total: number; objects: Readonly<Record<string, string>>; indexed?: true | undefined; crowded?: Readonly<Record<string, readonly number[]>> | undefined } | undefined;
}

/** A lookup reached a unit the view was not given: reviewUnits missed one a policy reads. */
export class UnloadedUnitError extends Error {
  constructor(unit: string) {
    super(`snapshot view: unit "${unit.slice(0, 63)}" was not loaded for this review (shared/snapshot reviewUnits must name it)`);
    this.name = "UnloadedUnitError";
  }
}
