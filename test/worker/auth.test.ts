// Who may call: only the cluster's apiserver (its bearer token, in the header
// or in the URL path) and its sync job (requests signed with its key). Without
// that, every route but /healthz and /readyz answers one generic 401, the same
// for an unknown cluster as for a wrong credential.
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { generateToken } from "../../shared/tokens/index.js";
import { bearer, call, dispatch, objectsFromYaml, push, sign, snapshotOf, tokenOf } from "../support/worker.js";
import { pod, reviewOf } from "../support/reviews.js";

const GENERIC = { error: "not authenticated: this route needs the cluster's credential (docs/operations.md, Register a cluster)" };
const deniedPod = () => JSON.stringify(reviewOf(pod({ name: "main-db-1" })));

const post = (path: string, headers: Record<string, string> = {}) =>
  dispatch(path, { method: "POST", body: deniedPod(), headers: { "content-type": "application/json", ...headers } });

async function answer(response: Response) {
  return { status: response.status, body: (await response.json()) as unknown, challenge: response.headers.get("www-authenticate") };
}
const refused = { status: 401, body: GENERIC, challenge: 'Bearer realm="edgeadmit"' };

beforeAll(async () => {
  expect((await push("demo", snapshotOf(objectsFromYaml(demoYaml)))).status).toBe(200);
});

afterEach(() => vi.restoreAllMocks());

describe("without the cluster's credential", () => {
  const wrong = { authorization: `Bearer ${generateToken()}` };
  const routes: Array<[string, () => Promise<Response>]> = [
    ["POST validate without a token", () => post("/v1/demo/validate")],
    ["POST validate with a wrong token", () => post("/v1/demo/validate", wrong)],
    ["POST validate with another cluster's token", () => post("/v1/demo/validate", bearer("other"))],
    ["POST validate with a garbled Authorization header", () => post("/v1/demo/validate", { authorization: "Basic dXNlcjpwYXNz" })],
    ["POST validate/<policy> without a token", () => post("/v1/demo/validate/affinity-class")],
    ["POST validate with a wrong token in the path", () => post(`/v1/demo/token/${generateToken()}/validate`)],
    ["POST validate with a token in the path that is not a token", () => post("/v1/demo/token/x/validate")],
    ["GET snapshot without a credential", () => dispatch("/v1/demo/snapshot")],
    ["GET snapshot with a wrong token", () => dispatch("/v1/demo/snapshot", { headers: wrong })],
    ["GET snapshot signed by another cluster's key", async () => dispatch("/v1/demo/snapshot", { headers: await sign("demo", new Uint8Array(), { method: "GET", signer: "other" }) })],
    ["GET snapshot with a push's signature", async () => dispatch("/v1/demo/snapshot", { headers: await sign("demo", new Uint8Array(), { method: "PUT" }) })],
    ["PUT snapshot unsigned", () => dispatch("/v1/demo/snapshot", { method: "PUT", body: "{}" })],
    ["PUT snapshot signed by another cluster's key", () => push("demo", "{}", { signer: "other" })],
  ];
  it.each(routes)("%s: 401 with the generic message", async (_, send) => {
    expect(await answer(await send())).toEqual(refused);
  });

  it("an unknown cluster gets the very same answer, on every route", async () => {
    for (const send of [
      () => post("/v1/nope/validate", bearer("demo")),
      () => post(`/v1/nope/token/${tokenOf("demo")}/validate`),
      () => dispatch("/v1/nope/snapshot", { headers: bearer("demo") }),
      async () => dispatch("/v1/nope/snapshot", { headers: await sign("nope", new Uint8Array(), { method: "GET", signer: "demo" }) }),
      () => push("nope", "{}", { signer: "demo" }),
    ]) {
      expect(await answer(await send())).toEqual(refused);
    }
  });

  it("leaves /healthz open", async () => {
    expect(await answer(await call("/healthz"))).toEqual({ status: 200, body: { ok: true }, challenge: null });
  });
});

describe("with the cluster's credential", () => {
  it("judges a review sent with the bearer token in the header", async () => {
    const response = await post("/v1/demo/validate?timeout=10s", bearer("demo"));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { response: { allowed: boolean } }).response.allowed).toBe(false);
  });

  it("judges a review sent with the token in the URL path, for managed control planes", async () => {
    for (const path of [`/v1/demo/token/${tokenOf("demo")}/validate?timeout=10s`, `/v1/demo/token/${tokenOf("demo")}/validate/affinity-class`]) {
      const response = await post(path);
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { response: { allowed: boolean } }).response.allowed).toBe(false);
    }
  });

  it("accepts every token listed for the cluster, so a token rotates without a window", async () => {
    for (const token of [tokenOf("rotating"), tokenOf("demo")]) expect((await post("/v1/rotating/validate", { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("serves the snapshot's metadata to the sync job's signed read and to the apiserver's token", async () => {
    const signed = await dispatch("/v1/demo/snapshot", { headers: await sign("demo", new Uint8Array(), { method: "GET" }) });
    expect(signed.status).toBe(200);
    expect(((await signed.json()) as { cluster: string }).cluster).toBe("demo");
    expect((await dispatch("/v1/demo/snapshot", { headers: bearer("demo") })).status).toBe(200);
  });

  it("says plainly, but only to a signer with the right key, that its clock is off", async () => {
    const late = Math.floor(Date.now() / 1000) - 600;
    const response = await dispatch("/v1/demo/snapshot", { headers: await sign("demo", new Uint8Array(), { method: "GET", timestamp: late }) });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: string }).error).toMatch(/^signing time .* is more than 300s from the function's clock .*: check the clock of the node that signed$/);
    const stranger = await dispatch("/v1/demo/snapshot", { headers: await sign("demo", new Uint8Array(), { method: "GET", timestamp: late, signer: "other" }) });
    expect(await answer(stranger)).toEqual(refused);
  });
});

describe("a cluster registered anonymous: true", () => {
  it("admits reviews without a token, but refuses a wrong one", async () => {
    expect((await post("/v1/open/validate")).status).toBe(200);
    expect(await answer(await post("/v1/open/validate", { authorization: `Bearer ${generateToken()}` }))).toEqual(refused);
  });
});

describe("a broken CLUSTERS entry", () => {
  it("disables that cluster only: it is refused like an unknown one, the others keep working", async () => {
    for (const cluster of ["broken", "My_Cluster", "bare"]) {
      expect(await answer(await post(`/v1/${cluster}/validate`, bearer("demo"))), cluster).toEqual(refused);
    }
    expect((await post("/v1/demo/validate", bearer("demo"))).status).toBe(200);
  });

  it("makes /readyz answer 503, without naming clusters to an anonymous caller", async () => {
    expect(await answer(await call("/readyz"))).toEqual({
      status: 503,
      body: { ok: false, error: "CLUSTERS holds unusable registrations, disabled until fixed: see the function's log (wrangler tail) or run edgeadmit clusters check" },
      challenge: null,
    });
  });
});

describe("the log", () => {
  it("has one JSON line per refused authentication, with the reason and never the credential", async () => {
    const lines = vi.spyOn(console, "warn").mockImplementation(() => {});
    const token = generateToken();
    await post("/v1/demo/validate", { authorization: `Bearer ${token}` });
    const logged = lines.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(logged).toEqual([{ level: "warn", event: "auth-refused", cluster: "demo", route: "POST /v1/:cluster/validate/:policy?", reason: "wrong token" }]);
    expect(JSON.stringify(lines.mock.calls)).not.toContain(token);
  });

  it("has one JSON line per denied review, naming cluster, uid, policies, verdict and duration, never the object", async () => {
    const lines = vi.spyOn(console, "log").mockImplementation(() => {});
    const review = reviewOf(pod({ name: "main-db-1" }));
    await dispatch("/v1/demo/validate", { method: "POST", body: JSON.stringify(review), headers: bearer("demo") });
    const logged = lines.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(logged).toEqual([
      { level: "info", event: "review", cluster: "demo", uid: review.request.uid, operation: "CREATE", kind: "Pod", verdict: "deny", policies: ["affinity-class"], durationMs: expect.any(Number) },
    ]);
    expect(JSON.stringify(lines.mock.calls)).not.toContain("main-db-1");
  });

  it("says nothing of an allowed review", async () => {
    const lines = vi.spyOn(console, "log").mockImplementation(() => {});
    const allowed = reviewOf(pod({ name: "main-db-1", nodeSelector: { "topology.kubernetes.io/zone": "dc1" } }));
    await dispatch("/v1/demo/validate", { method: "POST", body: JSON.stringify(allowed), headers: bearer("demo") });
    expect(lines).not.toHaveBeenCalled();
  });
});
