// The live path against a local API server that answers like Kubernetes:
// paged typed lists, Status bodies, a group nobody serves.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POD_SPEC_PATHS } from "../../../shared/k8s/workload/index.js";
import { WORKLOAD_API_GROUPS } from "../../../shared/k8s/controller/index.js";
import { runBuild, runCli } from "../../../test/node/support/test-io.js";

import { LISTED_RESOURCES } from "./listed.js";
import { startFakeApiServer, type FakeApiServer } from "../../../test/node/support/fake-apiserver.js";
import { objectsFromText, readObjects } from "../yaml.js";
import { EXCEPTION_GROUP, EXCEPTION_KIND } from "../../../shared/exceptions/index.js";
import { PLACEHOLDER, webhookConfiguration } from "../../webhook/index.js";

const YAML = readFileSync(join(__dirname, "..", "testdata", "live-cluster.yaml"), "utf8");
const OBJECTS = objectsFromText(YAML, "live-cluster.yaml");

/** A snapshot without what differs between two builds of the same objects. */
function content(json: string) {
  const { generation: _g, builtAt: _b, ...rest } = JSON.parse(json) as Record<string, unknown>;
  return rest;
}

/** Said by every build --from-cluster and sync of a cluster without the function's ValidatingWebhookConfiguration: it is read on every sync, a warning, never a failure. */
const NO_WEBHOOK = "warning: no ValidatingWebhookConfiguration edgeadmit: the apiserver sends the function nothing, so no policy is enforced at the edge and the function's coverage stays unknown (edgeadmit webhook-config renders it)\n";
const environment = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
afterEach(() => {
  for (const [key, value] of Object.entries(environment)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

async function withServer<T>(options: Parameters<typeof startFakeApiServer>[1], use: (server: FakeApiServer) => Promise<T>): Promise<T> {
  const server = await startFakeApiServer(OBJECTS, options);
  process.env.KUBECONFIG = server.kubeconfig;
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

describe("snapshot build --from-cluster", () => {
  let server: FakeApiServer;
  beforeAll(async () => {
    server = await startFakeApiServer(OBJECTS);
  });
  afterAll(() => server.stop());

  it("builds the same snapshot as the YAML path from the same objects", async () => {
    process.env.KUBECONFIG = server.kubeconfig;
    const live = await runBuild(["snapshot", "build", "--from-cluster"]);
    // The YAML path reads settings from edgeadmit-system only, as the live path does, and says so of the other one.
    const yaml = await runBuild(["snapshot", "build", "-f", "-", "--kubernetes-version", "1.33"], YAML);
    expect(live.stderr).toBe(NO_WEBHOOK);
    expect(yaml.stderr).toBe("warning: ConfigMap tenant-acme/edgeadmit-settings: not in the settings namespace edgeadmit-system; ignored\n");
    expect(content(live.stdout)).toEqual(content(yaml.stdout));

    const snapshot = JSON.parse(live.stdout);
    // The fake server's /version: 1.33.
    expect(snapshot.kubernetesVersion).toBe("1.33");
    expect(snapshot.settings).toEqual({ policies: {}, maxAgeSeconds: 600, onStale: "Deny" });
    expect(Object.keys(snapshot.affinityClasses)).toEqual(["dc1", "dc2", "fast-or-gpu"]);
    expect(snapshot.tenants["tenant-acme-dev"]).toEqual({
      name: "dev",
      namespace: "tenant-acme",
      chain: ["tenant-root", "tenant-acme", "tenant-acme-dev"],
      allowedAffinityClasses: ["dc1", "dc2"],
      defaultAffinityClass: "dc1",
      affinityClassEnforcement: "Deny",
    });
    // Node labels only for the keys some class constrains.
    expect(snapshot.nodes).toEqual({
      "node-a": { "topology.kubernetes.io/zone": "dc1", "node.kubernetes.io/disk": "nvme" },
      "node-b": { "topology.kubernetes.io/zone": "dc2" },
      "node-c": {},
    });
    expect(snapshot.volumeClaims["tenant-acme/db-data"]).toEqual({
      accessModes: ["ReadWriteOnce"],
      pinnedToNode: true,
      mountedBy: [
        { kind: "Job", name: "migrate" },
        { kind: "StatefulSet", name: "db", podLabels: { app: "db" } },
      ],
    });
    expect(snapshot.volumeClaims["tenant-acme/uploads"].mountedBy).toEqual([
      { kind: "CronJob", name: "thumbnails", podLabels: { app: "thumbnails" } },
      { kind: "Deployment", name: "web", podLabels: { app: "web" } },
    ]);
  });

  it("carries the cluster's Kubernetes version from /version, or none with a warning", async () => {
    // A provider's minor ("31+") is its minor.
    await withServer({ kubernetesVersion: { major: "1", minor: "31+" } }, async () => {
      const { stdout } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(JSON.parse(stdout).kubernetesVersion).toBe("1.31");
    });
    await withServer({ kubernetesVersion: 403 }, async () => {
      const { stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(JSON.parse(stdout).kubernetesVersion).toBeUndefined();
      expect(stderr).toBe("warning: GET /version answered 403: the snapshot carries no Kubernetes version, so policies compile with Kubernetes 1.34's CEL environment\n" + NO_WEBHOOK);
    });
  });

  it("pages through every list with limit and continue", async () => {
    process.env.KUBECONFIG = server.kubeconfig;
    server.requests.length = 0;
    expect((await runBuild(["snapshot", "build", "--from-cluster"])).code).toBe(0);
    const lists = server.requests.filter((r) => !r.includes("/configmaps/") && r !== "GET /version");
    // 3 AffinityClasses at 2 per page: two requests, the second with the first's token.
    expect(lists.filter((r) => r.startsWith("GET /apis/cozystack.io/v1alpha1/affinityclasses?"))).toEqual([
      "GET /apis/cozystack.io/v1alpha1/affinityclasses?limit=500",
      "GET /apis/cozystack.io/v1alpha1/affinityclasses?continue=2&limit=500",
    ]);
    expect(lists.filter((r) => r.startsWith("GET /api/v1/persistentvolumeclaims?"))).toEqual([
      "GET /api/v1/persistentvolumeclaims?limit=500",
      "GET /api/v1/persistentvolumeclaims?continue=2&limit=500",
    ]);
    expect(server.requests).toContain("GET /api/v1/namespaces/edgeadmit-system/configmaps/edgeadmit-settings");
    expect(new Set(lists.map((r) => r.replace(/\?.*/, "")))).toEqual(
      new Set([
        "GET /apis/cozystack.io/v1alpha1/affinityclasses",
        "GET /apis/apps.cozystack.io/v1alpha1/tenants",
        "GET /apis/helm.toolkit.fluxcd.io/v2/helmreleases",
        "GET /api/v1/persistentvolumeclaims",
        "GET /api/v1/persistentvolumes",
        "GET /api/v1/nodes",
        "GET /api/v1/replicationcontrollers",
        "GET /apis/apps/v1/deployments",
        "GET /apis/apps/v1/statefulsets",
        "GET /apis/apps/v1/daemonsets",
        "GET /apis/apps/v1/replicasets",
        "GET /apis/batch/v1/jobs",
        "GET /apis/batch/v1/cronjobs",
        "GET /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
        // Read on every sync, bindings or not: the function learns what the webhook sends (coverage).
        "GET /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/edgeadmit",
        "GET /apis/edgeadmit.io/v1alpha1/edgeadmissionpolicybindings",
        "GET /apis/edgeadmit.io/v1alpha1/edgeadmissionexceptions",
        "GET /api/v1/namespaces",
      ]),
    );
  });

  it("reads the settings from --settings-namespace, and warns when there are none", async () => {
    process.env.KUBECONFIG = server.kubeconfig;
    const { code, stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster", "--settings-namespace", "ops"]);
    expect(code).toBe(0);
    expect(stderr).toBe("warning: no ConfigMap ops/edgeadmit-settings: the snapshot carries the default settings\n" + NO_WEBHOOK);
    expect(JSON.parse(stdout).settings).toEqual({ policies: {}, maxAgeSeconds: 3600, onStale: "Warn" });
  });
});

describe("what the sync job lists", () => {
  it("covers every kind buildSnapshot reads, except Pods (on purpose) and the settings ConfigMap (read by name)", () => {
    // buildSnapshot dispatches on `group === "…" && kind === "…"` and on the workload kinds.
    const source = readFileSync(join(__dirname, "..", "..", "..", "shared", "snapshot", "builder", "index.ts"), "utf8");
    const dispatched = [...source.matchAll(/group === "([^"]*)" && kind === "(\w+)"/g)].map(([, group, kind]) => `${kind}.${group}`);
    if (source.includes("group === EXCEPTION_GROUP && kind === EXCEPTION_KIND")) dispatched.push(`${EXCEPTION_KIND}.${EXCEPTION_GROUP}`);
    const workloads = Object.keys(POD_SPEC_PATHS).map((kind) => `${kind}.${WORKLOAD_API_GROUPS[kind as keyof typeof POD_SPEC_PATHS]}`);
    const consumed = new Set([...dispatched, ...workloads]);
    consumed.delete("Pod.");
    consumed.delete("ConfigMap.");
    // shared/snapshot/builder/policies.ts: the policies, their edge bindings (the upstream binding counts only offline) and Namespaces.
    for (const kind of ["ValidatingAdmissionPolicy.admissionregistration.k8s.io", "EdgeAdmissionPolicyBinding.edgeadmit.io", "Namespace."]) consumed.add(kind);
    expect(dispatched.length).toBeGreaterThan(4);
    expect(new Set(LISTED_RESOURCES.map((r) => `${r.kind}.${r.group}`))).toEqual(consumed);
  });
});

describe("the cluster's own policies bound at the edge", () => {
  const policyObjects = objectsFromText(
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: example.io/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations: [{expression: "object.spec.replicas <= params.maxReplicas"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: not-bound}
spec:
  validations: [{expression: "false"}]
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: max-replicas}
spec:
  policyName: max-replicas
  paramRef: {name: limit, parameterNotFoundAction: Deny}
  validationActions: [Deny]
---
apiVersion: example.io/v1
kind: ReplicaLimit
metadata: {name: limit, namespace: team-a}
maxReplicas: 3
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a}}
`,
    "policies.yaml",
  );

  const webhook = webhookConfiguration(PLACEHOLDER);
  const NOT_BOUND = "edgeadmit snapshot build: ignored 1 object the policies do not use: ValidatingAdmissionPolicy.admissionregistration.k8s.io not-bound\n";

  it("carries the webhook configuration's rules of a cluster that binds no policy of its own, so the function knows its coverage of fleet policies", async () => {
    const server = await startFakeApiServer([...OBJECTS, webhook]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const snapshot = JSON.parse(stdout) as { policyBindings: object; webhookRules: unknown };
      expect(snapshot.policyBindings).toEqual({});
      expect(snapshot.webhookRules).toEqual((webhook as { webhooks: Array<{ rules: unknown[] }> }).webhooks.flatMap((w) => w.rules));
    } finally {
      await server.stop();
    }
  });

  it("lists the bound policies, their bindings, the objects of their paramKind and the Namespaces", async () => {
    const server = await startFakeApiServer([...OBJECTS, ...policyObjects, webhook]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      // Only bound policies travel; the unbound one is named.
      expect({ code, stderr }).toEqual({ code: 0, stderr: NOT_BOUND });
      const snapshot = JSON.parse(stdout);
      expect(Object.keys(snapshot.validatingAdmissionPolicies)).toEqual(["max-replicas"]);
      expect(Object.keys(snapshot.policyBindings)).toEqual(["max-replicas"]);
      expect(snapshot.policyParams).toEqual({
        "example.io/v1/ReplicaLimit": { namespaced: true, objects: [{ apiVersion: "example.io/v1", kind: "ReplicaLimit", metadata: { name: "limit", namespace: "team-a" }, maxReplicas: 3 }] },
      });
      expect(snapshot.namespaces["team-a"]).toEqual({ metadata: { name: "team-a", labels: { team: "a", "kubernetes.io/metadata.name": "team-a" } } });
      // The paramKind found through discovery, then listed page by page like the rest.
      expect(server.requests).toContain("GET /apis/example.io/v1");
      expect(server.requests).toContain("GET /apis/example.io/v1/replicalimits?limit=500");
    } finally {
      await server.stop();
    }
  });

  it("lists every page of a paramKind, a custom resource too", async () => {
    const limits = ["limit", "limit-b", "limit-c"].map((name) => ({ apiVersion: "example.io/v1", kind: "ReplicaLimit", metadata: { name, namespace: "team-a" }, maxReplicas: 3 }));
    const server = await startFakeApiServer([...OBJECTS, ...policyObjects.filter((o) => o.kind !== "ReplicaLimit"), ...limits, webhook]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code).toBe(0);
      // Two objects a page: the third is on the page the continue token asks for.
      expect(server.requests).toContain("GET /apis/example.io/v1/replicalimits?continue=2&limit=500");
      expect(JSON.parse(stdout).policyParams["example.io/v1/ReplicaLimit"].objects.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(["limit", "limit-b", "limit-c"]);
    } finally {
      await server.stop();
    }
  });

  it("a paramKind RBAC does not grant: the command that grants it, and the kind left unknown, not empty", async () => {
    const server = await startFakeApiServer([...OBJECTS, ...policyObjects, webhook], { forbidden: ["replicalimits.example.io"] });
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code).toBe(0);
      expect(stderr).toBe(
        'warning: the sync job may not list replicalimits.example.io, the paramKind of max-replicas: those policies meet "paramKind not known" at the edge and their failurePolicy decides; grant it with kubectl create clusterrole edgeadmit-sync-params-replicalimits --verb=get,list --resource=replicalimits.example.io && kubectl create clusterrolebinding edgeadmit-sync-params-replicalimits --clusterrole=edgeadmit-sync-params-replicalimits --serviceaccount=edgeadmit-system:edgeadmit-sync\n' +
          NOT_BOUND,
      );
      expect(JSON.parse(stdout).policyParams).toEqual({});
    } finally {
      await server.stop();
    }
  });

  it("a paramKind the API server does not serve is said so", async () => {
    const server = await startFakeApiServer([...OBJECTS, ...policyObjects.filter((o) => o.kind !== "ReplicaLimit"), webhook]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code).toBe(0);
      expect(stderr).toBe('warning: the API server serves no ReplicaLimit in example.io/v1, the paramKind of max-replicas: those policies meet "paramKind not known" at the edge\n' + NOT_BOUND);
    } finally {
      await server.stop();
    }
  });

  it("warns when the webhook configuration does not send what a bound policy matches, or is missing", async () => {
    const onConfigMaps = objectsFromText(
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, DELETE], resources: [configmaps]}, {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations: [{expression: "true"}]
`,
      "configmaps.yaml",
    );
    const bound = [...OBJECTS, ...onConfigMaps, ...policyObjects.filter((o) => o.kind === "EdgeAdmissionPolicyBinding" || o.kind === "Namespace")];
    const noParams = 'warning: the API server serves no ReplicaLimit in example.io/v1, the paramKind of max-replicas: those policies meet "paramKind not known" at the edge\n';
    for (const [objects, expected] of [
      [
        [...bound, webhook],
        "warning: ValidatingAdmissionPolicy 'max-replicas' matches CREATE configmaps/v1, DELETE configmaps/v1, which ValidatingWebhookConfiguration edgeadmit does not send the function: not enforced there; regenerate it with edgeadmit webhook-config --snapshot\n",
      ],
      [bound, NO_WEBHOOK],
    ] as const) {
      const server = await startFakeApiServer([...objects]);
      process.env.KUBECONFIG = server.kubeconfig;
      try {
        const { code, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
        expect({ code, stderr: stderr.replace(noParams, "") }).toEqual({ code: 0, stderr: expected });
      } finally {
        await server.stop();
      }
    }
  });
});

describe("lists read several at once", () => {
  it("name what is wrong with their objects in the order the YAML path does, one kind after another", async () => {
    // Three of each at two a page: the lists of AffinityClasses and Tenants page alongside each other.
    const broken = objectsFromText(
      [
        ...["gold", "silver", "bronze"].map((name) => `apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: ${name}}
spec: {nodeSelector: zone-a}
`),
        ...["a", "b", "c"].map((name) => `apiVersion: apps.cozystack.io/v1alpha1
kind: Tenant
metadata: {name: ${name}, namespace: tenant-root}
spec: {allowedAffinityClasses: gold}
`),
      ].join("---\n"),
      "broken.yaml",
    );
    const expected = (await runBuild(["snapshot", "build", "-f", "-", "--allow-empty"], broken.map((o) => JSON.stringify(o)).join("\n---\n"))).stderr;
    expect(expected.split("\n").filter(Boolean)).toHaveLength(6);
    const server = await startFakeApiServer([...OBJECTS, ...broken]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code).toBe(0);
      expect(stderr).toBe(NO_WEBHOOK + expected);
    } finally {
      await server.stop();
    }
  });
});

describe("an expired continue token", () => {
  it("restarts that list once from the beginning and builds the same snapshot", async () => {
    const expected = content((await runBuild(["snapshot", "build", "-f", "-", "--settings-namespace", "edgeadmit-system", "--kubernetes-version", "1.33"], YAML)).stdout);
    await withServer({ expireFirstContinue: true }, async (server) => {
      const { code, stdout } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code).toBe(0);
      expect(content(stdout)).toEqual(expected);
      const gone = server.requests.findIndex((r) => r.includes("continue="));
      const list = server.requests[gone]!.replace(/\?.*/, "");
      // After the 410: the same list again without a token, then its later pages.
      expect(server.requests.slice(gone + 1).filter((r) => r.startsWith(`${list}?`))[0]).toBe(`${list}?limit=500`);
    });
  });
});

// The cluster is the input of a read: one it cannot read is exit 2, as an unreadable file is (infra/cli/exit-codes.test.ts).
describe("live path failures: one line, exit 2", () => {
  it("RBAC forbids a list: names verb and resource", async () => {
    const result = await withServer({ forbidden: ["tenants.apps.cozystack.io"] }, () => runBuild(["snapshot", "build", "--from-cluster"]));
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'edgeadmit snapshot build: RBAC forbids list tenants.apps.cozystack.io (all namespaces): tenants.apps.cozystack.io is forbidden: User "system:serviceaccount:edgeadmit-system:edgeadmit-sync" cannot list resource "tenants" in API group "apps.cozystack.io" at the cluster scope\n',
    });
  });

  it("RBAC forbids reading the settings ConfigMap", async () => {
    const result = await withServer({ forbidden: ["configmaps"] }, () => runBuild(["snapshot", "build", "--from-cluster"]));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'edgeadmit snapshot build: RBAC forbids get configmaps/edgeadmit-settings in namespace edgeadmit-system: configmaps "edgeadmit-settings" is forbidden: User "system:serviceaccount:edgeadmit-system:edgeadmit-sync" cannot get resource "configmaps" in API group "" in the namespace "edgeadmit-system"\n',
    );
  });

  it("a CRD is not installed: says which", async () => {
    const result = await withServer({ missingGroups: ["helm.toolkit.fluxcd.io"] }, () => runBuild(["snapshot", "build", "--from-cluster"]));
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: "edgeadmit snapshot build: the API server does not serve helmreleases.helm.toolkit.fluxcd.io/v2: is its CRD installed? (Flux's helm-controller installs it)\n",
    });
    const affinity = await withServer({ missingGroups: ["cozystack.io"] }, () => runBuild(["snapshot", "build", "--from-cluster"]));
    expect(affinity.stderr).toBe("edgeadmit snapshot build: the API server does not serve affinityclasses.cozystack.io/v1alpha1: is its CRD installed? (kubectl apply -k infra/k8s installs it)\n");
  });

  it("the credentials are refused", async () => {
    const result = await withServer({}, (server) => runBuild(["snapshot", "build", "--from-cluster", "--context", "wrong-token"]).then((r) => ({ ...r, url: server.url })));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^edgeadmit snapshot build: the API server at ${result.url} rejected the kubeconfig's credentials \\(401 Unauthorized\\) for list [a-z.]+ \\(all namespaces\\)\\n$`));
  });

  it("the API server is unreachable", async () => {
    const result = await withServer({}, () => runBuild(["snapshot", "build", "--from-cluster", "--context", "elsewhere"]));
    expect(result).toEqual({ code: 2, stdout: "", stderr: "edgeadmit snapshot build: cannot reach the API server at http://127.0.0.1:2: ECONNREFUSED\n" });
  });

  it("the context does not exist", async () => {
    const result = await withServer({}, () => runBuild(["snapshot", "build", "--from-cluster", "--context", "prod"]));
    expect(result).toEqual({ code: 2, stdout: "", stderr: 'edgeadmit snapshot build: no context "prod" in the kubeconfig (contexts: fake, elsewhere, wrong-token)\n' });
  });

  it("there is no kubeconfig at all, or KUBECONFIG names a missing file", async () => {
    delete process.env.KUBECONFIG;
    process.env.HOME = mkdtempSync(join(tmpdir(), "edgeadmit-home-"));
    expect(await runBuild(["snapshot", "build", "--from-cluster"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "edgeadmit snapshot build: no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run inside a cluster\n",
    });
    process.env.KUBECONFIG = "/nonexistent/kubeconfig";
    expect((await runBuild(["snapshot", "build", "--from-cluster"])).stderr).toBe("edgeadmit snapshot build: no kubeconfig: KUBECONFIG names /nonexistent/kubeconfig, which does not exist\n");
  });
});

describe("the inventory of policies bound at the edge", () => {
  const examples = join(__dirname, "..", "..", "..", "examples", "inventory");
  const webhook = webhookConfiguration(PLACEHOLDER);
  const clusterOf = async (...names: string[]) => (await readObjects(names.flatMap((name) => [join(examples, name, "policy.yaml"), join(examples, name, "cluster.yaml")]), { out: () => {}, err: () => {} } as never, {})).map((object) => {
    // As the API server serves them: no source positions, a uid and a resourceVersion.
    const { metadata, ...rest } = JSON.parse(JSON.stringify(object)) as { metadata: Record<string, unknown> };
    return { ...rest, metadata: { ...metadata, uid: "u", resourceVersion: "1", managedFields: [{ manager: "kubectl" }] } };
  });

  it("lists each declared kind through discovery (a kind the job lists anyway, once), projected to the declared fields", async () => {
    const server = await startFakeApiServer([...OBJECTS, ...(await clusterOf("unique-ingress-host", "storage-class-exists")), webhook]);
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code, stderr).toBe(0);
      // No warning but that the example webhook configuration does not send these kinds.
      for (const line of stderr.trimEnd().split("\n")) expect(line).toMatch(/^warning: ValidatingAdmissionPolicy '.*' matches .* which ValidatingWebhookConfiguration edgeadmit does not send the function/);
      const { inventory } = JSON.parse(stdout);
      expect(inventory["networking.k8s.io/v1/Ingress"]).toEqual({
        namespaced: true,
        fields: ["spec.rules[*].host"],
        index: ["spec.rules[*].host"],
        objects: {
          "blog/blog": { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "blog", namespace: "blog" }, spec: { rules: [{ host: "blog.example.com" }] } },
          "shop/web": { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "web", namespace: "shop" }, spec: { rules: [{ host: "shop.example.com" }, { host: "www.shop.example.com" }] } },
        },
      });
      expect(Object.keys(inventory["storage.k8s.io/v1/StorageClass"].objects)).toEqual(["fast"]);
      expect(inventory["v1/PersistentVolume"].objects).toMatchObject({ "task-pv-volume": { spec: { storageClassName: "manual" } } });
      expect(server.requests).toContain("GET /apis/networking.k8s.io/v1/ingresss?limit=500");
      expect(server.requests).toContain("GET /apis/storage.k8s.io/v1/storageclasss?limit=500");
      expect(server.requests.filter((request) => request.startsWith("GET /api/v1/persistentvolumes?"))).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });

  it("a kind RBAC does not grant: the command that grants it, and the kind left unknown, not empty", async () => {
    const server = await startFakeApiServer([...OBJECTS, ...(await clusterOf("unique-ingress-host")), webhook], { forbidden: ["ingresss.networking.k8s.io"] });
    process.env.KUBECONFIG = server.kubeconfig;
    try {
      const { code, stdout, stderr } = await runBuild(["snapshot", "build", "--from-cluster"]);
      expect(code).toBe(0);
      expect(stderr).toContain(
        'warning: the sync job may not list ingresss.networking.k8s.io, an inventory kind of unique-ingress-host: those policies meet "not in the snapshot" at the edge and their failurePolicy decides; grant it with kubectl create clusterrole edgeadmit-sync-inventory-ingresss --verb=get,list --resource=ingresss.networking.k8s.io && kubectl create clusterrolebinding edgeadmit-sync-inventory-ingresss --clusterrole=edgeadmit-sync-inventory-ingresss --serviceaccount=edgeadmit-system:edgeadmit-sync\n',
      );
      expect(JSON.parse(stdout).inventory).toEqual({});
    } finally {
      await server.stop();
    }
  });
});
