// `edgeadmit sync`: what the CronJob runs every minute. Builds from the
// cluster and pushes only when the function's copy differs or is getting old,
// so an unchanged cluster costs one GET and no write.
import { setFlagsFromString } from "node:v8";
import { publicKeyOf } from "../../shared/signing/index.js";
import { functionState, pushSnapshot, type StoredSnapshot } from "../client/index.js";
import { UnitFile } from "../client/units.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { releaseFreedMemory } from "../base/memory.js";
import { parseVerbArgs, type ParsedArgs } from "./args.js";
import type { CliIo } from "../base/io.js";
import { printLeaving } from "./leaving.js";
import {
  checkPushable,
  CLUSTER_FLAGS,
  leavingJson,
  PUSH_FLAGS,
  pushedJson,
  pushTarget,
  reportPolicies,
  sentLine,
  unitsFromCluster,
  type PushTarget,
} from "./snapshot.js";
import { OUTPUT_FLAG, outputOf, printData } from "./output-flag.js";
import type { Verb } from "./verb.js";

/**
 * Why to push, or undefined to skip. An unchanged snapshot is still re-pushed
 * once it is half as old as its maxAgeSeconds (or the registration's, when the
 * function says it is lower): the function judges staleness by the push time,
 * and an unchanged cluster must not look like a dead sync job. A copy another
 * key pushed counts for the function only while that key is registered, so
 * it is replaced by one this job's key signs.
 */
export function pushReason(stored: StoredSnapshot | undefined, hash: string, maxAgeSeconds: number, publicKey: string): string | undefined {
  if (!stored) return "the function holds no snapshot yet";
  if (stored.corrupt) return `the function's stored copy failed its integrity check (${stored.corrupt})`;
  if (stored.signedBy !== publicKey) return `the stored copy was pushed with ${stored.signedBy === null ? "an unrecorded key" : `another key (${stored.signedBy.slice(0, 20)}…)`}, not this job's`;
  if (stored.contentHash !== hash) return `content changed (was ${stored.contentHash.slice(0, 12)})`;
  const limit = Math.min(maxAgeSeconds, stored.maxAgeSeconds ?? maxAgeSeconds);
  if (stored.ageSeconds >= limit / 2) return `unchanged, but the stored copy is ${stored.ageSeconds}s old, at least half of maxAgeSeconds ${limit}`;
  return undefined;
}

/**
 * The cluster's snapshot as units in `units`, with what sync reads besides
 * (and reports: what leaves the cluster): the snapshot itself is never whole,
 * so what the push and the comparison hold is the units' names and hashes,
 * their bytes in `units`' file, not the objects they were cut from.
 */
async function encodedFromCluster(target: PushTarget, args: ParsedArgs, io: CliIo, units: UnitFile) {
  const { snapshot, streamed, finish } = await unitsFromCluster("sync", args, io, units);
  // Refused before asking the function anything: what would be pushed is wrong whatever it holds.
  checkPushable(target, snapshot, streamed);
  // The rest of the units as the function reads them: to an older release, nothing it would refuse (shared/version WRITTEN_FEATURES).
  const state = await functionState(target.endpoint, target.cluster, target.privateKeyPem);
  await finish(state.writes);
  return { generation: snapshot.generation, builtAt: snapshot.builtAt, maxAgeSeconds: snapshot.settings.maxAgeSeconds, leaving: leavingJson(snapshot, streamed), state };
}

export const sync: Verb = {
  name: "sync",
  summary: "build from the cluster and push when the function's copy differs (the CronJob)",
  usage: `edgeadmit sync --endpoint URL --cluster ID --key FILE [--context NAME] [--settings-namespace NS] [--allow-empty] [-o text|json|yaml]

Builds the snapshot from the cluster (as snapshot build --from-cluster), asks
the function what it holds and which release it is (GET
<URL>/v1/<ID>/snapshot; to an older function it sends only what that
release reads) and pushes only when
the content hash differs, when the stored copy's age reaches half of the
settings' maxAgeSeconds or of the registration's, whichever is lower (so an
unchanged cluster never turns stale), or when another key pushed it (after a
key rotation, the copy the old key pushed no longer counts). An
unchanged cluster therefore costs one GET and no write. A push sends only
the namespaces' shards (and the cluster-wide part) whose hash differs from
the stored ones, found by comparing bucket digests; every unit when the
function's copy is corrupt, or moved on before the push committed.
--settings-namespace defaults to ${JOB_NAMESPACE}. A snapshot with no objects
is not pushed unless --allow-empty (it would replace all the function knows).
Prints what leaves the cluster (each kind, the fields of it that travel, the
count of objects and their bytes, the policies that asked), then what went
on the wire: incremental or every unit, units, bodies and bytes sent, and
what the function stores in all; -o json prints all of it as one JSON
object on one line (-o yaml as one YAML document). A bound policy asking for what never leaves the cluster (a
Secret's data: docs/inventory.md) fails the sync, naming the policy and
the field, and nothing is pushed. The snapshot is made into units as the
cluster's lists come in, a namespace at a time, and the units' bytes wait in
a file in the temporary directory (TMPDIR, else /tmp) until they are sent, so
memory holds no more for a large cluster than for a small one; where that
directory cannot be written, they wait in memory, with a warning.

Example:
  edgeadmit sync --endpoint https://edgeadmit.example.com --cluster prod-eu --key /etc/edgeadmit/edgeadmit.key`,
  async run(argv, io) {
    const args = parseVerbArgs("sync", argv, { ...PUSH_FLAGS, ...CLUSTER_FLAGS, ...OUTPUT_FLAG });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    // V8 grows its young generation under a burst of short-lived objects, and a sync is one (every
    // page parsed, reduced to its facts, dropped): held at the size it has, the CronJob's peak is 30
    // to 40 MB lower (npm run bench, section 11; on Node 24 too, 100,000 applications with the
    // CronJob's environment: 199 and 202 MB with it, 227 and 235 without).
    setFlagsFromString("--semi-space-growth-factor=1");
    const target = await pushTarget("sync", args, io);
    const units = new UnitFile();
    try {
      if (units.inMemoryBecause) io.err(`warning: ${units.inMemoryBecause}: the snapshot's units are kept in memory, which takes about 200 bytes per application (docs/operations.md, "How big a cluster the job fits")\n`);
      return await syncWith(target, args, io, units);
    } finally {
      units.close();
    }
  },
};

/** A sync whose units go to `units`: build, compare, push. */
async function syncWith(target: PushTarget, args: ParsedArgs, io: CliIo, units: UnitFile): Promise<number> {
  const output = outputOf(args);
  const { generation, builtAt, maxAgeSeconds, leaving, state } = await encodedFromCluster(target, args, io, units);
  const encoded = units.sealed();
  // The pages and the builder are garbage now: their heap goes back to the OS before the push allocates outside it.
  releaseFreedMemory();
  const hash = encoded.digest;
  const stored = state.stored;
  const reason = pushReason(stored, hash, maxAgeSeconds, await publicKeyOf(target.privateKeyPem));
  if (reason === undefined) {
    // pushReason skips only when something is stored.
    if (output !== "text") printData(io, output, { pushed: false, generation: stored!.generation, contentHash: hash, ageSeconds: stored!.ageSeconds, ...leaving }, { oneLine: true });
    else {
      printLeaving(leaving.leaving, io.out);
      io.out(`unchanged: the function holds generation ${stored!.generation} with content ${hash.slice(0, 12)}, ${stored!.ageSeconds}s old; nothing pushed\n`);
    }
    return 0;
  }
  // The clock gives generations; one that went backwards must still push something newer.
  const pushing = { generation: stored && generation <= stored.generation ? stored.generation + 1 : generation, builtAt, encoded };
  // Only the units that changed go, unless the function's copy cannot serve as the base.
  const pushed = await pushSnapshot(target.endpoint, target.cluster, target.privateKeyPem, pushing, stored ? { against: stored } : {});
  // What left is said once it has left: a sync that fails says only why.
  if (output !== "text") printData(io, output, { pushed: true, reason, ...pushedJson(pushed), ...leaving }, { oneLine: true });
  else {
    printLeaving(leaving.leaving, io.out);
    io.out(`pushed generation ${pushed.stored.generation}: ${reason}; ${sentLine(pushed)}\n`);
  }
  reportPolicies(pushed.stored, io, output !== "text");
  return 0;
}
