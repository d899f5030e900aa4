// The OpenMetrics text exposition (the format Prometheus scrapes, RFC-track
// text of the OpenMetrics project, 1.0.0): metric families, each a # TYPE,
// # HELP (and # UNIT) header followed by its samples, every family's
// samples together, the body ending with # EOF. Label values are escaped
// (backslash, double quote, newline) and every name here is a constant, so a
// caller's string can only ever be a label value.

export const OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

export type MetricType = "counter" | "gauge";

export interface Family {
  /** The family's name; a counter's samples are named `<name>_total`. */
  name: string;
  type: MetricType;
  help: string;
  /** The unit, when the name ends with it (`_seconds`). */
  unit?: string;
}

const escapeValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** The header lines of a family. */
export function header(family: Family): string {
  return `# TYPE ${family.name} ${family.type}\n${family.unit ? `# UNIT ${family.name} ${family.unit}\n` : ""}# HELP ${family.name} ${escapeValue(family.help)}\n`;
}

/** One sample line: the family's name (with `_total` for a counter), its labels in the order given, and its value. */
export function sample(family: Family, labels: ReadonlyArray<readonly [name: string, value: string]>, value: number): string {
  const name = family.type === "counter" ? `${family.name}_total` : family.name;
  const text = labels.length === 0 ? "" : `{${labels.map(([label, labelValue]) => `${label}="${escapeValue(labelValue)}"`).join(",")}}`;
  return `${name}${text} ${Number.isFinite(value) ? String(value) : "NaN"}\n`;
}

export const EOF = "# EOF\n";
