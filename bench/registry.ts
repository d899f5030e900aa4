// Section 9: the cluster registry at fleet size. Does a lookup cost more with
// 10,000 registered clusters than with 10, and what does an isolate keep?
// The function's own code (functions/config clusterOf, the Hono app) runs in
// process against an in-memory twin of the ClusterRegistry Durable Object,
// answering the same two calls an isolate makes (changesSince, get).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { app } from "../functions/app.js";
import { clusterOf, type Env } from "../functions/config/index.js";
import { DEFAULT_CACHE_ENTRIES, REFRESH_MS, type RegistryReader } from "../functions/registry/cache.js";
import type { DirectoryDelta, StoredRegistration } from "../functions/registry/index.js";
import { DEFAULT_MAX_SNAPSHOT_AGE_SECONDS, type NormalRegistration } from "../shared/clusters/index.js";
import { generateKeyPair, importPrivateKey, PUBLIC_KEY_PREFIX, signRequest, toBase64 } from "../shared/signing/index.js";
import { MAX_OPERATOR_KEYS } from "../shared/governance/index.js";
import { tokenHash } from "../shared/tokens/index.js";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { figure, type Section } from "./figures.js";
import { quantile, spread } from "./stats.js";
import { interleave } from "./timing.js";

const run = promisify(execFile);

const REGISTRY_SIZES = [10, 10_000] as const;
const CHILD_RUNS = 3;
const CHILD_COMMAND = "node --expose-gc scripts/tsrun.mjs bench/registry-child.ts 10000";

export interface Fleet {
  ids: string[];
  tokens: string[];
  registry: RegistryReader;
}

const idOf = (i: number) => `cluster-${String(i).padStart(5, "0")}`;
/** The apiserver token of cluster `i`: not secret, only distinct. */
const tokenOf = (i: number) => `edgeadmit_bench-${String(i).padStart(27, "0")}`;

/**
 * `count` registrations (a real Ed25519 key and one token hash each) behind
 * the two calls an isolate makes. Answers are copied, as RPC copies them, so
 * what the isolate keeps is its own.
 */
export async function fleet(count: number): Promise<Fleet> {
  const stored = new Map<string, StoredRegistration>();
  const ids: string[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const raw = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
    const registration: NormalRegistration = { publicKey: [`${PUBLIC_KEY_PREFIX}${toBase64(raw)}`], tokenHashes: [await tokenHash(tokenOf(i))], withoutSnapshot: "FailOpen", maxAgeSeconds: DEFAULT_MAX_SNAPSHOT_AGE_SECONDS };
    ids.push(idOf(i));
    tokens.push(tokenOf(i));
    stored.set(idOf(i), { cluster: idOf(i), revision: 1, registration, updatedAt: Date.now() });
  }
  const registry: RegistryReader = {
    changesSince: async (since): Promise<DirectoryDelta> =>
      structuredClone(since === 1 ? { revision: 1, full: false, ids: [], revisions: [], removed: [] } : { revision: 1, full: true, ids, revisions: ids.map(() => 1), removed: [] }),
    get: async (cluster) => structuredClone(stored.get(cluster) ?? null),
  };
  return { ids, tokens, registry };
}

/** The Env an isolate sees: no CLUSTERS, the fleet in its registry, no snapshot stored for anyone. */
function envOf(registry: RegistryReader): Env {
  const namespace = { idFromName: (name: string) => name, get: () => registry };
  const store = { idFromName: (name: string) => name, get: () => ({ head: async () => null }) };
  return { CLUSTERS: "{}", REGISTRY: namespace as unknown as Env["REGISTRY"], SNAPSHOTS: store as unknown as Env["SNAPSHOTS"] };
}

/** GET …/snapshot by the cluster's apiserver: the reviewer's lookup and token check, then a store that holds nothing (404). */
async function authenticated(env: Env, id: string, token: string, expected: number): Promise<number> {
  const response = await app.fetch(new Request(`http://edgeadmit.bench/v1/${id}/snapshot`, { headers: { authorization: `Bearer ${token}` } }), env);
  if (response.status !== expected) throw new Error(`GET /v1/${id}/snapshot answered ${response.status}, expected ${expected}: ${await response.text()}`);
  return (await response.text()).length;
}

interface Heap {
  directoryBytes: number;
  totalBytes: number;
  coldDirectoryMs: number;
  fillMs: number;
  clusters: number;
}

async function childHeap(): Promise<Heap> {
  const { stdout } = await run(process.execPath, ["--expose-gc", join(PROJECT_ROOT, "scripts/tsrun.mjs"), "bench/registry-child.ts", String(REGISTRY_SIZES.at(-1))], { cwd: PROJECT_ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Heap;
}

/** Operator keys added in the registry for the operator-request figure: the registry's limit. */
const OPERATOR_KEYS_ADDED = MAX_OPERATOR_KEYS;

/** Median µs per signed GET /v1/registry/operators, with 1 trusted key and with `added` more, each signed by the last key trusted. */
async function operatorRequests(added: number): Promise<{ one: ReturnType<typeof spread>; many: ReturnType<typeof spread> }> {
  const pairs = await Promise.all(Array.from({ length: added + 1 }, () => generateKeyPair()));
  const envWith = (keys: typeof pairs): Env => {
    const twin = { operatorKeys: async () => structuredClone({ added: keys.slice(1).map((pair) => pair.publicKey), revoked: [] }) };
    return { CLUSTERS: "{}", OPERATOR_KEYS: keys[0]!.publicKey, REGISTRY: { idFromName: (name: string) => name, get: () => twin } as unknown as Env["REGISTRY"], SNAPSHOTS: undefined as unknown as Env["SNAPSHOTS"] };
  };
  const call = async (env: Env, pem: string) => {
    const path = "/v1/registry/operators";
    const headers = await signRequest(await importPrivateKey(pem), "GET", path, new Uint8Array(), Math.floor(Date.now() / 1000), "operator");
    const response = await app.fetch(new Request(`http://edgeadmit.bench${path}`, { headers }), env);
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.text()).length;
  };
  const [one, many] = [envWith(pairs.slice(0, 1)), envWith(pairs)];
  const samples = await interleave(
    [
      { name: "one", run: () => call(one, pairs[0]!.privateKeyPem) },
      { name: "many", run: () => call(many, pairs.at(-1)!.privateKeyPem) },
    ],
    { rounds: 5, warmupMs: 500, batchMs: 100, minBatch: 50 },
  );
  const median = (name: string) => spread(samples[name]!.map((round) => quantile(round, 0.5) / 1e3));
  return { one: median("one"), many: median("many") };
}

export async function registryScale(): Promise<Section> {
  const en = (n: number) => n.toLocaleString("en");
  const [small, large] = await Promise.all(REGISTRY_SIZES.map((count) => fleet(count)));
  const envs = [envOf(small!.registry), envOf(large!.registry)] as const;
  const fleets = [small!, large!] as const;
  // Warm: every registration of both fleets loaded, as in an isolate that has served each cluster once.
  for (const [k, f] of fleets.entries()) for (const id of f.ids) if (!(await clusterOf(envs[k]!, id))) throw new Error(`${id} is not registered`);

  const contenders = REGISTRY_SIZES.flatMap((size, k) => {
    const env = envs[k]!;
    const { ids, tokens } = fleets[k]!;
    let looked = 0;
    let requested = 0;
    return [
      { name: `lookup ${size}`, run: async () => (await clusterOf(env, ids[looked++ % size]!))?.id.length ?? 0 },
      {
        name: `request ${size}`,
        run: () => {
          const i = requested++ % size;
          return authenticated(env, ids[i]!, tokens[i]!, 404);
        },
      },
    ];
  });
  // The two refusals an outsider can provoke, which must cost alike: a registered cluster with a wrong token, an id nobody registered.
  let probe = 0;
  contenders.push(
    { name: "wrong token", run: () => authenticated(envs[1], large!.ids[probe++ % large!.ids.length]!, tokenOf(-1), 401) },
    { name: "unknown id", run: () => authenticated(envs[1], `unknown-${probe++ % 100_000}`, tokenOf(-1), 401) },
  );
  // Refusals are logged; the log line's cost is the same for both and not what is measured.
  const warn = console.warn;
  console.warn = () => {};
  let samples: Awaited<ReturnType<typeof interleave>>;
  try {
    samples = await interleave(contenders, { rounds: 9, warmupMs: 1_200, batchMs: 100, minBatch: 2_000 });
  } finally {
    console.warn = warn;
  }
  const medians = (name: string) => samples[name]!.map((round) => quantile(round, 0.5) / 1e3);
  const ratio = (a: string, b: string) => spread(medians(a).map((m, i) => m / medians(b)[i]!));

  const section: Section = {
    id: "registry",
    title: "9. Cluster registry at fleet size, in process",
    figures: [],
    commands: [`npm run bench -- --only registry`, `${CHILD_COMMAND}   # ${CHILD_RUNS} fresh processes`],
    notes: [],
  };
  for (const size of REGISTRY_SIZES) section.figures.push(figure(`${en(size)} clusters: authenticated request through the app, median`, "µs", spread(medians(`request ${size}`))));
  section.figures.push(figure("registry lookup as a request pays it: request cost 10,000 / 10 clusters", "×", ratio(`request ${REGISTRY_SIZES[1]}`, `request ${REGISTRY_SIZES[0]}`), { op: "<=", value: 1.1 }));
  for (const size of REGISTRY_SIZES) section.figures.push(figure(`${en(size)} clusters: the lookup alone (clusterOf), median`, "µs", spread(medians(`lookup ${size}`))));
  section.figures.push(figure("the lookup alone, 10,000 / 10 clusters", "×", ratio(`lookup ${REGISTRY_SIZES[1]}`, `lookup ${REGISTRY_SIZES[0]}`)));
  section.figures.push(figure("refusal of an unknown id / of a wrong token (10,000 clusters)", "×", ratio("unknown id", "wrong token")));

  // An operator's request: the trusted keys read from the registry and its signature checked among them (the root set and every key added).
  const operator = await operatorRequests(OPERATOR_KEYS_ADDED);
  section.figures.push(
    figure(`operator request, ${OPERATOR_KEYS_ADDED + 1} trusted keys, signed by the last: GET /v1/registry/operators through the app, median`, "µs", operator.many),
    figure("the same with 1 trusted key, median", "µs", operator.one),
  );
  section.notes.push(
    `An operator's request reads the trusted operator keys from the registry (an in-memory twin here) and verifies its signature against each (Ed25519, the root set and the ${OPERATOR_KEYS_ADDED} keys added, the registry's limit being ${MAX_OPERATOR_KEYS}); a review never does either: the authenticated request above is a review's path, and its figure is the same as before operator keys moved into the registry.`,
  );

  const heaps: Heap[] = [];
  for (let i = 0; i < CHILD_RUNS; i++) heaps.push(await childHeap());
  const size = en(heaps[0]!.clusters);
  const mb = (pick: (h: Heap) => number) => spread(heaps.map((h) => pick(h) / 2 ** 20));
  section.figures.push(
    figure(`${size} clusters: registry memory per isolate (directory + every registration)`, "MB", mb((h) => h.totalBytes)),
    figure(`${size} clusters: of which the directory of ids`, "MB", mb((h) => h.directoryBytes)),
    figure("per registration held", "bytes", spread(heaps.map((h) => (h.totalBytes - h.directoryBytes) / h.clusters))),
    figure(`at the default capacity (${en(DEFAULT_CACHE_ENTRIES)} registrations), at most`, "MB", mb((h) => h.directoryBytes * (DEFAULT_CACHE_ENTRIES / h.clusters) + ((h.totalBytes - h.directoryBytes) / h.clusters) * DEFAULT_CACHE_ENTRIES)),
    figure(`${size} clusters: cold isolate, directory read and indexed`, "ms", spread(heaps.map((h) => h.coldDirectoryMs))),
  );
  section.notes.push(
    `Requests go round robin over every cluster of the fleet (10 or 10,000), both fleets loaded in the same process, batches taking turns (bench/timing.ts); the directory is refreshed every ${REFRESH_MS / 1000} s of the run, as in an isolate. The request is GET /v1/<cluster>/snapshot with the cluster's token through the Hono app (routing, the reviewer's lookup, SHA-256 of the token and the constant-time compare), a store that holds nothing answering 404: the goal is judged on it. The lookup alone is clusterOf (CLUSTERS first, then one Map lookup in the isolate's directory, which holds the registration): the same work at either size, a fraction of a microsecond; at 10,000 clusters taken in turn its entries are no longer in the CPU's nearest caches, which is the difference, and which a request does not notice.`,
    "The refusals: the same request with a wrong token to a registered cluster, and to an id nobody registered; both 401, both after a SHA-256 and a constant-time compare (a decoy digest for the unknown id), neither asking the registry.",
    `Memory: heapUsed + external after two forced GCs, in a fresh Node process per run: first with the directory of ${size} ids loaded, then with every registration fetched (an Ed25519 CryptoKey and one token digest each). The in-memory registry copies its answers as RPC does. Capacity is REGISTRY_CACHE_ENTRIES (default ${en(DEFAULT_CACHE_ENTRIES)}); the default-capacity figure scales the directory and the per-registration cost to ${en(DEFAULT_CACHE_ENTRIES)} clusters. Node's CryptoKey, not workerd's: the order of magnitude, not the byte.`,
  );
  return section;
}
