// The API defaults of core/v1 (k8s.io/kubernetes pkg/apis/core/v1/defaults.go,
// its SetDefaults_* functions, applied in the order zz_generated.defaults.go
// applies them, with the +default markers of k8s.io/api/core/v1/types.go).
import { child, fieldOf, isRecord, itemOf, records, type Defaulter, type Json } from "../fields.js";
import type { Gates } from "../features.js";
import { defaultPullPolicy } from "../image.js";
import { aggregateContainers, quantityOf, roundResourceList } from "../resources.js";

/** Every field of v1.VolumeSource: a volume that sets none of them is an emptyDir (SetDefaults_Volume). */
const VOLUME_SOURCES = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim",
  "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
  "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
] as const;

/** SecretVolumeSourceDefaultMode and its siblings: 0644. */
const DEFAULT_MODE = 0o644;

/** SetDefaults_ObjectFieldSelector. */
function fieldSelector(selector: Json | undefined, path: string, d: Defaulter): void {
  if (selector) d.as("SetDefaults_ObjectFieldSelector", () => d.string(selector, "apiVersion", "v1", path));
}

function downwardAPIItems(source: Json, path: string, d: Defaulter): void {
  records(source["items"]).forEach((item, i) => fieldSelector(child(item, "fieldRef"), fieldOf(itemOf(fieldOf(path, "items"), i), "fieldRef"), d));
}

/** SetDefaults_HTTPGetAction. */
function httpGet(action: Json | undefined, path: string, d: Defaulter): void {
  if (!action) return;
  d.as("SetDefaults_HTTPGetAction", () => {
    d.string(action, "path", "/", path);
    d.string(action, "scheme", "HTTP", path);
  });
}

/** SetDefaults_Probe, and its handler's defaults (GRPCAction.service: +default=""). */
function probe(probe: Json, path: string, d: Defaulter): void {
  d.as("SetDefaults_Probe", () => {
    d.number(probe, "timeoutSeconds", 1, path);
    d.number(probe, "periodSeconds", 10, path);
    d.number(probe, "successThreshold", 1, path);
    d.number(probe, "failureThreshold", 3, path);
  });
  httpGet(child(probe, "httpGet"), fieldOf(path, "httpGet"), d);
  const grpc = child(probe, "grpc");
  if (grpc) d.as("GRPCAction +default", () => d.set(grpc, "service", "", fieldOf(path, "grpc")));
}

/** SetDefaults_ResourceList on a container's or a claim's requests and limits. */
function resourceLists(owner: Json, path: string, d: Defaulter): void {
  const resources = child(owner, "resources");
  if (!resources) return;
  d.as("SetDefaults_ResourceList", () => {
    roundResourceList(resources["limits"], fieldOf(fieldOf(path, "resources"), "limits"), d);
    roundResourceList(resources["requests"], fieldOf(fieldOf(path, "resources"), "requests"), d);
  });
}

/** SetDefaults_Container (and SetDefaults_EphemeralContainer, which is it), with what the generated defaulter applies inside a container. */
function container(container: Json, path: string, d: Defaulter): void {
  d.as("SetDefaults_Container", () => {
    d.string(container, "imagePullPolicy", defaultPullPolicy(container["image"]), path);
    d.string(container, "terminationMessagePath", "/dev/termination-log", path);
    d.string(container, "terminationMessagePolicy", "File", path);
  });
  // ResourceRequirements is a struct, not a pointer: every container the apiserver hands on has `resources`.
  d.field(container, "resources", path);
  d.as("ContainerPort +default", () => records(container["ports"]).forEach((port, i) => d.string(port, "protocol", "TCP", itemOf(fieldOf(path, "ports"), i))));
  records(container["env"]).forEach((env, i) => {
    const at = fieldOf(fieldOf(itemOf(fieldOf(path, "env"), i), "valueFrom"), "fieldRef");
    fieldSelector(child(child(env, "valueFrom"), "fieldRef"), at, d);
  });
  resourceLists(container, path, d);
  const lifecycle = child(container, "lifecycle");
  for (const hook of ["postStart", "preStop"]) httpGet(child(child(lifecycle, hook), "httpGet"), fieldOf(fieldOf(fieldOf(path, "lifecycle"), hook), "httpGet"), d);
  for (const key of ["livenessProbe", "readinessProbe", "startupProbe"]) {
    const found = child(container, key);
    if (found) probe(found, fieldOf(path, key), d);
  }
}

/** SetDefaults_PersistentVolumeClaimSpec, with its resource lists. */
export function claimSpec(spec: Json, path: string, d: Defaulter): void {
  d.as("SetDefaults_PersistentVolumeClaimSpec", () => d.set(spec, "volumeMode", "Filesystem", path));
  resourceLists(spec, path, d);
}

/** The +default markers of the volume sources a pod and a persistent volume share: field, value, and whether it is a plain string or a pointer. */
const MARKED_SOURCES: ReadonlyArray<readonly [source: string, type: string, defaults: ReadonlyArray<readonly [string, string | boolean, "string" | "pointer"]>]> = [
  ["iscsi", "ISCSIVolumeSource", [["iscsiInterface", "default", "string"]]],
  ["rbd", "RBDVolumeSource", [["pool", "rbd", "string"], ["user", "admin", "string"], ["keyring", "/etc/ceph/keyring", "string"]]],
  ["azureDisk", "AzureDiskVolumeSource", [["cachingMode", "ReadWrite", "pointer"], ["fsType", "ext4", "pointer"], ["readOnly", false, "pointer"], ["kind", "Shared", "pointer"]]],
  ["scaleIO", "ScaleIOVolumeSource", [["storageMode", "ThinProvisioned", "string"], ["fsType", "xfs", "string"]]],
];

function markedSources(owner: Json, path: string, d: Defaulter): void {
  for (const [source, type, defaults] of MARKED_SOURCES) {
    const found = child(owner, source);
    if (found) d.as(`${type} +default`, () => defaults.forEach(([key, value, unset]) => d.set(found, key, value, fieldOf(path, source), unset)));
  }
}

/** SetDefaults_Volume and the defaults of each volume source. */
function volume(volume: Json, path: string, d: Defaulter, gates: Gates): void {
  d.as("SetDefaults_Volume", () => {
    if (!VOLUME_SOURCES.some((source) => volume[source] !== undefined && volume[source] !== null)) d.set(volume, "emptyDir", {}, path);
    const image = child(volume, "image");
    if (gates.ImageVolume && image) d.string(image, "pullPolicy", defaultPullPolicy(image["reference"]), fieldOf(path, "image"));
  });
  const hostPath = child(volume, "hostPath");
  if (hostPath) d.as("SetDefaults_HostPathVolumeSource", () => d.set(hostPath, "type", "", fieldOf(path, "hostPath")));
  for (const [source, by] of [["secret", "SetDefaults_SecretVolumeSource"], ["configMap", "SetDefaults_ConfigMapVolumeSource"]] as const) {
    const found = child(volume, source);
    if (found) d.as(by, () => d.set(found, "defaultMode", DEFAULT_MODE, fieldOf(path, source)));
  }
  const downwardAPI = child(volume, "downwardAPI");
  if (downwardAPI) {
    d.as("SetDefaults_DownwardAPIVolumeSource", () => d.set(downwardAPI, "defaultMode", DEFAULT_MODE, fieldOf(path, "downwardAPI")));
    downwardAPIItems(downwardAPI, fieldOf(path, "downwardAPI"), d);
  }
  const projected = child(volume, "projected");
  if (projected) {
    const at = fieldOf(path, "projected");
    d.as("SetDefaults_ProjectedVolumeSource", () => d.set(projected, "defaultMode", DEFAULT_MODE, at));
    records(projected["sources"]).forEach((source, i) => {
      const sourceAt = itemOf(fieldOf(at, "sources"), i);
      const downward = child(source, "downwardAPI");
      if (downward) downwardAPIItems(downward, fieldOf(sourceAt, "downwardAPI"), d);
      const token = child(source, "serviceAccountToken");
      if (token) d.as("SetDefaults_ServiceAccountTokenProjection", () => d.set(token, "expirationSeconds", 3600, fieldOf(sourceAt, "serviceAccountToken")));
    });
  }
  markedSources(volume, path, d);
  const claimTemplateSpec = child(child(child(volume, "ephemeral"), "volumeClaimTemplate"), "spec");
  if (claimTemplateSpec) claimSpec(claimTemplateSpec, fieldOf(fieldOf(fieldOf(path, "ephemeral"), "volumeClaimTemplate"), "spec"), d);
}

/** SetDefaults_PodSpec, then what the generated defaulter applies inside a pod spec (volumes, every kind of container, the pod's own resource lists). */
export function podSpec(spec: Json, path: string, d: Defaulter, gates: Gates): void {
  d.as("SetDefaults_PodSpec", () => {
    d.string(spec, "dnsPolicy", "ClusterFirst", path);
    d.string(spec, "restartPolicy", "Always", path);
    d.struct(spec, "securityContext", path);
    d.set(spec, "terminationGracePeriodSeconds", 30, path);
    d.string(spec, "schedulerName", "default-scheduler", path);
  });
  records(spec["volumes"]).forEach((one, i) => volume(one, itemOf(fieldOf(path, "volumes"), i), d, gates));
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) records(spec[list]).forEach((one, i) => container(one, itemOf(fieldOf(path, list), i), d));
  d.as("SetDefaults_ResourceList", () => roundResourceList(spec["overhead"], fieldOf(path, "overhead"), d));
  resourceLists(spec, path, d);
}

/**
 * The pod template at `owner[key]` (PodTemplateSpec has no defaults of its
 * own): its spec's. A template that is a struct, not a pointer (every
 * workload's but a ReplicationController's), exists even when left out.
 */
export function podTemplate(owner: Json, key: string, path: string, d: Defaulter, gates: Gates, pointer = false): void {
  const template = pointer ? child(owner, key) : d.field(owner, key, path);
  const spec = template && d.field(template, "spec", fieldOf(path, key));
  if (spec) podSpec(spec, fieldOf(fieldOf(path, key), "spec"), d, gates);
}

/** Requests copied from limits where a container sets a limit and no request (SetDefaults_Pod: Pods only, never templates). */
function requestsFromLimits(container: Json, path: string, d: Defaulter): void {
  const resources = child(container, "resources");
  const limits = child(resources, "limits");
  if (!resources || !limits) return;
  const missing = Object.keys(limits).filter((name) => !isRecord(resources["requests"]) || !Object.hasOwn(resources["requests"], name));
  if (missing.length === 0) return;
  const requests = d.struct(resources, "requests", fieldOf(path, "resources"));
  if (!requests) return;
  for (const name of missing) {
    requests[name] = limits[name];
    d.note(fieldOf(fieldOf(fieldOf(path, "resources"), "requests"), name));
  }
}

const SUPPORTED_POD_LEVEL = new Set(["cpu", "memory"]);
const isHugePages = (name: string) => name.startsWith("hugepages-");
/** resourcehelper.IsSupportedPodLevelResource. */
const isPodLevel = (name: string) => SUPPORTED_POD_LEVEL.has(name) || isHugePages(name);
/** IsOvercommitAllowed: a native resource (no domain, or kubernetes.io/) that is not huge pages. */
const isOvercommittable = (name: string) => (!name.includes("/") || name.startsWith("kubernetes.io/")) && !isHugePages(name);

const keysOf = (list: unknown) => (isRecord(list) ? Object.keys(list).filter(isPodLevel) : []);

/** SetDefaults_Pod's pod-level resources (PodLevelResources): defaultHugePagePodLimits, defaultPodRequests, defaultPodLimits. */
function podLevelResources(spec: Json, path: string, d: Defaulter): void {
  const resources = child(spec, "resources");
  if (!resources) return;
  const at = fieldOf(path, "resources");
  const put = (list: "requests" | "limits", name: string, value: string) => {
    const target = d.struct(resources, list, at);
    if (!target) return;
    target[name] = value;
    d.note(fieldOf(fieldOf(at, list), name));
  };
  const has = (list: "requests" | "limits", name: string) => isRecord(resources[list]) && Object.hasOwn(resources[list], name);
  const containerLimits = aggregateContainers(spec, "limits");
  // defaultHugePagePodLimits: only when the pod sets some pod-level requests or limits.
  if (keysOf(resources["limits"]).length > 0 || keysOf(resources["requests"]).length > 0)
    for (const [name, total] of containerLimits) if (isHugePages(name) && !has("requests", name) && !has("limits", name)) put("limits", name, total.toString());
  // defaultPodRequests: only when the pod sets pod-level limits.
  const limits = child(resources, "limits");
  if (limits && Object.keys(limits).length > 0) {
    for (const [name, total] of aggregateContainers(spec, "requests")) if (!has("requests", name) && isPodLevel(name) && isOvercommittable(name)) put("requests", name, total.toString());
    for (const [name, value] of Object.entries(limits)) if (!has("requests", name) && isPodLevel(name) && quantityOf(value)) put("requests", name, String(value));
  }
  // defaultPodLimits: pod-level requests without pod-level limits take the containers' limits where every container sets one.
  if (keysOf(resources["limits"]).length === 0 && keysOf(resources["requests"]).length > 0) {
    const everyContainer = [...records(spec["containers"]), ...records(spec["initContainers"])];
    for (const [name, total] of containerLimits) {
      if (has("limits", name) || !isPodLevel(name) || !isOvercommittable(name)) continue;
      if (everyContainer.every((one) => isRecord(child(one, "resources")?.["limits"]) && Object.hasOwn(child(one, "resources")!["limits"] as Json, name))) put("limits", name, total.toString());
    }
  }
}

/** SetDefaults_Pod: requests from limits, pod-level resources, enableServiceLinks, host ports under hostNetwork; then the pod spec's defaults. */
export function pod(pod: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(pod, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_Pod", () => {
    for (const list of ["containers", "initContainers"]) records(spec[list]).forEach((one, i) => requestsFromLimits(one, itemOf(`spec.${list}`, i), d));
    if (gates.PodLevelResources) podLevelResources(spec, "spec", d);
    d.set(spec, "enableServiceLinks", true, "spec");
    if (spec["hostNetwork"] === true)
      for (const list of ["containers", "initContainers"])
        records(spec[list]).forEach((one, i) => records(one["ports"]).forEach((port, j) => d.number(port, "hostPort", port["containerPort"] as number, itemOf(fieldOf(itemOf(`spec.${list}`, i), "ports"), j))));
  });
  podSpec(spec, "spec", d, gates);
}

/** SetDefaults_ReplicationController: selector and labels from the template's labels; replicas (+default=1). */
export function replicationController(rc: Json, d: Defaulter, gates: Gates): void {
  const spec = d.field(rc, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_ReplicationController", () => {
    const labels = child(child(child(spec, "template"), "metadata"), "labels");
    const metadata = child(rc, "metadata");
    if (labels) {
      d.set(spec, "selector", { ...labels }, "spec", "list");
      if (metadata) d.set(metadata, "labels", { ...labels }, "metadata", "list");
    }
    d.set(spec, "replicas", 1, "spec");
  });
  podTemplate(spec, "template", "spec", d, gates, true);
}

/** ExternallyAccessible (pkg/api/v1/service): a NodePort or LoadBalancer Service, or a ClusterIP one with external IPs. */
const externallyAccessible = (spec: Json) =>
  spec["type"] === "LoadBalancer" || spec["type"] === "NodePort" || (spec["type"] === "ClusterIP" && Array.isArray(spec["externalIPs"]) && spec["externalIPs"].length > 0);

/** SetDefaults_Service, and ServicePort.protocol (+default="TCP"). */
export function service(service: Json, d: Defaulter): void {
  const spec = d.field(service, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_Service", () => {
    d.string(spec, "sessionAffinity", "None", "spec");
    if (spec["sessionAffinity"] === "None" && spec["sessionAffinityConfig"] !== undefined) {
      delete spec["sessionAffinityConfig"];
      d.note("spec.sessionAffinityConfig");
    }
    if (spec["sessionAffinity"] === "ClientIP") {
      const timeout = child(child(spec, "sessionAffinityConfig"), "clientIP")?.["timeoutSeconds"];
      if (timeout === undefined || timeout === null) {
        spec["sessionAffinityConfig"] = { clientIP: { timeoutSeconds: 10800 } };
        d.note("spec.sessionAffinityConfig.clientIP.timeoutSeconds");
      }
    }
    d.string(spec, "type", "ClusterIP", "spec");
    records(spec["ports"]).forEach((port, i) => {
      const at = itemOf("spec.ports", i);
      d.string(port, "protocol", "TCP", at);
      const target = port["targetPort"];
      if (target === undefined || target === null || target === 0 || target === "") {
        port["targetPort"] = port["port"];
        d.note(fieldOf(at, "targetPort"));
      }
    });
    if (externallyAccessible(spec)) d.string(spec, "externalTrafficPolicy", "Cluster", "spec");
    if (["NodePort", "LoadBalancer", "ClusterIP"].includes(spec["type"] as string)) d.set(spec, "internalTrafficPolicy", "Cluster", "spec");
    if (spec["type"] === "LoadBalancer") d.set(spec, "allocateLoadBalancerNodePorts", true, "spec");
  });
}

/** The PersistentVolumeClaim: SetDefaults_PersistentVolumeClaimSpec (its status, which SetDefaults_PersistentVolumeClaim sets, is the create strategy's). */
export function persistentVolumeClaim(claim: Json, d: Defaulter): void {
  const spec = d.field(claim, "spec", "");
  if (spec) claimSpec(spec, "spec", d);
}

/** SetDefaults_PersistentVolume (spec), the +default markers of its sources, its capacity. */
export function persistentVolume(volume: Json, d: Defaulter): void {
  const spec = d.field(volume, "spec", "");
  if (!spec) return;
  d.as("SetDefaults_PersistentVolume", () => {
    d.string(spec, "persistentVolumeReclaimPolicy", "Retain", "spec");
    d.set(spec, "volumeMode", "Filesystem", "spec");
  });
  markedSources(spec, "spec", d);
  d.as("SetDefaults_ResourceList", () => roundResourceList(spec["capacity"], "spec.capacity", d));
}

/** SetDefaults_Endpoints. */
export function endpoints(object: Json, d: Defaulter): void {
  d.as("SetDefaults_Endpoints", () =>
    records(object["subsets"]).forEach((subset, i) => records(subset["ports"]).forEach((port, j) => d.string(port, "protocol", "TCP", itemOf(fieldOf(itemOf("subsets", i), "ports"), j)))),
  );
}

/** SetDefaults_Namespace: the label kubernetes.io/metadata.name, always the namespace's name. */
export function namespace(object: Json, d: Defaulter): void {
  const metadata = child(object, "metadata");
  const name = metadata?.["name"];
  if (!metadata || typeof name !== "string" || name === "") return;
  d.as("SetDefaults_Namespace", () => {
    const labels = d.struct(metadata, "labels", "metadata");
    if (!labels || labels["kubernetes.io/metadata.name"] === name) return;
    labels["kubernetes.io/metadata.name"] = name;
    d.note(fieldOf("metadata.labels", "kubernetes.io/metadata.name"));
  });
}

/** SetDefaults_Secret. */
export function secret(object: Json, d: Defaulter): void {
  d.as("SetDefaults_Secret", () => d.string(object, "type", "Opaque", ""));
}

/** SetDefaults_LimitRangeItem, and every resource list of the items. */
export function limitRange(object: Json, d: Defaulter): void {
  records(child(object, "spec")?.["limits"]).forEach((item, i) => {
    const at = itemOf("spec.limits", i);
    d.as("SetDefaults_ResourceList", () => {
      for (const list of ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]) roundResourceList(item[list], fieldOf(at, list), d);
    });
    if (item["type"] !== "Container") return;
    d.as("SetDefaults_LimitRangeItem", () => {
      const fill = (to: "default" | "defaultRequest", from: "max" | "default" | "min") => {
        const source = child(item, from);
        if (!source) return;
        for (const [name, value] of Object.entries(source)) {
          const target = child(item, to);
          if (target && Object.hasOwn(target, name)) continue;
          const list = d.struct(item, to, at);
          if (!list) return;
          list[name] = value;
          d.note(fieldOf(fieldOf(at, to), name));
        }
      };
      fill("default", "max");
      fill("defaultRequest", "default");
      fill("defaultRequest", "min");
    });
  });
}

/** A ResourceQuota's and a Node's resource lists (SetDefaults_ResourceList). */
export function resourceListsAt(object: Json, paths: readonly string[], d: Defaulter): void {
  d.as("SetDefaults_ResourceList", () => {
    for (const path of paths) {
      const dot = path.lastIndexOf(".");
      roundResourceList(child(object, path.slice(0, dot))?.[path.slice(dot + 1)], path, d);
    }
  });
}

/**
 * The status defaults of core/v1 (SetDefaults_PersistentVolumeClaim,
 * SetDefaults_PersistentVolume, SetDefaults_NamespaceStatus,
 * SetDefaults_NodeStatus, SetDefaults_Service's load balancer ipMode). A
 * create's validation never sees them: each kind's create strategy
 * (PrepareForCreate) sets the status of a new object afresh.
 */
export function statusDefaults(object: Json, type: string, d: Defaulter): void {
  const status = (): Json | undefined => d.struct(object, "status", "");
  switch (type) {
    case "v1/PersistentVolumeClaim":
    case "v1/PersistentVolume": {
      const found = status();
      if (found) d.as(type === "v1/PersistentVolume" ? "SetDefaults_PersistentVolume" : "SetDefaults_PersistentVolumeClaim", () => d.string(found, "phase", "Pending", "status"));
      break;
    }
    case "v1/Namespace": {
      const found = status();
      if (found) d.as("SetDefaults_NamespaceStatus", () => d.string(found, "phase", "Active", "status"));
      break;
    }
    case "v1/Node": {
      const found = child(object, "status");
      const capacity = child(found, "capacity");
      if (found && capacity && (found["allocatable"] === undefined || found["allocatable"] === null))
        d.as("SetDefaults_NodeStatus", () => d.set(found, "allocatable", { ...capacity }, "status"));
      break;
    }
    case "v1/Service":
      if (child(object, "spec")?.["type"] !== "LoadBalancer") break;
      d.as("SetDefaults_Service", () =>
        records(child(child(object, "status"), "loadBalancer")?.["ingress"]).forEach((ingress, i) => {
          if (typeof ingress["ip"] === "string" && ingress["ip"] !== "") d.set(ingress, "ipMode", "VIP", itemOf("status.loadBalancer.ingress", i));
        }),
      );
      break;
  }
}
