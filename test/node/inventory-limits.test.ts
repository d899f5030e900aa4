// No tenant object grows the snapshot faster than its own size, or stops a
// push (issue 23): the index holds references, and an object over a limit is
// left out of the inventory, named, while the rest is kept.
import { describe, expect, it } from "vitest";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { INVENTORY_LIMITS } from "../../shared/snapshot/builder/policies.js";
import { encodeSnapshot, MAX_PUSH_BYTES } from "../../shared/snapshot/index.js";
import { collidingHosts, collidingLongHosts, HOST_FIELD, ingressWithHosts, spreadHosts, uniqueHostPolicy } from "../support/ingress.js";
import { indexBucketOf } from "../../shared/inventory/index.js";

const build = (objects: KubeObject[]) => buildSnapshot([...uniqueHostPolicy(), ...objects], { generation: 1, builtAt: "2026-11-26T00:00:00.000Z" });
const KIND = "networking.k8s.io/v1/Ingress";

/** The bytes of the index buckets a snapshot's units hold, and of its largest unit. */
async function indexBytes(objects: KubeObject[]) {
  const { units } = await encodeSnapshot(build(objects).snapshot);
  const buckets = units.filter((unit) => unit.name.startsWith("inventory-index/"));
  return { index: buckets.reduce((sum, unit) => sum + unit.bytes.length, 0), largest: Math.max(...units.map((unit) => unit.bytes.length)) };
}

describe("the index holds references", () => {
  it("its bytes per indexed value do not grow with the values of one object (10 against 10,000: ratio at most 1.2)", async () => {
    const few = await indexBytes([ingressWithHosts("tenant-a", "web", spreadHosts(10))]);
    const many = await indexBytes([ingressWithHosts("tenant-a", "web", spreadHosts(10_000))]);
    expect(many.index / 10_000 / (few.index / 10)).toBeLessThanOrEqual(1.2);
    // Before, each value's bucket held the whole projected object: 10,000 × its size.
    expect(many.index).toBeLessThan(10_000 * 100);
  });
});

describe("an object over a limit is left out, named, and the rest is kept", () => {
  it("a 21.6 KB Ingress with 600 hosts in one bucket (12.8 MiB bucket before): left out; the other Ingress and its index stay", async () => {
    const hosts = collidingHosts(600);
    const crafted = ingressWithHosts("tenant-a", "crowded", hosts);
    expect(JSON.stringify(crafted).length).toBeGreaterThan(21_000);
    const built = build([crafted, ingressWithHosts("shop", "web", ["www.shop.example.com"])]);
    expect(built.problems).toEqual([
      `Ingress tenant-a/crowded: left out of the inventory: 600 of its indexed values fall in one index bucket (at most ${INVENTORY_LIMITS.valuesInOneBucket}); the policies reading networking.k8s.io/v1 Ingress (unique-host) meet an evaluation error where it could count, and their failurePolicy decides`,
    ]);
    const inventory = built.snapshot.inventory[KIND]!;
    expect(Object.keys(inventory.objects)).toEqual(["shop/web"]);
    // Its values travel (in their bucket), so that only lookups of them meet an evaluation error.
    expect(inventory.leftOut).toEqual({
      total: 1,
      objects: { "tenant-a/crowded": `600 of its indexed values fall in one index bucket (at most ${INVENTORY_LIMITS.valuesInOneBucket})` },
      values: { [HOST_FIELD]: hosts.map((host) => `s${host}`).sort() },
    });
    const { largest } = await indexBytes([crafted]);
    expect(largest).toBeLessThan(MAX_PUSH_BYTES / 8);
  });

  it("left-out objects whose values in one bucket pass 1 MiB crowd it: the snapshot names the bucket instead of carrying them, and the build says so", async () => {
    // 81 Ingresses of 65 hosts of ~200 characters each, all in one bucket: each is left out (65 > 64), 1.07 MB of values there.
    const hosts = collidingLongHosts(81 * 65, `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.example.h`);
    const aimed = Array.from({ length: 81 }, (_, i) => ingressWithHosts("tenant-a", `aimed-${String(i).padStart(2, "0")}`, hosts.slice(i * 65, i * 65 + 65)));
    const built = build([...aimed, ingressWithHosts("shop", "web", ["www.shop.example.com"])]);
    const bucket = indexBucketOf(KIND, HOST_FIELD, `s${hosts[0]}`);
    expect(built.problems.at(-1)).toBe(
      `networking.k8s.io/v1 Ingress: the values of ${HOST_FIELD} its left-out objects hold pass 1048576 bytes in index bucket ${bucket}: every lookup of a value there meets an evaluation error (unique-host), and their failurePolicy decides`,
    );
    expect(built.snapshot.inventory[KIND]!.leftOut).toMatchObject({ total: 81, values: { [HOST_FIELD]: [] }, crowded: { [HOST_FIELD]: [bucket] } });
    const { largest } = await indexBytes([...aimed]);
    expect(largest).toBeLessThan(MAX_PUSH_BYTES / 8);
  });

  it("a flood of small objects in one bucket, from one namespace: its own are left out, not another tenant's larger one (issue 33)", () => {
    // 24,000 one-host Ingresses with short names in tenant-a (about 48 bytes there each, 1.1 MB together), in the bucket of tenant-b's host, whose entry (77 bytes) is the largest there.
    const [victimHost, ...aimed] = collidingLongHosts(24_001, "aaaaaaaaaaaaaaaaaaaa.");
    const victim = ingressWithHosts("tenant-b", "a-rather-long-name-for-an-ingress-of-tenant-b", [victimHost!]);
    const built = build([victim, ...aimed.map((host, i) => ingressWithHosts("tenant-a", `f${i}`, [host]))]);
    const inventory = built.snapshot.inventory[KIND]!;
    expect(Object.keys(inventory.objects)).toContain("tenant-b/a-rather-long-name-for-an-ingress-of-tenant-b");
    expect(inventory.leftOut!.total).toBeGreaterThan(1_000);
    expect(Object.keys(inventory.leftOut!.objects).every((id) => id.startsWith("tenant-a/"))).toBe(true);
    // Before, the largest entries went first: the victim's.
  });

  it("a 107 KB Ingress with 3,000 hosts is indexed, in references of a few bytes each", async () => {
    const big = ingressWithHosts("tenant-a", "big", spreadHosts(3_000));
    const built = build([big]);
    expect(built.problems).toEqual([]);
    const { index } = await indexBytes([big]);
    expect(index).toBeLessThan(3_000 * 100);
  });

  it("more indexed values than an object may have: left out; a large object whose projection is small is kept", () => {
    const values = INVENTORY_LIMITS.indexedValues + 1;
    const built = build([
      ingressWithHosts("tenant-a", "many", spreadHosts(values)),
      { ...ingressWithHosts("tenant-a", "fat", ["fat.example.com"]), spec: { rules: [{ host: "fat.example.com", x: "y".repeat(600 * 1024) }] } },
    ]);
    expect(built.problems.map((problem) => problem.split("; the policies")[0])).toEqual([
      "Ingress tenant-a/many: left out of the inventory: it has 10001 indexed values (at most 10000)",
    ]);
    // The projection keeps only spec.rules[*].host: the padding never counts.
    expect(Object.keys(built.snapshot.inventory[KIND]!.objects)).toEqual(["tenant-a/fat"]);
  });

  it("one namespace's inventory past its share of a shard: the objects after it, in key order, are left out; other namespaces keep theirs", () => {
    // 5,000 hosts of 30 bytes each: about 150 KB of projection per Ingress, 28 of them pass 4 MiB.
    const fat = (namespace: string, i: number) => ingressWithHosts(namespace, `app-${String(i).padStart(2, "0")}`, spreadHosts(5_000, `app-${i}.${namespace}.example.com`));
    const built = build([...Array.from({ length: 30 }, (_, i) => fat("tenant-a", i)), fat("tenant-b", 0)]);
    const left = built.problems.map((problem) => problem.split(": left out of the inventory: ")[0]);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((name) => name!.startsWith("Ingress tenant-a/app-"))).toBe(true);
    expect(built.problems[0]).toMatch(/^Ingress tenant-a\/app-\d\d: left out of the inventory: namespace tenant-a's inventory objects would pass 4194304 bytes of JSON with it \(its shard travels in one push body\); /);
    expect(Object.keys(built.snapshot.inventory[KIND]!.objects)).toContain("tenant-b/app-00");
    expect(Object.keys(built.snapshot.inventory[KIND]!.objects)).toContain("tenant-a/app-00");
  });

  it("an index bucket past its bytes: the namespace with the most bytes in it gives up its objects first, largest first, until it fits", () => {
    // 40,000 Ingresses sharing one host: one value whose references pass 1 MiB.
    const same = Array.from({ length: 40_000 }, (_, i) => ingressWithHosts(`tenant-${i % 100}`, `web-${i}`, ["shared.example.com"]));
    const built = build(same);
    const left = built.snapshot.inventory[KIND]!.leftOut!;
    expect(left.total).toBeGreaterThan(0);
    expect(left.total).toBeLessThan(40_000);
    expect(Object.values(left.objects)[0]).toMatch(/^index bucket \d+ would hold about \d+ bytes \(at most 1048576\), \d+ of them namespace tenant-\d+'s, the most of any namespace there; \d+ of them its entries$/);
    expect(Object.keys(left.objects)).toHaveLength(INVENTORY_LIMITS.named);
    // Named up to the same count in the build's output, the rest in one line.
    expect(built.problems).toHaveLength(INVENTORY_LIMITS.named + 1);
    expect(built.problems.at(-1)).toBe(
      `${left.total - INVENTORY_LIMITS.named} more objects of networking.k8s.io/v1 Ingress left out of the inventory for breaking its limits; the policies reading networking.k8s.io/v1 Ingress (unique-host) meet an evaluation error where it could count, and their failurePolicy decides`,
    );
  });
});
