// A synthetic CozyStack cluster as the Kubernetes objects the sync job lists
// (AffinityClasses, a tree of Tenants, application HelmReleases, their PVCs and
// PVs, the settings ConfigMap), and the pods of one of its applications.
import { SETTINGS_CONFIGMAP, ROOT_TENANT_NAMESPACE, tenantNamespaceOf, type KubeObject } from "../shared/snapshot/builder/index.js";
import { AFFINITY_CLASS_LABEL, FLUX_HELMRELEASE_NAME_LABEL, FLUX_HELMRELEASE_NAMESPACE_LABEL, LINEAGE_LABELS } from "../shared/snapshot/view.js";

export interface ClusterShape {
  applications: number;
  affinityClasses: number;
  /** Including the root tenant. */
  tenants: number;
}

/**
 * Classes and tenants grow with the applications up to the 1,000 and
 * 5,000, so the smallest cluster is really small and the largest really large.
 */
export function clusterShape(applications: number): ClusterShape {
  return {
    applications,
    affinityClasses: Math.min(1_000, Math.max(3, Math.round(applications / 100))),
    tenants: Math.min(5_000, Math.max(5, Math.round(applications / 20))),
  };
}

const TENANT_FANOUT = 20;
const APPLICATION_KINDS = ["Postgres", "Redis", "Kafka", "ClickHouse", "VirtualMachine", "Kubernetes", "RabbitMQ", "NATS"] as const;

interface TenantPlan {
  owned: string;
  /** Index of the parent tenant; the root's is itself. */
  parent: number;
  /** Whether the Tenant sets its own allowedAffinityClasses (else it inherits). */
  setsOwn: boolean;
  /** Indexes of the classes its applications may use once inherited, the default first. */
  allowed: number[];
}

/**
 * Tenant 0 is root; tenant i's parent is tenant ⌊(i-1)/20⌋ (4 deep at 5,000).
 * Top-level tenants allow five classes; every third child narrows its
 * parent's list by one (a child may only narrow), the others inherit.
 */
function tenantPlans(shape: ClusterShape): TenantPlan[] {
  const plans: TenantPlan[] = [{ owned: ROOT_TENANT_NAMESPACE, parent: 0, setsOwn: false, allowed: [] }];
  for (let i = 1; i < shape.tenants; i++) {
    const parent = Math.floor((i - 1) / TENANT_FANOUT);
    const inherited = plans[parent]!.allowed;
    const owned = tenantNamespaceOf(`t${i}`, plans[parent]!.owned);
    if (parent === 0) {
      plans.push({ owned, parent, setsOwn: true, allowed: Array.from({ length: Math.min(5, shape.affinityClasses) }, (_, n) => (i * 7 + n) % shape.affinityClasses) });
    } else if (i % 3 === 0 && inherited.length > 1) {
      plans.push({ owned, parent, setsOwn: true, allowed: inherited.filter((_, n) => n !== i % inherited.length) });
    } else {
      plans.push({ owned, parent, setsOwn: false, allowed: inherited });
    }
  }
  return plans;
}

export const className = (k: number) => `pool-${k}`;

function affinityClass(k: number): KubeObject {
  const spec: Record<string, unknown> = {
    nodeSelector: { "topology.kubernetes.io/zone": `zone-${k % 30}`, "node.cozystack.io/pool": className(k) },
  };
  // Every fifth class also narrows by node affinity (the design's OR-logic), every tenth only warns.
  if (k % 5 === 0)
    spec.nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.xlarge", "m6i.2xlarge"] }] }],
      },
    };
  if (k % 10 === 0) spec.enforcement = "Warn";
  return { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: className(k) }, spec };
}

function tenant(i: number, plans: readonly TenantPlan[]): KubeObject {
  const plan = plans[i]!;
  const parent = i === 0 ? ROOT_TENANT_NAMESPACE : plans[plan.parent]!.owned;
  const classes = plan.allowed.map(className);
  const spec = plan.setsOwn ? { allowedAffinityClasses: classes, defaultAffinityClass: classes[0] } : {};
  return {
    apiVersion: "apps.cozystack.io/v1alpha1",
    kind: "Tenant",
    metadata: { name: i === 0 ? "root" : `t${i}`, namespace: parent, labels: { "app.kubernetes.io/managed-by": "cozystack" } },
    spec: { host: `t${i}.example.org`, etcd: false, monitoring: i % 4 === 0, ingress: true, seaweedfs: false, isolated: true, ...spec },
  };
}

interface ApplicationRef {
  namespace: string;
  kind: string;
  name: string;
  helmRelease: string;
  /** Index of the class its HelmRelease names (unused when it relies on the tenant default). */
  affinityClass: number;
  namesClass: boolean;
}

/** Application `j` lives in tenant j mod tenants (skipping root); two in three name one of its allowed classes, the rest use the tenant default. */
export function applicationRef(j: number, shape: ClusterShape, plans = tenantPlans(shape)): ApplicationRef {
  const plan = plans[1 + (j % (shape.tenants - 1))]!;
  const kind = APPLICATION_KINDS[j % APPLICATION_KINDS.length]!;
  const name = `app-${j}`;
  return {
    namespace: plan.owned,
    kind,
    name,
    helmRelease: `${kind.toLowerCase()}-${name}`,
    affinityClass: plan.allowed[j % plan.allowed.length]!,
    namesClass: j % 3 !== 2,
  };
}

function helmRelease(app: ApplicationRef, j: number): KubeObject {
  const labels: Record<string, string> = {
    [LINEAGE_LABELS.group]: "apps.cozystack.io",
    [LINEAGE_LABELS.kind]: app.kind,
    [LINEAGE_LABELS.name]: app.name,
    "sharding.fluxcd.io/key": `shard${j % 3}`,
  };
  if (app.namesClass) labels[AFFINITY_CLASS_LABEL] = className(app.affinityClass);
  return {
    apiVersion: "helm.toolkit.fluxcd.io/v2",
    kind: "HelmRelease",
    metadata: { name: app.helmRelease, namespace: app.namespace, labels },
    spec: {
      interval: "5m",
      releaseName: app.helmRelease,
      chart: { spec: { chart: `cozy-${app.kind.toLowerCase()}`, version: ">= 0.0.0-0", reconcileStrategy: "Revision", sourceRef: { kind: "HelmRepository", name: "cozystack-apps", namespace: "cozy-public" } } },
      install: { remediation: { retries: -1 } },
      upgrade: { remediation: { retries: -1 } },
      values: { replicas: 2, size: "10Gi", resourcesPreset: "small", external: false },
    },
  };
}

/** Every second application keeps its data on a ReadWriteOnce claim; every fourth claim's PV is a local volume pinned to one node. */
function volumes(app: ApplicationRef, j: number): KubeObject[] {
  if (j % 2 !== 0) return [];
  const claim = `data-${app.helmRelease}-0`;
  const volume = `pvc-${String(j).padStart(8, "0")}-4b1e-9a7c-${app.namespace.length.toString(16).padStart(4, "0")}`;
  const local = j % 8 === 0;
  return [
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: claim, namespace: app.namespace, labels: { "app.kubernetes.io/instance": app.helmRelease } },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } }, storageClassName: local ? "local" : "replicated", volumeName: volume, volumeMode: "Filesystem" },
    },
    {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: volume },
      spec: {
        accessModes: ["ReadWriteOnce"],
        capacity: { storage: "10Gi" },
        claimRef: { kind: "PersistentVolumeClaim", namespace: app.namespace, name: claim },
        storageClassName: local ? "local" : "replicated",
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              local
                ? { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [`node-${j % 200}`] }] }
                : { matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: [`zone-${j % 30}`] }] },
            ],
          },
        },
      },
    },
  ];
}

const settings: KubeObject = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: SETTINGS_CONFIGMAP, namespace: "cozy-system" },
  data: { "policy.affinity-class": "Deny", maxAgeSeconds: "900", onStale: "Warn" },
};

/** The Deployment an application's chart renders; its pods mount the application's claim. */
function deployment(app: ApplicationRef, j: number): KubeObject {
  const pod = applicationPod({ app, containers: 1, sidecarEnv: 0 });
  const { labels } = pod.metadata as { labels: Record<string, string> };
  const spec = pod.spec as { volumes: Array<{ name: string }> };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: app.helmRelease, namespace: app.namespace, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: { "app.kubernetes.io/instance": app.helmRelease } },
      strategy: j % 2 === 0 ? { type: "Recreate" } : { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: { metadata: { labels }, spec: { ...spec, volumes: j % 2 === 0 ? spec.volumes : spec.volumes.filter((v) => v.name !== "data") } },
    },
  };
}

/**
 * The cluster's objects, in the order `kubectl get` would list them by kind;
 * with `workloads`, each application's Deployment too; with `applications`,
 * only the applications in [from, to) (and every class and tenant).
 */
export function clusterObjects(shape: ClusterShape, { workloads = false, applications = [0, shape.applications] as [number, number] } = {}): KubeObject[] {
  const plans = tenantPlans(shape);
  const objects: KubeObject[] = [settings];
  for (let k = 0; k < shape.affinityClasses; k++) objects.push(affinityClass(k));
  for (let i = 0; i < shape.tenants; i++) objects.push(tenant(i, plans));
  const stored: KubeObject[] = [];
  const rendered: KubeObject[] = [];
  for (let j = applications[0]; j < applications[1]; j++) {
    const app = applicationRef(j, shape, plans);
    objects.push(helmRelease(app, j));
    stored.push(...volumes(app, j));
    if (workloads) rendered.push(deployment(app, j));
  }
  return objects.concat(stored, rendered);
}

/** A list of one kind as the fake API server serves it without holding it (test/node/support/fake-apiserver.ts GeneratedList). */
interface Generated {
  length: number;
  at(index: number): KubeObject;
}

/** Code-unit order of storage keys, as the API server lists them. */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The cluster of `shape` as an API server lists it, without holding it: the
 * settings, classes and tenants as objects; the HelmReleases, claims and
 * volumes of the applications made when a page asks for them, each kind in
 * the order of its storage keys (`<namespace>/<name>`, or the volume's
 * name), as clusterObjects would give them sorted. What it holds is the
 * order, four bytes per object. `change(j)` moves application j to another
 * of its tenant's classes, in the lists served from then on.
 */
export function servedCluster(shape: ClusterShape): { objects: KubeObject[]; generated: Map<string, Generated>; count: number; change(j: number): void } {
  const plans = tenantPlans(shape);
  const changed = new Set<number>();
  const ref = (j: number) => {
    const app = applicationRef(j, shape, plans);
    if (!changed.has(j)) return app;
    const allowed = plans[1 + (j % (shape.tenants - 1))]!.allowed;
    return { ...app, namesClass: true, affinityClass: allowed[(allowed.indexOf(app.affinityClass) + 1) % allowed.length]! };
  };
  // Tenant t (t ≥ 1) owns the applications j with j mod (tenants - 1) = t - 1.
  const owners = Array.from({ length: shape.tenants - 1 }, (_, i) => i + 1).sort((a, b) => byKey(`${plans[a]!.owned}/`, `${plans[b]!.owned}/`));
  const releases = new Int32Array(shape.applications);
  const claims = new Int32Array(Math.ceil(shape.applications / 2));
  let [r, c] = [0, 0];
  for (const t of owners) {
    const held: number[] = [];
    for (let j = t - 1; j < shape.applications; j += shape.tenants - 1) held.push(j);
    const name = (j: number) => applicationRef(j, shape, plans).helmRelease;
    for (const j of held.map((j) => [name(j), j] as const).sort(([a], [b]) => byKey(a, b))) releases[r++] = j[1];
    for (const j of held.filter((j) => j % 2 === 0).map((j) => [`data-${name(j)}-0`, j] as const).sort(([a], [b]) => byKey(a, b))) claims[c++] = j[1];
  }
  const generated = new Map<string, Generated>([
    ["helm.toolkit.fluxcd.io/v2/HelmRelease", { length: releases.length, at: (i) => helmRelease(ref(releases[i]!), releases[i]!) }],
    ["v1/PersistentVolumeClaim", { length: claims.length, at: (i) => volumes(ref(claims[i]!), claims[i]!)[0]! }],
    // A volume's name starts with its application's number, eight digits: their order is the applications'.
    ["v1/PersistentVolume", { length: claims.length, at: (i) => volumes(ref(2 * i), 2 * i)[1]! }],
  ]);
  const objects = clusterObjects(shape, { applications: [0, 0] });
  return { objects, generated, count: objects.length + releases.length + 2 * claims.length, change: (j) => void changed.add(j) };
}

interface PodOptions {
  app: ApplicationRef;
  containers: number;
  /** Environment variables of each sidecar; sidecars without any are slim (no probes, no env). */
  sidecarEnv: number;
  /** A running pod, as in an UPDATE's object and oldObject. */
  running?: boolean;
}

const MAIN_ENV = 3;

function container(name: string, envCount: number, port: number, app: ApplicationRef) {
  const env = Array.from({ length: envCount }, (_, n) =>
    n % 4 === 3
      ? { name: `SECRET_${n}`, valueFrom: { secretKeyRef: { name: `${app.helmRelease}-credentials`, key: `key-${n}` } } }
      : { name: `SETTING_${n}`, value: `value-${n}` },
  );
  const slim = envCount === 0;
  return {
    name,
    image: `ghcr.io/cozystack/${name}:1.${port % 10}.3`,
    ...(slim ? {} : { args: [`--port=${port}`, "--log-format=json"], env }),
    ...(slim ? {} : { ports: [{ name: `http-${port}`, containerPort: port, protocol: "TCP" }] }),
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
    ...(slim
      ? {}
      : {
          livenessProbe: { httpGet: { path: "/healthz", port, scheme: "HTTP" }, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3 },
        }),
    volumeMounts: [
      { name: "data", mountPath: `/var/lib/${name}` },
      { name: "kube-api-access", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true },
    ],
    imagePullPolicy: "IfNotPresent",
  };
}

/**
 * A pod of `app` as the ReplicaSet controller creates it: lineage labels, the
 * nodeSelector of the class its HelmRelease names, affinity, volumes.
 */
export function applicationPod({ app, containers, sidecarEnv, running }: PodOptions) {
  const classIndex = app.affinityClass;
  const podName = `${app.helmRelease}-7d9f8b6c5d-x2k4q`;
  const labels = {
    [LINEAGE_LABELS.group]: "apps.cozystack.io",
    [LINEAGE_LABELS.kind]: app.kind,
    [LINEAGE_LABELS.name]: app.name,
    [FLUX_HELMRELEASE_NAME_LABEL]: app.helmRelease,
    [FLUX_HELMRELEASE_NAMESPACE_LABEL]: app.namespace,
    "app.kubernetes.io/name": app.kind.toLowerCase(),
    "app.kubernetes.io/instance": app.helmRelease,
    "pod-template-hash": "7d9f8b6c5d",
  };
  const selector = { matchLabels: { "app.kubernetes.io/instance": app.helmRelease } };
  const pod: Record<string, unknown> = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(running ? { name: podName, uid: "6f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f", resourceVersion: "918273645" } : {}),
      generateName: `${app.helmRelease}-7d9f8b6c5d-`,
      namespace: app.namespace,
      labels,
      annotations: { "kubectl.kubernetes.io/default-container": "main" },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: `${app.helmRelease}-7d9f8b6c5d`, uid: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9", controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: Array.from({ length: containers }, (_, n) => container(n === 0 ? "main" : `sidecar-${n}`, n === 0 ? MAIN_ENV : sidecarEnv, 8080 + n, app)),
      nodeSelector: { "topology.kubernetes.io/zone": `zone-${classIndex % 30}`, "node.cozystack.io/pool": className(classIndex) },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.xlarge", "m6i.2xlarge"] }] }],
          },
        },
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: selector, topologyKey: "kubernetes.io/hostname" } }] },
      },
      tolerations: [
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      volumes: [
        { name: "data", persistentVolumeClaim: { claimName: `data-${app.helmRelease}-0` } },
        { name: "config", configMap: { name: `${app.helmRelease}-config`, defaultMode: 420 } },
        {
          name: "kube-api-access",
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            ],
          },
        },
      ],
      serviceAccountName: app.helmRelease,
      securityContext: { fsGroup: 1000, runAsUser: 1000, seccompProfile: { type: "RuntimeDefault" } },
      priorityClassName: "cozy-app",
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      schedulerName: "default-scheduler",
      terminationGracePeriodSeconds: 30,
      enableServiceLinks: false,
      ...(running ? { nodeName: `node-${classIndex % 200}` } : {}),
    },
  };
  if (running)
    pod.status = {
      phase: "Running",
      podIP: "10.244.3.17",
      hostIP: "192.168.10.21",
      startTime: "2026-11-20T08:14:03Z",
      qosClass: "Burstable",
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastTransitionTime: "2026-11-20T08:14:09Z" })),
      containerStatuses: Array.from({ length: containers }, (_, n) => ({
        name: n === 0 ? "main" : `sidecar-${n}`,
        ready: true,
        restartCount: 0,
        containerID: `containerd://${"89abcdef01234567".repeat(4)}`,
        state: { running: { startedAt: "2026-11-20T08:14:06Z" } },
      })),
    };
  return pod;
}
