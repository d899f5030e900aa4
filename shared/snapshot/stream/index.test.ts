// The sync job's units made as lists come in are the units of the whole
// snapshot of the same objects, byte for byte: same names, same bytes, same
// digests, so the function of the release before takes them and an unchanged
// cluster stays unchanged.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collidingHosts, ingressWithHosts, uniqueHostPolicy } from "../../../test/support/ingress.js";
import { buildSnapshot, SnapshotBuilder, type KubeObject } from "../builder/index.js";
import { bucketDigests, encodeSnapshot, rootDigest, type EncodedUnit } from "../units/index.js";
import { utf8Length } from "../../text/index.js";
import { parseRelease, THIS_RELEASE_WRITES, writableTo, type WrittenFeature } from "../../version/index.js";
import { NotInNamespaceOrder, UnitStream, type StreamedMeasures } from "./index.js";

const OPTIONS = { generation: 1, builtAt: "2026-01-01T00:00:00.000Z" };
/** "a-b" sorts before "a" among storage keys ("a-b/…" < "a/…"), "a0" after it: the order the stream must follow. */
const NAMESPACES = ["a", "a-b", "a0", "ab", "tenant-root", "tenant-x"] as const;

const helmRelease = (namespace: string, name: string, className: string | undefined): KubeObject => ({
  apiVersion: "helm.toolkit.fluxcd.io/v2",
  kind: "HelmRelease",
  metadata: {
    name,
    namespace,
    labels: {
      ...(className ? { "apps.cozystack.io/affinity-class": className } : {}),
      "apps.cozystack.io/application.group": "apps.cozystack.io",
      "apps.cozystack.io/application.kind": "Postgres",
      "apps.cozystack.io/application.name": name,
    },
  },
});
const claim = (namespace: string, name: string, accessModes: string[], volumeName: string): KubeObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace },
  spec: { accessModes, volumeName },
});
const volume = (name: string, host: string | undefined): KubeObject => ({
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name },
  spec: host ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [host] }] }] } } } : {},
});
const workload = (kind: "Deployment" | "StatefulSet" | "ReplicaSet", namespace: string, name: string, claims: string[], owned: boolean): KubeObject => ({
  apiVersion: "apps/v1",
  kind,
  metadata: { name, namespace, ...(owned ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name, uid: "u", controller: true }] } : {}) },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "app:1" }], volumes: claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })) } },
  },
});
const tenant = (namespace: string, name: string, allowed: string[] | undefined): KubeObject => ({
  apiVersion: "apps.cozystack.io/v1alpha1",
  kind: "Tenant",
  metadata: { name, namespace },
  spec: allowed ? { allowedAffinityClasses: allowed, defaultAffinityClass: allowed[0] } : {},
});
const affinityClass = (name: string): KubeObject => ({ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name }, spec: { nodeSelector: { pool: name } } });
const namespaceObject = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { team: name } } });
const configMap = (namespace: string, name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { limit: "3" } });
/** A policy bound at the edge whose params are namespaced ConfigMaps: they and the Namespaces travel in the shards. */
const paramPolicy: KubeObject[] = [
  {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: "limits" },
    spec: { paramKind: { apiVersion: "v1", kind: "ConfigMap" }, matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }] }, validations: [{ expression: "true" }] },
  },
  { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name: "limits" }, spec: { policyName: "limits", validationActions: ["Deny"], paramRef: { name: "limits", parameterNotFoundAction: "Allow" } } },
];

/** The kinds that stream (builder/namespaced.ts), each its own list. */
const STREAMED = ["HelmRelease", "PersistentVolumeClaim", "Deployment", "StatefulSet", "ReplicaSet"];
const streams = (object: KubeObject) => STREAMED.includes(String(object.kind));
const metadataOf = (object: KubeObject) => object["metadata"] as { name: string; namespace?: string };
/** As the API server lists a kind: by storage key, `<namespace>/<name>`, in byte order. */
const storageKey = (object: KubeObject) => `${metadataOf(object).namespace ?? ""}/${metadataOf(object).name}`;
const byStorageKey = (a: KubeObject, b: KubeObject) => (storageKey(a) < storageKey(b) ? -1 : storageKey(a) > storageKey(b) ? 1 : 0);

/** Each kind's objects as its list gives them, every kind in the order the cluster's lists come (rest first, as the sync job lists them). */
function listed(objects: readonly KubeObject[]): KubeObject[] {
  const kinds = [...new Set(objects.map((object) => String(object.kind)))];
  return kinds.flatMap((kind) => objects.filter((object) => object.kind === kind).sort(byStorageKey));
}

interface Streamed {
  units: EncodedUnit[];
  digest: string;
  measures: StreamedMeasures;
  problems: string[];
}

/**
 * The units the sync job makes of `objects`: the rest built whole, each
 * streamed kind a lane of `pageSize` pages, the pages taken in the order
 * `picks` chooses among the lanes (any order a merge may take), a flush after each.
 */
async function stream(objects: readonly KubeObject[], pageSize: number, picks: readonly number[], features: ReadonlySet<WrittenFeature>): Promise<Streamed> {
  const builder = new SnapshotBuilder(OPTIONS);
  for (const object of listed(objects.filter((object) => !streams(object)))) builder.add(object);
  const rest = builder.build();
  const units: EncodedUnit[] = [];
  const unitStream = new UnitStream(rest.snapshot, builder.pinnedVolumes, (unit) => void units.push(unit));
  const lanes = STREAMED.map((kind) => {
    const pages: KubeObject[][] = [];
    const all = objects.filter((object) => object.kind === kind).sort(byStorageKey);
    for (let at = 0; at < all.length; at += pageSize) pages.push(all.slice(at, at + pageSize));
    return { lane: unitStream.lane(), pages };
  });
  let pick = 0;
  for (;;) {
    const open = lanes.filter((lane) => lane.pages.length > 0);
    if (open.length === 0) break;
    const chosen = open[(picks[pick++] ?? 0) % open.length]!;
    for (const object of chosen.pages.shift()!) chosen.lane.add(object);
    if (chosen.pages.length === 0) chosen.lane.end();
    await unitStream.flush();
  }
  for (const { lane } of lanes) lane.end();
  const { measures, problems } = await unitStream.settle();
  await unitStream.finish(features);
  return { units, digest: rootDigest(bucketDigests(units)), measures, problems: [...rest.problems, ...problems] };
}

async function whole(objects: readonly KubeObject[], features: ReadonlySet<WrittenFeature>) {
  const built = buildSnapshot(listed(objects), OPTIONS);
  return { built, encoded: await encodeSnapshot(built.snapshot, features) };
}

const bytesByName = (units: readonly EncodedUnit[]) => new Map(units.map((unit) => [unit.name, new TextDecoder().decode(unit.bytes)]));

async function expectSameUnits(objects: readonly KubeObject[], pageSize: number, picks: readonly number[] = [], features = THIS_RELEASE_WRITES): Promise<void> {
  const streamed = await stream(objects, pageSize, picks, features);
  const { built, encoded } = await whole(objects, features);
  expect(bytesByName(streamed.units)).toEqual(bytesByName(encoded.units));
  expect(streamed.units).toHaveLength(encoded.units.length);
  expect(streamed.digest).toBe(encoded.digest);
  expect(streamed.measures).toEqual({
    applications: { objects: Object.keys(built.snapshot.applications).length, bytes: utf8Length(JSON.stringify(built.snapshot.applications)) },
    volumeClaims: { objects: Object.keys(built.snapshot.volumeClaims).length, bytes: utf8Length(JSON.stringify(built.snapshot.volumeClaims)) },
  });
  expect([...streamed.problems].sort()).toEqual([...built.problems].sort());
}

/** A cluster of every kind the snapshot reads: classes, tenants owning namespaces, applications, claims and their volumes, workloads mounting them, a bound policy's params and inventory. */
function cluster(): KubeObject[] {
  return [
    ...["gold", "silver"].map(affinityClass),
    tenant("tenant-root", "root", ["gold", "silver"]),
    tenant("tenant-root", "x", ["silver"]),
    ...NAMESPACES.map(namespaceObject),
    ...paramPolicy,
    ...uniqueHostPolicy(),
    configMap("a-b", "limits"),
    configMap("ab", "limits"),
    ingressWithHosts("a", "web", ["a.example", "shared.example"]),
    ingressWithHosts("a0", "web", ["shared.example"]),
    ...NAMESPACES.flatMap((namespace, n) => [
      helmRelease(namespace, "db", n % 2 === 0 ? "gold" : "silver"),
      helmRelease(namespace, "cache", n % 3 === 0 ? undefined : "gold"),
      claim(namespace, "data-db", ["ReadWriteOnce"], `pv-${namespace}`),
      claim(namespace, "shared", ["ReadWriteMany"], `pv-${namespace}-shared`),
      volume(`pv-${namespace}`, n % 2 === 0 ? `node-${n}` : undefined),
      workload("StatefulSet", namespace, "db", ["data-db"], false),
      workload("Deployment", namespace, "backup", ["data-db", "shared"], false),
      workload("ReplicaSet", namespace, "backup-1", ["data-db"], true),
    ]),
    // A namespace with objects that are no facts (a ReadWriteMany claim), and one with only a tenant's.
    claim("zz", "logs", ["ReadWriteMany"], "pv-zz"),
    helmRelease("tenant-x", "broken", undefined),
    { apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", metadata: { name: 7, namespace: "b" } },
  ];
}

describe("units made as the lists come in", () => {
  it("are the whole snapshot's units, byte for byte, whatever the page size", async () => {
    for (const pageSize of [1, 2, 3, 500]) await expectSameUnits(cluster(), pageSize);
  });

  it("for the function they go to: the cluster part and the indexes as its release reads them, the shards the same for every release", async () => {
    // What 0.2.0 added: an inventory object left out with its indexed values kept, and the settings' fleetInventory.
    const objects = [
      ...cluster(),
      ingressWithHosts("ab", "crowded", collidingHosts(65)),
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "edgeadmit-settings", namespace: "edgeadmit-system" }, data: { fleetInventory: "networking.k8s.io/v1/Ingress" } },
    ];
    const previous = writableTo(parseRelease("0.1.0")!);
    expect(previous.size).toBeLessThan(THIS_RELEASE_WRITES.size);
    for (const features of [previous, THIS_RELEASE_WRITES]) await expectSameUnits(objects, 2, [], features);
    const older = bytesByName((await whole(objects, previous)).encoded.units);
    const newer = bytesByName((await whole(objects, THIS_RELEASE_WRITES)).encoded.units);
    const differing = [...newer.keys()].filter((name) => older.get(name) !== newer.get(name));
    expect(differing).toContain("");
    expect(differing.every((name) => name === "" || name.startsWith("inventory-"))).toBe(true);
  });

  it("whatever order the lanes' pages are taken in, each lane in namespace order", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(), { maxLength: 60 }), async (pageSize, picks) => {
        await expectSameUnits(cluster(), pageSize, picks);
      }),
      { numRuns: 25 },
    );
  });

  it("of any cluster: applications, claims and workloads in any namespaces, some of them broken", async () => {
    const namespace = fc.constantFrom(...NAMESPACES, "b");
    const name = fc.constantFrom("db", "db-0", "db0", "web");
    const object = fc.oneof(
      fc.tuple(namespace, name, fc.option(fc.constantFrom("gold", "silver", "bronze"), { nil: undefined })).map(([ns, n, c]) => helmRelease(ns, n, c)),
      fc.tuple(namespace, name, fc.constantFrom<string[]>(["ReadWriteOnce"], ["ReadWriteOncePod"], ["ReadWriteOnce", "ReadWriteMany"]), fc.constantFrom("pv-1", "pv-2")).map(([ns, n, modes, pv]) => claim(ns, n, modes, pv)),
      fc.tuple(fc.constantFrom("Deployment", "StatefulSet", "ReplicaSet") as fc.Arbitrary<"Deployment" | "StatefulSet" | "ReplicaSet">, namespace, name, fc.subarray(["db", "db-0", "web"]), fc.boolean()).map(([kind, ns, n, claims, owned]) =>
        workload(kind, ns, n, claims, owned),
      ),
      fc.tuple(namespace, name).map(([ns, n]): KubeObject => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: n, namespace: ns }, spec: { template: "broken" } })),
    );
    const unique = (objects: KubeObject[]) => [...new Map(objects.map((o) => [`${String(o.kind)} ${storageKey(o)}`, o])).values()];
    await fc.assert(
      fc.asyncProperty(fc.array(object, { maxLength: 30 }), fc.integer({ min: 1, max: 5 }), fc.array(fc.nat(), { maxLength: 30 }), async (objects, pageSize, picks) => {
        await expectSameUnits([affinityClass("gold"), tenant("tenant-root", "x", ["gold"]), volume("pv-1", "node-1"), volume("pv-2", undefined), ...unique(objects)], pageSize, picks);
      }),
      { numRuns: 60 },
    );
  });

  it("hold the namespaces between the lanes, not the cluster: a namespace every lane has passed is handed on at once", async () => {
    const builder = new SnapshotBuilder(OPTIONS);
    const handedOn: string[] = [];
    const unitStream = new UnitStream(builder.build().snapshot, builder.pinnedVolumes, (unit) => void handedOn.push(unit.name));
    const [releases, claims] = [unitStream.lane(), unitStream.lane()];
    releases.add(helmRelease("a-b", "db", "gold"));
    releases.add(helmRelease("a", "db", "gold"));
    await unitStream.flush();
    // The claims' list has not begun: it may still hold objects of any namespace.
    expect(handedOn).toEqual([]);
    claims.add(claim("a", "data", ["ReadWriteOnce"], "pv"));
    await unitStream.flush();
    expect(handedOn).toEqual(["a-b"]);
    expect(unitStream.behind()).toEqual([releases, claims]);
    claims.end();
    releases.add(helmRelease("b", "db", "gold"));
    await unitStream.flush();
    expect(handedOn).toEqual(["a-b", "a"]);
    releases.end();
    await unitStream.settle();
    expect(handedOn).toEqual(["a-b", "a", "b"]);
    await unitStream.finish(THIS_RELEASE_WRITES);
    expect(handedOn).toEqual(["a-b", "a", "b", "", "affinityclass/gold"]);
  });

  it("refuse an object of a namespace already handed on, or of none: the job then builds the whole snapshot", async () => {
    const builder = new SnapshotBuilder(OPTIONS);
    const unitStream = new UnitStream(builder.build().snapshot, builder.pinnedVolumes, () => {});
    const releases = unitStream.lane();
    releases.add(helmRelease("b", "db", "gold"));
    releases.add(helmRelease("c", "db", "gold"));
    await unitStream.flush();
    // Not yet handed on: a list may go back within what it has not passed.
    releases.add(helmRelease("c", "cache", "gold"));
    expect(() => releases.add(helmRelease("a", "db", "gold"))).toThrow(new NotInNamespaceOrder("HelmRelease a/…: the list is not in namespace order, and namespace a is already settled"));
    expect(() => releases.add({ apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", metadata: { name: "db" } })).toThrow(NotInNamespaceOrder);
  });
});
