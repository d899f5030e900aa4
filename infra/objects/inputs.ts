// What `edgeadmit check` reads from a tree: which files, which of them are
// kustomize patches or kustomizations (never judged as objects), and which
// cluster (scope) each file belongs to, by a rule a user can predict:
//
//   auto (default)  every application is a cluster: a directory holding a
//                   kustomization or a Helm chart takes its subdirectories
//                   (kustomize and helm build them together), and a directory
//                   holding Kubernetes objects of its own takes its
//                   subdirectories that are no application of their own (an
//                   app's claims and config in a subdirectory); a directory
//                   with neither is a cluster of its own files; the files
//                   named on the command line and stdin are one cluster
//                   together
//   dir             every directory is a cluster of its own files
//   input           every -f argument is one cluster
//   one             everything is one cluster (--one-cluster)
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parse, YAMLError } from "yaml";
import * as z from "zod/mini";
import { describeZodError } from "../../shared/zod/index.js";
import { describeFsError, fileError, firstLine } from "../base/errors.js";
import { EXCEPTION_GROUP, EXCEPTION_KIND } from "../../shared/exceptions/index.js";
import { SETTINGS_CONFIGMAP, type KubeObject } from "../../shared/snapshot/builder/index.js";
import { groupKindOf, isObject } from "./identity.js";
import { filesUnder, type Source } from "./yaml.js";

export const SCOPE_RULES = ["auto", "dir", "input", "one"] as const;
export type ScopeRule = (typeof SCOPE_RULES)[number];

/** The names kustomize looks for in a directory (konfig.RecognizedKustomizationFileNames). */
const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"] as const;

const MANIFEST = /\.(ya?ml|json)$/i;

/** The scope of the files named on the command line (and stdin) under the auto rule. */
const COMMAND_LINE_SCOPE = "(command line)";
const ALL_SCOPE = "(all input)";

export interface InputFile {
  /** As read: a path, or `-` for stdin. */
  path: string;
  /** As reports name it: the path, or `<stdin>`. */
  name: string;
  /** The cluster the file's objects belong to. */
  scope: string;
  /** Why the file is not read as objects: a kustomization, a patch or replacement a kustomization lists, a Helm template, a dangling symlink. */
  skip?: string;
  /** The Helm chart the file is in, when it is in one: a file there that does not parse is taken for a template (files/, templated CRDs). */
  chart?: string;
}

/** The summary's category of a file's skip reason (plural, as skippedSummary counts them). */
export function skipCategory(skip: string): string {
  if (skip.startsWith("a patch")) return "kustomize patches";
  if (skip.startsWith("a replacement")) return "kustomize replacements";
  if (skip.startsWith("a Helm template")) return "Helm templates";
  if (skip.startsWith("a dangling symlink")) return "dangling symlinks";
  return "kustomizations";
}

export interface InputProblem {
  source: Source;
  message: string;
}

const pathList = z.optional(z.nullable(z.array(z.unknown())));
const kustomizationSchema = z.looseObject({
  patchesStrategicMerge: pathList,
  patchesJson6902: pathList,
  patches: pathList,
  replacements: pathList,
});

const pathsOf = (entries: readonly unknown[]) =>
  entries.flatMap((entry) => (typeof entry === "object" && entry !== null && typeof (entry as { path?: unknown }).path === "string" ? [(entry as { path: string }).path] : []));

/**
 * The files a kustomization lists as patches or replacements, resolved, each
 * with the word for it: strategic-merge paths (inline patches are YAML text,
 * not paths), and `path:` of JSON 6902, `patches` and `replacements` entries.
 */
function patchFilesOf(file: string, problems: InputProblem[]): Array<{ path: string; as: "patch" | "replacement" }> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    problems.push({ source: { file }, message: `cannot read the kustomization: ${describeFsError(e)}` });
    return [];
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (e) {
    // A YAML error knows its line; its message repeats it.
    const at = e instanceof YAMLError ? e.linePos?.[0] : undefined;
    const message = firstLine(e instanceof Error ? e.message : String(e)).replace(/ at line \d+, column \d+:?$/, "");
    problems.push({ source: { file, ...(at ? { line: at.line, column: at.col } : {}) }, message: `cannot read the kustomization: ${message}` });
    return [];
  }
  const parsed = kustomizationSchema.safeParse(value ?? {});
  if (!parsed.success) {
    problems.push({ source: { file }, message: `not a kustomization: ${describeZodError(parsed.error)}` });
    return [];
  }
  const { patchesStrategicMerge, patchesJson6902, patches, replacements } = parsed.data;
  const patchPaths = [...(patchesStrategicMerge ?? []).filter((entry): entry is string => typeof entry === "string" && !entry.includes("\n")), ...pathsOf([...(patchesJson6902 ?? []), ...(patches ?? [])])];
  return [
    ...patchPaths.map((path) => ({ path: resolve(dirname(file), path), as: "patch" as const })),
    ...pathsOf(replacements ?? []).map((path) => ({ path: resolve(dirname(file), path), as: "replacement" as const })),
  ];
}

/**
 * The Helm chart `file` is in (the nearest directory above it with a
 * Chart.yaml), or undefined. `charts` caches the answer per directory.
 */
function helmChartOf(file: string, charts: Map<string, string | null>): string | undefined {
  const seen: string[] = [];
  let found: string | null = null;
  for (let at = dirname(resolve(file)); ; at = dirname(at)) {
    const known = charts.get(at);
    if (known !== undefined) {
      found = known;
      break;
    }
    seen.push(at);
    if (existsSync(join(at, "Chart.yaml"))) {
      found = at;
      break;
    }
    if (dirname(at) === at) break;
  }
  for (const dir of seen) charts.set(dir, found);
  return found ?? undefined;
}

/** Whether `file` is a symbolic link whose target is not there. */
function isDangling(file: string): boolean {
  try {
    statSync(file);
    return false;
  } catch {
    return true;
  }
}

const isKustomization = (file: string) => (KUSTOMIZATION_FILES as readonly string[]).includes(basename(file));

/** How much of a file tells whether it holds Kubernetes objects: their apiVersion and kind come first. */
const PEEK_BYTES = 64 * 1024;
const YAML_OBJECT = [/^apiVersion\s*:/m, /^kind\s*:/m];
const JSON_OBJECT = [/"apiVersion"\s*:/, /"kind"\s*:/];

/** Whether the start of `file` reads as a Kubernetes object (top-level apiVersion and kind): a workflow, Chart.yaml or values.yaml does not. */
function looksLikeObjects(file: string): boolean {
  let text: string;
  try {
    const fd = openSync(file, "r");
    try {
      const buffer = Buffer.alloc(PEEK_BYTES);
      text = buffer.toString("utf8", 0, readSync(fd, buffer, 0, PEEK_BYTES, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  return (file.toLowerCase().endsWith(".json") ? JSON_OBJECT : YAML_OBJECT).every((pattern) => pattern.test(text));
}

/** Whether `path` is a directory; a path that cannot be read throws `cannot read PATH: no such file`, as nothing can be checked as asked. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (e) {
    throw fileError("read", path, e);
  }
}

/**
 * The files to read for `paths` (files, directories walked recursively in name
 * order, `-` for stdin), each with its scope under `rule`; kustomizations and
 * the patch files they list come with why they are skipped. A missing path
 * throws (nothing can be checked as asked); a kustomization that cannot be
 * read is a problem, and its directory is still read.
 */
export function inputFiles(paths: readonly string[], rule: ScopeRule): { files: InputFile[]; problems: InputProblem[] } {
  const files: InputFile[] = [];
  const problems: InputProblem[] = [];
  for (const path of paths) {
    if (path === "-" || !isDirectory(path)) {
      const name = path === "-" ? "<stdin>" : path;
      const scope = rule === "one" ? ALL_SCOPE : rule === "input" ? name : rule === "dir" ? (path === "-" ? name : dirname(path)) : COMMAND_LINE_SCOPE;
      files.push({ path, name, scope });
      continue;
    }
    const found = filesUnder(path, (name) => MANIFEST.test(name) || isKustomization(name));
    // Kustomization directories (resolved), and the patch files they list.
    const kustomizationDirs = new Set<string>();
    const patches = new Map<string, string>();
    for (const file of found.filter(isKustomization)) {
      kustomizationDirs.add(resolve(dirname(file)));
      for (const patch of patchFilesOf(file, problems)) patches.set(patch.path, `a ${patch.as} listed in ${file}`);
    }
    const charts = new Map<string, string | null>();
    const read = found.map((file) => {
      // A chart's templates/ is Go text/template, not YAML, until helm template renders it.
      const chart = helmChartOf(file, charts);
      const template = chart !== undefined && resolve(file).startsWith(`${join(chart, "templates")}/`);
      const skip = isKustomization(file)
        ? "a kustomization"
        : (patches.get(resolve(file)) ?? (template ? `a Helm template of the chart in ${chart} (check helm template's output instead)` : isDangling(file) ? "a dangling symlink" : undefined));
      return { file, chart, skip };
    });
    const scopeOf = rule === "auto" ? applicationScopes(path, read, kustomizationDirs) : undefined;
    for (const { file, chart, skip } of read) {
      const scope = rule === "one" ? ALL_SCOPE : rule === "input" ? path : rule === "dir" ? dirname(file) : scopeOf!(dirname(file));
      files.push({ path: file, name: file, scope, ...(skip !== undefined ? { skip } : {}), ...(chart !== undefined ? { chart } : {}) });
    }
  }
  return { files, problems };
}

/**
 * The auto rule's scope of a directory under `root`: its nearest enclosing
 * application root (a directory with a kustomization or a Chart.yaml, which
 * spans its whole tree), else the topmost directory above it that holds
 * Kubernetes objects of its own (an application whose claims or config sit
 * in subdirectories), else the directory itself. Whether a directory holds
 * objects is read from the start of its files, once per directory, and only
 * for directories that have subdirectories with files.
 */
function applicationScopes(root: string, read: ReadonlyArray<{ file: string; chart: string | undefined; skip: string | undefined }>, kustomizationDirs: ReadonlySet<string>): (dir: string) => string {
  const applicationRoots = new Set(kustomizationDirs);
  for (const { chart } of read) if (chart !== undefined) applicationRoots.add(resolve(chart));
  const ownFiles = new Map<string, string[]>();
  for (const { file, skip } of read) {
    if (skip !== undefined) continue;
    const dir = resolve(dirname(file));
    const list = ownFiles.get(dir);
    if (list) list.push(file);
    else ownFiles.set(dir, [file]);
  }
  const holdsObjects = new Map<string, boolean>();
  const holds = (dir: string): boolean => {
    const known = holdsObjects.get(dir);
    if (known !== undefined) return known;
    const answer = (ownFiles.get(dir) ?? []).some(looksLikeObjects);
    holdsObjects.set(dir, answer);
    return answer;
  };
  const top = resolve(root);
  return (dir) => {
    let spanning: string | undefined;
    for (let at = dir; ; at = dirname(at)) {
      const resolved = resolve(at);
      if (applicationRoots.has(resolved)) return at;
      if (at !== dir && holds(resolved)) spanning = at;
      if (resolved === top || dirname(at) === at) break;
    }
    return spanning ?? dir;
  };
}

/** Kinds that configure the policies rather than being judged by them: read from --policies, and from -f too (taken out of the resources). */
const POLICY_KINDS: ReadonlySet<string> = new Set([
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
  "edgeadmit.io/EdgeAdmissionPolicyBinding",
  `${EXCEPTION_GROUP}/${EXCEPTION_KIND}`,
]);


export function isSettingsConfigMap(object: KubeObject): boolean {
  return groupKindOf(object) === "/ConfigMap" && isObject(object["metadata"]) && object["metadata"]["name"] === SETTINGS_CONFIGMAP;
}

/** What one document is to check. */
export type DocumentRole =
  | { role: "resource"; object: KubeObject }
  | { role: "policy"; object: KubeObject }
  | { role: "skip"; reason: string }
  | { role: "error"; message: string };

const REVIEW_VERSIONS = new Set(["admission.k8s.io/v1", "admission.k8s.io/v1beta1"]);

/**
 * A document read: a resource to judge; a policy, binding, exception or the
 * settings (configuration, not judged); a YAML file that is no Kubernetes
 * object (no apiVersion or kind: a workflow, Chart.yaml, values.yaml), skipped;
 * an AdmissionReview, whose request.object is judged as a resource (its
 * operation and oldObject are not: edgeadmit check judges creations).
 */
export function roleOf(object: KubeObject): DocumentRole {
  const { apiVersion, kind } = object;
  const missing = [typeof apiVersion !== "string" || apiVersion === "" ? "apiVersion" : "", typeof kind !== "string" || kind === "" ? "kind" : ""].filter(Boolean);
  if (missing.length > 0 || typeof apiVersion !== "string" || typeof kind !== "string") return { role: "skip", reason: `not a Kubernetes object (no ${missing.join(" and ")})` };
  if (kind === "AdmissionReview" && REVIEW_VERSIONS.has(apiVersion)) {
    const request = isObject(object["request"]) ? object["request"] : undefined;
    const inner = request?.["object"];
    if (!isObject(inner)) return { role: "error", message: `an ${apiVersion} AdmissionReview without request.object (a DELETE, or a response): nothing to judge` };
    const namespace = request!["namespace"];
    const metadata = isObject(inner["metadata"]) ? inner["metadata"] : {};
    const placed = typeof namespace === "string" && namespace !== "" && typeof metadata["namespace"] !== "string" ? { ...inner, metadata: { ...metadata, namespace } } : inner;
    return roleOf(placed);
  }
  if (groupKindOf(object) === "kustomize.config.k8s.io/Kustomization" || groupKindOf(object) === "kustomize.config.k8s.io/Component") return { role: "skip", reason: "a kustomization" };
  if (POLICY_KINDS.has(groupKindOf(object)) || isSettingsConfigMap(object)) return { role: "policy", object };
  return { role: "resource", object };
}
