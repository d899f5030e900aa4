// The SnapshotStore Durable Object's interface, in memory, for the function's
// code in Node (bench/app.ts): the same generation rules (a push stages under
// its generation and commits all at once; the previous generation stays
// readable), without SQLite. `keepBytes: false` keeps only each unit's hash
// and size, so a push's heap measures the function's side alone (in
// production the units live in the Durable Object, not in the isolate).
import { bucketDigest, bucketOf, CLUSTER_UNIT, rootDigest } from "../shared/snapshot/index.js";
import type { Commit, PushResult, PushSigner, SnapshotMeta, StagedUnit, UnitRead } from "../functions/store/index.js";

interface Stored {
  sha256: string;
  size: number;
  bytes?: Uint8Array;
}

export class MemoryStore {
  #meta: SnapshotMeta | null = null;
  #current = new Map<string, Stored>();
  #previous: { generation: number; units: Map<string, Stored> } | undefined;
  readonly #staged = new Map<number, { signedBy: string; units: Map<string, Stored> }>();
  /** Called at each store call with the stage it is at: the bench samples the heap there. */
  onCall: (() => void) | undefined;

  constructor(readonly keepBytes = true) {}

  head(): SnapshotMeta | null {
    this.onCall?.();
    return this.#meta && { ...this.#meta };
  }

  async readCluster(): Promise<{ meta: SnapshotMeta; unit: UnitRead } | null> {
    if (!this.#meta) return null;
    return { meta: { ...this.#meta }, unit: await this.readUnit(CLUSTER_UNIT, this.#meta.generation) };
  }

  async readUnit(name: string, generation: number, knownSha256?: string): Promise<UnitRead> {
    const units = generation === this.#meta?.generation ? this.#current : generation === this.#previous?.generation ? this.#previous.units : undefined;
    if (!units) return { status: "gone" };
    const unit = units.get(name);
    if (!unit) {
      const names = [...units.keys()].filter((n) => n !== CLUSTER_UNIT).sort();
      return { status: "absent", gap: [names.filter((n) => n < name).at(-1) ?? null, names.find((n) => n > name) ?? null] };
    }
    if (unit.sha256 === knownSha256) return { status: "same" };
    return { status: "ok", sha256: unit.sha256, bytes: unit.bytes! };
  }

  buckets(): { generation: number; buckets: Record<string, string> } | null {
    if (!this.#meta) return null;
    return { generation: this.#meta.generation, buckets: Object.fromEntries([...this.#digests()].map(([b, d]) => [String(b), d])) };
  }

  bucketUnits(bucket: number): { generation: number; units: Record<string, string> } | null {
    if (!this.#meta) return null;
    return { generation: this.#meta.generation, units: Object.fromEntries([...this.#current].filter(([name]) => bucketOf(name) === bucket).map(([name, unit]) => [name, unit.sha256])) };
  }

  #digests(units = this.#current): Map<number, string> {
    const grouped = new Map<number, Array<{ name: string; sha256: string }>>();
    for (const [name, unit] of units) grouped.set(bucketOf(name), [...(grouped.get(bucketOf(name)) ?? []), { name, sha256: unit.sha256 }]);
    return new Map([...grouped].map(([bucket, list]) => [bucket, bucketDigest(list)]));
  }

  push(generation: number, units: StagedUnit[], signer: PushSigner, commit?: Commit): PushResult {
    this.onCall?.();
    // A head whose signer is no longer registered is dropped, whatever the generations (functions/store/index.ts).
    if (this.#meta && (this.#meta.signedBy === undefined || !signer.current.includes(this.#meta.signedBy))) {
      this.#meta = null;
      this.#current = new Map();
      this.#previous = undefined;
      this.#staged.clear();
    }
    if (this.#meta && generation <= this.#meta.generation) return { ok: false, refusal: "stale", current: { ...this.#meta } };
    const held = this.#staged.get(generation);
    const staged = held?.signedBy === signer.key ? held.units : new Map<string, Stored>();
    this.#staged.set(generation, { signedBy: signer.key, units: staged });
    for (const unit of units) staged.set(unit.name, { sha256: unit.sha256, size: unit.bytes.length, ...(this.keepBytes ? { bytes: unit.bytes } : {}) });
    if (!commit) return { ok: true, staged: units.length };
    if (commit.base !== null && commit.base !== this.#meta?.generation) return { ok: false, refusal: "base", current: this.#meta && { ...this.#meta } };
    const next = commit.base === null ? new Map<string, Stored>() : new Map(this.#current);
    for (const name of commit.removed) next.delete(name);
    for (const [name, unit] of staged) next.set(name, unit);
    const digest = rootDigest(this.#digests(next));
    this.#staged.clear();
    if (digest !== commit.digest) return { ok: false, refusal: "mismatch", detail: `digest ${digest.slice(0, 12)} is not ${commit.digest.slice(0, 12)}` };
    if (this.#meta) this.#previous = { generation: this.#meta.generation, units: this.#current };
    this.#current = next;
    let bytes = 0;
    for (const unit of next.values()) bytes += unit.size;
    this.#meta = {
      generation,
      contentHash: digest,
      builtAt: commit.builtAt,
      pushedAt: commit.pushedAt,
      bytes,
      units: next.size,
      boundPolicies: commit.policies?.bound ?? this.#meta?.boundPolicies ?? 0,
      policyProblems: commit.policies?.problems ?? this.#meta?.policyProblems ?? [],
      signedBy: signer.key,
    };
    return { ok: true, staged: units.length, meta: { ...this.#meta } };
  }
}
