// The fleet policy set, from the operator's side: `edgeadmit fleet apply|
// promote|rollback` sign their changes with the operator's key, as the
// registry verbs do (infra/client/registry.ts), and `fleet diff|history`
// read what the function holds.
import * as z from "zod/mini";
import { fleetSetSchema, type FleetSet } from "../../shared/fleet/index.js";
import { answerOf, errorText, FunctionError } from "./index.js";
import { REFUSED_KEY, sendChange, signed, type Outcome } from "./registry.js";

export const FLEET_PATH = "/v1/registry/fleet";

const changeAnswerSchema = z.object({ revision: z.number(), change: z.string(), signers: z._default(z.array(z.string()), []) });
export type FleetChangeAnswer = z.infer<typeof changeAnswerSchema>;

const currentSchema = z.object({
  revision: z.number(),
  set: z.optional(fleetSetSchema),
  stages: z.optional(z.record(z.string(), z.number())),
  appliedAt: z.optional(z.number()),
  /** When each binding's wave took effect (ms): what promoteAfter counts from. */
  stagedAt: z.optional(z.record(z.string(), z.number())),
  change: z.optional(z.string()),
});
export type FleetCurrent = z.infer<typeof currentSchema>;

const historySchema = z.object({
  revision: z.number(),
  revisions: z.array(z.object({ revision: z.number(), appliedAt: z.string(), change: z.string(), policies: z.number(), bindings: z.number() })),
});
export type FleetHistoryAnswer = z.infer<typeof historySchema>;

export type FleetChangeRequest =
  | { op: "apply"; set: FleetSet; ifRevision?: number; allowEmpty?: true }
  | { op: "promote"; binding: string; toWave?: number; ifRevision?: number }
  | { op: "rollback"; toRevision: number; ifRevision?: number };

/** Signs `change` with the operator's key and sends it: a new fleet revision (or a proposal, for other keys to approve), or a FunctionError saying why not. */
export function changeFleet(endpoint: string, privateKeyPem: string, change: FleetChangeRequest): Promise<Outcome<FleetChangeAnswer>> {
  return sendChange(endpoint, privateKeyPem, FLEET_PATH, change, changeAnswerSchema);
}

async function read<T>(endpoint: string, privateKeyPem: string, path: string, schema: z.ZodMiniType<T>): Promise<T> {
  const { url, response } = await signed(endpoint, privateKeyPem, "GET", path, new Uint8Array());
  if (response.status === 401) throw new FunctionError(`GET ${url} was refused (401): ${REFUSED_KEY}`, 401);
  if (!response.ok) throw new FunctionError(`GET ${url} answered ${response.status}: ${await errorText(response)}`, response.status);
  return answerOf(url, response, schema);
}

/** The fleet revision in effect (revision 0 and no set before the first apply). */
export const currentFleet = (endpoint: string, privateKeyPem: string) => read(endpoint, privateKeyPem, FLEET_PATH, currentSchema);

export const fleetHistory = (endpoint: string, privateKeyPem: string) => read(endpoint, privateKeyPem, `${FLEET_PATH}/history`, historySchema);

/**
 * A kept revision whole: what a rollback to it restores (a FunctionError 404
 * when it is not kept); undefined from a function older than the route
 * (0.2.0 and before), whose answer is its generic "no route for".
 */
export async function fleetRevision(endpoint: string, privateKeyPem: string, revision: number): Promise<FleetCurrent | undefined> {
  try {
    return await read(endpoint, privateKeyPem, `${FLEET_PATH}/revisions/${revision}`, currentSchema);
  } catch (e) {
    if (e instanceof FunctionError && e.status === 404 && e.message.includes("no route for")) return undefined;
    throw e;
  }
}

const countsSchema = z.object({
  hours: z.number(),
  rows: z.array(z.object({ cluster: z.string(), origin: z.string(), policy: z.string(), outcome: z.string(), count: z.number() })),
});
export type FleetCounts = z.infer<typeof countsSchema>;

/** Verdict counts summed over the last `hours` hours: every cluster's, or one's. */
export function verdictCounts(endpoint: string, privateKeyPem: string, hours: number, cluster?: string): Promise<FleetCounts> {
  const query = `?hours=${hours}${cluster === undefined ? "" : `&cluster=${encodeURIComponent(cluster)}`}`;
  return read(endpoint, privateKeyPem, `/v1/registry/counts${query}`, countsSchema);
}

const coverageSchema = z.object({
  cluster: z.string(),
  fleetRevision: z.number(),
  snapshot: z.nullable(z.object({ generation: z.number(), ageSeconds: z.number() })),
  coverage: z.enum(["known", "unknown"]),
  gaps: z.array(z.string()),
  /** What a promotion would start enforcing that the rules do not send (absent from a function older than it). */
  upcoming: z._default(z.array(z.string()), []),
});
export type ClusterCoverage = z.infer<typeof coverageSchema>;

/** The fleet policies bound on `cluster` that its webhook rules do not reach (now, and once a later wave is promoted), and its snapshot's generation and age. */
export function clusterCoverage(endpoint: string, privateKeyPem: string, cluster: string): Promise<ClusterCoverage> {
  return read(endpoint, privateKeyPem, `/v1/registry/coverage?cluster=${encodeURIComponent(cluster)}`, coverageSchema);
}

const hoursSchema = z.object({
  hours: z.number(),
  rows: z.array(z.object({ hour: z.string(), cluster: z.string(), origin: z.string(), policy: z.string(), outcome: z.string(), count: z.number() })),
});
export type VerdictHours = z.infer<typeof hoursSchema>;

/** Verdict counts hour by hour over the last `hours` hours: every cluster's, or one's. */
export function verdictHours(endpoint: string, privateKeyPem: string, hours: number, cluster?: string): Promise<VerdictHours> {
  const query = `?hours=${hours}&by=hour${cluster === undefined ? "" : `&cluster=${encodeURIComponent(cluster)}`}`;
  return read(endpoint, privateKeyPem, `/v1/registry/counts${query}`, hoursSchema);
}

const overviewClusterSchema = z.object({
  cluster: z.string(),
  labels: z.record(z.string(), z.string()),
  withoutSnapshot: z.string(),
  maxAgeSeconds: z.number(),
  lastSync: z.optional(z.object({ release: z.nullable(z.string()), at: z.string() })),
  snapshot: z.nullable(z.object({ generation: z.number(), pushedAt: z.string(), ageSeconds: z.number() })),
  coverage: z.enum(["known", "unknown"]),
  gaps: z.array(z.string()),
  upcoming: z.array(z.string()),
});
export type OverviewCluster = z.infer<typeof overviewClusterSchema>;
const overviewPageSchema = z.object({ revision: z.number(), fleetRevision: z.number(), clusters: z.array(overviewClusterSchema), next: z.optional(z.string()) });

/** Every registered cluster with its snapshot and coverage gaps as the registry records them, page by page. */
export async function fleetOverview(endpoint: string, privateKeyPem: string): Promise<{ revision: number; fleetRevision: number; clusters: OverviewCluster[] }> {
  const overview = { revision: 0, fleetRevision: 0, clusters: [] as OverviewCluster[] };
  let after: string | undefined;
  do {
    const page = await read(endpoint, privateKeyPem, `/v1/registry/overview${after === undefined ? "" : `?after=${encodeURIComponent(after)}`}`, overviewPageSchema);
    overview.revision = page.revision;
    overview.fleetRevision = page.fleetRevision;
    overview.clusters.push(...page.clusters);
    after = page.next;
  } while (after !== undefined);
  return overview;
}
