// Section: hostile inventory objects (issue 23). The index holds references,
// so its bytes grow with the number of indexed values, not with values ×
// object size: bytes per indexed value with 10 and with 10,000 values on one
// Ingress, and their ratio (goal ≤ 1.2, linear). The 600-host Ingress whose
// hosts share one bucket (a 12.8 MiB bucket before) is left out, named. And
// `edgeadmit sync` as the CronJob runs it (the bundle), against the fake API
// server holding a 1,000-application cluster, the unique-host policy and the
// 107 KB Ingress with 3,000 hosts (477 MB peak RSS before), then the
// crowded Ingress besides: the job's peak RSS against its 256 Mi.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleCli } from "../infra/bundle/build.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { startLocalWorker } from "../scripts/local-worker.js";
import { buildSnapshot, type KubeObject } from "../shared/snapshot/builder/index.js";
import { encodeSnapshot } from "../shared/snapshot/index.js";
import { generateKeyPair } from "../shared/signing/index.js";
import { collidingHosts, ingressWithHosts, spreadHosts, uniqueHostPolicy } from "../test/support/ingress.js";
import { CLI, TIME, timed } from "./cli.js";
import { clusterObjects, clusterShape } from "./cluster.js";
import { figure, type Section } from "./figures.js";
import { exact, spread } from "./stats.js";
import { againstFakeCluster, JOB_MEMORY_MB, jobEnv } from "./sync.js";

const VALUES = [10, 10_000] as const;

/** The units of the snapshot of `objects` with the unique-host policy: the index buckets' bytes, and the largest unit's. */
async function unitBytes(objects: KubeObject[]) {
  const built = buildSnapshot([...uniqueHostPolicy(), ...objects], { generation: 1, builtAt: new Date().toISOString() });
  const { units } = await encodeSnapshot(built.snapshot);
  const index = units.filter((unit) => unit.name.startsWith("inventory-index/")).reduce((sum, unit) => sum + unit.bytes.length, 0);
  return { index, largest: Math.max(...units.map((unit) => unit.bytes.length)), problems: built.problems };
}

export async function hostileInventory(dir: string): Promise<Section> {
  const section: Section = { id: "hostile-inventory", title: "12. Hostile inventory objects", figures: [], commands: [], notes: [] };

  const perValue: number[] = [];
  for (const values of VALUES) {
    const { index } = await unitBytes([ingressWithHosts("tenant-a", "web", spreadHosts(values))]);
    perValue.push(index / values);
    section.figures.push(figure(`index bytes per indexed value, ${values.toLocaleString("en-US")} values on one Ingress`, "B", exact(index / values)));
  }
  section.figures.push(figure(`index bytes per value: ${VALUES[1].toLocaleString("en-US")} values / ${VALUES[0]} values`, "×", exact(perValue[1]! / perValue[0]!), { op: "<=", value: 1.2 }));

  const crowded = ingressWithHosts("tenant-a", "crowded", collidingHosts(600));
  const { largest, problems } = await unitBytes([crowded]);
  section.figures.push(figure("600 hosts in one bucket (21.6 KB Ingress): largest unit", "KB", exact(largest / 1000)));
  section.notes.push(`The 600-host Ingress is left out of the inventory, named: "${problems[0]?.split("; the policies")[0]}".`);

  if (!existsSync(join(PROJECT_ROOT, CLI)) || !existsSync(TIME)) {
    section.notes.push(`Sync not measured: ${existsSync(TIME) ? CLI : TIME} is missing.`);
    return section;
  }
  const key = await generateKeyPair();
  const keyFile = join(dir, "sync.key");
  writeFileSync(keyFile, key.privateKeyPem, { mode: 0o600 });
  const bundle = join(dir, "edgeadmit.mjs");
  writeFileSync(bundle, (await bundleCli()).js);
  // 24-character hosts: about 107 KB of Ingress, as the issue measured it.
  const big = ingressWithHosts("tenant-a", "big", spreadHosts(3_000, "tenant.example.io"));
  const worker = await startLocalWorker({ clusters: { bench: { publicKey: key.publicKey, anonymous: true } } });
  try {
    const cases: Array<[string, KubeObject[]]> = [
      [`the ${(JSON.stringify(big).length / 1000).toFixed(0)} KB Ingress with 3,000 hosts`, [big]],
      ["the 3,000-host Ingress and the 600-host crowded one", [big, crowded]],
    ];
    for (const [label, ingresses] of cases) {
      await againstFakeCluster([...clusterObjects(clusterShape(1_000)), ...uniqueHostPolicy(), ...ingresses], undefined, async () => {
        const run = await timed([bundle, "sync", "--endpoint", worker.url, "--cluster", "bench", "--key", keyFile], jobEnv());
        section.figures.push(
          figure(`sync of 1,000 applications and ${label}: peak RSS`, "MB", spread([run.maxRssMb]), { op: "<=", value: JOB_MEMORY_MB }),
          figure(`sync of 1,000 applications and ${label}: wall`, "s", spread([run.seconds])),
        );
      });
    }
  } finally {
    await worker.stop();
  }
  section.commands.push(
    "in process: buildSnapshot + encodeSnapshot of the unique-host policy and one Ingress (test/support/ingress.ts), the index buckets' bytes",
    `KUBECONFIG=<fake API server> <the CronJob's NODE_OPTIONS and GLIBC_TUNABLES> ${TIME} -v node edgeadmit.mjs sync --endpoint <workerd> --cluster bench --key sync.key   # each case, every unit pushed`,
  );
  section.notes.push(
    "Before (issue 23): each index bucket held the whole projected object, so one 21.6 KB Ingress with 600 colliding hosts made a 12.8 MiB bucket that no push body could carry, and the 3,000-host Ingress a 306 MiB snapshot pushed at 477 MB peak RSS.",
  );
  return section;
}
