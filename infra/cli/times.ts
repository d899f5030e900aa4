// A time on the command line: a moment (RFC 3339, as the function prints
// them) or how long ago (30m, 24h, 7d), as `kubectl logs --since` and
// `journalctl --since` take them.
import { CliError, EXIT_USAGE } from "../base/errors.js";

const AGO = /^(\d{1,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `value` as milliseconds since the epoch, given the time `now`; a usage error says what it must be. */
export function timeFlag(flag: string, value: string, now: number): number {
  const ago = AGO.exec(value);
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
  const at = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d))?$/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw new CliError(`--${flag} must be a time (2026-11-28T10:00:00Z, or 2026-11-28) or how long ago (30m, 24h, 7d), not "${value.slice(0, 40)}"`, EXIT_USAGE);
  return at;
}
