// What an isolate holds of the fleet policy set: the revision in effect,
// decoded and ready (shared/fleet FleetPolicies), confirmed with one small
// `fleetSince` call to the registry at most every REFRESH_MS, as the registry
// directory is (functions/registry/cache.ts, whose timings it shares). The
// set itself crosses only when its revision changed. A fleet change is in
// effect in the isolate that applied it at the next review, and in every
// other within REFRESH_MS plus one round trip.
import { FleetPolicies, fleetSetSchema } from "../../shared/fleet/index.js";
import { REGISTRY_NAME, type Env } from "../config/index.js";
import { log } from "../log/index.js";
import { MAX_STALE_MS, REFRESH_MS, RegistryUnavailable, RETRY_MS, type Defer } from "../registry/cache.js";
import type { FleetSince } from "../registry/fleet.js";

/** The registry as the fleet cache reads it: the Durable Object's stub, or the benchmarks' twin. */
export interface FleetReader {
  fleetSince(since: number): Promise<FleetSince>;
}

export class FleetCache {
  private policies: FleetPolicies | undefined;
  private revision = 0;
  private checkedAt: number | undefined;
  private failedAt = -Infinity;
  private refreshing: Promise<void> | undefined;
  readonly stats = { refreshes: 0, loads: 0 };

  /** The fleet set in effect, or undefined when none is applied. Throws RegistryUnavailable when it was never read and cannot be. */
  async current(reader: () => FleetReader, now: number, defer?: Defer): Promise<FleetPolicies | undefined> {
    const checkedAt = this.checkedAt;
    if (checkedAt === undefined) {
      if (now - this.failedAt < RETRY_MS && this.revision === 0 && this.policies === undefined) throw new RegistryUnavailable("the last attempt to read the fleet set, less than a second ago, failed");
      await this.refresh(reader, now);
    } else if (now - checkedAt >= REFRESH_MS && now - this.failedAt >= RETRY_MS) {
      const refresh = this.refresh(reader, now);
      if (defer === undefined || now - checkedAt >= MAX_STALE_MS) await refresh;
      else defer(refresh);
    }
    return this.policies;
  }

  /** This isolate just changed the fleet: its next review reads the new revision first. */
  noteChanged(): void {
    this.checkedAt = undefined;
  }

  private refresh(reader: () => FleetReader, now: number): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const answer = await reader().fleetSince(this.revision);
        if (answer.stored) {
          // Stored by this function after the same checks: a set it cannot read is a bug of a new version, logged, never served half.
          const parsed = fleetSetSchema.safeParse(answer.stored.set);
          if (parsed.success) {
            this.policies = new FleetPolicies({ ...answer.stored, set: parsed.data });
            this.stats.loads++;
          } else log({ event: "config", reason: `fleet revision ${answer.revision} cannot be read by this version of the function; keeping revision ${this.revision}` });
        } else if (answer.revision === 0) this.policies = undefined;
        this.revision = this.policies?.stored.revision ?? answer.revision;
        this.checkedAt = now;
        this.stats.refreshes++;
      } catch (e) {
        this.failedAt = now;
        log({ event: "registry-unavailable", reason: `fleet: ${e instanceof Error ? e.message : String(e)}` });
        // With a set, keep serving it: the fleet changes nothing while the registry does not answer.
        if (this.checkedAt === undefined && this.policies === undefined) throw new RegistryUnavailable(e);
        this.checkedAt ??= now;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}

const caches = new WeakMap<object, FleetCache>();

/** This isolate's fleet cache for the registry `env` binds; undefined without the binding (no fleet then). */
export function fleetCacheOf(env: Env): { cache: FleetCache; reader: () => FleetReader } | undefined {
  const binding = env.REGISTRY;
  if (binding === undefined) return undefined;
  let cache = caches.get(binding);
  if (cache === undefined) caches.set(binding, (cache = new FleetCache()));
  // The stub's methods answer what the Durable Object's return, through RPC.
  return { cache, reader: () => binding.get(binding.idFromName(REGISTRY_NAME)) as unknown as FleetReader };
}
