// Section: the sync job at cluster size. `edgeadmit sync` as the CronJob runs
// it (the bundle of infra/bundle/build.ts, as the image and the bundle
// component ship it), against the fake API server serving a cluster of N
// applications (their HelmReleases, PVCs and PVs made as pages ask for them,
// in storage key order; tenants, classes), pushing to the function in
// workerd: the first run sends every unit, the second finds nothing changed,
// the third one application moved to another class. Wall time and the
// process's peak resident memory (/usr/bin/time -v), to say what the
// CronJob's resources (infra/k8s/cronjob.yaml) carry, with the environment
// its container sets (NODE_OPTIONS, GLIBC_TUNABLES); and the unchanged run
// of the smaller cluster once more through bin/edgeadmit.mjs, as from a
// checkout.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import * as z from "zod/mini";
import { bundleCli } from "../infra/bundle/build.js";
import { DEFAULT_PAGE_SIZE } from "../infra/objects/cluster/paging.js";
import { startFakeApiServer } from "../test/node/support/fake-apiserver.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { startLocalWorker } from "../scripts/local-worker.js";
import type { KubeObject } from "../shared/snapshot/builder/index.js";
import { generateKeyPair } from "../shared/signing/index.js";
import { CLI, TIME, timed } from "./cli.js";
import { clusterShape, servedCluster } from "./cluster.js";
import { figure, type Section } from "./figures.js";
import { spread } from "./stats.js";

const SYNC_SIZES = [100_000, 1_000_000] as const;
/** The CronJob's limits (infra/k8s/cronjob.yaml): what a run must fit. */
export const JOB_MEMORY_MB = 256;
const JOB_DEADLINE_S = 50;

const cronJobSchema = z.looseObject({
  spec: z.looseObject({
    jobTemplate: z.looseObject({
      spec: z.looseObject({
        template: z.looseObject({
          spec: z.looseObject({ containers: z.array(z.looseObject({ env: z._default(z.array(z.looseObject({ name: z.string(), value: z.optional(z.string()) })), []) })) }),
        }),
      }),
    }),
  }),
});

/** The variables the sync CronJob's container sets to literal values (NODE_OPTIONS, GLIBC_TUNABLES): the job runs with them in the cluster, so it is measured with them. */
export function jobEnv(): Record<string, string> {
  const cronJob = cronJobSchema.parse(parse(readFileSync(join(PROJECT_ROOT, "infra", "k8s", "cronjob.yaml"), "utf8")));
  const env = cronJob.spec.jobTemplate.spec.template.spec.containers[0]?.env ?? [];
  return Object.fromEntries(env.flatMap(({ name, value }) => (value === undefined ? [] : [[name, value]])));
}

export async function syncScale(dir: string): Promise<Section> {
  const section: Section = { id: "sync", title: "11. The sync job at cluster size", figures: [], commands: [], notes: [] };
  if (!existsSync(join(PROJECT_ROOT, CLI)) || !existsSync(TIME)) {
    section.notes.push(`Not measured: ${existsSync(TIME) ? CLI : TIME} is missing.`);
    return section;
  }
  const key = await generateKeyPair();
  const keyFile = join(dir, "sync.key");
  writeFileSync(keyFile, key.privateKeyPem, { mode: 0o600 });
  const bundle = join(dir, "edgeadmit.mjs");
  writeFileSync(bundle, (await bundleCli()).js);
  const worker = await startLocalWorker({ clusters: Object.fromEntries(SYNC_SIZES.map((_, index) => [`bench-${index}`, { publicKey: key.publicKey, anonymous: true }])) });
  const env = jobEnv();
  try {
    for (const [index, applications] of SYNC_SIZES.entries()) {
      const cluster = servedCluster(clusterShape(applications));
      // A fresh cluster on the function: the first sync of each size finds nothing stored.
      const args = ["sync", "--endpoint", worker.url, "--cluster", `bench-${index}`, "--key", keyFile];
      await againstFakeCluster(cluster.objects, { pageSize: DEFAULT_PAGE_SIZE, generated: cluster.generated }, async () => {
        const first = await timed([bundle, ...args], env);
        const again = await timed([bundle, ...args], env);
        cluster.change(0);
        const changed = await timed([bundle, ...args], env);
        const label = `${applications.toLocaleString("en-US")} applications (${cluster.count.toLocaleString("en-US")} objects)`;
        for (const [run, measured] of [["first sync, every unit", first], ["unchanged re-sync", again], ["one application changed, incremental push", changed]] as const)
          section.figures.push(
            figure(`${label}: ${run}: wall`, "s", spread([measured.seconds]), { op: "<=", value: JOB_DEADLINE_S }),
            figure(`${label}: ${run}: CPU, user + system`, "s", spread([measured.cpuSeconds])),
            figure(`${label}: ${run}: peak RSS`, "MB", spread([measured.maxRssMb]), { op: "<=", value: JOB_MEMORY_MB }),
          );
        if (index === 0) section.figures.push(figure(`${label}: unchanged re-sync through bin/edgeadmit.mjs: peak RSS`, "MB", spread([(await timed([CLI, ...args])).maxRssMb])));
      });
    }
  } finally {
    await worker.stop();
  }
  section.commands.push(
    "node scripts/tsrun.mjs infra/bundle/build.ts --out edgeadmit.mjs   # the bundle the CronJob runs",
    `KUBECONFIG=<fake API server> ${Object.entries(env).map(([name, value]) => `${name}=${value} `).join("")}${TIME} -v node edgeadmit.mjs sync --endpoint <workerd> --cluster bench-<n> --key sync.key   # three times per size (the first sync, unchanged, one application changed), with the CronJob's environment`,
    `KUBECONFIG=<fake API server> ${TIME} -v node ${CLI} sync --endpoint <workerd> --cluster bench-0 --key sync.key   # once more, from the checkout, the smaller cluster`,
  );
  section.notes.push(
    `The goals are the CronJob's own limits (memory ${JOB_MEMORY_MB}Mi, activeDeadlineSeconds ${JOB_DEADLINE_S}); the API server is the in-process fake (test/node/support/fake-apiserver.ts, its HelmReleases, claims and volumes made as pages ask for them, bench/cluster.ts servedCluster), the function workerd on loopback, so the figures are the job's own work, without a real API server's latency, on an unlimited CPU (the CronJob has 500m: about twice its CPU time, at the least). The wall times include the fake API server and workerd working on the same cores, and whatever else the machine ran (the load average above); the CPU time is the job's alone.`,
    `${CLI} compiles the CLI with esbuild at start and loads @kubernetes/client-node whole; the bundle keeps only the parts the CLI imports: that is the difference between the two unchanged re-syncs of the smaller cluster, with the CronJob's environment on the bundle only.`,
  );
  return section;
}

/** Runs `run` with KUBECONFIG pointing at a fake API server holding `objects`, and puts both back after. */
export async function againstFakeCluster(objects: KubeObject[], options: Parameters<typeof startFakeApiServer>[1], run: () => Promise<void>): Promise<void> {
  const apiServer = await startFakeApiServer(objects, options);
  const previous = process.env.KUBECONFIG;
  process.env.KUBECONFIG = apiServer.kubeconfig;
  try {
    await run();
  } finally {
    process.env.KUBECONFIG = previous;
    await apiServer.stop();
  }
}
