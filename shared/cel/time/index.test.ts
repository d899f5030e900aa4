import { describe, expect, it } from "vitest";
import { Timestamp } from "../values/index.js";
import { civil, formatDuration, formatTimestamp, parseDuration, parseTimestamp } from "./index.js";

describe("time", () => {
  it("parses RFC 3339 as Go does", () => {
    expect(parseTimestamp("1970-01-01T00:00:01.5Z")?.ns).toBe(1_500_000_000n);
    expect(parseTimestamp("0001-01-01T00:00:00Z")?.ns).toBe(-62135596800_000_000_000n);
    expect(parseTimestamp("2023-02-29T00:00:00Z")).toBeUndefined();
    expect(parseTimestamp("2023-01-01 00:00:00Z")).toBeUndefined();
    expect(parseTimestamp("2023-01-01T00:00:00")).toBeUndefined();
  });

  it("parses and prints Go durations", () => {
    expect(parseDuration("1h2m3.5s")?.ns).toBe(3723_500_000_000n);
    expect(parseDuration("-1.5us")?.ns).toBe(-1500n);
    expect(parseDuration("300ms")?.ns).toBe(300_000_000n);
    expect(parseDuration("1d")).toBeUndefined();
    expect(parseDuration("")).toBeUndefined();
    expect(parseDuration("2562048h")).toBeUndefined();
    expect(formatDuration(parseDuration("-90m") as never)).toBe("-5400s");
  });

  it("prints and splits timestamps, also before 1970 and in zones", () => {
    const t = new Timestamp(-1n);
    expect(formatTimestamp(t)).toBe("1969-12-31T23:59:59.999999999Z");
    expect(civil(t, "UTC")).toMatchObject({ year: 1969, month: 12, day: 31, hour: 23, millisecond: 999, weekday: 3, dayOfYear: 364 });
    const leap = parseTimestamp("2024-03-10T10:00:00Z") as Timestamp;
    expect(civil(leap, "America/Los_Angeles").hour).toBe(3);
    expect(civil(leap, "-08:00").hour).toBe(2);
  });
});
