// Policies that read the cluster's inventory, over HTTP in workerd: each
// shipped example (examples/inventory) denies what its rule forbids, allows
// the rest, and allows an UPDATE of an object the snapshot holds (the object
// under review is not in its own inventory); a kind the policy does not
// declare is a compile error in the push answer; what evaluation needs is
// loaded as it asks (an index bucket, a kind's namespaces). What never leaves
// the cluster is refused at push; an object over a limit is left out, named
// in the push answer, while the rest of the snapshot is stored, and only
// the lookups of its own values fail (issue 33).
import { describe, expect, it } from "vitest";
import ingressPolicy from "../../examples/inventory/unique-ingress-host/policy.yaml?raw";
import ingressCluster from "../../examples/inventory/unique-ingress-host/cluster.yaml?raw";
import ingressRequests from "../../examples/inventory/unique-ingress-host/requests.yaml?raw";
import servicePolicy from "../../examples/inventory/service-selector-collision/policy.yaml?raw";
import serviceCluster from "../../examples/inventory/service-selector-collision/cluster.yaml?raw";
import serviceRequests from "../../examples/inventory/service-selector-collision/requests.yaml?raw";
import classPolicy from "../../examples/inventory/storage-class-exists/policy.yaml?raw";
import classCluster from "../../examples/inventory/storage-class-exists/cluster.yaml?raw";
import classRequests from "../../examples/inventory/storage-class-exists/requests.yaml?raw";
import hpaPolicy from "../../examples/inventory/hpa-target-exists/policy.yaml?raw";
import hpaCluster from "../../examples/inventory/hpa-target-exists/cluster.yaml?raw";
import hpaRequests from "../../examples/inventory/hpa-target-exists/requests.yaml?raw";
import { wrapReview } from "../../shared/admission/wrap.js";
import { cacheStats } from "../../functions/store/cache.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { encodeSnapshot, type Snapshot } from "../../shared/snapshot/index.js";
import { dispatch, freshGeneration, objectsFromYaml, push, sign, snapshotOf, validate } from "../support/worker.js";
import { putBody, unitsOf } from "../support/push.js";
import { buildSnapshot } from "../../shared/snapshot/builder/index.js";
import { INVENTORY_LIMITS } from "../../shared/snapshot/builder/policies.js";
import { collidingHosts, ingressWithHosts, uniqueHostPolicy } from "../support/ingress.js";
import { chainLinks, serviceCreatePolicy } from "../support/chain.js";
import { parseRelease, writableTo } from "../../shared/version/index.js";

const CLUSTER = "other";

/** Pushes a snapshot of `objects`; the push answer. */
async function pushed(objects: KubeObject[], change: (snapshot: Snapshot) => void = () => {}) {
  const snapshot = snapshotOf(objects);
  change(snapshot);
  const response = await push(CLUSTER, snapshot);
  expect(response.status).toBe(200);
  return (await response.json()) as { boundPolicies: number; policyProblems: string[] };
}

const named = (objects: KubeObject[], namespace: string, name: string) =>
  objects.find((o) => (o.metadata as { name: string; namespace?: string }).name === name && ((o.metadata as { namespace?: string }).namespace ?? "") === namespace)!;

async function verdict(object: KubeObject, options: Parameters<typeof wrapReview>[1] = {}) {
  const { response } = await validate(CLUSTER, wrapReview(object, options));
  return { allowed: response.allowed, message: response.status?.message, warnings: response.warnings ?? [] };
}

const allowed = { allowed: true, message: undefined, warnings: [] };

describe("unique Ingress host", () => {
  const cluster = objectsFromYaml(ingressCluster);
  const requests = objectsFromYaml(ingressRequests);

  it("denies a host another Ingress serves, naming it; allows a new host and an Ingress without one", async () => {
    expect(await pushed([...objectsFromYaml(ingressPolicy), ...cluster])).toEqual(expect.objectContaining({ boundPolicies: 1, policyProblems: [] }));
    expect(await verdict(named(requests, "staging", "web-copy"))).toEqual({
      allowed: false,
      message:
        "ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: host www.shop.example.com is already served by Ingress shop/web: one host, one Ingress",
      warnings: [],
    });
    expect(await verdict(named(requests, "docs", "docs"))).toEqual(allowed);
    expect(await verdict(named(requests, "docs", "fallback"))).toEqual(allowed);
  });

  it("allows an UPDATE of an Ingress the snapshot holds, and a CREATE of one a stale snapshot still holds", async () => {
    await pushed([...objectsFromYaml(ingressPolicy), ...cluster]);
    const web = named(cluster, "shop", "web");
    const moved = { ...web, spec: { ...(web.spec as object), ingressClassName: "traefik" } };
    expect(await verdict(moved, { operation: "UPDATE", oldObject: web })).toEqual(allowed);
    expect(await verdict(web)).toEqual(allowed);
    // Its stored copy is no excuse for taking another Ingress's host.
    const taking = { ...web, spec: { rules: [{ host: "blog.example.com" }] } };
    expect((await verdict(taking, { operation: "UPDATE", oldObject: web })).message).toContain("host blog.example.com is already served by Ingress blog/blog");
  });

  it("reads the index bucket of the host on first sight, and nothing on the next review", async () => {
    await pushed([...objectsFromYaml(ingressPolicy), ...cluster]);
    const copy = named(requests, "staging", "web-copy");
    const before = { ...cacheStats };
    expect((await verdict(copy)).allowed).toBe(false);
    // The namespace's shard (reviewUnits), then the buckets of its two hosts as the evaluation asked for them.
    const firstReads = cacheStats.shardReads + cacheStats.absentReads - before.shardReads - before.absentReads;
    expect(firstReads).toBeGreaterThanOrEqual(2);
    const again = { ...cacheStats };
    expect((await verdict(copy)).allowed).toBe(false);
    expect(cacheStats.shardReads - again.shardReads).toBe(0);
  });

  it("a kind the sync job could not list is unknown, not empty: the policy's failurePolicy decides", async () => {
    await pushed([...objectsFromYaml(ingressPolicy), ...cluster], (snapshot) => {
      delete snapshot.inventory["networking.k8s.io/v1/Ingress"];
    });
    const { allowed: ok, message } = await verdict(named(requests, "docs", "docs"));
    expect(ok).toBe(false);
    expect(message).toBe(
      "ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: expression 'size(variables.hostsTaken) == 0' resulted in error: composited variable \"hostsTaken\" fails to evaluate: inventory: networking.k8s.io/v1 Ingress is not in the snapshot: the sync job could not list it (RBAC, or the API server does not serve it; see its warnings)",
    );
  });
});

describe("Service selector collision", () => {
  const cluster = objectsFromYaml(serviceCluster);
  const requests = objectsFromYaml(serviceRequests);

  it("denies a Service with another one's selector in its namespace; allows another selector, another namespace, no selector, and its own UPDATE", async () => {
    await pushed([...objectsFromYaml(servicePolicy), ...cluster]);
    expect(await verdict(named(requests, "shop", "api-copy"))).toEqual({
      allowed: false,
      message:
        "ValidatingAdmissionPolicy 'service-selector-collision' with binding 'service-selector-collision' denied request: spec.selector is the selector of Service api too: both would send traffic to the same pods",
      warnings: [],
    });
    expect(await verdict(named(requests, "shop", "api-canary"))).toEqual(allowed);
    expect(await verdict(named(requests, "shop", "legacy-cache"))).toEqual(allowed);
    const api = named(cluster, "shop", "api");
    expect(await verdict({ ...api, spec: { ...(api.spec as object), ports: [{ port: 81 }] } }, { operation: "UPDATE", oldObject: api })).toEqual(allowed);
  });
});

describe("StorageClass exists", () => {
  const requests = objectsFromYaml(classRequests);

  it("denies a claim naming no StorageClass and no PersistentVolume's class; allows the rest", async () => {
    await pushed([...objectsFromYaml(classPolicy), ...objectsFromYaml(classCluster)]);
    expect(await verdict(named(requests, "shop", "data"))).toEqual({
      allowed: false,
      message:
        "ValidatingAdmissionPolicy 'storage-class-exists' with binding 'storage-class-exists' denied request: StorageClass fsat does not exist and no PersistentVolume has that class: the claim would stay Pending",
      warnings: [],
    });
    for (const name of ["cache", "task-pv-claim", "scratch"]) expect(await verdict(named(requests, "shop", name)), name).toEqual(allowed);
  });
});

describe("HPA target exists", () => {
  const cluster = objectsFromYaml(hpaCluster);
  const requests = objectsFromYaml(hpaRequests);

  it("warns of a target that does not exist (the kind read from scaleTargetRef); allows existing targets and kinds it does not judge", async () => {
    await pushed([...objectsFromYaml(hpaPolicy), ...cluster]);
    expect(await verdict(named(requests, "shop", "frontend"))).toEqual({
      allowed: true,
      message: undefined,
      warnings: ["Validation failed for ValidatingAdmissionPolicy 'hpa-target-exists' with binding 'hpa-target-exists': scaleTargetRef names Deployment frontend, which does not exist in namespace shop"],
    });
    expect((await verdict(named(requests, "staging", "web"))).warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'hpa-target-exists' with binding 'hpa-target-exists': scaleTargetRef names Deployment web, which does not exist in namespace staging",
    ]);
    for (const name of ["web", "queue", "rollout"]) expect(await verdict(named(requests, "shop", name)), name).toEqual(allowed);
    const web = named(requests, "shop", "web");
    expect(await verdict({ ...web, spec: { ...(web.spec as object), maxReplicas: 20 } }, { operation: "UPDATE", oldObject: web })).toEqual(allowed);
  });

  it("a kind named at run time that the policy does not declare is an evaluation error under its failurePolicy", async () => {
    // Denied, so the whole message shows (a warning stops at 256 bytes).
    const policy = objectsFromYaml(hpaPolicy.replace("object.spec.scaleTargetRef.kind in ['Deployment', 'StatefulSet', 'ReplicaSet'] &&", "").replace("[Warn]", "[Deny]"));
    await pushed([...policy, ...cluster]);
    const rollout = named(requests, "shop", "rollout");
    const patched = { ...rollout, spec: { ...(rollout.spec as object), scaleTargetRef: { apiVersion: "apps/v1", kind: "DaemonSet", name: "web" } } };
    expect((await verdict(patched)).message).toBe(
      "ValidatingAdmissionPolicy 'hpa-target-exists' with binding 'hpa-target-exists' denied request: expression '!variables.targetMissing' resulted in error: composited variable \"targetMissing\" fails to evaluate: inventory: apps/v1 DaemonSet is not declared in this policy's metadata.annotations[\"edgeadmit.io/inventory\"]",
    );
  });
});

describe("the per-policy route", () => {
  it("/validate/<name> takes the cluster's own ValidatingAdmissionPolicy names; a built-in's route judges with the built-in alone", async () => {
    await pushed([...objectsFromYaml(ingressPolicy), ...objectsFromYaml(ingressCluster)]);
    const copy = wrapReview(objectsFromYaml(ingressRequests)[0]!);
    expect((await validate(CLUSTER, copy, "unique-ingress-host")).response).toMatchObject({
      allowed: false,
      status: { message: "ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: host www.shop.example.com is already served by Ingress shop/web: one host, one Ingress" },
    });
    expect((await validate(CLUSTER, copy, "affinity-class")).response).toEqual({ uid: copy.request.uid, allowed: true });
    await expect(validate(CLUSTER, copy, "unique-ingres-host")).rejects.toThrow(
      `validate answered 404: {"error":"unknown policy \\"unique-ingres-host\\": neither a built-in policy (`,
    );
  });
});

describe("a declaration that does not hold", () => {
  it("a kind the annotation does not declare is a compile error in the push answer, and the policy follows its failurePolicy", async () => {
    const policy = objectsFromYaml(ingressPolicy.replaceAll("inventory.index('networking.k8s.io/v1', 'Ingress'", "inventory.index('networking.k8s.io/v1beta1', 'Ingress'"));
    const answer = await pushed([...policy, ...objectsFromYaml(ingressCluster)]);
    expect(answer.policyProblems).toEqual([
      `ValidatingAdmissionPolicy 'unique-ingress-host': metadata.annotations["edgeadmit.io/inventory"]: variables.hostsTaken: compilation error: ERROR: <input>:1:161: inventory: networking.k8s.io/v1beta1 Ingress is not declared in the policy's metadata.annotations["edgeadmit.io/inventory"]`,
      `ValidatingAdmissionPolicy 'unique-ingress-host': metadata.annotations["edgeadmit.io/inventory"]: variables.takenBy: compilation error: ERROR: <input>:1:96: inventory: networking.k8s.io/v1beta1 Ingress is not declared in the policy's metadata.annotations["edgeadmit.io/inventory"]`,
    ]);
    const { allowed: ok, message } = await verdict(objectsFromYaml(ingressRequests)[1]!);
    expect(ok).toBe(false);
    expect(message).toContain("composited variable \"hostsTaken\" fails to compile: ERROR: <input>:1:161: inventory: networking.k8s.io/v1beta1 Ingress is not declared");
  });

  it("an annotation that is not a declaration is one problem, and every expression of the policy fails to compile", async () => {
    const policy = objectsFromYaml(ingressPolicy.replace("kind: Ingress\n", "kind: ingress\n"));
    const answer = await pushed([...policy, ...objectsFromYaml(ingressCluster)]);
    expect(answer.policyProblems).toEqual([
      `ValidatingAdmissionPolicy 'unique-ingress-host': metadata.annotations["edgeadmit.io/inventory"]: kinds.0.kind: must be a kind: CamelCase letters and digits`,
    ]);
    expect((await verdict(objectsFromYaml(ingressRequests)[1]!)).message).toBe(
      `ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: compilation error: metadata.annotations["edgeadmit.io/inventory"]: kinds.0.kind: must be a kind: CamelCase letters and digits`,
    );
  });

  it("a variable the spec does not declare (a typo) fails the policy by its failurePolicy, not a silent pass on the stand-in", async () => {
    // The typo of issue 27: hostTaken for hostsTaken.
    const policy = objectsFromYaml(ingressPolicy.replace("        hostsTaken: >-", "        hostTaken: >-"));
    const answer = await pushed([...policy, ...objectsFromYaml(ingressCluster)]);
    const problem = `metadata.annotations["edgeadmit.io/inventory"]: variables.hostTaken: spec.variables declares no variable of that name (the annotation replaces a declared variable's expression at the edge; did you mean "hostsTaken"?)`;
    expect(answer.policyProblems).toEqual([`ValidatingAdmissionPolicy 'unique-ingress-host': ${problem}`]);
    // failurePolicy Fail: the request the stand-in would have let through is denied, saying why.
    expect(await verdict(objectsFromYaml(ingressRequests)[1]!)).toMatchObject({
      allowed: false,
      message: `ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: compilation error: ${problem}`,
    });
  });
});

describe("a list across namespaces", () => {
  const limit = (max: number) =>
    objectsFromYaml(`
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: few-services
  annotations:
    edgeadmit.io/inventory: '{"kinds": [{"apiVersion": "v1", "kind": "Service"}]}'
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [services]}]
  validations:
  - expression: "size(inventory.list('v1', 'Service')) < ${max}"
    messageExpression: "'the cluster has ' + string(size(inventory.list('v1', 'Service'))) + ' Services already'"
---
apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: few-services}
spec: {policyName: few-services, validationActions: [Deny]}
`);

  it("reads the kind's namespaces, then their shards, and judges as with the whole snapshot", async () => {
    const services = Array.from({ length: 5 }, (_, i) => ({ apiVersion: "v1", kind: "Service", metadata: { name: `s${i}`, namespace: `team-${i % 3}` }, spec: { ports: [{ port: 80 }] } }));
    await pushed([...limit(5), ...services]);
    const fresh = { apiVersion: "v1", kind: "Service", metadata: { name: "new", namespace: "team-9" }, spec: { ports: [{ port: 80 }] } };
    expect((await verdict(fresh)).message).toBe("ValidatingAdmissionPolicy 'few-services' with binding 'few-services' denied request: the cluster has 5 Services already");
    // One of the five, created again: it is not among what it counts.
    expect(await verdict(services[0]!)).toEqual(allowed);
  });
});

describe("lookups that each need the one before", () => {
  it("past the rounds one review loads, the rest is an evaluation error under the policy's failurePolicy, never a 5xx", async () => {
    // c0/link names c1, c1/link names c2, …: each get can be known only once the one before it is read.
    const links = chainLinks(6);
    const policy = (depth: number) => serviceCreatePolicy("chain", 0, depth);
    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "elsewhere" }, spec: { ports: [{ port: 80 }] } };
    await pushed([...policy(4), ...links]);
    expect(await verdict(service)).toEqual(allowed);
    await pushed([...policy(6), ...links]);
    const { allowed: ok, message } = await verdict(service);
    expect(ok).toBe(false);
    expect(message).toMatch(/resulted in error: inventory: this evaluation reads parts of the snapshot it names only one after another, more than one review loads \(4 rounds\)$/);
  });
});

/** What the function holds for CLUSTER (GET …/snapshot, signed as the sync job reads it). */
async function stored() {
  const headers = await sign(CLUSTER, new Uint8Array(), { method: "GET" });
  return (await (await dispatch(`/v1/${CLUSTER}/snapshot`, { headers })).json()) as { generation: number; contentHash: string; policyProblems: string[] };
}

describe("what never leaves the cluster", () => {
  it("a push whose policy declares a Secret's data is refused (400), naming the policy and the field; nothing stored changes", async () => {
    await pushed([...objectsFromYaml(ingressPolicy), ...objectsFromYaml(ingressCluster)]);
    const before = await stored();
    const units = await unitsOf(snapshotOf([...objectsFromYaml(ingressPolicy), ...objectsFromYaml(ingressCluster)]));
    const cluster = units[""] as { validatingAdmissionPolicies: Record<string, { metadata: { annotations: Record<string, string> } }> };
    const vap = cluster.validatingAdmissionPolicies["unique-ingress-host"]!;
    vap.metadata.annotations["edgeadmit.io/inventory"] = JSON.stringify({ kinds: [{ apiVersion: "v1", kind: "Secret", fields: ["type", "data"] }] });
    const response = await push(CLUSTER, putBody(freshGeneration(), units, { base: null, digest: "0".repeat(64) }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error:
        'unit (cluster part): ValidatingAdmissionPolicy unique-ingress-host: metadata.annotations["edgeadmit.io/inventory"] kinds.0.fields.1: data of v1 Secret never leaves the cluster: of a Secret only metadata.name, metadata.namespace, metadata.labels and type do (docs/inventory.md, "What leaves the cluster"); nothing was stored',
    });
    expect(await stored()).toEqual(before);
  });
});

describe("one tenant's object affects only its own values (issue 33)", () => {
  const policyObjects = objectsFromYaml(ingressPolicy);
  const cluster = objectsFromYaml(ingressCluster);
  // 65 hosts, 2.5 KB, in tenant-a's own namespace, all in one index bucket: left out (at most 64 there).
  const aimed = collidingHosts(65);
  const crowded = ingressWithHosts("tenant-a", "crowded", aimed);
  // Four other tenants' new Ingresses: a host another serves, and three nobody serves.
  const others = [
    ingressWithHosts("staging", "web-copy", ["staging.shop.example.com", "www.shop.example.com"]),
    ingressWithHosts("docs", "docs", ["docs.example.com"]),
    ingressWithHosts("tenant-b", "api", ["api.tenant-b.example.com"]),
    ingressWithHosts("tenant-c", "shop", ["shop.tenant-c.example.com", "blog.tenant-c.example.com"]),
  ];
  const verdicts = async () => Promise.all(others.map((object) => verdict(object)));
  const coarse =
    "ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: expression 'size(variables.hostsTaken) == 0' resulted in error: composited variable \"hostsTaken\" fails to evaluate: inventory: networking.k8s.io/v1 Ingress tenant-a/crowded was left out of the snapshot (65 of its indexed values fall in one index bucket (at most 64)), so this call could miss it; the sync job's output names it";

  it("the 65-host Ingress is left out, and every other tenant is judged exactly as without it; a lookup of one of its own hosts is an evaluation error", async () => {
    await pushed([...policyObjects, ...cluster]);
    const without = await verdicts();
    expect(without.map((one) => one.allowed)).toEqual([false, true, true, true]);
    const built = buildSnapshot([...policyObjects, ...cluster, crowded], { generation: freshGeneration(), builtAt: new Date().toISOString() });
    const response = await push(CLUSTER, built.snapshot);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { policyProblems: string[] };
    expect(answer.policyProblems).toEqual([
      "inventory: networking.k8s.io/v1 Ingress tenant-a/crowded is left out of the snapshot (65 of its indexed values fall in one index bucket (at most 64)): the policies reading it (a lookup of its values, a get of it, a list of its namespace) meet an evaluation error, and their failurePolicy decides",
    ]);
    expect(await verdicts()).toEqual(without);
    expect(await verdict(ingressWithHosts("tenant-d", "grab", ["grab.tenant-d.example.com", aimed[3]!]))).toEqual({
      allowed: false,
      message: `ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: expression 'size(variables.hostsTaken) == 0' resulted in error: composited variable "hostsTaken" fails to evaluate: inventory: an object of networking.k8s.io/v1 Ingress whose spec.rules[*].host holds "${aimed[3]}" was left out of the snapshot for breaking its limits, so this lookup could miss it; the sync job's output names it`,
      warnings: [],
    });
  });

  it("pushed as 0.1.0's sync job pushes it (no values of left-out objects), every lookup is the evaluation error it was: 4 of 4 other tenants denied", async () => {
    const built = buildSnapshot([...policyObjects, ...cluster, crowded], { generation: freshGeneration(), builtAt: new Date().toISOString() });
    const response = await push(CLUSTER, built.snapshot, { features: writableTo(parseRelease("0.1.0")!) });
    expect(response.status).toBe(200);
    expect(await verdicts()).toEqual(others.map(() => ({ allowed: false, message: coarse, warnings: [] })));
  });
});

describe("an inventory object over a limit", () => {
  it("the 600-host Ingress whose hosts share one bucket is left out and named in the push answer; the rest is stored and read, and the policy's failurePolicy decides a lookup of its hosts", async () => {
    const crowded = ingressWithHosts("tenant-a", "crowded", collidingHosts(600));
    const built = buildSnapshot([...uniqueHostPolicy("Fail"), crowded, ingressWithHosts("shop", "web", ["www.shop.example.com"])], { generation: freshGeneration(), builtAt: new Date().toISOString() });
    expect(built.problems).toHaveLength(1);
    const response = await push(CLUSTER, built.snapshot);
    expect(response.status).toBe(200);
    const why = `600 of its indexed values fall in one index bucket (at most ${INVENTORY_LIMITS.valuesInOneBucket})`;
    expect(((await response.json()) as { policyProblems: string[] }).policyProblems).toEqual([
      `inventory: networking.k8s.io/v1 Ingress tenant-a/crowded is left out of the snapshot (${why}): the policies reading it (a lookup of its values, a get of it, a list of its namespace) meet an evaluation error, and their failurePolicy decides`,
    ]);
    // Every other unit is stored: the function's content hash is the digest of the whole snapshot as built.
    expect(await stored()).toEqual(expect.objectContaining({ generation: built.snapshot.generation, contentHash: (await encodeSnapshot(built.snapshot)).digest }));
    // The rest is there and answered exactly: shop/web serves the host; a lookup of one of the left-out hosts could miss it, so the policy fails closed.
    expect(await verdict(ingressWithHosts("shop", "copy", ["www.shop.example.com"]))).toEqual({
      allowed: false,
      message: "ValidatingAdmissionPolicy 'unique-host' with binding 'unique-host' denied request: host www.shop.example.com is taken",
      warnings: [],
    });
    const [, second] = collidingHosts(2);
    expect(await verdict(ingressWithHosts("shop", "copy", [second!]))).toEqual({
      allowed: false,
      message: `ValidatingAdmissionPolicy 'unique-host' with binding 'unique-host' denied request: expression 'size(variables.taken) == 0' resulted in error: composited variable "taken" fails to evaluate: inventory: an object of networking.k8s.io/v1 Ingress whose spec.rules[*].host holds "${second}" was left out of the snapshot for breaking its limits, so this lookup could miss it; the sync job's output names it`,
      warnings: [],
    });
  });
});
