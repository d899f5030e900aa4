import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAddress, startTlsProxy, type TlsProxy } from "./tls-proxy.js";

/** GET over https through the proxy: the status and body, or the TLS error's code. */
function get(port: number, ca: string | undefined, agent?: Agent): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: "/healthz", ...(ca ? { ca } : {}), ...(agent ? { agent } : {}) }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end();
  });
}

describe("the TLS front of docs/local-kind.md", () => {
  let cert: string;
  let upstream: Server;
  let proxy: TlsProxy;
  const seen: string[] = [];

  beforeAll(async () => {
    // The certificate as docs/local-kind.md makes it: self-signed, the addresses the apiserver dials in subjectAltName.
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-tls-"));
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=edgeadmit-local", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", join(dir, "tls.key"), "-out", join(dir, "tls.crt")], { stdio: "ignore" });
    cert = readFileSync(join(dir, "tls.crt"), "utf8");
    // The function's stand-in: plain http on loopback, as npm start serves.
    upstream = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const address = upstream.address();
    proxy = await startTlsProxy({ cert, key: readFileSync(join(dir, "tls.key"), "utf8"), listen: { host: "127.0.0.1", port: 0 }, to: { host: "127.0.0.1", port: typeof address === "object" && address ? address.port : 0 } });
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it("serves the function over https to a client that trusts the certificate (the caBundle)", async () => {
    expect(await get(proxy.address.port, cert)).toEqual({ status: 200, body: '{"ok":true}' });
    expect(seen).toEqual(["GET /healthz"]);
  });

  it("is refused by a client that does not (an apiserver without the caBundle)", async () => {
    expect(await get(proxy.address.port, undefined)).toEqual({ error: "DEPTH_ZERO_SELF_SIGNED_CERT" });
  });

  it("closes with a kept-alive connection open, as an apiserver keeps them", async () => {
    const agent = new Agent({ keepAlive: true });
    expect((await get(proxy.address.port, cert, agent)).status).toBe(200);
    await proxy.close();
    expect(await get(proxy.address.port, cert, new Agent({ keepAlive: false }))).toEqual({ error: "ECONNREFUSED" });
    agent.destroy();
  });

  it.each([
    ["0.0.0.0:8443", { host: "0.0.0.0", port: 8443 }],
    ["[::1]:8443", { host: "::1", port: 8443 }],
    ["host.docker.internal:8443", { host: "host.docker.internal", port: 8443 }],
  ])("reads the address %s", (text, address) => {
    expect(parseAddress(text, "--listen")).toEqual(address);
  });

  it.each(["8443", "0.0.0.0:", "0.0.0.0:65536", "::1:8443"])("refuses the address %s, saying what it must be", (text) => {
    expect(() => parseAddress(text, "--listen")).toThrow(`--listen must be HOST:PORT (0.0.0.0:8443, 127.0.0.1:8787, [::1]:8443), not "${text}"`);
  });
});
