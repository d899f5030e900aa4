// The AdmissionReview wire contract the kube-apiserver enforces (DESIGN.md).
import * as z from "zod/mini";
import type { util } from "zod/v4/core";
import { decodeJson } from "../zod/index.js";
import { isPlainObject } from "../zod/unchanged.js";
import { utf8Length } from "../text/index.js";

const ADMISSION_API_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;

const groupVersionKindSchema = z.object({
  group: z.string(),
  version: z.string(),
  kind: z.string(),
});

export const admissionRequestSchema = z.object({
  uid: z.string().check(z.minLength(1)),
  kind: groupVersionKindSchema,
  resource: z.optional(z.object({ group: z.string(), version: z.string(), resource: z.string() })),
  subResource: z.optional(z.string()),
  name: z.optional(z.string()),
  namespace: z.optional(z.string()),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]),
  userInfo: z.optional(z.looseObject({ username: z.optional(z.string()) })),
  // The objects are decoded by whichever step needs them, with its own schema.
  object: z.optional(z.unknown()),
  oldObject: z.optional(z.unknown()),
  dryRun: z.optional(z.boolean()),
});
export type AdmissionRequest = z.infer<typeof admissionRequestSchema>;

export const admissionReviewSchema = z.object({
  apiVersion: z.enum(ADMISSION_API_VERSIONS),
  kind: z.literal("AdmissionReview"),
  request: admissionRequestSchema,
});
export type AdmissionReview = z.infer<typeof admissionReviewSchema>;

type DecodeResult = { ok: true; review: AdmissionReview } | { ok: false; error: string };

type JsonObject = Record<string, unknown>;
const optionalString = (value: JsonObject, key: string) => !(key in value) || typeof value[key] === "string";

function readGroupVersion<K extends "kind" | "resource">(value: unknown, last: K): ({ group: string; version: string } & Record<K, string>) | undefined {
  if (!isPlainObject(value)) return undefined;
  const { group, version } = value;
  const named = value[last];
  return typeof group === "string" && typeof version === "string" && typeof named === "string" ? ({ group, version, [last]: named } as { group: string; version: string } & Record<K, string>) : undefined;
}

const OPERATIONS: ReadonlySet<unknown> = new Set(admissionRequestSchema.shape.operation.options);

/**
 * What admissionRequestSchema makes of a request whose every field has its
 * type, read without zod: the same fields in the same order (the request is
 * a CEL variable, and its keys are iterable), the ones the schema does not
 * name left out. Undefined for anything else, which zod reads and words the
 * error for.
 */
function readRequest(value: unknown): AdmissionRequest | undefined {
  if (!isPlainObject(value)) return undefined;
  const { uid, operation, userInfo, dryRun } = value;
  if (typeof uid !== "string" || uid.length === 0 || !OPERATIONS.has(operation)) return undefined;
  const kind = readGroupVersion(value["kind"], "kind");
  const resource = "resource" in value ? readGroupVersion(value["resource"], "resource") : undefined;
  if (kind === undefined || ("resource" in value && resource === undefined)) return undefined;
  if (!optionalString(value, "subResource") || !optionalString(value, "name") || !optionalString(value, "namespace")) return undefined;
  if ("dryRun" in value && typeof dryRun !== "boolean") return undefined;
  let user: JsonObject | undefined;
  if ("userInfo" in value) {
    if (!isPlainObject(userInfo) || !optionalString(userInfo, "username") || Object.hasOwn(userInfo, "__proto__")) return undefined;
    // A loose object: username first, then the rest as sent.
    user = "username" in userInfo ? { username: userInfo["username"] } : {};
    for (const key in userInfo) if (key !== "username") user[key] = userInfo[key];
  }
  const request: JsonObject = { uid, kind };
  if (resource !== undefined) request["resource"] = resource;
  for (const key of ["subResource", "name", "namespace"] as const) if (key in value) request[key] = value[key];
  request["operation"] = operation;
  if (user !== undefined) request["userInfo"] = user;
  if ("object" in value) request["object"] = value["object"];
  if ("oldObject" in value) request["oldObject"] = value["oldObject"];
  if ("dryRun" in value) request["dryRun"] = dryRun;
  return request as AdmissionRequest;
}

const API_VERSIONS: ReadonlySet<unknown> = new Set(ADMISSION_API_VERSIONS);

/** admissionReviewSchema, read by hand when the review is well formed (readRequest), else by zod. */
const admissionReviewReader = {
  safeParse(value: unknown): util.SafeParseResult<AdmissionReview> {
    if (isPlainObject(value) && API_VERSIONS.has(value["apiVersion"]) && value["kind"] === "AdmissionReview") {
      const request = readRequest(value["request"]);
      if (request !== undefined) return { success: true, data: { apiVersion: value["apiVersion"] as AdmissionReview["apiVersion"], kind: "AdmissionReview", request } };
    }
    return admissionReviewSchema.safeParse(value);
  },
};

/** JSON text → AdmissionReview, or a message that names the problem. */
export function decodeAdmissionReview(text: string): DecodeResult {
  const decoded = decodeJson(text, admissionReviewReader, "body", "is not an AdmissionReview");
  return decoded.ok ? { ok: true, review: decoded.value } : decoded;
}

/** What the review (shared/review) decided; the codec turns it into the wire response. */
export interface Decision {
  allowed: boolean;
  /** Present when denied. */
  denial?: { code: number; reason: string; message: string };
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

export interface AdmissionResponseReview {
  apiVersion: AdmissionReview["apiVersion"];
  kind: "AdmissionReview";
  response: {
    uid: string;
    allowed: boolean;
    status?: { code: number; reason: string; message: string };
    warnings?: string[];
    auditAnnotations?: Record<string, string>;
  };
}

/**
 * The apiserver keeps each warning up to 256 characters and drops the
 * warnings that come after 4,096 in all (counted in bytes here, which is
 * never more generous than characters).
 */
const MAX_WARNING_BYTES = 256;
export const MAX_WARNINGS_TOTAL_BYTES = 4096;

export { utf8Length };

/** `text` cut to at most `maxBytes` of UTF-8 at a character boundary, ending in "..." when cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8Length(text) <= maxBytes) return text;
  let bytes = 3;
  let end = 0;
  for (const char of text) {
    const size = char.codePointAt(0)! < 0x80 ? 1 : char.codePointAt(0)! < 0x800 ? 2 : char.codePointAt(0)! < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}...`;
}

/**
 * The apiserver silently drops a warning with a newline or control character,
 * so every warning leaves here as one printable line of at most 256 bytes.
 */
export function toWarning(text: string): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/ {2,}/g, " ").trim();
  return truncateUtf8(line, MAX_WARNING_BYTES);
}

/** Warnings in order while they fit 4,096 bytes in all; the rest are counted in a last line, so none vanishes unsaid. */
export function toWarnings(texts: readonly string[]): string[] {
  const lines = texts.map(toWarning).filter((line) => line.length > 0);
  const kept: string[] = [];
  let total = 0;
  for (const [index, line] of lines.entries()) {
    const size = utf8Length(line);
    const omittedAfter = `edgeadmit: ${lines.length - index - 1} more warnings omitted`;
    const room = index === lines.length - 1 ? 0 : utf8Length(omittedAfter);
    if (total + size + room > MAX_WARNINGS_TOTAL_BYTES) {
      kept.push(`edgeadmit: ${lines.length - index} more warnings omitted`);
      break;
    }
    kept.push(line);
    total += size;
  }
  return kept;
}

const AUDIT_KEY = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** auditAnnotations keys: no `/`, ≤ 63 characters, qualified-name syntax. */
export function isValidAuditAnnotationKey(key: string): boolean {
  return key.length <= 63 && AUDIT_KEY.test(key);
}

/**
 * Mirrors the request's apiVersion and kind and echoes its uid. A validating
 * webhook never sends patch or patchType, so this type has no place for them.
 */
export function encodeAdmissionResponse(review: AdmissionReview, decision: Decision): AdmissionResponseReview {
  const response: AdmissionResponseReview["response"] = { uid: review.request.uid, allowed: decision.allowed };
  if (!decision.allowed && decision.denial) response.status = decision.denial;
  const warnings = toWarnings(decision.warnings);
  if (warnings.length > 0) response.warnings = warnings;
  const annotations = Object.entries(decision.auditAnnotations).filter(([key]) => isValidAuditAnnotationKey(key));
  if (annotations.length > 0) response.auditAnnotations = Object.fromEntries(annotations);
  return { apiVersion: review.apiVersion, kind: "AdmissionReview", response };
}
