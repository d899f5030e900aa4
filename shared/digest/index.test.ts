import { describe, expect, it } from "vitest";
import { fromHex, sha256Hex, sha256HexSync, timingSafeEqual, toHex } from "./index.js";

describe("digest", () => {
  it("hashes text as its UTF-8 and bytes as they are", async () => {
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(await sha256Hex(new TextEncoder().encode("gpu😀"))).toBe(await sha256Hex("gpu😀"));
  });

  it("hashes synchronously what WebCrypto hashes, across block boundaries", async () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]) {
      const text = "aé😀".repeat(length).slice(0, length);
      expect(sha256HexSync(text), `length ${length}`).toBe(await sha256Hex(text));
    }
  });

  it("round-trips hex and refuses what is not lowercase hex pairs", () => {
    expect(toHex(fromHex("00ff10")!)).toBe("00ff10");
    expect(fromHex("0")).toBeUndefined();
    expect(fromHex("GG")).toBeUndefined();
    expect(fromHex("FF")).toBeUndefined();
  });

  it("compares equal bytes as equal and any difference, in content or length, as different", () => {
    expect(timingSafeEqual(fromHex("0102")!, fromHex("0102")!)).toBe(true);
    expect(timingSafeEqual(fromHex("0102")!, fromHex("0103")!)).toBe(false);
    expect(timingSafeEqual(fromHex("0102")!, fromHex("010200")!)).toBe(false);
    expect(timingSafeEqual(fromHex("010200")!, fromHex("0102")!)).toBe(false);
    expect(timingSafeEqual(new Uint8Array(), new Uint8Array())).toBe(true);
  });
});
