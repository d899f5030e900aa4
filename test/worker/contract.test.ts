// The wire contract the kube-apiserver enforces (DESIGN.md), over HTTP in workerd.
import { beforeAll, describe, expect, it } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { bearer, call, objectsFromYaml, push, snapshotOf, validate } from "../support/worker.js";
import { lineage, pod, reviewOf } from "../support/reviews.js";

/** A POST as the demo cluster's apiserver sends it: JSON, with its bearer token. */
const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", body, headers: { "content-type": "application/json", ...bearer("demo"), ...headers } });

const deniedPod = () => reviewOf(pod({ name: "main-db-1" }));

beforeAll(async () => {
  expect((await push("demo", snapshotOf(objectsFromYaml(demoYaml)))).status).toBe(200);
});

describe("responses", () => {
  for (const apiVersion of ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const) {
    it(`mirror ${apiVersion}, echo request.uid and never carry patch or patchType`, async () => {
      const review = reviewOf(pod({ name: "main-db-1" }), { apiVersion });
      const body = await validate("demo", review);
      expect(body.apiVersion).toBe(apiVersion);
      expect(body.kind).toBe("AdmissionReview");
      expect(body.response.uid).toBe(review.request.uid);
      expect(body.response.allowed).toBe(false);
      expect(body.response.status?.code).toBe(403);
      expect(Object.keys(body.response).sort()).toEqual(["allowed", "status", "uid"]);
    });
  }

  it("accept the apiserver's ?timeout= query and answer JSON with 200", async () => {
    const response = await post("/v1/demo/validate?timeout=10s", JSON.stringify(deniedPod()));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("turn warnings into single printable lines, caller strings capped, the fix whole", async () => {
    const warnClass = objectsFromYaml(`
apiVersion: cozystack.io/v1alpha1
kind: AffinityClass
metadata: {name: soft}
spec:
  enforcement: Warn
  nodeSelector: {topology.kubernetes.io/zone: dc1}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: soft-app
  namespace: tenant-soft
  labels:
    apps.cozystack.io/application.group: apps.cozystack.io
    apps.cozystack.io/application.kind: Postgres
    apps.cozystack.io/application.name: soft-app
    apps.cozystack.io/affinity-class: soft
`);
    expect((await push("other", snapshotOf(warnClass))).status).toBe(200);
    const labels = lineage("Postgres", "soft-app");
    const { response } = await validate("other", reviewOf(pod({ generateName: "soft\r\napp-\u0007x".padEnd(300, "y"), namespace: "tenant-soft", labels })));
    expect(response.allowed).toBe(true);
    expect(response.warnings).toHaveLength(1);
    const [warning] = response.warnings!;
    // The caller's name is capped and its control characters replaced; what is wrong and the fix stay whole.
    expect(warning).toBe(
      `affinity-class: pod tenant-soft/soft??app-?x${"y".repeat(50)}…* (generateName) belongs to application with AffinityClass "soft" but missing required nodeSelector topology.kubernetes.io/zone=dc1`,
    );
  });
});

describe("bad input", () => {
  it("answers 400 naming the problem for a body that is not JSON", async () => {
    const response = await post("/v1/demo/validate", "{not json");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/^body is not JSON: /) });
  });

  it("answers 400 for JSON that is not an AdmissionReview", async () => {
    const response = await post("/v1/demo/validate", JSON.stringify({ apiVersion: "v1", kind: "Pod" }));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: string };
    expect(error).toMatch(/^body is not an AdmissionReview: apiVersion: /);
  });

  it("answers 400 naming request.uid when it is missing", async () => {
    const review = deniedPod() as { request: Record<string, unknown> };
    delete review.request.uid;
    const response = await post("/v1/demo/validate", JSON.stringify(review));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "body is not an AdmissionReview: request.uid: Invalid input: expected string, received undefined" });
  });

  it("answers 400 when request.object is not the shape of its kind", async () => {
    const review = reviewOf({ ...pod({ name: "x" }), spec: { nodeSelector: { zone: 7 } } });
    const response = await post("/v1/demo/validate", JSON.stringify(review));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "request.object is not a valid Pod: spec.nodeSelector.zone: Invalid input: expected string, received number" });
  });

  it("answers 413 for a body over 3 MiB, by Content-Length and by streamed size", async () => {
    const big = JSON.stringify({ ...deniedPod(), padding: "x".repeat(3 * 1024 * 1024) });
    const declared = await post("/v1/demo/validate", big);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: "AdmissionReview body is larger than the limit of 3145728 bytes" });

    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 65536) controller.enqueue(bytes.slice(i, i + 65536));
        controller.close();
      },
    });
    const streamed = await post("/v1/demo/validate", stream, { "transfer-encoding": "chunked" });
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({ error: "AdmissionReview body is larger than the limit of 3145728 bytes" });
  });

  it("answers 404 for an unknown policy, to the cluster's apiserver", async () => {
    const policy = await post("/v1/demo/validate/nope", JSON.stringify(deniedPod()));
    expect(policy.status).toBe(404);
    expect(((await policy.json()) as { error: string }).error).toMatch(/^unknown policy "nope": neither a built-in policy \(affinity-class, .*\) nor a ValidatingAdmissionPolicy bound at the edge in the cluster's snapshot$/);
    // Not a policy name at all (no ValidatingAdmissionPolicy can be called this): refused before the body is read.
    const odd = await post("/v1/demo/validate/No_Such", "not even JSON");
    expect(odd.status).toBe(404);
  });

  it("answers 404 in JSON for routes that do not exist", async () => {
    const response = await call("/v1/demo/validate", { method: "GET" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "no route for GET /v1/demo/validate" });
  });
});

describe("a cluster without a snapshot", () => {
  it("fails open with a warning by default", async () => {
    const { response } = await validate("fresh", deniedPod());
    expect(response).toEqual({
      uid: expect.any(String),
      allowed: true,
      warnings: ['edgeadmit: no snapshot has been pushed for cluster "fresh" yet; policies not enforced'],
    });
  });

  it("denies with a clear message when configured fail-closed", async () => {
    const { response } = await validate("sealed", deniedPod());
    expect(response.allowed).toBe(false);
    expect(response.status).toEqual({
      code: 403,
      reason: "Forbidden",
      message: 'edgeadmit: no snapshot has been pushed for cluster "sealed" yet; the cluster is configured fail-closed, run the sync job',
    });
  });

  it("still allows requests no policy looks at, even fail-closed", async () => {
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    expect((await validate("sealed", reviewOf(configMap))).response).toEqual({ uid: expect.any(String), allowed: true });
  });
});

describe("health", () => {
  it("answers /healthz", async () => {
    const response = await call("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });
});
