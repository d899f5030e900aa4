// Kubernetes objects from YAML or JSON: files with many documents,
// directories, `-` for stdin, and `kind: List` (or `<Kind>List`, as the API
// returns it) unpacked into its items. A syntax error names file and line;
// every object read remembers its file and line (sourceOf), and readObjects
// gives a namespaced object that names no namespace one (namespaces.ts).
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { Composer, isMap, isNode, isSeq, Parser } from "yaml";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { CliError, fileError, firstLine } from "../base/errors.js";
import { readInput, type CliIo } from "../base/io.js";
import { isObject } from "./identity.js";
import { NamespaceDefaults } from "./namespaces.js";

const MANIFEST = /\.(ya?ml|json)$/i;


/** Where an object was read: the file (`<stdin>` for -) and the line its document or list item starts on. */
export interface Source {
  file: string;
  line?: number;
  /** Only for a syntax error: where in the line the parser stopped. */
  column?: number;
}

// Keyed by the object itself, so callers pass objects around as plain values and still find their origin.
const sources = new WeakMap<object, Source>();

export function sourceOf(object: object): Source | undefined {
  return sources.get(object);
}

/**
 * The files under `path` whose names `wanted` accepts, recursively, in name
 * order; a file given as `path` is itself, whatever its name.
 */
export function filesUnder(path: string, wanted: (name: string) => boolean): string[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (e) {
    throw fileError("read", path, e);
  }
  if (!isDirectory) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(path, entry.name), wanted) : wanted(entry.name) ? [join(path, entry.name)] : []));
}

/** Files to read for each path given: a directory contributes its manifests. */
function manifestFiles(path: string): string[] {
  return path === "-" ? [path] : filesUnder(path, (name) => MANIFEST.test(name));
}

/** The error of a document that parses but is no mapping (a JSON array, a bare string): `check` skips it as no Kubernetes object. */
export const NOT_AN_OBJECT = "a document is not a Kubernetes object (a mapping with apiVersion and kind)";

/**
 * The error of a document that is a Go text/template (Helm's, or any tool's:
 * `{{ .Name }}`), not YAML until it is rendered: one that does not parse
 * where `{{` appears, or that parses only by reading an action as a map key
 * (`name: {{ .Name }}` is a flow map inside a flow map), or names itself with
 * an action (an apiVersion, kind, name or namespace holding `{{`, which no
 * Kubernetes object can). `check` skips it: render it, then check the output.
 */
export const TEMPLATE = "a Go template ({{ … }} actions): not YAML until it is rendered";

/**
 * One document of a YAML stream (or one item of a List in it), or why it
 * cannot be read, with where it starts; `kubernetes` when what could be read
 * of it has an apiVersion and a kind (a manifest with a syntax error or a
 * key twice, which kubectl refuses, rather than some other YAML).
 */
export type DocumentEntry = { object: KubeObject; source: Source; error?: undefined } | { object?: undefined; source: Source; error: string; kubernetes?: boolean };

/** Whether `node` holds a map key that is itself a collection: YAML that Kubernetes never writes, and how a `{{ action }}` parses. */
function hasCollectionKey(node: unknown): boolean {
  if (isMap(node)) return node.items.some((pair) => isMap(pair.key) || isSeq(pair.key) || hasCollectionKey(pair.value));
  if (isSeq(node)) return node.items.some(hasCollectionKey);
  return false;
}

/** Whether a parsed object names itself with a template action, which no Kubernetes apiVersion, kind, name or namespace can hold. */
function namedByAction(value: Record<string, unknown>): boolean {
  const metadata = isObject(value.metadata) ? value.metadata : {};
  return [value.apiVersion, value.kind, metadata.name, metadata.namespace].some((field) => typeof field === "string" && field.includes("{{"));
}

/** A list's items, each with its own apiVersion/kind (a typed `<Kind>List` leaves them out) and its own line. */
function* unpack(object: Record<string, unknown>, node: unknown, source: Source, lineOf: (node: unknown) => number | undefined): Generator<DocumentEntry> {
  const kind = typeof object.kind === "string" ? object.kind : "";
  if (!kind.endsWith("List") || !Array.isArray(object.items)) {
    sources.set(object, source);
    yield { object, source };
    return;
  }
  const itemKind = kind === "List" ? undefined : kind.slice(0, -"List".length);
  const itemNodes = isMap(node) ? node.get("items", true) : undefined;
  for (const [index, item] of object.items.entries()) {
    const itemNode = isSeq(itemNodes) ? itemNodes.items[index] : undefined;
    const line = lineOf(itemNode) ?? source.line;
    const itemSource = { file: source.file, ...(line !== undefined ? { line } : {}) };
    if (!isObject(item)) {
      yield { source: itemSource, error: `items[${index}] is not a Kubernetes object` };
      continue;
    }
    const typed = itemKind ? { apiVersion: object.apiVersion, kind: itemKind, ...item } : item;
    yield* unpack(typed, itemNode, itemSource, lineOf);
  }
}

/** `file:line` (`file:line:column` for a syntax error), or the file alone when the line is unknown. */
export function where(source: Source): string {
  if (source.line === undefined) return source.file;
  return `${source.file}:${source.line}${source.column !== undefined ? `:${source.column}` : ""}`;
}

/**
 * Lines of a stream parsed in order: line starts are kept only from the
 * current document on (`forget`), so a file of millions of lines costs one
 * document's lines, not the file's. Same answers as yaml's LineCounter.
 */
class StreamLineCounter {
  /** Offsets of line starts (the parser reports offset 0 first), from the first line not forgotten on. */
  #starts: number[] = [];
  #forgotten = 0;

  readonly addNewLine = (offset: number) => void this.#starts.push(offset);

  /** 1-based line and column of `offset`, which must not be before what was forgotten. */
  linePos(offset: number): { line: number; col: number } {
    let low = 0;
    let high = this.#starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.#starts[middle]! <= offset) low = middle + 1;
      else high = middle;
    }
    const index = Math.max(low - 1, 0);
    return { line: this.#forgotten + index + 1, col: offset - (this.#starts[index] ?? 0) + 1 };
  }

  /** Drops the line starts before the line holding `offset`. */
  forget(offset: number): void {
    const { line } = this.linePos(offset);
    const drop = line - 1 - this.#forgotten;
    if (drop <= 0) return;
    this.#starts = this.#starts.slice(drop);
    this.#forgotten += drop;
  }
}

/** A file's text in pieces of about `size` bytes, decoded as UTF-8 across piece boundaries: a large file is never one string. */
export function* fileChunks(path: string, size = 64 * 1024): Generator<string> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    throw fileError("read", `file ${path}`, e);
  }
  try {
    const buffer = Buffer.allocUnsafe(size);
    const decoder = new TextDecoder("utf-8");
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, 0, size, null);
      } catch (e) {
        throw fileError("read", `file ${path}`, e);
      }
      if (read === 0) break;
      yield decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    const rest = decoder.decode();
    if (rest !== "") yield rest;
  } finally {
    closeSync(fd);
  }
}

/**
 * Every document in `source` (a text, or its pieces in order), one at a time:
 * a parsed document is dropped once its object is made, so a large file costs
 * one document's syntax tree at a time. Each object is as written (no
 * namespace filled in), or why it cannot be read: a syntax error
 * (file:line:column), a document that is not a mapping. A bad document does
 * not stop the ones after it. `name` is how sources name the text (a path,
 * or `<stdin>`).
 */
export function* documentsOf(source: string | Iterable<string>, name: string): Generator<DocumentEntry> {
  // Records line starts while parsing, so finding a document's line is a binary search, not a rescan of the file.
  const lineCounter = new StreamLineCounter();
  const lineOf = (node: unknown) => (isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : undefined);
  // Where `{{` appears in the stream (offsets), kept from the current document on: a document that does not parse and holds one is a template.
  let actions: number[] = [];
  let next = 0;
  let fed = 0;
  const parser = new Parser(lineCounter.addNewLine);
  // logLevel error: the library's warnings (a Helm template's `{{ … }}` read as a map key) go to process.emitWarning, unattributed; what matters is reported per document.
  const composer = new Composer({ logLevel: "error" });
  const entries = function* (doc: ReturnType<Composer["end"]> extends Generator<infer D> ? D : never): Generator<DocumentEntry> {
    const [start, , end] = doc.range;
    // Offsets come in order, and so do documents: each is passed over once.
    while (next < actions.length && actions[next]! < start) next++;
    const templated = next < actions.length && actions[next]! < end;
    while (next < actions.length && actions[next]! < end) next++;
    // What is passed over is dropped once it is half the list: the offsets ahead, in amortised linear time.
    if (next * 2 >= actions.length) [actions, next] = [actions.slice(next), 0];
    const line = lineOf(doc.contents);
    const where = { file: name, ...(line !== undefined ? { line } : {}) };
    const error = doc.errors[0];
    if (error) {
      const at = lineCounter.linePos(error.pos[0]);
      const message = firstLine(error.message).replace(/ at line \d+, column \d+:?$/, "");
      const contents = doc.contents;
      yield templated
        ? { source: where, error: TEMPLATE }
        : { source: { file: name, line: at.line, column: at.col }, error: message, kubernetes: isMap(contents) && contents.has("apiVersion") && contents.has("kind") };
      return;
    }
    if (hasCollectionKey(doc.contents)) {
      yield { source: where, error: TEMPLATE };
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (e) {
      // An alias that expands past the library's limit, say: that document only.
      yield { source: where, error: firstLine(e instanceof Error ? e.message : String(e)) };
      return;
    }
    if (value === null || value === undefined) return;
    if (!isObject(value)) yield { source: where, error: NOT_AN_OBJECT };
    else if (namedByAction(value)) yield { source: where, error: TEMPLATE };
    else yield* unpack(value, doc.contents, where, lineOf);
    // Later documents never ask for lines before this one's end.
    lineCounter.forget(end);
  };
  /** The whole lines `text` to the parser, noting where `{{` appears in them. */
  const feed = (text: string, incomplete: boolean) => {
    for (let at = text.indexOf("{{"); at >= 0; at = text.indexOf("{{", at + 2)) actions.push(fed + at);
    fed += text.length;
    return composer.compose(parser.parse(text, incomplete));
  };
  // The parser is given whole lines: a piece's last, partial line waits for the next piece.
  let partial = "";
  for (const chunk of typeof source === "string" ? [source] : source) {
    const text = partial + chunk;
    const cut = text.lastIndexOf("\n") + 1;
    partial = text.slice(cut);
    if (cut > 0) for (const doc of feed(text.slice(0, cut), true)) yield* entries(doc);
  }
  for (const doc of feed(partial, false)) yield* entries(doc);
  for (const doc of composer.end(true)) yield* entries(doc);
}

/** Every object in `text`, as written (no namespace filled in); the first bad document stops it with file:line. */
export function objectsFromText(text: string, name: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const entry of documentsOf(text, name)) {
    if (entry.error !== undefined) throw new CliError(`${where(entry.source)}: ${entry.error}`);
    objects.push(entry.object);
  }
  return objects;
}

export interface ReadOptions {
  /** For namespaced objects that name none; "default" when unset, as kubectl's current namespace usually is. */
  namespace?: string | undefined;
}

/**
 * The objects in every path, in order: files, directories, `-` for stdin
 * (read once). Namespaced objects without metadata.namespace get
 * `options.namespace ?? "default"`.
 */
export async function readObjects(paths: readonly string[], io: CliIo, options: ReadOptions = {}): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  for (const file of paths.flatMap(manifestFiles)) {
    const text = await readInput(file, io, "file");
    objects.push(...objectsFromText(text, file === "-" ? "<stdin>" : file));
  }
  const defaults = new NamespaceDefaults(options.namespace);
  for (const object of objects) defaults.learn(object);
  for (const object of objects) defaults.apply(object);
  return objects;
}
