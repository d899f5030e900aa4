// AdmissionReviews for tests: the shape the kube-apiserver sends.
import { expect } from "vitest";
import recommendedYaml from "../../examples/profiles/recommended.yaml?raw";
import strictYaml from "../../examples/profiles/strict.yaml?raw";
import { wrapReview } from "../../shared/admission/wrap.js";
import { unjudgedCredentials } from "../../shared/review/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { objectsFromYaml, push, snapshotOf, validate, type ReviewResponse } from "./worker.js";
import type { TestCluster } from "./clusters.js";

let uid = 0;

interface ReviewOptions {
  apiVersion?: "admission.k8s.io/v1" | "admission.k8s.io/v1beta1";
  operation?: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  namespace?: string;
  oldObject?: unknown;
  group?: string;
  version?: string;
}

const GROUPS: Record<string, [group: string, version: string, resource: string]> = {
  Pod: ["", "v1", "pods"],
  Deployment: ["apps", "v1", "deployments"],
  StatefulSet: ["apps", "v1", "statefulsets"],
  DaemonSet: ["apps", "v1", "daemonsets"],
  ReplicaSet: ["apps", "v1", "replicasets"],
  Job: ["batch", "v1", "jobs"],
  CronJob: ["batch", "v1", "cronjobs"],
  AffinityClass: ["cozystack.io", "v1alpha1", "affinityclasses"],
  Tenant: ["apps.cozystack.io", "v1alpha1", "tenants"],
};

export function reviewOf(object: { kind: string; metadata?: { name?: string; namespace?: string } } & Record<string, unknown>, options: ReviewOptions = {}) {
  const [group, version, resource] = GROUPS[object.kind] ?? [options.group ?? "", options.version ?? "v1", `${object.kind.toLowerCase()}s`];
  const operation = options.operation ?? "CREATE";
  return {
    apiVersion: options.apiVersion ?? "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-4000-8000-${String(++uid).padStart(12, "0")}`,
      kind: { group, version, kind: object.kind },
      resource: { group, version, resource },
      name: object.metadata?.name,
      namespace: options.namespace ?? object.metadata?.namespace,
      operation,
      userInfo: { username: "kubernetes-admin" },
      object: operation === "DELETE" ? null : object,
      oldObject: options.oldObject ?? (operation === "DELETE" ? object : null),
      dryRun: false,
    },
  };
}

/** The lineage labels CozyStack's mutating webhook puts on an application's pods. */
export function lineage(kind: string, name: string): Record<string, string> {
  return {
    "apps.cozystack.io/application.group": "apps.cozystack.io",
    "apps.cozystack.io/application.kind": kind,
    "apps.cozystack.io/application.name": name,
  };
}

export const MAIN_DB_LINEAGE = lineage("Postgres", "main-db");

export function pod(spec: { name?: string; generateName?: string; namespace?: string; labels?: Record<string, string>; nodeSelector?: Record<string, string>; affinity?: unknown }) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      ...(spec.name ? { name: spec.name } : {}),
      ...(spec.generateName ? { generateName: spec.generateName } : {}),
      namespace: spec.namespace ?? "tenant-acme",
      labels: spec.labels ?? MAIN_DB_LINEAGE,
    },
    spec: {
      containers: [{ name: "app", image: "registry.example/app:1" }],
      ...(spec.nodeSelector ? { nodeSelector: spec.nodeSelector } : {}),
      ...(spec.affinity ? { affinity: spec.affinity } : {}),
    },
  };
}

// ---------------------------------------------------------------------------
// Judging whole manifests through the worker under a settings profile: the
// real-world conformance files (npm run conformance) and the project's own
// fixtures (test/fixtures) go through the same steps.

export const HYGIENE = ["rwo-rollout", "rwo-shared", "pod-affinity-deadlock", "anti-affinity-drift", "ha-spread"] as const;
type HygienePolicy = (typeof HYGIENE)[number];
type Mode = "Deny" | "Warn" | "Audit";
export type Profile = "default" | "recommended" | "strict";
export type Verdict = "allow" | "warn" | "deny";

/** What each profile means, written out here so the tests fail if a profile file says otherwise. */
const MODES: Record<Profile, Record<HygienePolicy, Mode>> = {
  default: { "rwo-rollout": "Warn", "rwo-shared": "Warn", "pod-affinity-deadlock": "Warn", "anti-affinity-drift": "Warn", "ha-spread": "Audit" },
  recommended: { "rwo-rollout": "Warn", "rwo-shared": "Warn", "pod-affinity-deadlock": "Deny", "anti-affinity-drift": "Warn", "ha-spread": "Audit" },
  strict: { "rwo-rollout": "Deny", "rwo-shared": "Deny", "pod-affinity-deadlock": "Deny", "anti-affinity-drift": "Deny", "ha-spread": "Deny" },
};
const PROFILE_OBJECTS: Record<Profile, KubeObject[]> = { default: [], recommended: objectsFromYaml(recommendedYaml), strict: objectsFromYaml(strictYaml) };

export interface Expected {
  policy: HygienePolicy;
  message: string;
}

/** As `kubectl apply -n <namespace>`: objects that name no namespace get it. */
export function inNamespace(objects: KubeObject[], namespace: string): KubeObject[] {
  return objects.map((object) => {
    const metadata = (object.metadata ?? {}) as Record<string, unknown>;
    return metadata.namespace ? object : { ...object, metadata: { ...metadata, namespace } };
  });
}

const refOf = (object: KubeObject) => `${String(object.kind)}/${String((object.metadata as { name?: string } | undefined)?.name)}`;

/** The response the apiserver must get for an object with these findings under `profile`. */
function expectedResponse(uid: string, findings: readonly Expected[], profile: Profile): ReviewResponse["response"] {
  const ordered = HYGIENE.flatMap((policy) => findings.filter((f) => f.policy === policy));
  const inMode = (mode: Mode) => ordered.filter((f) => MODES[profile][f.policy] === mode);
  const denials = inMode("Deny").map((f) => `${f.policy}: ${f.message}`);
  const warnings = inMode("Warn").map((f) => `${f.policy}: ${f.message}`);
  const audits = inMode("Audit");
  return {
    uid,
    allowed: denials.length === 0,
    ...(denials.length > 0 ? { status: { code: 403, reason: "Forbidden", message: denials.join("; ") } } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(audits.length > 0 ? { auditAnnotations: Object.fromEntries(audits.map((f) => [f.policy, f.message])) } : {}),
  };
}

interface ManifestCase {
  /** The objects applied, in order. */
  objects: KubeObject[];
  namespace: string;
  /** What the cluster's snapshot is built from (the profile's settings are added). */
  cluster: KubeObject[];
  profile: Profile;
  verdict: Verdict;
  /** Findings by `Kind/name`; any other object must raise none. */
  findings?: Record<string, Expected[]>;
}

/**
 * Pushes the case's snapshot to `cluster`, then sends every object through
 * POST /v1/<cluster>/validate and through each hygiene policy's own endpoint,
 * asserting the exact responses and the verdict over all of them.
 */
export async function judgeManifests(cluster: TestCluster, manifest: ManifestCase): Promise<void> {
  const snapshot = snapshotOf([...inNamespace(manifest.cluster, manifest.namespace), ...PROFILE_OBJECTS[manifest.profile]]);
  expect((await push(cluster, snapshot)).status).toBe(200);
  expect(manifest.objects.length).toBeGreaterThan(0);
  const findings = manifest.findings ?? {};
  const judged = new Set<string>();
  let denied = false;
  let warned = false;
  for (const object of manifest.objects) {
    const ref = refOf(object);
    const expected = findings[ref] ?? [];
    if (Object.hasOwn(findings, ref)) judged.add(ref);
    for (const { policy, message } of expected) expect(`${policy}: ${message}`.length, message).toBeLessThanOrEqual(256);
    const review = wrapReview(object, { namespace: manifest.namespace });
    const { response } = await validate(cluster, review);
    // A credential (a Secret in a rendered chart) is never judged at the edge: allowed, with why; its webhook never sends it.
    const unjudged = unjudgedCredentials(review.request);
    if (unjudged) {
      const { decision } = unjudged;
      expect(response, ref).toEqual({ uid: review.request.uid, allowed: true, warnings: decision.warnings, auditAnnotations: decision.auditAnnotations });
      continue;
    }
    expect(response, ref).toEqual(expectedResponse(review.request.uid, expected, manifest.profile));
    denied ||= !response.allowed;
    warned ||= (response.warnings ?? []).length > 0;
    // Each finding comes from the policy named, through its own endpoint.
    for (const policy of HYGIENE) {
      const own = expected.filter((f) => f.policy === policy);
      const { response: alone } = await validate(cluster, review, policy);
      expect(alone, `${ref} via /validate/${policy}`).toEqual(expectedResponse(review.request.uid, own, manifest.profile));
    }
  }
  expect([...judged].sort(), "every object with findings is among the objects").toEqual(Object.keys(findings).sort());
  expect(denied ? "deny" : warned ? "warn" : "allow").toBe(manifest.verdict);
}
