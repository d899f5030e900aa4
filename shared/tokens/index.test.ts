import { describe, expect, it } from "vitest";
import { generateToken, tokenHash, TOKEN_HASH_PATTERN, TOKEN_PATTERN } from "./index.js";

describe("tokens", () => {
  it("are 256 random bits, safe in a header and in a URL path", () => {
    const [a, b] = [generateToken(), generateToken()];
    expect(a).toMatch(/^edgeadmit_[A-Za-z0-9_-]{43}$/);
    expect(a).toMatch(TOKEN_PATTERN);
    expect(a).not.toBe(b);
  });

  it("are registered by their SHA-256 only", async () => {
    // sha256 of the token's UTF-8, as `printf %s edgeadmit_test | sha256sum` gives it
    expect(await tokenHash("edgeadmit_test")).toBe("sha256:d3f1389084b2bf59adfbbdf627915d734fddbfc46937a9afe530200122e50046");
    expect(await tokenHash(generateToken())).toMatch(TOKEN_HASH_PATTERN);
  });
});
