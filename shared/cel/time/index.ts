// Timestamps and durations: Go's RFC 3339 and duration syntax, CEL's ranges,
// and the calendar accessors with an optional time zone. Zones are "UTC",
// fixed offsets ("+05:30", "-08:00") and IANA names through Intl, which Node
// 20 and workerd both ship with full time zone data.

import { Duration, EvalError, Timestamp } from "../values/index.js";

const NS_PER_SEC = 1_000_000_000n;
const NS_PER_MS = 1_000_000n;
// CEL timestamps span 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z.
const MIN_SECONDS = -62135596800n;
const MAX_SECONDS = 253402300799n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

export function timestampOf(ns: bigint, offsetSeconds = 0): Timestamp {
  const s = floorDiv(ns, NS_PER_SEC);
  if (s < MIN_SECONDS || s > MAX_SECONDS) throw new EvalError("timestamp overflow");
  return new Timestamp(ns, offsetSeconds);
}

export function durationOf(ns: bigint): Duration {
  if (ns > INT64_MAX || ns < INT64_MIN) throw new EvalError("duration overflow");
  return new Duration(ns);
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/** Parses RFC 3339 as Go's time.Parse(time.RFC3339, s) does; undefined when invalid. */
export function parseTimestamp(s: string): Timestamp | undefined {
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (oh * 60 + om) * 60 * (m[9] === "-" ? -1 : 1);
  }
  const days = daysFromCivil(year, month, day);
  const secs = BigInt(days) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offset);
  const frac = BigInt((m[7] ?? "").padEnd(9, "0"));
  return timestampOf(secs * NS_PER_SEC + frac, offset);
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysIn(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] as number;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): { year: number; month: number; day: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: era * 400 + yoe + (month <= 2 ? 1 : 0), month, day };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, "0");

/** Go's RFC3339Nano in the timestamp's own offset: fraction without trailing zeros, Z for zero offset. */
export function formatTimestamp(t: Timestamp): string {
  const utcSecs = floorDiv(t.ns, NS_PER_SEC);
  const nanos = Number(t.ns - utcSecs * NS_PER_SEC);
  const secs = utcSecs + BigInt(t.offsetSeconds);
  const days = Number(floorDiv(secs, 86400n));
  const rem = Number(secs - BigInt(days) * 86400n);
  const { year, month, day } = civilFromDays(days);
  const frac = nanos === 0 ? "" : "." + pad(nanos, 9).replace(/0+$/, "");
  const off = Math.abs(t.offsetSeconds);
  const zone = t.offsetSeconds === 0 ? "Z" : `${t.offsetSeconds < 0 ? "-" : "+"}${pad(Math.floor(off / 3600))}:${pad(Math.floor(off / 60) % 60)}`;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(Math.floor(rem / 3600))}:${pad(Math.floor(rem / 60) % 60)}:${pad(rem % 60)}${frac}${zone}`;
}

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: NS_PER_MS, s: NS_PER_SEC, m: 60n * NS_PER_SEC, h: 3600n * NS_PER_SEC };

/** Go's time.ParseDuration; undefined when invalid or out of int64 range. */
export function parseDuration(s: string): Duration | undefined {
  let rest = s;
  let sign = 1n;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest.startsWith("-")) sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === "0") return new Duration(0n);
  if (rest === "") return undefined;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== "") {
    const m = part.exec(rest);
    if (m === null || (m[1] === "" && (m[2] ?? "") === "")) return undefined;
    const unit = UNITS[m[3] as string] as bigint;
    const frac = m[2] ?? "";
    total += BigInt(m[1] || "0") * unit + (frac === "" ? 0n : (BigInt(frac) * unit) / 10n ** BigInt(frac.length));
    if (total > INT64_MAX + (sign < 0n ? 1n : 0n)) return undefined;
    rest = rest.slice(m[0].length);
  }
  return new Duration(sign * total);
}

/** Seconds with "s", as cel-go converts a duration to string. */
export function formatDuration(d: Duration): string {
  const neg = d.ns < 0n;
  const abs = neg ? -d.ns : d.ns;
  const secs = abs / NS_PER_SEC;
  const nanos = abs % NS_PER_SEC;
  const frac = nanos === 0n ? "" : "." + nanos.toString().padStart(9, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${secs}${frac}s`;
}

export interface CivilTime {
  readonly year: number;
  readonly month: number; // 1..12
  readonly day: number; // 1..31
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
  readonly weekday: number; // 0 = Sunday
  readonly dayOfYear: number; // 0-based
}

// cel-go reads any zone with a colon as [+-]hours:minutes.
const FIXED_OFFSET = /^([+-]?)(\d+):(\d+)$/;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Offset of zone from UTC in seconds at the given instant. */
function zoneOffset(zone: string, epochMs: number): number {
  if (zone === "UTC" || zone === "") return 0;
  const fixed = FIXED_OFFSET.exec(zone);
  if (fixed !== null) return (Number(fixed[2]) * 3600 + Number(fixed[3]) * 60) * (fixed[1] === "-" ? -1 : 1);
  let fmt = zoneFormats.get(zone);
  if (fmt === undefined) {
    try {
      fmt = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      throw new EvalError(`unknown time zone ${zone}`);
    }
    zoneFormats.set(zone, fmt);
  }
  // Intl cannot format dates before year 1 reliably; CEL's range starts there.
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(epochMs))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const local = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  const utc = epochMs - (((epochMs % 1000) + 1000) % 1000);
  return Math.round((local - utc) / 1000);
}

export function civil(t: Timestamp, zone: string): CivilTime {
  const secs = floorDiv(t.ns, NS_PER_SEC);
  const millisecond = Number((t.ns - secs * NS_PER_SEC) / NS_PER_MS);
  const local = secs + BigInt(zoneOffset(zone, Number(secs) * 1000));
  const days = Number(floorDiv(local, 86400n));
  const rem = Number(local - BigInt(days) * 86400n);
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(rem / 3600),
    minute: Math.floor(rem / 60) % 60,
    second: rem % 60,
    millisecond,
    weekday: (((days + 4) % 7) + 7) % 7,
    dayOfYear: days - daysFromCivil(year, 1, 1),
  };
}
