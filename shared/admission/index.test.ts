import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import { near } from "../../test/support/zod.js";
import { describeZodError } from "../zod/index.js";
import { isPlainObject } from "../zod/unchanged.js";
import { admissionRequestSchema, admissionReviewSchema, decodeAdmissionReview, encodeAdmissionResponse, isValidAuditAnnotationKey, toWarning, toWarnings, utf8Length } from "./index.js";
import { wrapReview } from "./wrap.js";

describe("toWarning", () => {
  it("keeps a short printable line as it is", () => {
    expect(toWarning("pod a/b misses zone=dc1")).toBe("pod a/b misses zone=dc1");
  });

  it("folds newlines, tabs and other control characters into single spaces", () => {
    expect(toWarning("a\r\nb\tc\u0000d\u2028e\u0085f")).toBe("a b c d e f");
  });

  it("keeps a warning of up to 256 characters whole, as the apiserver does", () => {
    expect(toWarning("x".repeat(256))).toBe("x".repeat(256));
  });

  it("cuts a longer one to exactly 256 bytes ending in ...", () => {
    expect(toWarning("x".repeat(300))).toBe(`${"x".repeat(253)}...`);
  });

  it("counts bytes and never cuts inside a character", () => {
    const warning = toWarning("é".repeat(200));
    expect(warning).toBe(`${"é".repeat(126)}...`);
    expect(utf8Length(warning)).toBe(255);
    expect(toWarning(`${"x".repeat(251)}😀😀`)).toBe(`${"x".repeat(251)}...`);
  });
});

describe("toWarnings", () => {
  it("keeps every warning while all fit 4,096 bytes", () => {
    const warnings = Array.from({ length: 16 }, (_, i) => `${String(i).padStart(2, "0")}${"w".repeat(254)}`);
    expect(toWarnings(warnings)).toEqual(warnings);
  });

  it("counts the warnings past 4,096 bytes in a last line instead of letting the apiserver drop them unsaid", () => {
    const warnings = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, "0")}${"w".repeat(254)}`);
    const kept = toWarnings(warnings);
    expect(kept).toEqual([...warnings.slice(0, 15), "edgeadmit: 5 more warnings omitted"]);
    expect(kept.reduce((total, w) => total + utf8Length(w), 0)).toBeLessThanOrEqual(4096);
  });
});

describe("isValidAuditAnnotationKey", () => {
  it.each([
    ["affinity-class", true],
    ["rwo-rollout", true],
    ["a", true],
    ["a.b_c-d", true],
    ["edgeadmit/affinity-class", false],
    ["-leading", false],
    ["trailing-", false],
    ["", false],
    ["x".repeat(63), true],
    ["x".repeat(64), false],
  ])("%s → %s", (key, valid) => {
    expect(isValidAuditAnnotationKey(key)).toBe(valid);
  });
});

describe("decode and encode", () => {
  it("round-trips a review into a response that mirrors apiVersion and uid and drops invalid annotation keys", () => {
    const review = wrapReview({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } }, { apiVersion: "admission.k8s.io/v1beta1", uid: "u-1" });
    const decoded = decodeAdmissionReview(JSON.stringify(review));
    if (!decoded.ok) throw new Error(decoded.error);
    const encoded = encodeAdmissionResponse(decoded.review, {
      allowed: true,
      warnings: ["one\nline"],
      auditAnnotations: { "affinity-class": "audited", "bad/key": "dropped" },
    });
    expect(encoded).toEqual({
      apiVersion: "admission.k8s.io/v1beta1",
      kind: "AdmissionReview",
      response: { uid: "u-1", allowed: true, warnings: ["one line"], auditAnnotations: { "affinity-class": "audited" } },
    });
  });

  it("names the first problems of a body that is not an AdmissionReview", () => {
    expect(decodeAdmissionReview('{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview"}')).toEqual({
      ok: false,
      error:
        'body is not an AdmissionReview: apiVersion: Invalid option: expected one of "admission.k8s.io/v1"|"admission.k8s.io/v1beta1"; request: Invalid input: expected object, received undefined',
    });
  });
});

describe("decodeAdmissionReview", () => {
  const asZod = (text: string) => {
    const parsed = admissionReviewSchema.safeParse(JSON.parse(text));
    return parsed.success ? { ok: true, review: parsed.data } : { ok: false, error: `body is not an AdmissionReview: ${describeZodError(parsed.error)}` };
  };
  let zodCalls: MockInstance<typeof admissionReviewSchema.safeParse>;
  beforeAll(() => {
    zodCalls = vi.spyOn(admissionReviewSchema, "safeParse");
  });
  afterAll(() => zodCalls.mockRestore());

  /** Decodes `text`, expects zod's own result (its keys in zod's order: the request is a CEL variable, and they show), and says whether zod was asked. */
  function decodeAsZod(text: string): { ok: boolean; byZod: boolean } {
    const before = zodCalls.mock.calls.length;
    const decoded = decodeAdmissionReview(text);
    const byZod = zodCalls.mock.calls.length > before;
    const expected = asZod(text);
    expect(decoded).toStrictEqual(expected);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(expected));
    return { ok: expected.ok, byZod };
  }

  /** The one kind of valid review the reader leaves to zod (readRequest): a __proto__ key in userInfo. */
  const protoInUserInfo = (text: string) => {
    const userInfo = (JSON.parse(text) as { request?: { userInfo?: unknown } } | null)?.request?.userInfo;
    return isPlainObject(userInfo) && Object.hasOwn(userInfo, "__proto__");
  };

  it("reads what zod reads, field for field and in zod's order, and words every error as zod does", () => {
    fc.assert(
      fc.property(near(admissionReviewSchema), (value) => {
        if (value === undefined) return;
        const text = JSON.stringify(value);
        const { ok, byZod } = decodeAsZod(text);
        if (ok) expect(byZod).toBe(protoInUserInfo(text));
      }),
      { numRuns: 4000 },
    );
  });

  it("reads every valid review by hand, without zod, but one with a __proto__ key in userInfo", () => {
    // Valid by construction, in every shape the schema takes: optional fields there or not, unknown keys before or after the known ones.
    const text = fc.string({ maxLength: 4 });
    const unknownKeys = fc.dictionary(fc.constantFrom("extra", "requestKind", "options", "__proto__"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
    const withUnknownKeys = (known: fc.Arbitrary<Record<string, unknown>>) =>
      fc.tuple(known, unknownKeys, fc.boolean()).map(([fields, others, knownFirst]) => (knownFirst ? { ...fields, ...others } : { ...others, ...fields }));
    const request = fc.record(
      {
        uid: fc.string({ minLength: 1, maxLength: 4 }),
        kind: fc.record({ group: text, version: text, kind: text }),
        resource: fc.record({ group: text, version: text, resource: text }),
        subResource: text,
        name: text,
        namespace: text,
        operation: fc.constantFrom(...admissionRequestSchema.shape.operation.options),
        userInfo: withUnknownKeys(fc.record({ username: text, uid: text, groups: fc.array(text, { maxLength: 2 }) }, { requiredKeys: [] })),
        object: fc.jsonValue({ maxDepth: 2 }),
        oldObject: fc.jsonValue({ maxDepth: 2 }),
        dryRun: fc.boolean(),
      },
      { requiredKeys: ["uid", "kind", "operation"] },
    );
    const review = withUnknownKeys(fc.record({ apiVersion: fc.constantFrom(...admissionReviewSchema.shape.apiVersion.options), kind: fc.constant("AdmissionReview"), request: withUnknownKeys(request) }));
    fc.assert(
      fc.property(review, (value) => {
        const text = JSON.stringify(value);
        expect(decodeAsZod(text)).toEqual({ ok: true, byZod: protoInUserInfo(text) });
      }),
      { numRuns: 1000 },
    );
  });

  it("drops the fields the schema does not name, keeps userInfo's, and leaves __proto__ keys to zod", () => {
    const review = wrapReview({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } }, { uid: "u" });
    const text = JSON.stringify({ ...review, request: { ...review.request, userInfo: { uid: "1", username: "alice", groups: ["a"] }, options: { kind: "CreateOptions" } } });
    const decoded = decodeAdmissionReview(text);
    expect(decoded.ok && Object.keys(decoded.review.request)).toEqual(["uid", "kind", "resource", "name", "namespace", "operation", "userInfo", "object", "oldObject", "dryRun"]);
    expect(decoded.ok && decoded.review.request.userInfo).toEqual({ username: "alice", uid: "1", groups: ["a"] });
    const polluted = text.replace('"userInfo":{', '"userInfo":{"__proto__":{"admin":true},');
    expect(decodeAdmissionReview(polluted)).toStrictEqual(asZod(polluted));
  });
});
