// `edgeadmit config check [--env NAME]`: wrangler.toml checked offline, before
// a deploy, against what the function reads (docs/deploy.md): the Durable
// Object bindings and the migrations that create their classes as SQLite,
// the vars the function knows (CLUSTERS loaded as the function loads it,
// OPERATOR_KEYS as keys), and the placeholders (`ed25519:…`, `sha256:…`) the
// docs' examples leave to fill in. Environments inherit neither vars nor
// Durable Object bindings from the top level (wrangler's rule), so each is
// checked on its own.
import { parse, TomlError } from "smol-toml";
import { loadClusters } from "../../shared/clusters/index.js";
import { importPublicKey } from "../../shared/signing/index.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import { readInput } from "../base/io.js";
import { optionalString, parseVerbArgs } from "./args.js";
import { plural } from "./plural.js";
import type { Verb } from "./verb.js";

/** The Durable Object classes functions/index.ts exports, by the binding the function reads each through. */
const DURABLE_OBJECTS = [
  { binding: "SNAPSHOTS", className: "SnapshotStore", required: true, without: "" },
  { binding: "REGISTRY", className: "ClusterRegistry", required: false, without: "no cluster registry and no fleet: only CLUSTERS registers clusters (README, Deploy)" },
] as const;

/** The vars the function reads (functions/config, functions/store): any other name is ignored by it, a misspelling most likely. */
const KNOWN_VARS = ["CLUSTERS", "OPERATOR_KEYS", "SNAPSHOT_CACHE_MB", "REGISTRY_CACHE_ENTRIES", "LOG_REVIEWS"] as const;

/** What the docs' examples leave to fill in: an ellipsis where a key, hash or id goes. */
const PLACEHOLDER = /…|\.\.\.|<[a-z][a-z -]*>/i;

type Table = Record<string, unknown>;
const isTable = (value: unknown): value is Table => typeof value === "object" && value !== null && !Array.isArray(value);
const tablesOf = (value: unknown): Table[] => (Array.isArray(value) ? value.filter(isTable) : []);

/** The result of checking one environment: lines that say what it is, and its problems. */
export interface ConfigCheck {
  /** The Worker's name as wrangler deploys it, and where it will answer. */
  about: string[];
  problems: string[];
  warnings: string[];
}

/** `text` (wrangler.toml) checked for `env` (undefined: the top level); throws a usage CliError when it cannot be read or names no such environment. */
export async function checkWranglerToml(text: string, env: string | undefined, file = "wrangler.toml"): Promise<ConfigCheck> {
  let config: Table;
  try {
    config = parse(text) as Table;
  } catch (e) {
    throw new CliError(`${file} is not TOML: ${e instanceof TomlError ? `line ${e.line}, column ${e.column}: ${e.message.split("\n")[0]}` : String(e)}`, EXIT_USAGE);
  }
  const envs = isTable(config.env) ? config.env : {};
  if (env !== undefined && !isTable(envs[env]))
    throw new CliError(`${file} has no [env.${env}]${Object.keys(envs).length > 0 ? ` (environments: ${Object.keys(envs).join(", ")})` : ": it declares no environment"}`, EXIT_USAGE);
  const scope: Table = env === undefined ? config : (envs[env] as Table);
  const where = env === undefined ? "" : `[env.${env}] `;
  const problems: string[] = [];
  const warnings: string[] = [];

  const name = typeof scope.name === "string" ? scope.name : typeof config.name === "string" ? `${config.name}${env === undefined ? "" : `-${env}`}` : undefined;
  if (name === undefined) problems.push("name: the Worker needs a name");
  if (typeof config.main !== "string" && typeof scope.main !== "string") problems.push("main: the Worker's entry point is missing (functions/index.ts)");

  // Durable Objects: bound in this environment (not inherited), each class made by a migration as a SQLite class (the store and the registry run SQL).
  const bindings = tablesOf(isTable(scope.durable_objects) ? scope.durable_objects.bindings : undefined);
  const migrations = tablesOf(scope.migrations ?? config.migrations);
  const sqlite = new Set<string>();
  const kv = new Set<string>();
  const tags = new Set<string>();
  for (const [index, migration] of migrations.entries()) {
    const tag = typeof migration.tag === "string" ? migration.tag : undefined;
    if (tag === undefined) problems.push(`migrations ${index + 1}: no tag (wrangler applies migrations by their tags, in order)`);
    else if (tags.has(tag)) problems.push(`migrations: tag ${tag} appears twice`);
    else tags.add(tag);
    for (const className of Array.isArray(migration.new_sqlite_classes) ? migration.new_sqlite_classes : []) sqlite.add(String(className));
    for (const className of Array.isArray(migration.new_classes) ? migration.new_classes : []) kv.add(String(className));
    for (const className of Array.isArray(migration.deleted_classes) ? migration.deleted_classes : []) {
      sqlite.delete(String(className));
      kv.delete(String(className));
    }
  }
  for (const durableObject of DURABLE_OBJECTS) {
    const bound = bindings.find((binding) => binding.name === durableObject.binding);
    if (!bound) {
      if (durableObject.required) problems.push(`${where}durable_objects.bindings: no ${durableObject.binding} (class ${durableObject.className}), where snapshots are stored${env === undefined ? "" : ": environments do not inherit Durable Object bindings, repeat it here"}`);
      else warnings.push(`${where}durable_objects.bindings: no ${durableObject.binding} (class ${durableObject.className}): ${durableObject.without}`);
      continue;
    }
    if (bound.class_name !== durableObject.className) problems.push(`${where}durable_objects.bindings: ${durableObject.binding} must be class ${durableObject.className}, not ${String(bound.class_name)}`);
    else if (typeof bound.script_name !== "string") {
      if (kv.has(durableObject.className)) problems.push(`migrations: ${durableObject.className} is in new_classes, which makes a key-value storage class; it runs SQL: new_sqlite_classes`);
      else if (!sqlite.has(durableObject.className)) problems.push(`migrations: no migration creates ${durableObject.className} (new_sqlite_classes = ["${durableObject.className}"] under a new tag)`);
    }
  }

  // Vars: not inherited either; the function's own, and what their values must be.
  const vars = isTable(scope.vars) ? scope.vars : {};
  for (const key of Object.keys(vars))
    if (!(KNOWN_VARS as readonly string[]).includes(key)) warnings.push(`${where}vars.${key}: the function reads no such var (it reads ${KNOWN_VARS.join(", ")})`);
  const varText = (key: string) => (typeof vars[key] === "string" ? (vars[key] as string) : vars[key] === undefined ? undefined : JSON.stringify(vars[key]));
  const clusters = varText("CLUSTERS");
  if (clusters !== undefined) {
    if (PLACEHOLDER.test(clusters)) problems.push(`${where}vars.CLUSTERS holds a placeholder (…): put each cluster's real key and token hash (edgeadmit keygen, edgeadmit token)`);
    else {
      const loaded = await loadClusters(clusters);
      for (const problem of loaded.problems) problems.push(`${where}vars.CLUSTERS: ${problem.cluster ? `${problem.cluster}: ` : ""}${problem.reason}`);
    }
  } else if (env !== undefined) warnings.push(`${where}vars: no CLUSTERS: fine when it is a secret (wrangler secret put CLUSTERS --env ${env}) or the registry holds every cluster`);
  const operatorKeys = varText("OPERATOR_KEYS");
  if (operatorKeys !== undefined) {
    const entries = operatorKeys.split(/[\s,]+/).filter((entry) => entry !== "");
    for (const [index, entry] of entries.entries()) {
      if (PLACEHOLDER.test(entry)) problems.push(`${where}vars.OPERATOR_KEYS entry ${index + 1} is a placeholder: put the operator's public key (edgeadmit operator keygen prints it)`);
      else {
        const key = await importPublicKey(entry);
        if (typeof key === "string") problems.push(`${where}vars.OPERATOR_KEYS entry ${index + 1}: ${key}`);
      }
    }
    if (entries.length === 0 && bindings.some((binding) => binding.name === "REGISTRY"))
      warnings.push(`${where}vars.OPERATOR_KEYS is empty: nobody can register a cluster in the registry (edgeadmit operator keygen; docs/operations.md, Set up the operator key)`);
  }
  for (const key of ["SNAPSHOT_CACHE_MB", "REGISTRY_CACHE_ENTRIES"] as const) {
    const value = varText(key);
    if (value !== undefined && value !== "" && !/^[1-9]\d{0,8}$/.test(value)) problems.push(`${where}vars.${key} must be a whole number, at least 1, not ${JSON.stringify(value.slice(0, 40))}`);
  }
  const logReviews = varText("LOG_REVIEWS");
  if (logReviews !== undefined && logReviews !== "" && logReviews !== "all") problems.push(`${where}vars.LOG_REVIEWS is "all" or unset, not ${JSON.stringify(logReviews.slice(0, 40))}`);

  // Where it answers: its workers.dev URL unless switched off, and its routes or custom domains.
  const routes = [...(scope.route !== undefined ? [scope.route] : []), ...(Array.isArray(scope.routes) ? scope.routes : [])];
  const about = [`deploys as the Worker ${name ?? "(no name)"}`];
  if (scope.workers_dev !== false) about.push(`answers on https://${name ?? "<name>"}.<your account's workers.dev subdomain>`);
  for (const route of routes) {
    const pattern = typeof route === "string" ? route : isTable(route) ? String(route.pattern) : String(route);
    const customDomain = isTable(route) && route.custom_domain === true;
    if (customDomain) {
      if (/[/*]/.test(pattern)) problems.push(`${where}routes: ${pattern}: a custom domain is a hostname alone, no path or wildcard`);
      about.push(`answers on https://${pattern} (custom domain)`);
      continue;
    }
    // The function serves /v1/…, /healthz and /readyz at the root of its host: a route must hand it the whole host.
    const path = pattern.replace(/^https?:\/\//, "").replace(/^[^/]*/, "");
    if (path !== "/*") problems.push(`${where}routes: ${pattern}: route the whole host (${pattern.replace(/^(https?:\/\/)?([^/]*).*$/, "$2")}/*): the function serves /v1/…, /healthz and /readyz at the root of its host, not under ${path || "one path"}`);
    about.push(`answers on the route ${pattern}`);
  }
  if (scope.workers_dev === false && routes.length === 0) problems.push(`${where}workers_dev = false and no route or custom domain: the Worker answers nowhere`);
  return { about, problems, warnings };
}

const check: Verb = {
  name: "config check",
  summary: "check wrangler.toml (or one --env of it) offline before a deploy: bindings, migrations, vars, placeholders",
  usage: `edgeadmit config check [--env NAME] [-f FILE]

Reads wrangler.toml (-f another file, - for stdin) and checks, for the top
level or the environment --env names (environments inherit neither vars nor
Durable Object bindings, so each is checked on its own): the Durable Object
bindings SNAPSHOTS (SnapshotStore) and REGISTRY (ClusterRegistry) and the
migrations that create them as SQLite classes; the vars the function reads
(CLUSTERS loaded as the function loads it, OPERATOR_KEYS as public keys,
SNAPSHOT_CACHE_MB, REGISTRY_CACHE_ENTRIES, LOG_REVIEWS) and names it does
not; placeholders (…) left from the docs' examples; and where the Worker will
answer (workers.dev, routes, custom domains). Secrets cannot be seen from
here. Prints what it found; exits 1 when anything would break the deploy or
the function, 2 when the file cannot be read or names no such environment.
Nothing is sent anywhere (docs/deploy.md).

Examples:
  edgeadmit config check --env production
  edgeadmit config check -f wrangler.toml --env staging`,
  async run(argv, io) {
    const args = parseVerbArgs(this.name, argv, { env: { type: "string" }, filename: { type: "string", short: "f" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const file = optionalString(args, "filename") ?? "wrangler.toml";
    const env = optionalString(args, "env");
    const shown = file === "-" ? "<stdin>" : file;
    const result = await checkWranglerToml(await readInput(file, io, "wrangler configuration"), env, shown);
    const scope = env === undefined ? "top level" : `env ${env}`;
    for (const line of result.about) io.out(`${line}\n`);
    for (const warning of result.warnings) io.out(`warning: ${warning}\n`);
    for (const problem of result.problems) io.out(`problem: ${problem}\n`);
    io.out(result.problems.length === 0 ? `${shown} (${scope}): ok${result.warnings.length > 0 ? `, ${plural(result.warnings.length, "warning")}` : ""}\n` : `${shown} (${scope}): ${plural(result.problems.length, "problem")}: fix before wrangler deploy\n`);
    return result.problems.length > 0 ? 1 : 0;
  },
};

export const configVerbs: readonly Verb[] = [check];
