// A TLS front for the local function: the kube-apiserver calls webhooks over
// https only, and `npm start` serves http on loopback. This terminates TLS
// with a certificate of one's own and pipes each connection, bytes as they
// are, to the function (docs/local-kind.md); nothing is parsed or changed.
import { connect } from "node:net";
import { createServer, type Server } from "node:tls";

export interface Address {
  host: string;
  port: number;
}

export interface TlsProxy {
  /** Where it listens (the port picked when 0 was asked for). */
  address: Address;
  close(): Promise<void>;
}

/** "HOST:PORT" ("[::1]:8443" for IPv6), or why it is not one. */
export function parseAddress(text: string, flag: string): Address {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`${flag} must be HOST:PORT (0.0.0.0:8443, 127.0.0.1:8787, [::1]:8443), not "${text}"`);
  return { host: (match[1] ?? match[2])!, port };
}

export function startTlsProxy(options: { cert: string; key: string; listen: Address; to: Address }): Promise<TlsProxy> {
  const open = new Set<{ destroy(): void }>();
  const server: Server = createServer({ cert: options.cert, key: options.key }, (client) => {
    const upstream = connect(options.to.port, options.to.host);
    open.add(client);
    client.on("close", () => open.delete(client));
    // Either side closing or failing ends both: a reset apiserver call must not leave the function's socket open.
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream).pipe(client);
  });
  // A client that fails the handshake (an apiserver without the caBundle) is its problem, not the proxy's: drop it.
  server.on("tlsClientError", () => {});
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listen.port, options.listen.host, () => {
      const bound = server.address();
      const port = typeof bound === "object" && bound ? bound.port : options.listen.port;
      resolve({
        address: { host: options.listen.host, port },
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            // An apiserver keeps its connections alive: close them, or close() waits for them.
            for (const socket of open) socket.destroy();
          }),
      });
    });
  });
}
