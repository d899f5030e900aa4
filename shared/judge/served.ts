// An object as the apiserver would hand it to a webhook, for objects read
// from YAML: the apiserver decodes every resource.Quantity and writes it back
// in canonical form (`cpu: 1` → "1", `cpu: 0.5` → "500m", `memory: 1e9` →
// "1G", `cpu: "1000m"` → "1"), so a ValidatingAdmissionPolicy reading
// `object.spec...resources.requests.cpu` offline sees the string it would see
// in the cluster. Objects listed from the API are canonical already and come
// back unchanged (the same object, nothing copied).
import { parseQuantity, QuantityError } from "../k8s/quantity/index.js";
import { isWorkloadKind, POD_SPEC_PATHS } from "../k8s/workload/index.js";
import type { KubeObject } from "../snapshot/builder/index.js";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function at(object: unknown, path: string): unknown {
  let value = object;
  for (const key of path.split(".")) value = isRecord(value) ? value[key] : undefined;
  return value;
}

/** The canonical text of a quantity written as a number or a string; undefined when it is none (left for the policies to report). */
function canonical(value: unknown): string | undefined {
  if (typeof value !== "number" && typeof value !== "string") return undefined;
  try {
    return parseQuantity(typeof value === "number" ? String(value) : value).toString();
  } catch (e) {
    if (e instanceof QuantityError) return undefined;
    throw e;
  }
}

/** The resource-name → quantity maps of an object, by kind: where the apiserver's types hold resource.Quantity. */
function quantityMaps(object: KubeObject): unknown[] {
  const kind = typeof object.kind === "string" ? object.kind : "";
  if (isWorkloadKind(kind)) {
    const pod = at(object, POD_SPEC_PATHS[kind]);
    const containers = ["containers", "initContainers", "ephemeralContainers"].flatMap((list) => {
      const items = isRecord(pod) ? pod[list] : undefined;
      return Array.isArray(items) ? items : [];
    });
    return [...containers.flatMap((c) => [at(c, "resources.requests"), at(c, "resources.limits")]), at(pod, "overhead"), at(pod, "resources.requests"), at(pod, "resources.limits")];
  }
  if (kind === "PersistentVolumeClaim") return [at(object, "spec.resources.requests"), at(object, "spec.resources.limits")];
  if (kind === "Node") return [at(object, "status.capacity"), at(object, "status.allocatable")];
  if (kind === "ResourceQuota") return [at(object, "spec.hard")];
  if (kind === "LimitRange") {
    const limits = at(object, "spec.limits");
    return (Array.isArray(limits) ? limits : []).flatMap((limit) => ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"].map((key) => at(limit, key)));
  }
  return [];
}

/** `object` with its quantities canonical as the apiserver stores them; `object` itself when they are already. */
export function asServed(object: KubeObject): KubeObject {
  const needed = quantityMaps(object).some(
    (map) =>
      isRecord(map) &&
      Object.values(map).some((value) => {
        const text = canonical(value);
        return text !== undefined && text !== value;
      }),
  );
  if (!needed) return object;
  const copy = JSON.parse(JSON.stringify(object)) as KubeObject;
  for (const map of quantityMaps(copy)) {
    if (!isRecord(map)) continue;
    for (const [resource, value] of Object.entries(map)) {
      const text = canonical(value);
      if (text !== undefined) map[resource] = text;
    }
  }
  return copy;
}
