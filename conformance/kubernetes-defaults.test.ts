/// <reference types="vite/client" />
// Kubernetes' own defaulting and admission-plugin tests, held against
// shared/apiserver (what `check` and `test` judge with): the cases of
// pkg/apis/{core,apps,batch,networking,storage}/v1/defaults_test.go and of
// plugin/pkg/admission/*/admission_test.go, transcribed as data under
// conformance/data/kubernetes-defaults/ (its README names each file and
// commit). Each case runs what its Go test runs: the API defaults of a round
// trip (scheme.Default, status included), or one admission plugin on the
// object as given. Every case must hold: there is no known-failure list.
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { admit, applyApiDefaults, applyStatusDefaults, clusterObjectsOf, Defaulter, gatesFor, PLUGIN_NAMES, type Json } from "../shared/apiserver/index.js";
import { parseVersion } from "../shared/cel/kubernetes/environment.js";

const FILES = import.meta.glob("./data/kubernetes-defaults/*.json", { import: "default", eager: true }) as Record<string, unknown>;

const caseSchema = z.strictObject({
  /** The upstream test function. */
  test: z.string(),
  name: z.string(),
  /** "defaults": the round trip's API defaults; a plugin's name: that plugin alone on CREATE. */
  run: z.union([z.literal("defaults"), z.enum(PLUGIN_NAMES as [string, ...string[]])]),
  /** The Kubernetes version whose feature gates the case assumes, when it sets one (MAJOR.MINOR). */
  version: z.optional(z.string()),
  object: z.record(z.string(), z.unknown()),
  /** The cluster objects the plugin's informers hold. */
  cluster: z.optional(z.array(z.record(z.string(), z.unknown()))),
  /** Dotted path → the exact value the Go test compares there (DeepEqual). */
  exact: z.optional(z.record(z.string(), z.unknown())),
  /** Dotted paths the Go test requires unset. */
  absent: z.optional(z.array(z.string())),
});
const fileSchema = z.strictObject({
  upstream: z.strictObject({
    repository: z.literal("kubernetes/kubernetes"),
    file: z.string(),
    /** The commit the file was read at; or, where the code index recorded none, `stored` says which copy it is. */
    commit: z.optional(z.string().check(z.regex(/^[0-9a-f]{40}$/))),
    stored: z.optional(z.string()),
    license: z.literal("Apache-2.0"),
  }).check(z.refine((upstream) => (upstream.commit === undefined) !== (upstream.stored === undefined), "give commit or stored")),
  cases: z.array(caseSchema).check(z.minLength(1)),
});
type Case = z.infer<typeof caseSchema>;

/** The value at a dotted path (`spec.containers.0.ports`), or undefined. */
function at(object: unknown, path: string): unknown {
  let node = object;
  for (const key of path.split(".")) node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

function run(test: Case): Json {
  if (test.run !== "defaults") return admit(test.object, { plugin: test.run as (typeof PLUGIN_NAMES)[number], cluster: clusterObjectsOf(test.cluster ?? []) }).object;
  const object = JSON.parse(JSON.stringify(test.object)) as Json;
  const version = test.version === undefined ? undefined : parseVersion(test.version);
  const d = new Defaulter();
  applyApiDefaults(object, String(object["apiVersion"]), String(object["kind"]), d, gatesFor(version));
  applyStatusDefaults(object, String(object["apiVersion"]), String(object["kind"]), d);
  return object;
}

const files = Object.entries(FILES)
  .sort(([a], [b]) => (a < b ? -1 : 1))
  .map(([path, data]) => ({ path: path.replace("./data/kubernetes-defaults/", ""), ...fileSchema.parse(data) }));

describe("Kubernetes' defaulting and admission-plugin tests, through shared/apiserver", () => {
  const counts: string[] = [];
  for (const file of files) {
    it(`${file.upstream.file}: ${file.cases.length} cases`, () => {
      const failed: string[] = [];
      for (const test of file.cases) {
        const got = run(test);
        for (const [path, value] of Object.entries(test.exact ?? {})) {
          try {
            expect(at(got, path)).toEqual(value);
          } catch {
            failed.push(`${test.test} "${test.name}": ${path} is ${JSON.stringify(at(got, path))}, upstream expects ${JSON.stringify(value)}`);
          }
        }
        for (const path of test.absent ?? []) if (at(got, path) !== undefined) failed.push(`${test.test} "${test.name}": ${path} is ${JSON.stringify(at(got, path))}, upstream expects it unset`);
      }
      counts.push(`${file.upstream.file}: ${file.cases.length - new Set(failed.map((line) => line.slice(0, line.indexOf(":")))).size} of ${file.cases.length}`);
      expect(failed).toEqual([]);
    });
  }

  it("every case asserts something, and the counts per upstream file are printed", () => {
    for (const file of files) for (const test of file.cases) expect(Object.keys(test.exact ?? {}).length + (test.absent ?? []).length, `${file.path}: ${test.name}`).toBeGreaterThan(0);
    console.log(`kubernetes defaults: ${files.reduce((sum, file) => sum + file.cases.length, 0)} cases in ${files.length} upstream files\n${counts.join("\n")}`);
    expect(counts).toHaveLength(files.length);
  });
});
