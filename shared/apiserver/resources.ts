// Resource lists as the apiserver's defaulting reads them: every quantity
// rounded up to milli units (SetDefaults_ResourceList), and the sums a pod's
// containers ask for (k8s.io/component-helpers/resource AggregateContainerRequests
// and AggregateContainerLimits, which LimitRanger's podRequests repeats).
import { parseQuantity, QuantityError, type Quantity } from "../k8s/quantity/index.js";
import { child, fieldOf, isRecord, records, type Defaulter, type Json } from "./fields.js";

const MILLI = -3;

/** The quantity a resource list holds for `value`, or undefined when it is none (validation refuses it). */
export function quantityOf(value: unknown): Quantity | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  try {
    return parseQuantity(String(value));
  } catch (e) {
    if (e instanceof QuantityError) return undefined;
    throw e;
  }
}

/**
 * pkg/apis/core/v1/defaults.go SetDefaults_ResourceList: every value rounded
 * up to milli units ("1n" is stored as "1m"), written canonically.
 */
export function roundResourceList(list: unknown, path: string, d: Defaulter): void {
  if (!isRecord(list)) return;
  for (const [name, value] of Object.entries(list)) {
    const quantity = quantityOf(value);
    if (quantity === undefined) continue;
    const rounded = quantity.roundUp(MILLI);
    if (rounded === quantity) continue;
    list[name] = rounded.toString();
    d.note(fieldOf(path, name));
  }
}

type ResourceTotals = Map<string, Quantity>;

function addInto(totals: ResourceTotals, list: unknown): void {
  if (!isRecord(list)) return;
  for (const [name, value] of Object.entries(list)) {
    const quantity = quantityOf(value);
    if (quantity === undefined) continue;
    const sum = totals.get(name);
    totals.set(name, sum === undefined ? quantity : sum.add(quantity));
  }
}

function maxInto(totals: ResourceTotals, other: ResourceTotals): void {
  for (const [name, quantity] of other) {
    const current = totals.get(name);
    if (current === undefined || quantity.compareTo(current) > 0) totals.set(name, quantity);
  }
}

const isSidecar = (container: Json) => container["restartPolicy"] === "Always";

/**
 * What a pod's containers ask for in all (AggregateContainerRequests or
 * AggregateContainerLimits): the regular containers and the sidecars summed,
 * and each other init container, with the sidecars started before it, as a
 * floor.
 */
export function aggregateContainers(spec: Json, list: "requests" | "limits"): ResourceTotals {
  const totals: ResourceTotals = new Map();
  for (const container of records(spec["containers"])) addInto(totals, child(container, "resources")?.[list]);
  const sidecars: ResourceTotals = new Map();
  const initFloor: ResourceTotals = new Map();
  for (const container of records(spec["initContainers"])) {
    const own = child(container, "resources")?.[list];
    if (isSidecar(container)) {
      addInto(totals, own);
      addInto(sidecars, own);
      maxInto(initFloor, sidecars);
    } else {
      const running: ResourceTotals = new Map(sidecars);
      addInto(running, own);
      maxInto(initFloor, running);
    }
  }
  maxInto(totals, initFloor);
  return totals;
}
