// The dashboard on 127.0.0.1 only: node:http adapted to the Hono app's
// fetch in a few lines (what @hono/node-server does, without a dependency:
// no body streaming is needed, forms are a few hundred bytes), a request
// body capped before it is read whole.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dashboardApp } from "./app.js";
import type { FleetSource } from "./source.js";

/** A form of the dashboard is a few hundred bytes; anything larger is refused unread. */
const MAX_BODY_BYTES = 4096;

export interface RunningDashboard {
  url: string;
  server: Server;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Serves the dashboard for `source` on 127.0.0.1:`port` (0: any free port). */
export async function serveDashboard(source: FleetSource, endpoint: string, port: number): Promise<RunningDashboard> {
  const hosts = new Set<string>();
  const app = dashboardApp({ source, endpoint, hosts: () => hosts, secret: randomBytes(32).toString("base64url") });
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
    const method = request.method ?? "GET";
    let body: Uint8Array | undefined;
    if (method === "POST") {
      body = await bodyOf(request);
      if (body === undefined) {
        response.writeHead(413, { "content-type": "text/plain; charset=utf-8" }).end("request body too large\n");
        return;
      }
    }
    // The URL's host is this server's own: the Host header is what the guard checks, never what routes.
    const answer = await app.fetch(new Request(`http://127.0.0.1${request.url ?? "/"}`, { method, headers, ...(body ? { body } : {}) }));
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((e: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      response.end(`dashboard: ${e instanceof Error ? e.message : String(e)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  hosts.add(`127.0.0.1:${bound}`);
  hosts.add(`localhost:${bound}`);
  return { url: `http://127.0.0.1:${bound}/`, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
