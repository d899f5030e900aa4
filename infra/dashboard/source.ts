// What the dashboard shows, read from the function with the operator's own
// key (signed requests, as the CLI's verbs send them), and the one change it
// makes (a fleet promotion or rollback). An interface, so the benchmarks and
// the tests can hand the pages a fleet of any size without a function.
import type { ProposalAnswer, Outcome } from "../client/registry.js";
import { changeLog, listProposals, type ChangeEntry } from "../client/governance.js";
import {
  changeFleet,
  currentFleet,
  fleetHistory,
  fleetOverview,
  verdictCounts,
  verdictHours,
  type FleetChangeAnswer,
  type FleetChangeRequest,
  type FleetCounts,
  type FleetCurrent,
  type FleetHistoryAnswer,
  type OverviewCluster,
  type VerdictHours,
} from "../client/fleet.js";

export interface Overview {
  revision: number;
  fleetRevision: number;
  clusters: OverviewCluster[];
}

export interface FleetSource {
  overview(): Promise<Overview>;
  fleet(): Promise<FleetCurrent>;
  history(): Promise<FleetHistoryAnswer>;
  /** Sums over the last `hours` hours (GET /v1/registry/counts). */
  counts(hours: number): Promise<FleetCounts>;
  /** Hour by hour over the last `hours` hours. */
  hours(hours: number): Promise<VerdictHours>;
  /** The change log since `since` (ms). */
  changes(since: number): Promise<ChangeEntry[]>;
  proposals(): Promise<{ threshold: number; proposals: ProposalAnswer[] }>;
  changeFleet(change: FleetChangeRequest): Promise<Outcome<FleetChangeAnswer>>;
}

/** The function at `endpoint`, read and changed with the operator's key. */
export function functionSource(endpoint: string, privateKeyPem: string): FleetSource {
  return {
    overview: () => fleetOverview(endpoint, privateKeyPem),
    fleet: () => currentFleet(endpoint, privateKeyPem),
    history: () => fleetHistory(endpoint, privateKeyPem),
    counts: (hours) => verdictCounts(endpoint, privateKeyPem, hours),
    hours: (hours) => verdictHours(endpoint, privateKeyPem, hours),
    changes: (since) => changeLog(endpoint, privateKeyPem, { since }),
    proposals: () => listProposals(endpoint, privateKeyPem),
    changeFleet: (change) => changeFleet(endpoint, privateKeyPem, change),
  };
}
