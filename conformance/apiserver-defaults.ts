// What a real apiserver does to an object before validating admission sees
// it, for the kinds the conformance suites use: API defaulting
// (k8s.io/kubernetes pkg/apis/{core,apps,batch}/v1 defaults.go) and the
// in-tree mutating admission every cluster runs (ServiceAccount,
// DefaultTolerationSeconds, Priority). The kubescape cases were judged by
// `kubectl apply --dry-run=server`, so they saw objects shaped like this.
// Test harness only: the function itself judges what the apiserver sends.

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const records = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const setDefault = (object: Json, key: string, value: unknown) => {
  if (object[key] === undefined) object[key] = value;
};

const VOLUME_SOURCES = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim",
  "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
  "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image",
];

/** SetDefaults_Container: pull policy from the tag, termination message, port protocol, probe timings. */
function defaultContainer(container: Json, hostNetwork: boolean): void {
  const image = typeof container["image"] === "string" ? container["image"] : "";
  const lastSegment = image.slice(image.lastIndexOf("/") + 1);
  const tag = image.includes("@") ? undefined : lastSegment.includes(":") ? lastSegment.slice(lastSegment.indexOf(":") + 1) : "latest";
  setDefault(container, "imagePullPolicy", tag === "latest" ? "Always" : "IfNotPresent");
  setDefault(container, "terminationMessagePath", "/dev/termination-log");
  setDefault(container, "terminationMessagePolicy", "File");
  for (const port of records(container["ports"])) {
    setDefault(port, "protocol", "TCP");
    if (hostNetwork) setDefault(port, "hostPort", port["containerPort"]);
  }
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"].map((key) => container[key]).filter(isRecord)) {
    setDefault(probe, "timeoutSeconds", 1);
    setDefault(probe, "periodSeconds", 10);
    setDefault(probe, "successThreshold", 1);
    setDefault(probe, "failureThreshold", 3);
  }
  setDefault(container, "resources", {});
}

/** SetDefaults_PodSpec and SetDefaults_Volume. */
function defaultPodSpec(spec: Json): void {
  setDefault(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "restartPolicy", "Always");
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefault(spec, "securityContext", {});
  setDefault(spec, "schedulerName", "default-scheduler");
  setDefault(spec, "enableServiceLinks", true);
  const hostNetwork = spec["hostNetwork"] === true;
  for (const key of ["containers", "initContainers", "ephemeralContainers"]) for (const container of records(spec[key])) defaultContainer(container, hostNetwork);
  for (const volume of records(spec["volumes"])) {
    if (!VOLUME_SOURCES.some((source) => volume[source] !== undefined)) volume["emptyDir"] = {};
    for (const source of ["secret", "configMap"]) if (isRecord(volume[source])) setDefault(volume[source] as Json, "defaultMode", 420);
    if (isRecord(volume["hostPath"])) setDefault(volume["hostPath"] as Json, "type", "");
  }
}

/** The ServiceAccount admission plugin's token volume, DefaultTolerationSeconds and Priority, on Pods only. */
function admitPod(pod: Json): void {
  const spec = pod["spec"] as Json;
  setDefault(spec, "serviceAccountName", "default");
  setDefault(spec, "serviceAccount", spec["serviceAccountName"]);
  setDefault(spec, "priority", 0);
  setDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
  const tolerations = records(spec["tolerations"]);
  for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
    if (!tolerations.some((t) => t["key"] === key)) tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 });
  }
  spec["tolerations"] = tolerations;
  if (spec["automountServiceAccountToken"] === false) return;
  const name = "kube-api-access-abcde";
  const volumes = records(spec["volumes"]);
  volumes.push({
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
  });
  spec["volumes"] = volumes;
  for (const key of ["containers", "initContainers"]) {
    for (const container of records(spec[key])) {
      const mounts = records(container["volumeMounts"]);
      mounts.push({ name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" });
      container["volumeMounts"] = mounts;
    }
  }
}

function template(object: Json, ...path: string[]): Json | undefined {
  let node: unknown = object;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return isRecord(node) ? node : undefined;
}

/** `object` as the apiserver would hand it to validating admission on CREATE. */
export function asAdmitted(object: Json): Json {
  const admitted = structuredClone(object);
  const kind = admitted["kind"];
  const spec = isRecord(admitted["spec"]) ? admitted["spec"] : undefined;
  const podSpec = kind === "Pod" ? spec : kind === "CronJob" ? template(admitted, "spec", "jobTemplate", "spec", "template", "spec") : template(admitted, "spec", "template", "spec");
  if (podSpec) defaultPodSpec(podSpec);
  if (kind === "Pod" && spec) admitPod(admitted);
  if (!spec) return admitted;
  switch (kind) {
    case "Deployment":
      setDefault(spec, "replicas", 1);
      setDefault(spec, "strategy", { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
      setDefault(spec, "revisionHistoryLimit", 10);
      setDefault(spec, "progressDeadlineSeconds", 600);
      break;
    case "StatefulSet":
      setDefault(spec, "replicas", 1);
      setDefault(spec, "podManagementPolicy", "OrderedReady");
      setDefault(spec, "updateStrategy", { type: "RollingUpdate", rollingUpdate: { partition: 0 } });
      setDefault(spec, "revisionHistoryLimit", 10);
      break;
    case "DaemonSet":
      setDefault(spec, "updateStrategy", { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
      setDefault(spec, "revisionHistoryLimit", 10);
      break;
    case "ReplicaSet":
    case "ReplicationController":
      setDefault(spec, "replicas", 1);
      break;
    case "Job":
      setDefault(spec, "parallelism", 1);
      setDefault(spec, "completions", 1);
      setDefault(spec, "backoffLimit", 6);
      setDefault(spec, "completionMode", "NonIndexed");
      setDefault(spec, "suspend", false);
      break;
    case "CronJob":
      setDefault(spec, "concurrencyPolicy", "Allow");
      setDefault(spec, "suspend", false);
      setDefault(spec, "successfulJobsHistoryLimit", 3);
      setDefault(spec, "failedJobsHistoryLimit", 1);
      break;
    case "Service":
      setDefault(spec, "type", "ClusterIP");
      setDefault(spec, "sessionAffinity", "None");
      for (const port of records(spec["ports"])) {
        setDefault(port, "protocol", "TCP");
        setDefault(port, "targetPort", port["port"]);
      }
      break;
  }
  return admitted;
}
