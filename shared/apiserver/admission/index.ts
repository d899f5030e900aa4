// The built-in mutating admission plugins an apiserver runs by default, in
// the order it runs them (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins,
// less DefaultOffAdmissionPlugins), as they change an object on CREATE. Each
// reads the cluster objects its informers would list (ClusterObjects). What
// a plugin would refuse (a PriorityClass or RuntimeClass the facts lack, a
// priority that contradicts its class) is left as written: the plugin's
// validation is not modelled, only what it sets.
import type { ClusterObjects } from "../cluster.js";
import { child, fieldOf, isRecord, itemOf, records, type Defaulter, type Json } from "../fields.js";
import { mergeTolerations, toleratesNoExecute } from "./tolerations.js";

/** What an admission plugin sees of the request. */
export interface AdmissionRequest {
  object: Json;
  /** "v1/Pod", "networking.k8s.io/v1/Ingress": the request's group, version and kind. */
  type: string;
  namespace: string;
  cluster: ClusterObjects;
}

type Plugin = (request: AdmissionRequest, d: Defaulter) => void;

const podSpecOf = (request: AdmissionRequest): Json | undefined => (request.type === "v1/Pod" ? child(request.object, "spec") : undefined);

/** plugin/pkg/admission/limitranger: PodMutateLimitFunc (defaultContainerResourceRequirements, mergePodResourceRequirements) for each LimitRange of the namespace. */
const limitRanger: Plugin = (request, d) => {
  const spec = podSpecOf(request);
  if (!spec) return;
  for (const limitRange of request.cluster.limitRanges(request.namespace)) {
    const limits: Json = {};
    const requests: Json = {};
    for (const item of records(child(limitRange, "spec")?.["limits"])) {
      if (item["type"] !== "Container") continue;
      Object.assign(requests, child(item, "defaultRequest"));
      Object.assign(limits, child(item, "default"));
    }
    const notes: string[] = [];
    for (const [list, word] of [["containers", "container"], ["initContainers", "init container"]] as const) {
      records(spec[list]).forEach((container, i) => {
        const at = fieldOf(itemOf(`spec.${list}`, i), "resources");
        const resources = d.struct(container, "resources", itemOf(`spec.${list}`, i));
        if (!resources) return;
        const fill = (key: "limits" | "requests", defaults: Json): string[] => {
          const set: string[] = [];
          for (const [name, value] of Object.entries(defaults)) {
            const existing = child(resources, key);
            if (existing && Object.hasOwn(existing, name)) continue;
            const target = existing ?? (resources[key] = {});
            if (!isRecord(target)) continue;
            target[name] = value;
            d.note(fieldOf(fieldOf(at, key), name));
            set.push(name);
          }
          return set.sort();
        };
        const setLimits = fill("limits", limits);
        const setRequests = fill("requests", requests);
        const name = typeof container["name"] === "string" ? container["name"] : "";
        if (setRequests.length > 0) notes.push(`${setRequests.join(", ")} request for ${word} ${name}`);
        if (setLimits.length > 0) notes.push(`${setLimits.join(", ")} limit for ${word} ${name}`);
      });
    }
    if (notes.length === 0) continue;
    const metadata = d.struct(request.object, "metadata", "");
    const annotations = metadata && d.struct(metadata, "annotations", "metadata");
    if (!annotations) continue;
    annotations["kubernetes.io/limit-ranger"] = `LimitRanger plugin set: ${notes.join("; ")}`;
    d.note(fieldOf("metadata.annotations", "kubernetes.io/limit-ranger"));
  }
};

/** DefaultAPITokenMountPath. */
const TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
/**
 * The token volume's name: "kube-api-access-" and five random characters
 * upstream (generateName); offline the five are fixed, so a check's output
 * does not change from run to run.
 */
export const TOKEN_VOLUME = "kube-api-access-xxxxx";

/** serviceaccount.TokenVolumeSource: the projected token, the cluster's CA and the namespace. */
const tokenVolumeSource = (): Json => ({
  defaultMode: 0o644,
  sources: [
    { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
    { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
    { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
  ],
});

/** plugin/pkg/admission/serviceaccount Admit: the default ServiceAccount, its token volume (mountServiceAccountToken) and its image pull secrets. */
const serviceAccount: Plugin = (request, d) => {
  const spec = podSpecOf(request);
  if (!spec) return;
  // A mirror pod's spec is the kubelet's: never changed.
  if (child(child(request.object, "metadata"), "annotations")?.["kubernetes.io/config.mirror"] !== undefined) return;
  d.string(spec, "serviceAccountName", "default", "spec");
  const name = spec["serviceAccountName"];
  const account = request.cluster.serviceAccount(request.namespace, typeof name === "string" ? name : "default");
  // shouldAutomount: the pod's own setting, else the ServiceAccount's, else true.
  const automount = typeof spec["automountServiceAccountToken"] === "boolean" ? spec["automountServiceAccountToken"] : (account.automountServiceAccountToken ?? true);
  if (automount) {
    const volumes = records(spec["volumes"]);
    const existing = volumes.find((volume) => typeof volume["name"] === "string" && volume["name"].startsWith("kube-api-access-"));
    const volumeName = typeof existing?.["name"] === "string" ? existing["name"] : TOKEN_VOLUME;
    let needsVolume = false;
    for (const list of ["initContainers", "containers"]) {
      records(spec[list]).forEach((container, i) => {
        if (records(container["volumeMounts"]).some((mount) => mount["mountPath"] === TOKEN_MOUNT_PATH)) return;
        const mounts = Array.isArray(container["volumeMounts"]) ? container["volumeMounts"] : (container["volumeMounts"] = []);
        mounts.push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
        d.note(itemOf(fieldOf(itemOf(`spec.${list}`, i), "volumeMounts"), mounts.length - 1));
        needsVolume = true;
      });
    }
    if (!existing && needsVolume) {
      const list = Array.isArray(spec["volumes"]) ? spec["volumes"] : (spec["volumes"] = []);
      list.push({ name: volumeName, projected: tokenVolumeSource() });
      d.note(itemOf("spec.volumes", list.length - 1));
    }
  }
  if (account.imagePullSecrets.length > 0) d.set(spec, "imagePullSecrets", account.imagePullSecrets.map((secret) => ({ name: secret })), "spec", "list");
};

/** plugin/pkg/admission/priority admitPod on CREATE: the priority (and preemption policy) of the pod's class, or of the global default, or 0. */
const priority: Plugin = (request, d) => {
  const spec = podSpecOf(request);
  if (!spec) return;
  const named = spec["priorityClassName"];
  let value: number;
  let policy: string | undefined;
  if (typeof named === "string" && named !== "") {
    const found = request.cluster.priorityClass(named);
    // No such class: the plugin refuses the pod; with none in the facts, nothing is set.
    if (!found) return;
    value = found.value;
    policy = found.preemptionPolicy;
  } else {
    const fallback = request.cluster.defaultPriorityClass();
    value = fallback?.value ?? 0;
    policy = fallback ? fallback.preemptionPolicy : "PreemptLowerPriority";
    if (fallback) d.string(spec, "priorityClassName", fallback.name, "spec");
  }
  d.set(spec, "priority", value, "spec");
  if (policy !== undefined) d.set(spec, "preemptionPolicy", policy, "spec");
};

/** plugin/pkg/admission/defaulttolerationseconds: NoExecute tolerations of not-ready and unreachable nodes for 300 s, unless the pod has its own. */
const defaultTolerationSeconds: Plugin = (request, d) => {
  const spec = podSpecOf(request);
  if (!spec) return;
  const existing = Array.isArray(spec["tolerations"]) ? [...spec["tolerations"]] : [];
  const added = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
    .filter((key) => !toleratesNoExecute(existing, key))
    .map((key) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }));
  if (added.length === 0) return;
  const list = Array.isArray(spec["tolerations"]) ? spec["tolerations"] : (spec["tolerations"] = []);
  for (const toleration of added) {
    list.push(toleration);
    d.note(itemOf("spec.tolerations", list.length - 1));
  }
};

/** plugin/pkg/admission/storage/storageclass/setdefault: a claim without a class (no storageClassName, no beta annotation) gets the default StorageClass. */
const defaultStorageClass: Plugin = (request, d) => {
  if (request.type !== "v1/PersistentVolumeClaim") return;
  const spec = child(request.object, "spec");
  if (!spec || (spec["storageClassName"] !== undefined && spec["storageClassName"] !== null)) return;
  if (child(child(request.object, "metadata"), "annotations")?.["volume.beta.kubernetes.io/storage-class"] !== undefined) return;
  const found = request.cluster.defaultStorageClass();
  if (found !== undefined) d.set(spec, "storageClassName", found, "spec");
};

/** plugin/pkg/admission/storage/storageobjectinuseprotection: the protection finalizer on every new claim and volume. */
const storageObjectInUseProtection: Plugin = (request, d) => {
  const finalizer = request.type === "v1/PersistentVolumeClaim" ? "kubernetes.io/pvc-protection" : request.type === "v1/PersistentVolume" ? "kubernetes.io/pv-protection" : undefined;
  const metadata = child(request.object, "metadata");
  if (finalizer === undefined || !metadata) return;
  const list = Array.isArray(metadata["finalizers"]) ? metadata["finalizers"] : (metadata["finalizers"] = []);
  if (list.includes(finalizer)) return;
  list.push(finalizer);
  d.note(itemOf("metadata.finalizers", list.length - 1));
};

/** The most tolerations RuntimeClass merges: MergeTolerations compares every pair, so a pod past this keeps its own and the class's are not merged. */
const MAX_MERGED_TOLERATIONS = 1000;

/** plugin/pkg/admission/runtimeclass Admit: the class's pod overhead (setOverhead) and its node selector and tolerations (setScheduling). */
const runtimeClass: Plugin = (request, d) => {
  const spec = podSpecOf(request);
  const name = spec?.["runtimeClassName"];
  if (!spec || typeof name !== "string") return;
  const found = request.cluster.runtimeClass(name);
  if (!found) return;
  if (found.overhead && !isRecord(spec["overhead"])) {
    spec["overhead"] = { ...found.overhead };
    d.note("spec.overhead");
  }
  if (found.nodeSelector) {
    const selector = child(spec, "nodeSelector") ?? (spec["nodeSelector"] = {});
    if (isRecord(selector))
      for (const [key, value] of Object.entries(found.nodeSelector)) {
        if (selector[key] !== undefined) continue;
        selector[key] = value;
        d.note(fieldOf("spec.nodeSelector", key));
      }
  }
  const own = records(spec["tolerations"]);
  if (found.tolerations && found.tolerations.length > 0 && own.length + found.tolerations.length <= MAX_MERGED_TOLERATIONS) {
    const merged = mergeTolerations(own, found.tolerations);
    if (merged.length !== own.length || merged.some((t, i) => t !== own[i])) {
      spec["tolerations"] = merged;
      d.note("spec.tolerations");
    }
  }
};

/** plugin/pkg/admission/network/defaultingressclass: an Ingress without a class (no ingressClassName, no kubernetes.io/ingress.class annotation) gets the default IngressClass. */
const defaultIngressClass: Plugin = (request, d) => {
  if (request.type !== "networking.k8s.io/v1/Ingress") return;
  if (child(child(request.object, "metadata"), "annotations")?.["kubernetes.io/ingress.class"] !== undefined) return;
  const spec = child(request.object, "spec");
  const found = request.cluster.defaultIngressClass();
  if (spec && found !== undefined) d.set(spec, "ingressClassName", found, "spec");
};

/** plugin/pkg/admission/nodetaint (TaintNodesByCondition): a new Node is not ready until its kubelet says so. */
const taintNodesByCondition: Plugin = (request, d) => {
  if (request.type !== "v1/Node") return;
  const spec = child(request.object, "spec") ?? d.struct(request.object, "spec", "");
  if (!spec) return;
  const taints = Array.isArray(spec["taints"]) ? spec["taints"] : (spec["taints"] = []);
  if (records(taints).some((taint) => taint["key"] === "node.kubernetes.io/not-ready" && taint["effect"] === "NoSchedule")) return;
  taints.push({ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" });
  d.note(itemOf("spec.taints", taints.length - 1));
};

/** The default-on mutating plugins, in AllOrderedPlugins' order, by name. */
const PLUGINS = [
  ["LimitRanger", limitRanger],
  ["ServiceAccount", serviceAccount],
  ["TaintNodesByCondition", taintNodesByCondition],
  ["Priority", priority],
  ["DefaultTolerationSeconds", defaultTolerationSeconds],
  ["DefaultStorageClass", defaultStorageClass],
  ["StorageObjectInUseProtection", storageObjectInUseProtection],
  ["RuntimeClass", runtimeClass],
  ["DefaultIngressClass", defaultIngressClass],
] as const satisfies ReadonlyArray<readonly [string, Plugin]>;

/** The types the plugins above change: an object of any other passes them untouched. */
export const ADMITTED_TYPES: ReadonlySet<string> = new Set(["v1/Pod", "v1/PersistentVolumeClaim", "v1/PersistentVolume", "v1/Node", "networking.k8s.io/v1/Ingress"]);

export type PluginName = (typeof PLUGINS)[number][0];
export const PLUGIN_NAMES: readonly PluginName[] = PLUGINS.map(([name]) => name);

/** Every default-on mutating admission plugin, in order, on a CREATE of `request.object` (changed in place); or only the one named, as its own tests run it. */
export function admitCreate(request: AdmissionRequest, d: Defaulter, only?: PluginName): void {
  for (const [name, plugin] of PLUGINS) if (only === undefined || only === name) d.as(name, () => plugin(request, d));
}
