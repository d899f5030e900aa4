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

/** What GET /v1/registry/metrics exports (functions/routes/metrics.ts), and examples/grafana's dashboard reads. */
export const FAMILIES = {
  verdicts: { name: "edgeadmit_verdicts", type: "counter", help: "Reviews (origin review, policy *) and policy results counted, by cluster, origin, policy and outcome, since the registry first counted them." },
  fleetRevision: { name: "edgeadmit_fleet_revision", type: "gauge", help: "The fleet policy set's revision in effect (0: none applied)." },
  generation: { name: "edgeadmit_snapshot_generation", type: "gauge", help: "The generation of the cluster's committed snapshot (its sync job's clock in ms)." },
  age: { name: "edgeadmit_snapshot_age_seconds", type: "gauge", unit: "seconds", help: "Seconds since the cluster's committed snapshot was pushed." },
  maxAge: { name: "edgeadmit_snapshot_max_age_seconds", type: "gauge", unit: "seconds", help: "The registration's snapshot age limit: older, the cluster takes its withoutSnapshot stance." },
  coverageKnown: { name: "edgeadmit_coverage_known", type: "gauge", help: "1 when the cluster's sync job pushed its webhook rules, 0 when coverage is unknown." },
  coverageGaps: { name: "edgeadmit_coverage_gaps", type: "gauge", help: "Fleet policies bound on the cluster whose requests its webhook rules do not send: now, and once a later wave is promoted." },
} as const satisfies Record<string, Family>;

