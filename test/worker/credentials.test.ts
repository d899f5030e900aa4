// No Secret is ever judged at the edge (issue 33, item 5), over HTTP in
// workerd. Admission requests that carry credentials (a Secret's data and
// stringData, a TokenRequest's status.token, a TokenReview's spec.token:
// shared/admission/credentials.ts) are never sent by the webhook edgeadmit
// renders (infra/webhook/index.test.ts); here, what the function does when
// one arrives anyway, from a webhook rendered before or by hand: allowed
// unjudged, with why, uncounted and unlogged; and a policy, the cluster's or
// the fleet's, that can match only them is never bound.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { wrapReview, type WrappableObject, type WrapOptions } from "../../shared/admission/wrap.js";
import { fleetSetOf } from "../../shared/fleet/index.js";
import { operatorHeaders, type Credentials } from "../support/registry.js";
import { currentFleet, fleetChange, registered } from "../support/fleet.js";
import { dispatch, objectsFromYaml } from "../support/worker.js";
import { corePolicy, LABELLED, ONLY_SECRETS, PEEK } from "../support/credentials.js";

const LABELS = { credentials: "never-judged" };

const binding = (kind: "cluster" | "fleet", name: string, actions: string) => `apiVersion: edgeadmit.io/v1alpha1
kind: EdgeAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${name}, ${kind === "fleet" ? "clusterSelector: {matchLabels: {credentials: never-judged}}, " : ""}validationActions: [${actions}]}`;

const SECRET = { apiVersion: "v1", kind: "Secret", metadata: { name: "db", namespace: "shop" }, type: "Opaque", data: { password: "aHVudGVyMg==" }, stringData: { token: "s3cr3t-value" } };
const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { mode: "fast" } };

const SECRETS_WHY =
  "edgeadmit: allowed unjudged: secrets carry credentials (data and stringData), which edgeadmit never judges; its ValidatingWebhookConfiguration should not send them: render it again with edgeadmit webhook-config";

let cluster: Credentials;

async function post(path: string, review: unknown): Promise<{ status: number; text: string }> {
  const response = await dispatch(path, { method: "POST", body: JSON.stringify(review), headers: { "content-type": "application/json", authorization: `Bearer ${cluster.token}` } });
  return { status: response.status, text: await response.text() };
}

const reviewOf = (object: WrappableObject, options: WrapOptions = {}) => wrapReview(object, { uid: crypto.randomUUID(), ...options });

async function counts(): Promise<Array<{ origin: string; policy: string; outcome: string; count: number }>> {
  const path = "/v1/registry/counts?cluster=cred-own&hours=1";
  const response = await dispatch(path, { headers: await operatorHeaders("GET", path, new Uint8Array()) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { rows: Array<{ origin: string; policy: string; outcome: string; count: number }> }).rows.map(({ origin, policy, outcome, count }) => ({ origin, policy, outcome, count }));
}

beforeAll(async () => {
  cluster = await registered(
    "cred-own",
    LABELS,
    [
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}",
      corePolicy("peek-secrets", "[secrets]", PEEK),
      binding("cluster", "peek-secrets", "Warn"),
      corePolicy("labelled", "[configmaps, secrets]", LABELLED),
      binding("cluster", "labelled", "Warn"),
    ].join("\n---\n"),
  );
  // The fleet's Audit policy that also matches Secrets: accepted, judged without them.
  const applied = await fleetChange({ op: "apply", set: fleetSetOf(objectsFromYaml([corePolicy("fleet-peek", "[configmaps, secrets]", PEEK.replace("!has(object.data) ||", "false &&")), binding("fleet", "fleet-peek", "Audit")].join("\n---\n"))) });
  expect(applied.status).toBe(200);
}, 120_000);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a policy that can match only credentials", () => {
  it("of the cluster's own is not bound, and its push says why (the others are, and the push is stored)", async () => {
    const response = await dispatch("/v1/cred-own/snapshot", { headers: { authorization: `Bearer ${cluster.token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ boundPolicies: 1, policyProblems: [`ValidatingAdmissionPolicy 'peek-secrets': ${ONLY_SECRETS}; not enforced`] });
    // Its own route is that of a policy the cluster does not bind.
    expect((await post("/v1/cred-own/validate/peek-secrets", reviewOf(CONFIGMAP))).status).toBe(404);
  });

  it("of the fleet's is refused at apply with a message naming it, and nothing changes", async () => {
    const before = await currentFleet();
    for (const rules of ["[secrets]", "[secrets, serviceaccounts/token]"]) {
      const set = fleetSetOf(objectsFromYaml([corePolicy("fleet-secrets", rules, PEEK), binding("fleet", "fleet-secrets", "Audit")].join("\n---\n")));
      const refused = await fleetChange({ op: "apply", set });
      const matched = rules.includes("token") ? ONLY_SECRETS.replace("only secrets,", "only secrets, serviceaccounts/token,") : ONLY_SECRETS;
      expect(refused).toEqual({ status: 400, body: { error: `the fleet set cannot be applied: ValidatingAdmissionPolicy 'fleet-secrets': ${matched}; nothing changed` } });
    }
    // Over every group, a rule naming secrets names nothing else.
    const everyGroup = fleetSetOf(objectsFromYaml([corePolicy("fleet-secrets", "[secrets]", PEEK).replace('apiGroups: [""]', 'apiGroups: ["*"]'), binding("fleet", "fleet-secrets", "Audit")].join("\n---\n")));
    expect((await fleetChange({ op: "apply", set: everyGroup })).status).toBe(400);
    expect(await currentFleet()).toEqual(before);
  });
});

describe("a review of a credential that arrives anyway", () => {
  it("is allowed unjudged with a warning and an audit annotation that say why, mirroring apiVersion, kind and uid, and echoing nothing of the object", async () => {
    for (const apiVersion of ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const) {
      for (const operation of ["CREATE", "UPDATE", "DELETE"] as const) {
        const review = reviewOf(SECRET, { apiVersion, operation, ...(operation === "UPDATE" ? { oldObject: SECRET } : {}) });
        const answer = await post("/v1/cred-own/validate", review);
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.text)).toEqual({
          apiVersion,
          kind: "AdmissionReview",
          response: { uid: review.request.uid, allowed: true, warnings: [SECRETS_WHY], auditAnnotations: { "credentials-not-judged": SECRETS_WHY } },
        });
        expect(answer.text).not.toMatch(/aHVudGVy|s3cr3t|password|"db"/);
      }
    }
  });

  it("is answered so on a policy's own route too, and for TokenReviews and serviceaccounts/token", async () => {
    const secret = await post("/v1/cred-own/validate/labelled", reviewOf(SECRET));
    expect(JSON.parse(secret.text).response.warnings).toEqual([SECRETS_WHY]);
    const tokenReview = await post("/v1/cred-own/validate", reviewOf({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "eyJhbGciOi.bearer" } }));
    expect(JSON.parse(tokenReview.text).response).toMatchObject({
      allowed: true,
      warnings: [
        "edgeadmit: allowed unjudged: tokenreviews.authentication.k8s.io carry credentials (spec.token), which edgeadmit never judges; its ValidatingWebhookConfiguration should not send them: render it again with edgeadmit webhook-config",
      ],
    });
    const request = reviewOf({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", metadata: { name: "ci", namespace: "shop" }, spec: { audiences: ["api"] } });
    const tokenRequest = await post("/v1/cred-own/validate", { ...request, request: { ...request.request, resource: { group: "", version: "v1", resource: "serviceaccounts" }, subResource: "token" } });
    expect(JSON.parse(tokenRequest.text).response.warnings).toEqual([
      "edgeadmit: allowed unjudged: serviceaccounts/token carry credentials (status.token), which edgeadmit never judges; its ValidatingWebhookConfiguration should not send them: render it again with edgeadmit webhook-config",
    ]);
  });

  it("is neither counted nor logged, while a ConfigMap the same policies match is judged, counted and logged", async () => {
    const lines = [vi.spyOn(console, "log").mockImplementation(() => {}), vi.spyOn(console, "warn").mockImplementation(() => {})];
    const before = await counts();
    const secrets = [reviewOf(SECRET), reviewOf({ ...SECRET, metadata: { ...SECRET.metadata, labels: { app: "db" } } })];
    for (const review of secrets) expect(JSON.parse((await post("/v1/cred-own/validate", review)).text).response.warnings).toEqual([SECRETS_WHY]);
    expect(await counts()).toEqual(before);
    const logged = () => lines.flatMap((spy) => spy.mock.calls.map((call) => String(call[0])));
    expect(logged()).toEqual([]);

    const configmap = reviewOf(CONFIGMAP);
    expect(JSON.parse((await post("/v1/cred-own/validate", configmap)).text).response).toMatchObject({
      allowed: true,
      warnings: ["Validation failed for ValidatingAdmissionPolicy 'labelled' with binding 'labelled': needs labels"],
      auditAnnotations: { validation_failure: expect.stringContaining("fleet-peek") },
    });
    const rows = (list: Awaited<ReturnType<typeof counts>>) => new Map(list.map((row) => [`${row.origin} ${row.policy} ${row.outcome}`, row.count]));
    const after = rows(await counts());
    const was = rows(before);
    expect(["cluster labelled warn", "fleet fleet-peek audit", "review * warn"].map((key) => (after.get(key) ?? 0) - (was.get(key) ?? 0))).toEqual([1, 1, 1]);
    expect([...after.values()].reduce((a, b) => a + b) - [...was.values()].reduce((a, b) => a + b, 0)).toBe(3);
    expect(logged().map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === "review")).toEqual([
      expect.objectContaining({ event: "review", cluster: "cred-own", uid: configmap.request.uid, kind: "ConfigMap", verdict: "warn" }),
    ]);
  });
});
