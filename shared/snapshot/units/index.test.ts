import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { wrapReview } from "../../admission/wrap.js";
import { affinityClassDefinitionsPolicy } from "../../../policies/affinity-class-definitions/index.js";
import { admissionRequestSchema } from "../../admission/index.js";
import { buildSnapshot, type KubeObject } from "../builder/index.js";
import { indexBucketOf } from "../../inventory/index.js";
import { parseRelease, writableTo } from "../../version/index.js";
import { collidingHosts } from "../../../test/support/ingress.js";
import {
  bucketDigests,
  CLUSTER_UNIT,
  decodeUnit,
  describeUnit,
  encodeSnapshot,
  joinSnapshot,
  MAX_PUSH_BYTES,
  MAX_PUSH_UNITS,
  pushBodies,
  PUSH_BATCH_BYTES,
  rootDigest,
  splitSnapshot,
  SnapshotView,
  UnloadedUnitError,
  type Snapshot,
} from "../index.js";

const base = buildSnapshot(
  [
    { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" }, spec: { nodeSelector: { zone: "dc1" } } },
    { apiVersion: "apps.cozystack.io/v1alpha1", kind: "Tenant", metadata: { name: "root", namespace: "tenant-root" }, spec: { allowedAffinityClasses: ["dc1"] } },
  ],
  { generation: 7, builtAt: "2026-11-22T00:00:00.000Z" },
).snapshot;

const helmRelease = (namespace: string, name: string, className = "dc1"): KubeObject => ({
  apiVersion: "helm.toolkit.fluxcd.io/v2",
  kind: "HelmRelease",
  metadata: { name, namespace, labels: { "apps.cozystack.io/affinity-class": className } },
});

describe("splitSnapshot", () => {
  const namespace = fc.constantFrom("tenant-a", "tenant-a-b", "tenant-ab", "t");
  const entries = <T>(value: fc.Arbitrary<T>) => fc.dictionary(fc.tuple(namespace, fc.constantFrom("x", "y", "z/w")).map(([ns, name]) => `${ns}/${name}`), value, { maxKeys: 8 });
  const snapshots = fc.record({
    applications: entries(fc.record({ affinityClass: fc.constantFrom("dc1", "dc2") })),
    volumeClaims: entries(fc.record({ accessModes: fc.constant<string[]>(["ReadWriteOnce"]), pinnedToNode: fc.boolean() })),
    namespaces: fc.dictionary(namespace, fc.record({ metadata: fc.record({ labels: fc.dictionary(fc.constantFrom("a", "b"), fc.constantFrom("1", "2")) }) })),
    params: fc.array(fc.record({ metadata: fc.record({ name: fc.constantFrom("p", "q"), namespace: fc.option(namespace, { nil: undefined }) }) }), { maxLength: 6 }),
  });

  it("cuts every namespaced entry into its namespace's shard and joins back to the same snapshot", () => {
    fc.assert(
      fc.property(snapshots, ({ applications, volumeClaims, namespaces, params }) => {
        const snapshot: Snapshot = {
          ...base,
          applications,
          volumeClaims,
          namespaces,
          policyParams: { "v1/ConfigMap": { namespaced: true, objects: params }, "example.org/v1/Limit": { namespaced: false, objects: params } },
        };
        const parts = splitSnapshot(snapshot);
        for (const [ns, shard] of parts.shards) for (const key of Object.keys(shard.applications)) expect(key.startsWith(`${ns}/`)).toBe(true);
        // Cluster-scoped kinds stay whole in the cluster part; namespaced objects without a namespace stay there too.
        expect(parts.cluster.policyParams["example.org/v1/Limit"]!.objects).toEqual(params);
        const joined = joinSnapshot(parts, snapshot);
        const sortParams = (s: Snapshot) => ({ ...s, policyParams: Object.fromEntries(Object.entries(s.policyParams).map(([k, v]) => [k, { ...v, objects: [...v.objects].map((o) => JSON.stringify(o)).sort() }])) });
        expect(sortParams(joined)).toEqual(sortParams(snapshot));
        // Within a namespace, params keep their order: a selector's matches come out as listed.
        for (const ns of ["tenant-a", "t"]) expect(new SnapshotView(snapshot).paramObjects("v1/ConfigMap", ns)).toEqual(params.filter((p) => p.metadata.namespace === ns));
      }),
      { numRuns: 300 },
    );
  });

  it("carries a field it does not know in the cluster-wide part, untouched", () => {
    // A field a later version adds (as exceptions were): the split needs no change for it.
    const withFutureField = { ...base, futureField: { "allow-legacy": { policies: ["ha-spread"] } } } as unknown as Snapshot;
    const { cluster, shards } = splitSnapshot(withFutureField);
    expect((cluster as Record<string, unknown>)["futureField"]).toEqual({ "allow-legacy": { policies: ["ha-spread"] } });
    expect([...shards.keys()]).toEqual(["tenant-root"]);
  });

  it("keeps a cluster-wide part that does not grow with the applications or namespaces", async () => {
    const sized = async (applications: number) => {
      const objects = Array.from({ length: applications }, (_, i) => helmRelease(`tenant-${i % 50}`, `app-${i}`));
      const { snapshot } = buildSnapshot([...objects, { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" }, spec: { nodeSelector: { zone: "dc1" } } }], { generation: 1, builtAt: base.builtAt });
      return (await encodeSnapshot(snapshot)).units.find((unit) => unit.name === CLUSTER_UNIT)!.bytes.length;
    };
    expect(await sized(2_000)).toBe(await sized(10));
  });
});

describe("a view holding only some units", () => {
  it("answers for the namespaces it was given, absent for those mapped to null, and throws for any other", () => {
    const { snapshot } = buildSnapshot([helmRelease("tenant-a", "db"), helmRelease("tenant-b", "web")], { generation: 1, builtAt: base.builtAt });
    const whole = new SnapshotView(snapshot);
    const parts = splitSnapshot(snapshot);
    const partial = new SnapshotView(whole.facts, new Map([["tenant-a", null]]));
    expect(partial.applicationByHelmRelease("tenant-a", "db")).toBeUndefined();
    expect(() => partial.applicationByHelmRelease("tenant-b", "web")).toThrow(UnloadedUnitError);
    expect(() => partial.tenant("tenant-b")).toThrow('snapshot view: unit "tenant-b" was not loaded for this review');
    // A name no namespace can have needs no unit.
    expect(partial.volumeClaim("n".repeat(300), "data")).toBeUndefined();
    expect(whole.applicationByHelmRelease("tenant-b", "web")).toMatchObject({ namespace: "tenant-b", helmRelease: "web", affinityClass: "dc1" });
    expect(parts.shards.size).toBe(2);
  });
});

describe("the class reference index", () => {
  it("lists the first five who name a class and counts the rest, as the scan of every HelmRelease and Tenant did", () => {
    const objects: KubeObject[] = [
      { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" }, spec: { nodeSelector: { zone: "dc1" } } },
      ...Array.from({ length: 7 }, (_, i) => helmRelease(`tenant-${i % 3}`, `app-${i}`)),
      { apiVersion: "apps.cozystack.io/v1alpha1", kind: "Tenant", metadata: { name: "root", namespace: "tenant-root" }, spec: { allowedAffinityClasses: ["dc1"], defaultAffinityClass: "dc1" } },
    ];
    const { snapshot } = buildSnapshot(objects, { generation: 1, builtAt: base.builtAt });
    const request = admissionRequestSchema.parse(wrapReview({ apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "dc1" } }, { operation: "DELETE" }).request);
    expect(affinityClassDefinitionsPolicy.evaluate(request, new SnapshotView(snapshot))).toEqual([
      {
        message:
          'AffinityClass "dc1" is still referenced by HelmRelease tenant-0/app-0, HelmRelease tenant-0/app-3, HelmRelease tenant-0/app-6, HelmRelease tenant-1/app-1, HelmRelease tenant-1/app-4 and 3 more: move them to another class first',
      },
    ]);
  });
});

describe("units and their digests", () => {
  it("give one digest for the same content, whatever order the buckets were computed in", async () => {
    const { units, digest } = await encodeSnapshot(base);
    expect(rootDigest(bucketDigests([...units].reverse()))).toBe(digest);
    expect((await encodeSnapshot({ ...base, generation: 99, builtAt: "2027-01-01T00:00:00.000Z" })).digest).toBe(digest);
  });

  it("go in one body when small; in batches under the limit, the cluster part with the commit in the last, when large", async () => {
    expect(pushBodies(1, (await encodeSnapshot(base)).units, { base: null, builtAt: base.builtAt, removed: [], digest: "0".repeat(64) })).toHaveLength(1);
    const objects = Array.from({ length: 60_000 }, (_, i) => helmRelease(`tenant-${i % 40}`, `application-with-a-long-name-${i}`));
    const { snapshot } = buildSnapshot(objects, { generation: 1, builtAt: base.builtAt });
    const { units, digest } = await encodeSnapshot(snapshot);
    const bodies = pushBodies(2, units, { base: null, builtAt: base.builtAt, removed: [], digest });
    expect(bodies.length).toBeGreaterThan(1);
    const parsed = bodies.map((body) => JSON.parse(body) as { units: Record<string, unknown>; commit?: unknown });
    expect(parsed.map((body) => body.commit !== undefined)).toEqual(bodies.map((_, i) => i === bodies.length - 1));
    expect(CLUSTER_UNIT in parsed.at(-1)!.units).toBe(true);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(Math.max(PUSH_BATCH_BYTES + 64 * 1024, 0));
    expect(new Set(parsed.flatMap((body) => Object.keys(body.units))).size).toBe(units.length);
    expect(MAX_PUSH_BYTES).toBeGreaterThan(PUSH_BATCH_BYTES);
  });

  it("hold at most MAX_PUSH_UNITS units each, however small the units", async () => {
    const objects = Array.from({ length: 4_500 }, (_, i) => helmRelease(`ns-${i}`, "app"));
    const { snapshot } = buildSnapshot(objects, { generation: 1, builtAt: base.builtAt });
    const { units, digest } = await encodeSnapshot(snapshot);
    const bodies = pushBodies(2, units, { base: null, builtAt: base.builtAt, removed: [], digest }).map((body) => Object.keys((JSON.parse(body) as { units: object }).units).length);
    expect(bodies).toEqual([MAX_PUSH_UNITS, MAX_PUSH_UNITS, units.length - 2 * MAX_PUSH_UNITS]);
  });
});

describe("the inventory in units", () => {
  const KIND = "networking.k8s.io/v1/Ingress";
  const FIELD = "spec.rules[*].host";
  const declaration = JSON.stringify({
    kinds: [
      { apiVersion: "networking.k8s.io/v1", kind: "Ingress", fields: ["spec.rules[*].host"], index: ["spec.rules[*].host"] },
      { apiVersion: "storage.k8s.io/v1", kind: "StorageClass" },
    ],
  });
  const policy: KubeObject[] = [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "p", annotations: { "edgeadmit.io/inventory": declaration } },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] }, validations: [{ expression: "true" }] },
    },
    { apiVersion: "edgeadmit.io/v1alpha1", kind: "EdgeAdmissionPolicyBinding", metadata: { name: "p" }, spec: { policyName: "p", validationActions: ["Deny"] } },
  ];
  const ingress = (namespace: string, name: string, ...hosts: string[]): KubeObject => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name, namespace, uid: `${namespace}-${name}` },
    spec: { rules: hosts.map((host) => ({ host, http: { paths: [] } })) },
  });
  const build = (objects: KubeObject[]) => buildSnapshot([...policy, ...objects], { generation: 1, builtAt: base.builtAt }).snapshot;
  const names = (units: Array<{ name: string }>) => units.map((unit) => unit.name);

  it("puts namespaced kinds' objects in their shards, cluster-scoped ones in the cluster part, and derives index buckets and directories", () => {
    const snapshot = build([ingress("a", "web", "a.example", "b.example"), ingress("b", "web", "a.example"), { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "fast" }, provisioner: "x" }]);
    const parts = splitSnapshot(snapshot);
    expect(parts.cluster.inventory).toEqual({
      "networking.k8s.io/v1/Ingress": { namespaced: true, fields: ["spec.rules[*].host"], index: ["spec.rules[*].host"], objects: {} },
      "storage.k8s.io/v1/StorageClass": { namespaced: false, fields: [], index: [], objects: { fast: { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "fast" } } } },
    });
    expect(parts.shards.get("b")!.inventory).toEqual({
      "networking.k8s.io/v1/Ingress": { namespaced: true, objects: { "b/web": { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "web", namespace: "b" }, spec: { rules: [{ host: "a.example" }] } } } },
    });
    expect(parts.inventory.get("inventory-kind/networking.k8s.io/v1/Ingress")).toEqual({ namespaces: { a: 1, b: 1 } });
    const buckets = [...parts.inventory].filter(([name]) => name.startsWith("inventory-index/"));
    // References, not copies: each value names the objects having it by key.
    const values = buckets.map(([, content]) => (content as { index: Record<string, Record<string, string[]>> }).index[KIND]![FIELD]!);
    expect(values.sort()).toEqual([
      ["sa.example", "a/web\nb/web"],
      ["sb.example", "a/web"],
    ]);
    for (const [name, content] of parts.inventory) expect(decodeUnit(name, content).ok, name).toBe(true);
    expect(joinSnapshot(parts, snapshot)).toEqual(snapshot);
  });

  it("a change to one Ingress's host among many rewrites its shard, the buckets of its old and new host, and nothing else", async () => {
    const many = Array.from({ length: 2_000 }, (_, i) => ingress(`team-${i % 40}`, `app-${i}`, `app-${i}.example`));
    const before = await encodeSnapshot(build(many));
    const after = await encodeSnapshot(build(many.map((one, i) => (i === 7 ? ingress("team-7", "app-7", "renamed.example") : one))));
    const changed = after.units.filter((unit) => before.units.find((old) => old.name === unit.name)?.sha256 !== unit.sha256);
    const gone = before.units.filter((unit) => !after.units.some((now) => now.name === unit.name));
    const moved = [...names(changed), ...names(gone)];
    expect(moved.filter((name) => !name.startsWith("inventory-index/"))).toEqual(["team-7"]);
    expect(moved.filter((name) => name.startsWith("inventory-index/")).length).toBeGreaterThanOrEqual(1);
    expect(moved.filter((name) => name.startsWith("inventory-index/")).length).toBeLessThanOrEqual(2);
    // The cluster part does not grow with the Ingresses.
    expect(before.units.find((unit) => unit.name === CLUSTER_UNIT)!.bytes.length).toBe((await encodeSnapshot(build(many.slice(0, 10)))).units.find((unit) => unit.name === CLUSTER_UNIT)!.bytes.length);
  });

  it("refuses a bucket entry that belongs to another bucket, and a bucket name that is no bucket", () => {
    const parts = splitSnapshot(build([ingress("a", "web", "a.example")]));
    const [name, content] = [...parts.inventory].find(([unit]) => unit.startsWith("inventory-index/"))!;
    const other = `inventory-index/${(Number(name.slice("inventory-index/".length)) + 1) % 1024}`;
    expect(decodeUnit(other, content)).toEqual({ ok: false, error: "networking.k8s.io/v1/Ingress spec.rules[*].host: a value that is not in this bucket" });
    expect(decodeUnit("inventory-index/01", { index: {} })).toEqual({ ok: false, error: "an index bucket is a number from 0 to 1023" });
    const pairs = (content as { index: Record<string, Record<string, string[]>> }).index[KIND]![FIELD]!;
    expect(decodeUnit(name, { index: { [KIND]: { [FIELD]: [...pairs, pairs[0]!] } } })).toEqual({ ok: false, error: `${KIND} ${FIELD}: a list of value and keys pairs has an even length` });
    expect(decodeUnit(name, { index: { [KIND]: { [FIELD]: [...pairs, ...pairs] } } })).toEqual({ ok: false, error: `${KIND} ${FIELD}: values in code-unit order, each once` });
    expect(decodeUnit("inventory-index/10000", { index: {} })).toEqual({ ok: false, error: 'unit name must be "inventory-index/" and a bucket number from 0 to 1023' });
    expect(decodeUnit(`inventory-kind/${"x".repeat(401)}`, { namespaces: {} })).toEqual({
      ok: false,
      error: 'unit name must be "inventory-kind/" and <group>/<version>/<Kind> or <version>/<Kind>, as Kubernetes names them',
    });
    expect(decodeUnit("inventory-kind/networking.k8s.io/v1/Ingress", { namespaces: {} })).toMatchObject({ ok: true });
    expect(describeUnit("inventory-kind/v1/Service")).toBe("the namespaces of inventory kind v1/Service");
  });

  describe("the values of objects left out for breaking a limit (issue 33)", () => {
    // 65 hosts in one bucket: left out (INVENTORY_LIMITS.valuesInOneBucket); another tenant's Ingress is kept.
    const crowded = collidingHosts(65);
    const snapshot = build([ingress("tenant-a", "crowded", ...crowded), ingress("shop", "web", "www.shop.example")]);
    const bucketOf = (host: string) => `inventory-index/${indexBucketOf(KIND, FIELD, `s${host}`)}`;

    it("travel in their index buckets, values without keys, and the cluster part says so", () => {
      const parts = splitSnapshot(snapshot);
      expect(parts.cluster.inventory[KIND]!.leftOut).toEqual({ total: 1, objects: { "tenant-a/crowded": "65 of its indexed values fall in one index bucket (at most 64)" }, indexed: true });
      expect(parts.inventory.get(bucketOf(crowded[0]!))).toEqual({ index: {}, leftOut: { [KIND]: { [FIELD]: crowded.map((host) => `s${host}`).sort() } } });
      for (const [name, content] of [...parts.inventory, [CLUSTER_UNIT, parts.cluster] as const]) expect(decodeUnit(name, content).ok, name).toBe(true);
      expect(joinSnapshot(parts, snapshot)).toEqual(snapshot);
      const view = new SnapshotView(snapshot);
      expect(view.inventoryLeftOut(KIND, FIELD, `s${crowded[7]}`)).toBe(true);
      expect(view.inventoryLeftOut(KIND, FIELD, "swww.shop.example")).toBe(false);
      expect(view.inventoryLookup(KIND, FIELD, "swww.shop.example")).toEqual(["shop/web"]);
    });

    it("to a function that does not read them (0.1.0), the units are exactly those of a snapshot without them", async () => {
      const { values: _values, ...named } = snapshot.inventory[KIND]!.leftOut!;
      const before = { ...snapshot, inventory: { ...snapshot.inventory, [KIND]: { ...snapshot.inventory[KIND]!, leftOut: named } } };
      const old = await encodeSnapshot(snapshot, writableTo(parseRelease("0.1.0")!));
      expect(old).toEqual(await encodeSnapshot(before));
      expect(old.units.find((unit) => unit.name === bucketOf(crowded[0]!))).toBeUndefined();
      expect(new TextDecoder().decode(old.units.find((unit) => unit.name === CLUSTER_UNIT)!.bytes)).toContain('"leftOut":{"total":1,"objects":{"tenant-a/crowded":"65 of its indexed values fall in one index bucket (at most 64)"}}');
      expect(await encodeSnapshot(snapshot, writableTo(parseRelease("0.2.0")!))).toEqual(await encodeSnapshot(snapshot));
    });

    it("refuses a left-out value out of order or of another bucket, and the values in the cluster part", () => {
      const parts = splitSnapshot(snapshot);
      const name = bucketOf(crowded[0]!);
      const values = crowded.map((host) => `s${host}`).sort();
      expect(decodeUnit(name, { index: {}, leftOut: { [KIND]: { [FIELD]: [...values].reverse() } } })).toEqual({ ok: false, error: `leftOut ${KIND} ${FIELD}: values in code-unit order, each once` });
      expect(decodeUnit(name, { index: {}, leftOut: { [KIND]: { [FIELD]: ["swww.shop.example"] } } }).ok).toBe(bucketOf("www.shop.example") === name);
      const part = parts.cluster;
      const withValues = { ...part, inventory: { ...part.inventory, [KIND]: { ...part.inventory[KIND]!, leftOut: { ...part.inventory[KIND]!.leftOut!, values: { [FIELD]: values } } } } };
      expect(decodeUnit(CLUSTER_UNIT, withValues)).toEqual({ ok: false, error: `inventory ${KIND}: leftOut.values travel in their index buckets, not in the cluster part` });
    });
  });

  describe("the kinds a cluster's owner lets fleet policies read (issue 33)", () => {
    const objectsFromYaml = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject);
    const settings = `apiVersion: v1
kind: ConfigMap
metadata: {name: edgeadmit-settings, namespace: edgeadmit-system}
data: {fleetInventory: "networking.k8s.io/v1/Ingress, v1/Service\\n v1/Service", maxAgeSeconds: "600"}`;
    const { snapshot, problems } = buildSnapshot(objectsFromYaml(settings), { generation: 1, builtAt: "2026-01-01T00:00:00Z", settingsNamespace: "edgeadmit-system" });

    it("are read from the settings ConfigMap, each once, and travel in the cluster part", () => {
      expect(problems).toEqual([]);
      expect(snapshot.settings).toEqual({ policies: {}, maxAgeSeconds: 600, onStale: "Warn", fleetInventory: ["networking.k8s.io/v1/Ingress", "v1/Service"] });
      expect(splitSnapshot(snapshot).cluster.settings.fleetInventory).toEqual(["networking.k8s.io/v1/Ingress", "v1/Service"]);
    });

    it("to a function that does not read them (0.1.0), the units are exactly those of settings without them", async () => {
      const { fleetInventory: _kinds, ...without } = snapshot.settings;
      expect(await encodeSnapshot(snapshot, writableTo(parseRelease("0.1.0")!))).toEqual(await encodeSnapshot({ ...snapshot, settings: without }));
    });

    it("a kind that is not <apiVersion>/<kind> is skipped and said", () => {
      const bad = settings.replace(/fleetInventory: "[^"]*"/, 'fleetInventory: "Service, v1/Service"');
      expect(buildSnapshot(objectsFromYaml(bad), { generation: 1, builtAt: "2026-01-01T00:00:00Z", settingsNamespace: "edgeadmit-system" }).problems).toEqual([
        'ConfigMap edgeadmit-settings data.fleetInventory: "Service" is not <apiVersion>/<kind>, e.g. networking.k8s.io/v1/Ingress or v1/Service',
      ]);
    });
  });

  it("a view made to discover names the units it was not given and answers as if they were empty", () => {
    const snapshot = build([ingress("a", "web", "a.example")]);
    const whole = new SnapshotView(snapshot);
    const missing = new Set<string>();
    const discovering = new SnapshotView(whole.facts, new Map(), { missing });
    expect(discovering.inventoryLookup("networking.k8s.io/v1/Ingress", "spec.rules[*].host", "sa.example")).toEqual([]);
    expect(discovering.inventoryInNamespace("networking.k8s.io/v1/Ingress", "a")).toEqual({});
    expect(discovering.inventoryNamespaces("networking.k8s.io/v1/Ingress")).toEqual({});
    expect([...missing].map(describeUnit)).toEqual([expect.stringMatching(/^bucket \d+ of the inventory's indexes$/), "the shard of namespace a", "the namespaces of inventory kind networking.k8s.io/v1/Ingress"]);
    expect(whole.inventoryLookup("networking.k8s.io/v1/Ingress", "spec.rules[*].host", "sa.example")).toHaveLength(1);
    expect(() => new SnapshotView(whole.facts, new Map()).inventoryInNamespace("networking.k8s.io/v1/Ingress", "a")).toThrow(UnloadedUnitError);
  });
});
