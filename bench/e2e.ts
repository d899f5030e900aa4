// Section 3: end to end through workerd. The function (wrangler's local
// workerd, a signed snapshot pushed) and its no-op twin on loopback, loaded by
// autocannon in turns at 1, 10 and 50 connections.
import autocannon, { type Result } from "autocannon";
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pushSnapshot } from "../infra/client/index.js";
import { generateKeyPair } from "../shared/signing/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { startLocalWorker, type LocalWorker } from "../scripts/local-worker.js";
import { tokenHash } from "../shared/tokens/index.js";
import { BENCH_TOKEN } from "./app.js";
import { inMemoryEnv, throughApp, throughNoop } from "./app.js";
import { figure, goalsHold, type Figure, type Section } from "./figures.js";
import type { BuiltSnapshot } from "./snapshot.js";
import { quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";

const CONNECTIONS = [1, 10, 50] as const;
/** Short runs, many turns: on a shared machine, frequent alternation cancels drift better than long runs. */
const REPETITIONS = 5;
const SECONDS = 3;
const PATH = "/v1/demo/validate";
/** As the apiserver sends a review: JSON, with the cluster's bearer token (the function checks it on every request). */
const HEADERS = { "content-type": "application/json", authorization: `Bearer ${BENCH_TOKEN}` };

interface Target {
  name: "function" | "no-op";
  worker: LocalWorker;
}

/** Every request carries a fresh uid, as the apiserver's do; autocannon fills `[<id>]`. */
function withFreshUids(reviewText: string): string {
  const review = JSON.parse(reviewText) as { request: { uid: string } };
  review.request.uid = "[<id>]";
  return JSON.stringify(review);
}

async function post(url: string, body: string): Promise<{ status: number; review: { response?: { uid?: string; allowed?: boolean } } }> {
  const response = await fetch(url, { method: "POST", headers: HEADERS, body });
  return { status: response.status, review: (await response.json()) as { response?: { uid?: string; allowed?: boolean } } };
}

/** Both answer the review; the function really judges it (a pod without the class's nodeSelector is denied). */
async function checkTargets(targets: readonly Target[], reviewText: string): Promise<string> {
  const review = JSON.parse(reviewText) as { request: { uid: string; object: { spec: { nodeSelector?: unknown } } } };
  for (const target of targets) {
    const answer = await post(`${target.worker.url}${PATH}`, reviewText);
    if (answer.status !== 200 || answer.review.response?.allowed !== true || answer.review.response.uid !== review.request.uid)
      throw new Error(`${target.name} did not allow the benchmark review: ${answer.status} ${JSON.stringify(answer.review)}`);
  }
  delete review.request.object.spec.nodeSelector;
  const denied = await post(`${targets.find((t) => t.name === "function")!.worker.url}${PATH}`, JSON.stringify(review));
  if (denied.review.response?.allowed !== false) throw new Error(`the function allowed a pod without its class's nodeSelector: ${JSON.stringify(denied.review)}`);
  return "Checked before loading: both answer 200 allowed with the request's uid; the function denies the same pod without its class's nodeSelector (the snapshot is live).";
}

function load(target: Target, body: string, connections: number, seconds: number): Promise<Result> {
  return autocannon({ url: `${target.worker.url}${PATH}`, method: "POST", headers: HEADERS, body, idReplacement: true, connections, duration: seconds });
}

/** The same review through the function's Hono app and through the no-op's handler, in this process: the HTTP layer's share of the gap. */
async function inProcess(cluster: BuiltSnapshot, reviewText: string): Promise<Figure[]> {
  const env = await inMemoryEnv(cluster.snapshot);
  const samples = await interleave(
    [
      { name: "app", run: () => throughApp(reviewText, env) },
      { name: "noop", run: () => throughNoop(reviewText) },
    ],
    { rounds: 7, warmupMs: 600, batchMs: 80, minBatch: 500 },
  );
  const medians = (name: string) => samples[name]!.map((round) => quantile(round, 0.5) / 1e3);
  return [
    figure("in process: function's Hono app (app.fetch, in-memory store)", "µs", spread(medians("app"))),
    figure("in process: no-op handler", "µs", spread(medians("noop"))),
  ];
}

/** `inProcessUs`: the same review's median in process (section 1), to tell the review's share of the gap. */
export async function endToEnd(cluster: BuiltSnapshot, reviewText: string, reviewLabel: string, inProcessUs: number, dir: string): Promise<Section> {
  const snapshotJson = cluster.json;
  const layers = await inProcess(cluster, reviewText);
  const key = await generateKeyPair();
  const fn = await startLocalWorker({ clusters: { demo: { publicKey: key.publicKey, tokenHashes: [await tokenHash(BENCH_TOKEN)] } } });
  const noop = await startLocalWorker({ clusters: {}, entry: "bench/noop-worker.ts" });
  const targets: Target[] = [
    { name: "function", worker: fn },
    { name: "no-op", worker: noop },
  ];
  try {
    await pushSnapshot(fn.url, "demo", key.privateKeyPem, cluster.snapshot);
    const check = await checkTargets(targets, reviewText);
    const body = withFreshUids(reviewText);
    const bodyFile = join(dir, "review.json");
    writeFileSync(bodyFile, body);

    for (const target of targets) await load(target, body, 10, 2); // warm-up: JIT, connection pools

    const runs = new Map<string, Result[]>();
    const failures: string[] = [];
    for (let rep = 0; rep < REPETITIONS; rep++) {
      for (const connections of CONNECTIONS) {
        for (const target of rep % 2 === 0 ? targets : [...targets].reverse()) {
          const result = await load(target, body, connections, SECONDS);
          if (result.errors + result.timeouts + result.non2xx > 0)
            failures.push(`${target.name} c=${connections}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`);
          const keyOf = `${target.name}/${connections}`;
          runs.set(keyOf, [...(runs.get(keyOf) ?? []), result]);
        }
      }
    }

    const section: Section = {
      id: "end-to-end",
      title: "3. End to end through workerd",
      figures: [],
      commands: [
        `startLocalWorker({ clusters: { demo } }) → ${fn.url}   # functions/index.ts in workerd via wrangler unstable_dev, as npm start`,
        `pushSnapshot(url, "demo", key, snapshot)   # the 1,000-application snapshot, signed`,
        `startLocalWorker({ entry: "bench/noop-worker.ts" }) → ${noop.url}   # the no-op twin`,
        ...CONNECTIONS.map(
          (c) => `npx autocannon -c ${c} -d ${SECONDS} -m POST -H content-type=application/json -H "authorization=Bearer <token>" -i ${relative(PROJECT_ROOT, bodyFile)} --idReplacement <url>${PATH}`,
        ),
      ],
      notes: [
        `Body: the ${reviewLabel} review (uid replaced per request). Snapshot pushed signed: ${(Buffer.byteLength(snapshotJson) / 1024).toFixed(0)} KB.`,
        `${REPETITIONS} repetitions × ${CONNECTIONS.length} connection counts × 2 targets, ${SECONDS} s each, the target order flipping every repetition; autocannon runs in the orchestrator's process on the same 2 cores as workerd.`,
        "startLocalWorker serves through wrangler's dev ProxyWorker (a second workerd in front of the worker's own), for the function and the no-op alike: the hop costs both the same, so the ratio is fair, but it adds a fixed cost to both and so makes the ratio less sensitive than a direct measurement would be.",
        check,
        "autocannon records latency in whole milliseconds, so the p99 figures are as coarse as that.",
        "In process, Node runs crypto.subtle.digest (the bearer token's SHA-256) on its thread pool, which is most of the Hono app's figure above the review; workerd computes it on the request's own thread, so that share does not carry over to workerd.",
        ...(failures.length > 0 ? [`Failed requests: ${failures.join("; ")}`] : ["No errors, timeouts or non-2xx answers in any run."]),
      ],
    };
    section.figures.push(...layers);
    for (const connections of CONNECTIONS) {
      const fnRuns = runs.get(`function/${connections}`)!;
      const noopRuns = runs.get(`no-op/${connections}`)!;
      section.figures.push(
        figure(`c=${connections}: throughput function / no-op`, "×", spread(fnRuns.map((r, i) => r.requests.average / noopRuns[i]!.requests.average)), { op: ">=", value: 0.9 }),
        figure(`c=${connections}: function throughput`, "req/s", spread(fnRuns.map((r) => r.requests.average))),
        figure(`c=${connections}: no-op throughput`, "req/s", spread(noopRuns.map((r) => r.requests.average))),
        figure(`c=${connections}: function p99 latency`, "ms", spread(fnRuns.map((r) => r.latency.p99))),
        figure(`c=${connections}: no-op p99 latency`, "ms", spread(noopRuns.map((r) => r.latency.p99))),
      );
    }
    if (!goalsHold(section)) section.biggestCost = endToEndCost(section, inProcessUs);
    return section;
  } finally {
    await Promise.allSettled(targets.map((t) => t.worker.stop()));
  }
}

/** 1/throughput is the time of one request: its latency at one connection, its CPU time once the 2 shared cores are saturated. */
function endToEndCost(section: Section, inProcessUs: number): string {
  const median = (name: string) => section.figures.find((f) => f.name === name)!.value.median;
  const failing = CONNECTIONS.filter((c) => section.figures.find((f) => f.name === `c=${c}: throughput function / no-op`)!.pass === false);
  const gaps = failing.map((c) => {
    const ratio = section.figures.find((f) => f.name === `c=${c}: throughput function / no-op`)!.value;
    const extraUs = (1 / ratio.median - 1) * (1e6 / median(`c=${c}: no-op throughput`));
    const what = c === 1 ? "of latency, one request at a time" : "of CPU, the cores being saturated";
    return `at c=${c} the function reaches ${ratio.median.toFixed(2)}× the no-op's throughput (runs ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}), about ${extraUs.toFixed(0)} µs more per request ${what}`;
  });
  const app = median("in process: function's Hono app (app.fetch, in-memory store)");
  const noop = median("in process: no-op handler");
  return `End to end: ${gaps.join("; ")}. In process the function's Hono app takes ${app.toFixed(0)} µs per review against the no-op handler's ${noop.toFixed(0)} µs: the review itself (decode, policies, encode) is ${inProcessUs.toFixed(0)} µs of the app's ${app.toFixed(0)} µs, the rest Hono's routing, bodyLimit, the cluster lookup, the snapshot cache and the Request/Response work the no-op does too. What the end-to-end gap has beyond the in-process one is workerd's own share and the noise of a shared 2-core machine, which the min–max shows.`;
}
