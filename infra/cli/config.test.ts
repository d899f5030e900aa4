// `edgeadmit config check`: wrangler.toml checked offline, as the deploy and
// the function will read it (exact lines and exit codes).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { runCli } from "../../test/node/support/test-io.js";

const ROOT = join(__dirname, "..", "..");
const check = (toml: string, ...flags: string[]) => runCli(["config", "check", "-f", "-", ...flags], toml);

const BINDINGS = (env: string) => `[[${env}durable_objects.bindings]]
name = "SNAPSHOTS"
class_name = "SnapshotStore"
[[${env}durable_objects.bindings]]
name = "REGISTRY"
class_name = "ClusterRegistry"
`;
const MIGRATIONS = `[[migrations]]
tag = "v1"
new_sqlite_classes = ["SnapshotStore"]
[[migrations]]
tag = "v2"
new_sqlite_classes = ["ClusterRegistry"]
`;
const TOP = `name = "edgeadmit"\nmain = "functions/index.ts"\ncompatibility_date = "2026-04-26"\n`;

describe("edgeadmit config check", () => {
  it("passes the repository's wrangler.toml, saying where the Worker answers and that nobody can change its registry yet", async () => {
    expect(await runCli(["config", "check", "-f", join(ROOT, "wrangler.toml")])).toEqual({
      code: 0,
      stdout: [
        "deploys as the Worker edgeadmit",
        "answers on https://edgeadmit.<your account's workers.dev subdomain>",
        "warning: vars.OPERATOR_KEYS is empty: nobody can register a cluster in the registry (edgeadmit operator keygen; docs/operations.md, Set up the operator key)",
        `${join(ROOT, "wrangler.toml")} (top level): ok, 1 warning`,
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("checks an environment on its own: its bindings and vars, a real operator key, a custom domain", async () => {
    const { publicKey } = await generateKeyPair();
    const toml = `${TOP}${MIGRATIONS}[env.production]\nroutes = [{ pattern = "edgeadmit.example.com", custom_domain = true }]\n[env.production.vars]\nOPERATOR_KEYS = "${publicKey}"\n${BINDINGS("env.production.")}`;
    expect(await check(toml, "--env", "production")).toEqual({
      code: 0,
      stdout: [
        "deploys as the Worker edgeadmit-production",
        "answers on https://edgeadmit-production.<your account's workers.dev subdomain>",
        "answers on https://edgeadmit.example.com (custom domain)",
        "warning: [env.production] vars: no CLUSTERS: fine when it is a secret (wrangler secret put CLUSTERS --env production) or the registry holds every cluster",
        "<stdin> (env production): ok, 1 warning",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("names what would break the deploy or the function: exit 1", async () => {
    // docs/operations.md's environment example, placeholders and all, with a binding left out and a misspelled var.
    const toml = `${TOP}[[migrations]]\ntag = "v1"\nnew_classes = ["SnapshotStore"]\n[env.staging]\nworkers_dev = false\n[env.staging.vars]\nCLUSTERS = '{"staging-eu": {"publicKey": "ed25519:…", "tokenHashes": ["sha256:…"]}}'\nOPERATOR_KEYS = "ed25519:…"\nSNAPSHOT_CACHE = "64"\nLOG_REVIEWS = "yes"\n[[env.staging.durable_objects.bindings]]\nname = "SNAPSHOTS"\nclass_name = "SnapshotStore"\n`;
    expect(await check(toml, "--env", "staging")).toEqual({
      code: 1,
      stdout: [
        "deploys as the Worker edgeadmit-staging",
        "warning: [env.staging] durable_objects.bindings: no REGISTRY (class ClusterRegistry): no cluster registry and no fleet: only CLUSTERS registers clusters (README, Deploy)",
        "warning: [env.staging] vars.SNAPSHOT_CACHE: the function reads no such var (it reads CLUSTERS, OPERATOR_KEYS, SNAPSHOT_CACHE_MB, REGISTRY_CACHE_ENTRIES, LOG_REVIEWS)",
        "problem: migrations: SnapshotStore is in new_classes, which makes a key-value storage class; it runs SQL: new_sqlite_classes",
        "problem: [env.staging] vars.CLUSTERS holds a placeholder (…): put each cluster's real key and token hash (edgeadmit keygen, edgeadmit token)",
        "problem: [env.staging] vars.OPERATOR_KEYS entry 1 is a placeholder: put the operator's public key (edgeadmit operator keygen prints it)",
        'problem: [env.staging] vars.LOG_REVIEWS is "all" or unset, not "yes"',
        "problem: [env.staging] workers_dev = false and no route or custom domain: the Worker answers nowhere",
        "<stdin> (env staging): 5 problems: fix before wrangler deploy",
        "",
      ].join("\n"),
      stderr: "",
    });
    const noBinding = await check(`${TOP}${MIGRATIONS}[env.prod.vars]\nCLUSTERS = "{}"\n`, "--env", "prod");
    expect(noBinding.stdout).toContain(
      "problem: [env.prod] durable_objects.bindings: no SNAPSHOTS (class SnapshotStore), where snapshots are stored: environments do not inherit Durable Object bindings, repeat it here\n",
    );
    const noMigration = await check(`${TOP}${BINDINGS("")}[[migrations]]\ntag = "v1"\nnew_sqlite_classes = ["SnapshotStore"]\n`);
    expect(noMigration.stdout).toContain('problem: migrations: no migration creates ClusterRegistry (new_sqlite_classes = ["ClusterRegistry"] under a new tag)\n');
    const route = await check(`${TOP}routes = [{ pattern = "example.com/edgeadmit/*", zone_name = "example.com" }, "edgeadmit.example.com/*"]\n${BINDINGS("")}${MIGRATIONS}`);
    expect(route.stdout.split("\n").filter((line) => line.includes("route"))).toEqual([
      "answers on the route example.com/edgeadmit/*",
      "answers on the route edgeadmit.example.com/*",
      "problem: routes: example.com/edgeadmit/*: route the whole host (example.com/*): the function serves /v1/…, /healthz and /readyz at the root of its host, not under /edgeadmit/*",
    ]);
    const unusable = await check(`${TOP}${BINDINGS("")}${MIGRATIONS}[vars]\nCLUSTERS = '{"prod-eu": {"publicKey": "ed25519:nope"}}'\n`);
    expect([unusable.code, unusable.stdout.split("\n").filter((line) => line.startsWith("problem:"))]).toEqual([1, [expect.stringMatching(/^problem: vars\.CLUSTERS: prod-eu: /)]]);
  });

  it("a file that is not TOML, or an environment it lacks: exit 2", async () => {
    expect(await check("name = \n")).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(/^edgeadmit config check: <stdin> is not TOML: line 1, column \d+: /) });
    expect(await check(readFileSync(join(ROOT, "wrangler.toml"), "utf8"), "--env", "production")).toEqual({
      code: 2,
      stdout: "",
      stderr: "edgeadmit config check: <stdin> has no [env.production]: it declares no environment\n",
    });
  });
});
