// One JSON line per event worth an operator's attention (a denied, warned or
// failed review; a refused push or authentication; a broken registration),
// readable with `wrangler tail`. Never object content or credentials: ids,
// verdicts, policy ids, reasons and durations only, each capped, since some
// come from callers.
import { truncateUtf8 } from "../../shared/admission/index.js";

type LogEvent =
  | { event: "review"; cluster: string; uid: string; operation: string; kind: string; verdict: "deny" | "warn" | "audit" | "allow"; policies: string[]; durationMs: number }
  | { event: "review-failed"; cluster: string; uid?: string; status: number; reason: string; durationMs: number }
  | { event: "push"; cluster: string; status: number; peer?: string; generation?: number; bytes?: number; staged?: number; reason?: string; durationMs: number }
  | { event: "auth-refused"; cluster: string; route: string; reason: string }
  /** An authenticated sync job or CLI outside the function's skew window (shared/version). */
  | { event: "peer-refused"; cluster: string; route: string; peer: string; reason: string }
  | { event: "config"; cluster?: string; reason: string }
  | { event: "integrity"; cluster: string; generation: number; reason: string }
  | { event: "registry-change"; status: number; peer?: string; changes: string[]; revision?: number; reason?: string; durationMs: number }
  | { event: "registry-unavailable"; reason: string }
  /** A push by a current key dropped a stored generation whose signer the registration no longer lists; the operator's reset of a cluster's snapshot. */
  | { event: "snapshot-started-over"; cluster: string; generation: number; reason: string }
  | { event: "snapshot-reset"; cluster: string; status: number; generation?: number | null; reason?: string }
  | { event: "fleet-change"; status: number; peer?: string; change: string; revision?: number; reason?: string; durationMs: number }
  /** An automatic promotion made a policy active on clusters whose pushed webhook rules do not send it (functions/registry/coverage.ts). */
  | { event: "fleet-coverage"; change: string; cluster?: string; missing?: string[]; clusters?: string[]; reason: string };

const MAX_FIELD_BYTES = 200;

/** Every string field capped: a cluster id or uid in a refused request is the caller's. */
function capped(event: LogEvent): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(event).map(([key, value]) => [
      key,
      typeof value === "string" ? truncateUtf8(value, MAX_FIELD_BYTES) : Array.isArray(value) ? value.slice(0, 20).map((v) => truncateUtf8(String(v), 100)) : value,
    ]),
  );
}

/** A review's verdict, an accepted push or registry change are news; a refusal, a failure or a broken configuration is a warning. */
const isWarning = (event: LogEvent) =>
  event.event !== "review" && !((event.event === "push" || event.event === "registry-change" || event.event === "snapshot-reset" || event.event === "fleet-change") && event.status === 200);

export function log(event: LogEvent): void {
  const warning = isWarning(event);
  const line = JSON.stringify({ level: warning ? "warn" : "info", ...capped(event) });
  if (warning) console.warn(line);
  else console.log(line);
}
