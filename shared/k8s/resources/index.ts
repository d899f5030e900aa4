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

/** The pod's requests by resource name. A value that is not a quantity is an invalid object (HTTP 400). */
export function podRequests(workload: Pick<Workload, "kind" | "podSpecPath"> & { podSpec: PodSpec }): Requests {
  const parsed = parseUnchanged(requestsSchema, workload.podSpec);
  if (!parsed.success) throw invalidObject(workload.kind, parsed.error);
  const spec = parsed.data;
  const requestsOf = (resources: z.infer<typeof resourcesSchema>, path: string): Requests => {
    const requests: Requests = new Map();
    for (const [resource, text] of Object.entries({ ...resources?.limits, ...resources?.requests })) {
      try {
        requests.set(resource, saturated(parseQuantity(text)));
      } catch (e) {
        if (!(e instanceof QuantityError)) throw e;
        throw invalidObject(workload.kind, `${workload.podSpecPath}.${path}: ${e.message}`);
      }
    }
    return requests;
  };

  const total: Requests = new Map();
  spec.containers?.forEach((container, i) => {
    for (const [resource, quantity] of requestsOf(container.resources, `containers[${i}].resources`)) addOne(total, resource, quantity);
  });
  // While init container i runs, the sidecars started before it run too. Each
  // step touches only the resources that container names: the others' peak
  // was taken when they last changed.
  const sidecars: Requests = new Map();
  const initPeak: Requests = new Map();
  spec.initContainers?.forEach((container, i) => {
    for (const [resource, quantity] of requestsOf(container.resources, `initContainers[${i}].resources`)) {
      if (container.restartPolicy === "Always") {
        addOne(total, resource, quantity);
        maxOne(initPeak, resource, addOne(sidecars, resource, quantity));
      } else maxOne(initPeak, resource, saturated(sidecars.get(resource)?.add(quantity) ?? quantity));
    }
  });
  for (const [resource, quantity] of initPeak) maxOne(total, resource, quantity);
  for (const [resource, quantity] of requestsOf({ requests: spec.resources?.requests }, "resources")) if (podLevel(resource)) total.set(resource, quantity);
  for (const [resource, quantity] of requestsOf({ requests: spec.overhead }, "overhead")) addOne(total, resource, quantity);
  return total;
}
