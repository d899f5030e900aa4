// What `edgeadmit check` reads, and what of it is not judged: the files of
// --policies and -f, and each file or document skipped or refused, with why.
import { resolve } from "node:path";
import type { CliIo } from "../../base/io.js";
import { inputFiles, skipCategory, type InputFile, type ScopeRule } from "../../objects/inputs.js";
import { fileChunks, NOT_AN_OBJECT, TEMPLATE, type Source } from "../../objects/yaml.js";
import type { InputError, SkippedInput } from "../output/index.js";

/** The files of --policies (one scope) and of -f (scoped by `scope`); a file under both is read once, as configuration. */
export function inputPlans(policies: readonly string[], files: readonly string[], scope: ScopeRule) {
  const policyPlan = inputFiles(policies, "one");
  const asPolicies = new Set(policyPlan.files.filter((file) => file.path !== "-").map((file) => resolve(file.path)));
  const resourcePlan = inputFiles(files, scope);
  resourcePlan.files = resourcePlan.files.filter((file) => file.path === "-" || !asPolicies.has(resolve(file.path)));
  return { policyFiles: policyPlan.files, resourceFiles: resourcePlan.files, problems: [...policyPlan.problems, ...resourcePlan.problems] };
}

/** A file's text: stdin whole, a file in chunks. */
export const textOf = async (file: InputFile, io: CliIo): Promise<string | Iterable<string>> => (file.path === "-" ? io.readStdin() : fileChunks(file.path));

/**
 * The input that is not judged, in input order: errors (reported; the run
 * exits 2) and skipped input (named in one line; errors too under --strict).
 * An error is a Kubernetes object that cannot be read as written (what
 * kubectl would refuse too); YAML that is no Kubernetes object, variants and
 * templates are skipped.
 */
export class InputLog {
  readonly skipped: SkippedInput[] = [];

  constructor(
    readonly errors: InputError[],
    /** Documents that are no Kubernetes object are errors, not skipped. */
    readonly strict: boolean,
  ) {}

  /** A document no role takes: a kustomization is skipped as such; anything else is no Kubernetes object (an error under --strict). */
  skipDocument(source: Source, reason: string): void {
    if (reason === "a kustomization") this.skipped.push({ source, reason: "kustomizations" });
    else if (this.strict) this.errors.push({ source, message: `${reason} (--strict)` });
    else this.skipped.push({ source, reason: "not Kubernetes objects" });
  }

  /**
   * A document that cannot be read as an object. An input error when what
   * could be read of it has an apiVersion and a kind: a manifest with a
   * syntax error or a key written twice, which kubectl refuses. Skipped
   * otherwise: a template (Go's {{ … }}, in a Helm chart or anywhere, not
   * YAML until rendered), any file of a Helm chart that does not parse, a
   * document that parses but is no mapping (a JSON array), a .json file a
   * YAML reader does not take (a tsconfig with comments), and other YAML that
   * does not parse and names no apiVersion and kind.
   */
  unreadable(file: InputFile, source: Source, error: string, kubernetes = false): void {
    if (error === NOT_AN_OBJECT) this.skipDocument(source, "not a Kubernetes object (not a mapping)");
    else if (error === TEMPLATE || file.chart !== undefined) {
      const reason = file.chart !== undefined ? "Helm templates" : "Go templates";
      if (this.strict) this.errors.push({ source, message: `${error === TEMPLATE ? error : `a file of the Helm chart in ${file.chart} that does not parse: ${error}`} (--strict)` });
      else this.skipped.push({ source, reason });
    } else if (/\.json$/i.test(file.name)) this.skipDocument(source, `not a Kubernetes object (not JSON: ${error})`);
    else if (!kubernetes) this.skipDocument(source, `not a Kubernetes object (YAML that does not parse, with no apiVersion and kind: ${error})`);
    else this.errors.push({ source, message: error });
  }

  /** Whether the whole file is skipped (a kustomization or a patch it lists), noting it. */
  skipFile(file: InputFile): boolean {
    if (file.skip === undefined) return false;
    if (this.strict && file.skip === "a dangling symlink") this.errors.push({ source: { file: file.name }, message: `${file.skip} (--strict)` });
    else this.skipped.push({ source: { file: file.name }, reason: skipCategory(file.skip) });
    return true;
  }
}
