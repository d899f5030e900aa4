// The fleet policy set's storage: every apply, promotion and rollback is a
// new revision (the set whole, and how far each binding's waves are
// promoted), kept KEPT_REVISIONS deep for `fleet history` and `fleet
// rollback`. The tables live in the cluster registry's Durable Object
// (functions/registry), so a fleet change is checked, replay-recorded and
// written in one synchronous SQLite transaction by the registry's single
// writer, exactly as a registry change is.
import { HOUR_MS } from "../../shared/counts/index.js";
import { durationMs, KEPT_REVISIONS, promotedWave, revisionNotKept, stagesAfterApply, type FleetBinding, type FleetChange, type FleetRevision } from "../../shared/fleet/index.js";
import { Refusal } from "./refusal.js";

/** What an isolate polls: the revision in effect, and the revision itself when the isolate does not hold it yet. */
export interface FleetSince {
  revision: number;
  stored?: FleetRevision;
}

export interface FleetHistory {
  revision: number;
  /** `signers`: the operator keys the change log recorded for the revision (empty: none recorded). */
  revisions: Array<{ revision: number; appliedAt: number; change: string; policies: number; bindings: number; signers?: string[] }>;
}

/**
 * The fleet's methods of the registry Durable Object as its stub answers
 * them: a set's objects are `unknown` to TypeScript, which the RPC types
 * cannot carry, though the values are plain JSON.
 */
export interface FleetStoreStub {
  fleetSince(since: number): Promise<FleetSince>;
  fleetHistory(): Promise<FleetHistory>;
  fleetRevision(revision: number): Promise<FleetRevision | null>;
}

/** Records a revision written (its number, what made it, who signed it: none for an automatic promotion) in the change log. */
export type RevisionRecorder = (revision: number, change: string, now: number) => void;

interface RevisionRow extends Record<string, SqlStorageValue> {
  revision: number;
  body: string;
  applied_at: number;
  change: string;
}

function revisionOf(row: RevisionRow): FleetRevision {
  const body = JSON.parse(row.body) as Pick<FleetRevision, "set" | "stages" | "stagedAt">;
  return { revision: row.revision, set: body.set, stages: body.stages, ...(body.stagedAt ? { stagedAt: body.stagedAt } : {}), appliedAt: row.applied_at, change: row.change };
}

type Next = Pick<FleetRevision, "set" | "stages" | "stagedAt" | "change">;

/** When a binding's wave took effect: its own time, or the revision's for one stored before stagedAt. */
const stagedAtOf = (revision: FleetRevision, binding: string): number => revision.stagedAt?.[binding] ?? revision.appliedAt;

/**
 * How many findings (deny, warn, audit or error verdicts) of `binding`'s
 * policy the clusters it binds at `stage` counted from `fromHour` on: the
 * registry answers from its registrations and verdict counts.
 */
export type WaveFindings = (binding: FleetBinding, stage: number, fromHour: number) => number;

/** An automatic promotion just written: the binding, the wave it moved to, and the revision's change. */
export interface AutomaticPromotion {
  binding: FleetBinding;
  wave: number;
  change: string;
}

export class FleetTables {
  constructor(
    private readonly storage: DurableObjectStorage,
    /** Every automatic promotion is recorded here; an operator's change is recorded by whoever applied it. */
    private readonly recordAutomatic: RevisionRecorder,
  ) {
    storage.sql.exec("CREATE TABLE IF NOT EXISTS fleet_revision (revision INTEGER PRIMARY KEY, body TEXT NOT NULL, applied_at INTEGER NOT NULL, change TEXT NOT NULL);");
  }

  private row(revision?: number): RevisionRow | undefined {
    const sql = this.storage.sql;
    return (revision === undefined ? sql.exec<RevisionRow>("SELECT * FROM fleet_revision ORDER BY revision DESC LIMIT 1") : sql.exec<RevisionRow>("SELECT * FROM fleet_revision WHERE revision = ?", revision)).toArray()[0];
  }

  /** `change` as the next revision, inside the caller's transaction; a Refusal says why not. */
  apply(change: FleetChange, now: number): { revision: number; change: string } {
    const currentRow = this.row();
    const current = currentRow ? revisionOf(currentRow) : undefined;
    const at = current?.revision ?? 0;
    if (change.ifRevision !== undefined && change.ifRevision !== at)
      throw new Refusal(409, `the fleet is at revision ${at}, not ${change.ifRevision}: it changed since; run edgeadmit fleet diff again`);
    const next = this.next(change, current, now);
    return { revision: this.write(at + 1, next, now), change: next.change };
  }

  /** The revision in effect (0 before the first apply) and the revisions kept. */
  revisions(): { revision: number; kept: number[] } {
    const kept = this.storage.sql.exec<{ revision: number }>("SELECT revision FROM fleet_revision ORDER BY revision").toArray().map((row) => row.revision);
    return { revision: kept.at(-1) ?? 0, kept };
  }

  private write(revision: number, next: Next, now: number): number {
    this.storage.sql.exec("INSERT INTO fleet_revision (revision, body, applied_at, change) VALUES (?, ?, ?, ?)", revision, JSON.stringify(next), now, next.change);
    this.storage.sql.exec("DELETE FROM fleet_revision WHERE revision <= ?", revision - KEPT_REVISIONS);
    this.due = undefined;
    return revision;
  }

  private next(change: FleetChange, current: FleetRevision | undefined, now: number): Next {
    if (change.op === "apply") {
      const stages = stagesAfterApply(current, change.set);
      // A binding that keeps its wave keeps the time its wave began; any other starts it now.
      const stagedAt: Record<string, number> = {};
      for (const binding of change.set.bindings) {
        const name = binding.metadata.name;
        if (!binding.spec.waves) continue;
        const before = current?.set.bindings.find((b) => b.metadata.name === name);
        const kept = before !== undefined && JSON.stringify(before.spec.waves) === JSON.stringify(binding.spec.waves) && current!.stages[name] === stages[name];
        stagedAt[name] = kept ? stagedAtOf(current!, name) : now;
      }
      return { set: change.set, stages, stagedAt, change: "apply" };
    }
    if (change.op === "rollback") {
      const row = this.row(change.toRevision);
      if (!row) throw new Refusal(404, revisionNotKept(change.toRevision));
      if (change.toRevision === current?.revision) throw new Refusal(409, `revision ${change.toRevision} is the one in effect`);
      const target = revisionOf(row);
      // The waves restored take effect now: an automatic promotion counts from here.
      return { set: target.set, stages: target.stages, stagedAt: Object.fromEntries(Object.keys(target.stages).map((name) => [name, now])), change: `rollback to ${change.toRevision}` };
    }
    const promoted = promotedWave(current, change.binding, change.toWave);
    if ("error" in promoted) throw new Refusal(promoted.status, promoted.error);
    const toWave = promoted.wave;
    return { set: current!.set, stages: { ...current!.stages, [change.binding]: toWave }, stagedAt: { ...this.stagedAll(current!), [change.binding]: now }, change: `promote ${change.binding} to wave ${toWave}` };
  }

  private stagedAll(revision: FleetRevision): Record<string, number> {
    return Object.fromEntries(Object.keys(revision.stages).map((name) => [name, stagedAtOf(revision, name)]));
  }

  /** The revision and the earliest time a promoteAfter of it may fall due (Infinity: none can): most reads skip the check with one comparison. */
  private due: { revision: number; at: number } | undefined;

  /**
   * Automatic promotion, applied lazily whenever the fleet is read (every
   * isolate reads it every few seconds): each binding whose current wave has
   * `promoteAfter` and has been in effect that long moves to the next wave,
   * as a new revision `promote <binding> to wave N (automatic: …)`, unless
   * the policy counted a finding (deny, warn, audit or error) on a cluster of
   * that wave since the hour the wave began: the wave's clusters met nothing
   * the next wave's stricter actions would deny unexpectedly. A binding held
   * back stays until an operator promotes, rolls back or applies. Answers
   * the promotions it wrote.
   */
  promoteDue(now: number, findings: WaveFindings): AutomaticPromotion[] {
    const row = this.row();
    if (!row || (this.due?.revision === row.revision && now < this.due.at)) return [];
    const promotions: AutomaticPromotion[] = [];
    this.storage.transactionSync(() => {
      let current = revisionOf(row);
      let at = Infinity;
      for (const binding of current.set.bindings) {
        const name = binding.metadata.name;
        const waves = binding.spec.waves;
        const stage = current.stages[name] ?? 0;
        const after = waves?.[stage]?.promoteAfter;
        if (!waves || after === undefined || stage + 1 >= waves.length) continue;
        const began = stagedAtOf(current, name);
        const dueAt = began + durationMs(after);
        if (now < dueAt) {
          at = Math.min(at, dueAt);
          continue;
        }
        if (findings(binding, stage, Math.floor(began / HOUR_MS)) > 0) continue;
        const next: Next = {
          set: current.set,
          stages: { ...current.stages, [name]: stage + 1 },
          stagedAt: { ...this.stagedAll(current), [name]: now },
          change: `promote ${name} to wave ${stage + 1} (automatic: ${after} in wave ${stage} without a finding)`,
        };
        this.recordAutomatic(this.write(current.revision + 1, next, now), next.change, now);
        promotions.push({ binding, wave: stage + 1, change: next.change });
        current = revisionOf(this.row()!);
        // The next wave's own promoteAfter counts from now.
        const following = waves[stage + 1]?.promoteAfter;
        if (following !== undefined && stage + 2 < waves.length) at = Math.min(at, now + durationMs(following));
      }
      this.due = { revision: current.revision, at };
    });
    return promotions;
  }

  /** One kept revision whole (what fleet rollback would restore), or undefined when it is not kept. */
  at(revision: number): FleetRevision | undefined {
    const row = this.row(revision);
    return row && revisionOf(row);
  }

  since(since: number): FleetSince {
    const row = this.row();
    if (!row) return { revision: 0 };
    return row.revision === since ? { revision: row.revision } : { revision: row.revision, stored: revisionOf(row) };
  }

  history(): FleetHistory {
    const rows = this.storage.sql.exec<RevisionRow>("SELECT * FROM fleet_revision ORDER BY revision DESC").toArray();
    return {
      revision: rows[0]?.revision ?? 0,
      revisions: rows.map((row) => {
        const { set } = revisionOf(row);
        return { revision: row.revision, appliedAt: row.applied_at, change: row.change, policies: set.policies.length, bindings: set.bindings.length };
      }),
    };
  }
}
