import { describe, expect, it } from "vitest";
import { BoundedCache } from "./index.js";

describe("BoundedCache", () => {
  it("computes a key once while it is kept", () => {
    const cache = new BoundedCache<string>(4, 8);
    let made = 0;
    const make = (key: string) => `${key}:${++made}`;
    expect(cache.get("a", make)).toBe("a:1");
    expect(cache.get("a", make)).toBe("a:1");
    expect(made).toBe(1);
  });

  it("keeps no more than its entries and weight, and no long keys: callers can make it miss, never grow", () => {
    let made = 0;
    const make = (key: string) => ({ key, n: ++made });
    const cache = new BoundedCache<{ key: string; n: number }>(3, 4, 10, (v) => v.key.length * 2);
    cache.get("a", make);
    cache.get("b", make);
    cache.get("c", make);
    cache.get("d", make); // a fourth entry empties it first
    expect(cache.get("a", make).n).toBe(5);
    expect(cache.get("long!", make).n).toBe(6); // longer than 4: never kept
    expect(cache.get("long!", make).n).toBe(7);
    expect(cache.get("dddd", make).n).toBe(8); // weighs 8: with "a" and "d" (2 each) over 10, so it empties first
    expect(cache.get("a", make).n).toBe(9);
  });
});
