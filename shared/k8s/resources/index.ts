// What a pod asks the scheduler for, per resource, as NodeResourcesFit counts
// it (k8s.io/component-helpers/resource PodRequests): the sum of its
// containers and sidecars (restartable init containers), or more while an init
// container runs beside the sidecars started before it; pod-level requests
// replace the sum for the resources they name; the RuntimeClass overhead adds.
// A container that sets only a limit requests its limit (SetDefaults_Pod).
import * as z from "zod/mini";
import "../../zod/index.js";
import { parseUnchanged } from "../../zod/unchanged.js";
import { quantityMapSchema, type PodSpec } from "../schemas/index.js";
import { parseQuantity, QuantityError, type Quantity } from "../quantity/index.js";
import { invalidObject, type Workload } from "../workload/index.js";

const resourcesSchema = z.optional(z.nullable(z.looseObject({ requests: z.optional(z.nullable(quantityMapSchema)), limits: z.optional(z.nullable(quantityMapSchema)) })));
const containerSchema = z.looseObject({ resources: resourcesSchema, restartPolicy: z.optional(z.nullable(z.string())) });
const requestsSchema = z.looseObject({
  containers: z.optional(z.nullable(z.array(containerSchema))),
  initContainers: z.optional(z.nullable(z.array(containerSchema))),
  resources: resourcesSchema,
  overhead: z.optional(z.nullable(quantityMapSchema)),
});

/** Resources pod-level requests may set (PodLevelResources): cpu, memory, hugepages-*. */
const podLevel = (resource: string) => resource === "cpu" || resource === "memory" || resource.startsWith("hugepages-");

export type Requests = Map<string, Quantity>;

/**
 * Sums stop at ±10^30: no node has that much of anything, and a quantity of a
 * million digits added to many small ones would cost more than linear time.
 */
const LIMIT = parseQuantity("1e30");
const NEGATIVE_LIMIT = parseQuantity("-1e30");
const saturated = (q: Quantity) => (q.compareTo(LIMIT) > 0 ? LIMIT : q.compareTo(NEGATIVE_LIMIT) < 0 ? NEGATIVE_LIMIT : q);

function addOne(into: Requests, resource: string, quantity: Quantity): Quantity {
  const sum = saturated(into.get(resource)?.add(quantity) ?? quantity);
  into.set(resource, sum);
  return sum;
}

function maxOne(into: Requests, resource: string, quantity: Quantity): void {
  const known = into.get(resource);
  if (!known || quantity.compareTo(known) > 0) into.set(resource, quantity);
}

type Resources = z.infer<typeof resourcesSchema>;

function namesEvery(limits: object, requests: object): boolean {
  for (const resource in requests) if (Object.hasOwn(requests, resource) && !Object.hasOwn(limits, resource)) return false;
  return true;
}

/**
 * Each resource a container asks for, with its request, or its limit when it
 * sets no request (SetDefaults_Pod): Object.entries({ ...limits, ...requests })
 * without building it when, as usual, the limits name every request.
 */
function eachRequest(resources: Resources, visit: (resource: string, text: string) => void): void {
  const limits = resources?.limits ?? undefined;
  const requests = resources?.requests ?? undefined;
  const merged = !limits || !requests ? (limits ?? requests) : namesEvery(limits, requests) ? limits : { ...limits, ...requests };
  if (merged === undefined) return;
  for (const resource in merged) if (Object.hasOwn(merged, resource)) visit(resource, requests !== undefined && Object.hasOwn(requests, resource) ? requests[resource]! : merged[resource]!);
}

/** The pod's requests by resource name. A value that is not a quantity is an invalid object (HTTP 400). */
export function podRequests(workload: Pick<Workload, "kind" | "podSpecPath"> & { podSpec: PodSpec }): Requests {
  const parsed = parseUnchanged(requestsSchema, workload.podSpec);
  if (!parsed.success) throw invalidObject(workload.kind, parsed.error);
  const spec = parsed.data;
  /** The requests of `resources`, handed to `visit`; where they are (`containers[0].resources`) is spelled out only in an error. */
  const requestsOf = (resources: Resources, where: string, index: number | undefined, visit: (resource: string, quantity: Quantity) => void): void =>
    eachRequest(resources, (resource, text) => {
      let quantity: Quantity;
      try {
        quantity = saturated(parseQuantity(text));
      } catch (e) {
        if (!(e instanceof QuantityError)) throw e;
        throw invalidObject(workload.kind, `${workload.podSpecPath}.${index === undefined ? where : `${where}[${index}].resources`}: ${e.message}`);
      }
      visit(resource, quantity);
    });

  const total: Requests = new Map();
  const addToTotal = (resource: string, quantity: Quantity) => void addOne(total, resource, quantity);
  spec.containers?.forEach((container, i) => requestsOf(container.resources, "containers", i, addToTotal));
  // While init container i runs, the sidecars started before it run too. Each
  // step touches only the resources that container names: the others' peak
  // was taken when they last changed.
  const sidecars: Requests = new Map();
  const initPeak: Requests = new Map();
  spec.initContainers?.forEach((container, i) =>
    requestsOf(container.resources, "initContainers", i, (resource, quantity) => {
      if (container.restartPolicy === "Always") {
        addOne(total, resource, quantity);
        maxOne(initPeak, resource, addOne(sidecars, resource, quantity));
      } else maxOne(initPeak, resource, saturated(sidecars.get(resource)?.add(quantity) ?? quantity));
    }),
  );
  for (const [resource, quantity] of initPeak) maxOne(total, resource, quantity);
  requestsOf({ requests: spec.resources?.requests }, "resources", undefined, (resource, quantity) => {
    if (podLevel(resource)) total.set(resource, quantity);
  });
  requestsOf({ requests: spec.overhead }, "overhead", undefined, addToTotal);
  return total;
}
