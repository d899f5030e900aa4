// idBefore: the greatest cluster id before another, so that a listing page
// `?after=` it starts with that id (clusters get): checked against every id
// of a small alphabet, where "no valid id in between" can be enumerated.
import { describe, expect, it } from "vitest";
import { CLUSTER_ID, MAX_CLUSTER_ID_LENGTH } from "../../shared/clusters/index.js";
import { idBefore } from "./registry.js";

const valid = (id: string) => id.length >= 1 && id.length <= MAX_CLUSTER_ID_LENGTH && CLUSTER_ID.test(id);

describe("idBefore", () => {
  it("is the id itself with its last character one less and the greatest tail, else a shorter one", () => {
    expect(idBefore("prod-eu")).toBe(`prod-et${"z".repeat(56)}`);
    expect(idBefore("a")).toBe(`9${"z".repeat(62)}`);
    expect(idBefore("a0")).toBe(`a-${"z".repeat(61)}`);
    expect(idBefore("0")).toBeUndefined();
    expect(idBefore("00")).toBe(`0-${"z".repeat(61)}`);
    // At the longest length a '-' cannot end an id: the prefix itself is the one before.
    const longest = `a${"b".repeat(61)}0`;
    expect(idBefore(longest)).toBe(longest.slice(0, -1));
    // Nothing valid between "a" and a--…-0: every id in between would end in '-'.
    expect(idBefore(`a${"-".repeat(61)}0`)).toBe("a");
  });

  it("leaves no valid id between it and the id, nor after the id in its place (every id of three characters of 0, 9, a, z and -)", () => {
    const alphabet = ["-", "0", "9", "a", "z"];
    const ids: string[] = [];
    const grow = (prefix: string) => {
      if (prefix.length > 0 && valid(prefix)) ids.push(prefix);
      if (prefix.length < 3) for (const c of alphabet) grow(prefix + c);
    };
    grow("");
    ids.sort();
    for (const id of ids) {
      const before = idBefore(id);
      if (before === undefined) {
        expect(id).toBe("0");
        continue;
      }
      expect(valid(before)).toBe(true);
      expect(before < id).toBe(true);
      for (const other of ids) expect(other > before && other < id).toBe(false);
    }
  });
});
