// The cluster objects the built-in admission plugins and CRD defaulting read:
// what a cluster's informers would hand them (LimitRanges, PriorityClasses,
// StorageClasses, IngressClasses, RuntimeClasses, ServiceAccounts, CRDs),
// taken from the objects a check reads, each as the cluster stores it (its
// own API defaults applied). Facts only, kept small; never a cache.
import { applyApiDefaults } from "./defaults/index.js";
import { child, Defaulter, isRecord, records, type Json } from "./fields.js";
import { gatesFor } from "./features.js";

/** The PriorityClasses every cluster has (pkg/apis/scheduling: SystemPriorityClasses). */
const SYSTEM_PRIORITY_CLASSES: ReadonlyArray<readonly [string, number]> = [
  ["system-node-critical", 2000001000],
  ["system-cluster-critical", 2000000000],
];

export interface PriorityClassFacts {
  name: string;
  value: number;
  preemptionPolicy: string | undefined;
  globalDefault: boolean;
}

export interface ServiceAccountFacts {
  automountServiceAccountToken: boolean | undefined;
  imagePullSecrets: string[];
}

export interface RuntimeClassFacts {
  overhead: Json | undefined;
  nodeSelector: Json | undefined;
  tolerations: Json[] | undefined;
}

/** A class marked default, and when it was made (the newest default wins; equal times, the first name). */
interface DefaultClass {
  name: string;
  /** creationTimestamp as [milliseconds, nanoseconds within them]: the plugins compare UnixNano. */
  created: readonly [number, number];
}

/** A CRD's structural schema per served version, by group/kind. */
type CrdSchemas = Map<string, Json>;

const nameOf = (object: Json): string | undefined => {
  const name = child(object, "metadata")?.["name"];
  return typeof name === "string" && name !== "" ? name : undefined;
};
const namespaceOf = (object: Json): string => {
  const namespace = child(object, "metadata")?.["namespace"];
  return typeof namespace === "string" ? namespace : "default";
};
const annotation = (object: Json, key: string): unknown => child(child(object, "metadata"), "annotations")?.[key];
const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

/** A creationTimestamp, to the nanosecond; a manifest usually has none, which sorts as the oldest (Go's zero time). */
const createdAt = (object: Json): readonly [number, number] => {
  const stamp = child(object, "metadata")?.["creationTimestamp"];
  const match = typeof stamp === "string" ? RFC3339.exec(stamp) : null;
  const seconds = match ? Date.parse(`${match[1]}${match[3]}`) : Number.NaN;
  return Number.isNaN(seconds) ? [Number.NEGATIVE_INFINITY, 0] : [seconds, Number((match![2] ?? "").padEnd(9, "0"))];
};

const newer = (a: DefaultClass, b: DefaultClass): boolean => a.created[0] > b.created[0] || (a.created[0] === b.created[0] && a.created[1] > b.created[1]);
const sameTime = (a: DefaultClass, b: DefaultClass): boolean => a.created[0] === b.created[0] && a.created[1] === b.created[1];

/** The default among `classes`: GetDefaultClass's order (pkg/volume/util/storageclass.go, defaultingressclass/admission.go getDefaultClass), the newest, then the first name. */
function newestDefault(classes: readonly DefaultClass[]): string | undefined {
  let best: DefaultClass | undefined;
  for (const one of classes) if (!best || newer(one, best) || (sameTime(one, best) && one.name < best.name)) best = one;
  return best?.name;
}

export class ClusterObjects {
  readonly #limitRanges = new Map<string, Json[]>();
  readonly #priorityClasses = new Map<string, PriorityClassFacts>();
  readonly #storageClasses: DefaultClass[] = [];
  readonly #ingressClasses: DefaultClass[] = [];
  readonly #runtimeClasses = new Map<string, RuntimeClassFacts>();
  readonly #serviceAccounts = new Map<string, ServiceAccountFacts>();
  readonly #crds = new Map<string, CrdSchemas>();
  readonly #mutatingPolicies = new Set<string>();

  constructor() {
    for (const [name, value] of SYSTEM_PRIORITY_CLASSES) this.#priorityClasses.set(name, { name, value, preemptionPolicy: "PreemptLowerPriority", globalDefault: false });
  }

  /** Takes what `object` tells the admission plugins, when it is one of the kinds they read. */
  add(object: Json): void {
    const apiVersion = object["apiVersion"];
    const kind = object["kind"];
    if (typeof apiVersion !== "string" || typeof kind !== "string") return;
    const name = nameOf(object);
    if (name === undefined) return;
    const stored = (): Json => {
      const copy = JSON.parse(JSON.stringify(object)) as Json;
      applyApiDefaults(copy, apiVersion, kind, new Defaulter(), gatesFor());
      return copy;
    };
    switch (`${apiVersion}/${kind}`) {
      case "v1/LimitRange": {
        const namespace = namespaceOf(object);
        this.#limitRanges.set(namespace, [...(this.#limitRanges.get(namespace) ?? []), stored()]);
        break;
      }
      case "scheduling.k8s.io/v1/PriorityClass": {
        const value = object["value"];
        if (typeof value !== "number") return;
        const policy = stored()["preemptionPolicy"];
        this.#priorityClasses.set(name, { name, value, preemptionPolicy: typeof policy === "string" ? policy : undefined, globalDefault: object["globalDefault"] === true });
        break;
      }
      case "storage.k8s.io/v1/StorageClass":
        // storageutil.IsDefaultAnnotation: the GA annotation or the beta one.
        if (annotation(object, "storageclass.kubernetes.io/is-default-class") === "true" || annotation(object, "storageclass.beta.kubernetes.io/is-default-class") === "true")
          this.#storageClasses.push({ name, created: createdAt(object) });
        break;
      case "networking.k8s.io/v1/IngressClass":
        if (annotation(object, "ingressclass.kubernetes.io/is-default-class") === "true") this.#ingressClasses.push({ name, created: createdAt(object) });
        break;
      case "node.k8s.io/v1/RuntimeClass": {
        const scheduling = child(object, "scheduling");
        this.#runtimeClasses.set(name, {
          overhead: child(child(object, "overhead"), "podFixed"),
          nodeSelector: child(scheduling, "nodeSelector"),
          tolerations: Array.isArray(scheduling?.["tolerations"]) ? records(scheduling["tolerations"]) : undefined,
        });
        break;
      }
      case "v1/ServiceAccount": {
        const automount = object["automountServiceAccountToken"];
        this.#serviceAccounts.set(`${namespaceOf(object)}/${name}`, {
          automountServiceAccountToken: typeof automount === "boolean" ? automount : undefined,
          imagePullSecrets: records(object["imagePullSecrets"]).flatMap((secret) => (typeof secret["name"] === "string" ? [secret["name"]] : [])),
        });
        break;
      }
      case "apiextensions.k8s.io/v1/CustomResourceDefinition":
        this.#addCrd(object);
        break;
      case "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy":
      case "admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy":
      case "admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicy":
        this.#mutatingPolicies.add(name);
        break;
    }
  }

  #addCrd(crd: Json): void {
    const spec = child(crd, "spec");
    const group = spec?.["group"];
    const kind = child(spec, "names")?.["kind"];
    if (typeof group !== "string" || typeof kind !== "string") return;
    const schemas: CrdSchemas = new Map();
    for (const version of records(spec!["versions"])) {
      const schema = child(child(version, "schema"), "openAPIV3Schema");
      if (typeof version["name"] === "string" && schema && version["served"] !== false) schemas.set(version["name"], schema);
    }
    this.#crds.set(`${group}/${kind}`, schemas);
  }

  /** The LimitRanges of `namespace`, as stored. */
  limitRanges(namespace: string): readonly Json[] {
    return this.#limitRanges.get(namespace) ?? [];
  }

  priorityClass(name: string): PriorityClassFacts | undefined {
    return this.#priorityClasses.get(name);
  }

  /** The global default PriorityClass: of several, the lowest value (priority/admission.go getDefaultPriorityClass). */
  defaultPriorityClass(): PriorityClassFacts | undefined {
    let found: PriorityClassFacts | undefined;
    for (const one of this.#priorityClasses.values()) if (one.globalDefault && (!found || one.value < found.value)) found = one;
    return found;
  }

  defaultStorageClass(): string | undefined {
    return newestDefault(this.#storageClasses);
  }

  defaultIngressClass(): string | undefined {
    return newestDefault(this.#ingressClasses);
  }

  runtimeClass(name: string): RuntimeClassFacts | undefined {
    return this.#runtimeClasses.get(name);
  }

  /**
   * The ServiceAccount `namespace/name` as the input defines it; one the input
   * does not define is taken to exist with nothing set (every namespace has
   * "default", and a cluster has others the manifests do not carry).
   */
  serviceAccount(namespace: string, name: string): ServiceAccountFacts {
    return this.#serviceAccounts.get(`${namespace}/${name}`) ?? { automountServiceAccountToken: undefined, imagePullSecrets: [] };
  }

  /** The MutatingAdmissionPolicies among the objects, by name, sorted: admit() does not apply them (see index.ts). */
  mutatingPolicies(): string[] {
    return [...this.#mutatingPolicies].sort();
  }

  /** The openAPIV3Schema a CRD in the input gives objects of `apiVersion`/`kind`. */
  crdSchema(apiVersion: string, kind: string): Json | undefined {
    const slash = apiVersion.indexOf("/");
    if (slash < 0) return undefined;
    const schema = this.#crds.get(`${apiVersion.slice(0, slash)}/${kind}`)?.get(apiVersion.slice(slash + 1));
    return isRecord(schema) ? schema : undefined;
  }
}
