// What a failed request to the API server says: one line naming what failed
// and why (unreachable, credentials, RBAC, a missing CRD), with the
// Kubernetes Status message when the answer carries one.
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { ApiException } from "@kubernetes/client-node";
import { CliError, EXIT_FAILURE, EXIT_USAGE, firstLine } from "../../base/errors.js";

/** The Kubernetes Status message of a failed request, if the body carries one. */
function statusMessage(body: unknown): string | undefined {
  const text = typeof body === "string" ? body : undefined;
  let value: unknown = body;
  if (text !== undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      return firstLine(text) || undefined;
    }
  }
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === "string" ? firstLine(message) : undefined;
}

/**
 * Why a request got no answer: the system error's code (ECONNREFUSED, ENOTFOUND,
 * …), else the innermost message. client-node 2 requests through fetch, whose
 * TypeError says only "fetch failed" and carries the socket's error as its
 * `cause`; a few levels at most, so a looping cause cannot hang the CLI.
 */
function networkReason(e: unknown): string {
  let message = String(e);
  for (let error = e, depth = 0; typeof error === "object" && error !== null && depth < 4; error = (error as { cause?: unknown }).cause, depth++) {
    const { code, message: own } = error as { code?: unknown; message?: unknown };
    if (typeof code === "string") return code;
    if (typeof own === "string") message = own;
  }
  return firstLine(message);
}

/**
 * One line for a failed request: unreachable server, credentials, RBAC, a
 * missing CRD, anything else. A read is the verb's input (the cluster it
 * judges or syncs): one that fails is an input that cannot be used, exit 2,
 * in every verb; a write or delete that fails is a failure on the way, 1.
 */
export function requestFailure(e: unknown, verb: string, what: string, server: string, crd?: { name: string; from: string }): CliError {
  const exit = verb === "write" || verb === "delete" ? EXIT_FAILURE : EXIT_USAGE;
  if (e instanceof ApiException) {
    const code = e.code;
    const detail = statusMessage(e.body);
    if (code === 401) return new CliError(`the API server at ${server} rejected the kubeconfig's credentials (401 Unauthorized) for ${verb} ${what}`, exit);
    if (code === 403) return new CliError(`RBAC forbids ${verb} ${what}${detail ? `: ${detail}` : ""}`, exit);
    if (code === 404 && crd) return new CliError(`the API server does not serve ${crd.name}: is its CRD installed? (${crd.from})`, exit);
    return new CliError(`${verb} ${what} failed with HTTP ${code}${detail ? `: ${detail}` : ""}`, exit);
  }
  return new CliError(`cannot reach the API server at ${server}: ${networkReason(e)}`, exit);
}
