// The function's base URL as a flag gives it (--endpoint, --url): checked
// before anything is sent, with a message that says what to pass instead.
import { routeInBaseUrl } from "../webhook/index.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";

/** Hosts that are this machine: plain http is fine there (npm start), nowhere else for a credential. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname);
}

/**
 * `value` as the function's base URL: http(s), no user info, query or
 * fragment, not one of its /v1 routes (the CLI adds those). With
 * `localHttp`, http:// only for this machine, https:// anywhere.
 */
export function baseUrlOf(flag: string, value: string, { localHttp = false }: { localHttp?: boolean } = {}): URL {
  const scheme = localHttp ? "https:// (http:// only for 127.0.0.1, localhost or [::1])" : "http(s)://";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${flag} must be the function's ${scheme} base URL, not "${value}"`, EXIT_USAGE);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && (!localHttp || isLoopback(url))))
    throw new CliError(`${flag} must be the function's ${scheme} base URL, not "${value}"`, EXIT_USAGE);
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "")
    throw new CliError(`${flag} must be the function's base URL, without user info, query or fragment: pass ${flag} ${url.origin}${url.pathname.replace(/\/+$/, "")}`, EXIT_USAGE);
  const routeError = routeInBaseUrl(url, flag);
  if (routeError) throw new CliError(routeError, EXIT_USAGE);
  return url;
}
