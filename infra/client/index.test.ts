import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { buildSnapshot } from "../../shared/snapshot/builder/index.js";
import { encodeSnapshot, pushBodies, type Snapshot } from "../../shared/snapshot/index.js";
import { collidingHosts, INGRESS_KIND, ingressWithHosts, uniqueHostPolicy } from "../../test/support/ingress.js";
import { FunctionError, functionState, pushSnapshot, storedSnapshot } from "./index.js";

const { privateKeyPem } = await generateKeyPair();

// An endpoint that is not an edgeadmit function: a proxy's HTML page, someone else's JSON.
let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith("/html/")) {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html>captive portal</html>");
    } else {
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"generation": "7"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the function's answers are checked", () => {
  it("not JSON", async () => {
    await expect(storedSnapshot(`${url}/html`, "c", privateKeyPem)).rejects.toEqual(
      new FunctionError(`${url}/html/v1/c/snapshot answered 200 without JSON: is the endpoint an edgeadmit function?`, 200),
    );
  });

  it("JSON of another shape", async () => {
    await expect(storedSnapshot(url, "c", privateKeyPem)).rejects.toThrow(
      `${url}/v1/c/snapshot answered 200 with unexpected JSON: cluster: Invalid input: expected string, received undefined; generation: Invalid input: expected number, received string`,
    );
  });
});

describe("a push writes only what the function reads (shared/version WRITTEN_FEATURES)", () => {
  // A cluster with an inventory object over a limit: a 0.2.0 job may send its values only to a function that reads them.
  const { snapshot } = buildSnapshot([...uniqueHostPolicy(), ingressWithHosts("tenant-a", "crowded", collidingHosts(65)), ingressWithHosts("shop", "web", ["www.shop.example.com"])], {
    generation: 1_700_000_000_000,
    builtAt: "2026-11-28T00:00:00.000Z",
  });
  /** The same snapshot as a 0.1.0 builder made it: the left-out object named, its values nowhere. */
  const { values: _values, ...named } = snapshot.inventory[INGRESS_KIND]!.leftOut!;
  const asBefore = { ...snapshot, inventory: { ...snapshot.inventory, [INGRESS_KIND]: { ...snapshot.inventory[INGRESS_KIND]!, leftOut: named } } };

  /** A function that answers as `release` does (no header: 0.1.0), holds nothing, and records what is PUT. */
  async function fakeFunction(release: string | undefined) {
    const bodies: string[] = [];
    const fake = createServer((request, response) => {
      const headers = { "content-type": "application/json", ...(release ? { "edgeadmit-release": release } : {}) };
      if (request.method === "GET") {
        response.writeHead(404, headers);
        response.end(JSON.stringify({ error: 'no snapshot has been pushed for cluster "c" yet' }));
        return;
      }
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        bodies.push(Buffer.concat(chunks).toString("utf8"));
        response.writeHead(200, headers);
        response.end(JSON.stringify({ cluster: "c", generation: snapshot.generation, contentHash: "x", builtAt: snapshot.builtAt, pushedAt: snapshot.builtAt, ageSeconds: 0, bytes: 1 }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, bodies, close: () => new Promise<void>((resolve) => fake.close(() => resolve())) };
  }

  const todaysBodies = async (from: Snapshot) => {
    const { units, digest } = await encodeSnapshot(from, new Set());
    return pushBodies(snapshot.generation, units, { base: null, builtAt: snapshot.builtAt, removed: [], digest });
  };

  it("to a function that names no release (0.1.0): exactly the bytes a 0.1.0 job sends", async () => {
    const fake = await fakeFunction(undefined);
    try {
      expect((await functionState(fake.url, "c", privateKeyPem)).writes).toEqual(new Set());
      await pushSnapshot(fake.url, "c", privateKeyPem, snapshot);
      expect(fake.bodies).toEqual(await todaysBodies(asBefore));
      expect(fake.bodies.join("")).not.toContain('"indexed"');
    } finally {
      await fake.close();
    }
  });

  it("to a 0.2.0 function: the left-out values, in their bucket, and the cluster part saying so", async () => {
    const fake = await fakeFunction("0.2.0");
    try {
      expect((await functionState(fake.url, "c", privateKeyPem)).release.text).toBe("0.2.0");
      await pushSnapshot(fake.url, "c", privateKeyPem, snapshot);
      const { units, digest } = await encodeSnapshot(snapshot);
      expect(fake.bodies).toEqual(pushBodies(snapshot.generation, units, { base: null, builtAt: snapshot.builtAt, removed: [], digest }));
      expect(fake.bodies.join("")).toContain('"indexed":true');
      expect(fake.bodies).not.toEqual(await todaysBodies(asBefore));
    } finally {
      await fake.close();
    }
  });
});
