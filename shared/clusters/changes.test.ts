import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../signing/index.js";
import { tokenHash } from "../tokens/index.js";
import { changeRequestSchema, emptyRotation, MAX_CHANGES, rotated, type RotateChange } from "./changes.js";
import { MAX_CREDENTIALS, type NormalRegistration } from "./index.js";

const [a, b] = [(await generateKeyPair()).publicKey, (await generateKeyPair()).publicKey];
const [ta, tb] = [await tokenHash("edgeadmit_aaaaaaaaaaaaaaaaaaaa"), await tokenHash("edgeadmit_bbbbbbbbbbbbbbbbbbbb")];
const current: NormalRegistration = { publicKey: [a], tokenHashes: [ta], withoutSnapshot: "FailOpen", maxAgeSeconds: 86_400 };
const rotate = (fields: Partial<RotateChange>): RotateChange => ({ op: "rotate", cluster: "prod-eu", ...fields });

describe("rotated", () => {
  it("adds and removes keys and token hashes in one step, keeping the order: the old first, then the new", () => {
    expect(rotated(current, rotate({ addPublicKeys: [b], addTokenHashes: [tb] }))).toEqual({ publicKey: [a, b], tokenHashes: [ta, tb], withoutSnapshot: "FailOpen", maxAgeSeconds: 86_400 });
    expect(rotated({ ...current, publicKey: [a, b], tokenHashes: [ta, tb] }, rotate({ removePublicKeys: [a], removeTokenHashes: [ta] }))).toEqual({ publicKey: [b], tokenHashes: [tb], withoutSnapshot: "FailOpen", maxAgeSeconds: 86_400 });
    expect(rotated(current, rotate({ addPublicKeys: [b], removePublicKeys: [a], withoutSnapshot: "FailClosed", maxAgeSeconds: 86_400 }))).toEqual({ publicKey: [b], tokenHashes: [ta], withoutSnapshot: "FailClosed", maxAgeSeconds: 86_400 });
  });

  it("lets a registration become anonymous, or stop being so, only with a credential left", () => {
    expect(rotated(current, rotate({ anonymous: true, removeTokenHashes: [ta] }))).toEqual({ publicKey: [a], tokenHashes: [], anonymous: true, withoutSnapshot: "FailOpen", maxAgeSeconds: 86_400 });
    expect(rotated({ ...current, tokenHashes: [], anonymous: true }, rotate({ anonymous: false }))).toBe(
      "cluster prod-eu would be left with no credential: set tokenHashes (edgeadmit token makes one), or anonymous: true for a function nobody else can reach",
    );
  });

  it("says why a rotation does not fit what is registered", () => {
    expect(rotated(current, rotate({ removePublicKeys: [a] }))).toBe("cluster prod-eu would have no signing key left: add the new one in the same rotate");
    expect(rotated(current, rotate({ removePublicKeys: [b] }))).toBe(`cluster prod-eu has no signing key ${b}`);
    expect(rotated(current, rotate({ addPublicKeys: [a] }))).toBe(`cluster prod-eu already has signing key ${a}`);
    expect(rotated(current, rotate({ addTokenHashes: [tb, tb] }))).toBe(`cluster prod-eu already has token hash ${tb}`);
    const many = Array.from({ length: MAX_CREDENTIALS }, (_, i) => `sha256:${String(i).padStart(64, "0")}`);
    expect(rotated(current, rotate({ addTokenHashes: many }))).toBe(`cluster prod-eu would have ${MAX_CREDENTIALS + 1} token hashes, more than ${MAX_CREDENTIALS}: remove one first`);
  });
});

describe("a change request", () => {
  const requestId = crypto.randomUUID();
  it("names a rotate that changes nothing", () => {
    expect(emptyRotation(rotate({}))).toBe("a rotate must add or remove a key or token hash, or set withoutSnapshot, anonymous or maxAgeSeconds");
    expect(emptyRotation(rotate({ anonymous: false }))).toBeUndefined();
  });

  it("carries a request id and 1 to MAX_CHANGES changes of known fields", () => {
    const add = { op: "add", cluster: "prod-eu", registration: { publicKey: a, tokenHashes: [ta] } };
    expect(changeRequestSchema.safeParse({ requestId, changes: [add] }).success).toBe(true);
    for (const request of [
      { changes: [add] },
      { requestId: "short", changes: [add] },
      { requestId, changes: [] },
      { requestId, changes: Array.from({ length: MAX_CHANGES + 1 }, () => add) },
      { requestId, changes: [{ ...add, op: "replace" }] },
      { requestId, changes: [{ ...add, extra: true }] },
      { requestId, changes: [{ op: "remove", cluster: "prod-eu", ifRevision: 0 }] },
    ])
      expect(changeRequestSchema.safeParse(request).success, JSON.stringify(request).slice(0, 80)).toBe(false);
  });
});
