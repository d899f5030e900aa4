// `npm run tls-proxy -- --cert FILE --key FILE [--listen HOST:PORT] [--to HOST:PORT]`:
// the local function (npm start) over https, for a kind cluster's apiserver (docs/local-kind.md).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseAddress, startTlsProxy } from "./tls-proxy.js";

const USAGE = "usage: npm run tls-proxy -- --cert FILE --key FILE [--listen HOST:PORT (default 0.0.0.0:8443)] [--to HOST:PORT (default 127.0.0.1:8787, npm start)]";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cert: { type: "string" }, key: { type: "string" }, listen: { type: "string" }, to: { type: "string" } } });
  if (!values.cert || !values.key) throw new Error(`--cert and --key are required\n${USAGE}`);
  const proxy = await startTlsProxy({
    cert: readFileSync(values.cert, "utf8"),
    key: readFileSync(values.key, "utf8"),
    listen: parseAddress(values.listen ?? "0.0.0.0:8443", "--listen"),
    to: parseAddress(values.to ?? "127.0.0.1:8787", "--to"),
  });
  console.log(`tls-proxy: https on ${proxy.address.host}:${proxy.address.port} → http://${values.to ?? "127.0.0.1:8787"}; Ctrl-C stops`);
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((e: unknown) => {
  console.error(`tls-proxy: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
});
