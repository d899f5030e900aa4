// The operator's fleet changes and the labelled clusters they select, in the
// workerd tests: signed changes and reads of POST/GET /v1/registry/fleet, and
// a cluster registered with labels whose sync job has pushed.
import { expect } from "vitest";
import { importPrivateKey, signRequest } from "../../shared/signing/index.js";
import { applied, credentials, operatorHeaders, type Credentials } from "./registry.js";
import { dispatch, fullPushBodies, objectsFromYaml, snapshotOf } from "./worker.js";

export const FLEET_PATH = "/v1/registry/fleet";

/** A signed fleet change, ready to send (and to send again). */
export async function signedFleet(change: Record<string, unknown>, options: { key?: string; timestamp?: number } = {}) {
  const body = new TextEncoder().encode(JSON.stringify({ requestId: crypto.randomUUID(), ...change }));
  return { body, headers: { ...(await operatorHeaders("POST", FLEET_PATH, body, options)), "content-type": "application/json" } };
}

export const sendFleet = (request: { body: Uint8Array; headers: Record<string, string> }) => dispatch(FLEET_PATH, { method: "POST", body: request.body, headers: request.headers });

export async function fleetChange(change: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await sendFleet(await signedFleet(change));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The fleet revision in effect, as GET /v1/registry/fleet answers it. */
export async function currentFleet(): Promise<{ revision: number; stages?: Record<string, number>; change?: string }> {
  const response = await dispatch(FLEET_PATH, { headers: await operatorHeaders("GET", FLEET_PATH, new Uint8Array()) });
  expect(response.status).toBe(200);
  return response.json();
}

/** Registers `cluster` with `labels` and pushes a snapshot of `yaml` signed with its key. */
export async function registered(cluster: string, labels: Record<string, string>, yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}", overrides: Parameters<typeof snapshotOf>[1] = {}): Promise<Credentials> {
  const c = await credentials();
  await applied([{ op: "add", cluster, registration: { publicKey: c.publicKey, tokenHashes: [c.tokenHash], labels } }]);
  const key = await importPrivateKey(c.privateKeyPem);
  for (const text of await fullPushBodies(snapshotOf(objectsFromYaml(yaml), overrides))) {
    const bytes = new TextEncoder().encode(text);
    const response = await dispatch(`/v1/${cluster}/snapshot`, { method: "PUT", body: bytes, headers: await signRequest(key, "PUT", cluster, bytes, Math.floor(Date.now() / 1000)) });
    expect(response.status).toBe(200);
  }
  return c;
}
