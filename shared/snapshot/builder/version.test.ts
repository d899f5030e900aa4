import { describe, expect, it } from "vitest";
import { decodeSnapshot } from "../index.js";
import { buildSnapshot } from "./index.js";

const options = { generation: 1, builtAt: "2026-01-01T00:00:00Z" };

describe("the snapshot's kubernetesVersion", () => {
  it("is carried when the build is given it, and absent otherwise (the function then uses 1.34)", () => {
    expect(buildSnapshot([], { ...options, kubernetesVersion: "1.33" }).snapshot.kubernetesVersion).toBe("1.33");
    expect("kubernetesVersion" in buildSnapshot([], options).snapshot).toBe(false);
  });

  it("is refused in a pushed snapshot unless it is major.minor", () => {
    const { snapshot } = buildSnapshot([], options);
    expect(decodeSnapshot(JSON.stringify({ ...snapshot, kubernetesVersion: "1.35" }))).toMatchObject({ ok: true });
    for (const version of ["v1.33.2", "1", "1.33+", ""])
      expect(decodeSnapshot(JSON.stringify({ ...snapshot, kubernetesVersion: version }))).toMatchObject({ ok: false, error: expect.stringContaining('kubernetesVersion: must be major.minor, e.g. "1.33"') });
  });
});
