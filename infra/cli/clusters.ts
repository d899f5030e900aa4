// `edgeadmit clusters check`: a CLUSTERS value checked with the function's own
// loader (shared/clusters), so what passes here loads there.
import { loadClusters, tokenDigestsOf } from "../../shared/clusters/index.js";
import { parseVerbArgs } from "./args.js";
import { readInput } from "../base/io.js";
import type { Verb } from "./verb.js";

export const clustersCheck: Verb = {
  name: "clusters check",
  summary: "check a CLUSTERS value as the function loads it: every unusable registration, and why",
  usage: `edgeadmit clusters check [FILE|-]

Reads a CLUSTERS value (JSON; a file, or stdin when FILE is - or absent) and
loads it as the function does. Prints each usable cluster and its credentials,
then each registration the function would disable, with the reason; exits 1
when any is unusable.

Check a value before it goes into a Worker secret, which cannot be read back.

Examples:
  edgeadmit clusters check clusters.json
  echo "$CLUSTERS" | edgeadmit clusters check -`,
  async run(argv, io) {
    const args = parseVerbArgs("clusters check", argv, {}, 1);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const file = args.positionals[0] ?? "-";
    const { clusters, problems } = await loadClusters(await readInput(file, io, "CLUSTERS file"));
    for (const cluster of clusters.values()) {
      const credentials = [
        `${cluster.keyCount} signing key${cluster.keyCount === 1 ? "" : "s"}`,
        tokenDigestsOf(cluster).length > 0 ? `${tokenDigestsOf(cluster).length} token hash${tokenDigestsOf(cluster).length === 1 ? "" : "es"}` : undefined,
        cluster.anonymous ? "anonymous reviews allowed (never on the internet)" : undefined,
        `withoutSnapshot ${cluster.withoutSnapshot}`,
        `maxAgeSeconds ${cluster.maxAgeSeconds}`,
      ].filter((part) => part !== undefined);
      io.out(`ok ${cluster.id}: ${credentials.join(", ")}\n`);
    }
    for (const problem of problems) io.out(`unusable ${problem.cluster ?? "(CLUSTERS)"}: ${problem.reason}\n`);
    if (clusters.size === 0 && problems.length === 0) io.out("no clusters registered\n");
    return problems.length > 0 || clusters.size === 0 ? 1 : 0;
  },
};
