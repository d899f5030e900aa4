import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { FunctionError, storedSnapshot } from "./index.js";

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
