// The units a sync pushes wait in a file: what a push reads back is what was
// encoded, the digests are encodeSnapshot's, and nothing is left behind.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSnapshot } from "../../shared/snapshot/builder/index.js";
import { encodeSnapshot } from "../../shared/snapshot/index.js";
import { UnitFile, unitsInMemory } from "./units.js";

const snapshot = buildSnapshot(
  [
    { apiVersion: "cozystack.io/v1alpha1", kind: "AffinityClass", metadata: { name: "gold" }, spec: { nodeSelector: { pool: "gold" } } },
    ...["a", "b", "c"].map((namespace) => ({ apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", metadata: { name: "db", namespace, labels: { "apps.cozystack.io/affinity-class": "gold" } } })),
  ],
  { generation: 1, builtAt: "2026-01-01T00:00:00.000Z" },
).snapshot;

describe("UnitFile", () => {
  it("gives back each unit's bytes, and the digests encodeSnapshot gives; close() removes its file", async () => {
    const encoded = await encodeSnapshot(snapshot);
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-units-test-"));
    const units = new UnitFile(dir);
    expect(units.inMemoryBecause).toBeUndefined();
    // A listing that started over: what was added before is forgotten.
    units.add(encoded.units[1]!);
    units.clear();
    for (const unit of encoded.units) units.add(unit);
    const sealed = units.sealed();
    expect(readdirSync(dir)).toHaveLength(1);
    expect(sealed.digest).toBe(encoded.digest);
    expect(sealed.buckets).toEqual(encoded.buckets);
    expect(sealed.units.map((unit) => [unit.name, unit.sha256, unit.size])).toEqual(encoded.units.map((unit) => [unit.name, unit.sha256, unit.bytes.length]));
    for (const [index, unit] of sealed.units.entries()) expect(sealed.bytesOf(unit)).toEqual(encoded.units[index]!.bytes);
    const inMemory = unitsInMemory(encoded);
    expect(inMemory.units).toEqual(sealed.units.map(({ name, sha256, size }) => ({ name, sha256, size })));
    expect([inMemory.digest, inMemory.bytesOf(inMemory.units[1]!)]).toEqual([sealed.digest, sealed.bytesOf(sealed.units[1]!)]);
    units.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps the units in memory where the directory cannot be written, and says why", async () => {
    const encoded = await encodeSnapshot(snapshot);
    const file = join(mkdtempSync(join(tmpdir(), "edgeadmit-units-test-")), "not-a-directory");
    writeFileSync(file, "");
    const units = new UnitFile(file);
    expect(units.inMemoryBecause).toBe(`cannot write to ${file} (ENOTDIR)`);
    for (const unit of encoded.units) units.add(unit);
    const sealed = units.sealed();
    expect(sealed.digest).toBe(encoded.digest);
    expect(sealed.bytesOf(sealed.units[2]!)).toEqual(encoded.units[2]!.bytes);
    units.close();
    expect(existsSync(file)).toBe(true);
  });
});
