// Field paths of an inventory declaration: which parts of an object the
// snapshot keeps (the projection) and which values it indexes.
//
//   spec.rules[*].host                       a field of every element of a list
//   metadata.labels['app.kubernetes.io/name'] a key that is no plain name
//   spec.selector                            a whole value (a map, a list)
//
// A path is object keys (`.name`, or `['any key']`) and `[*]`, every element
// of a list. Its canonical text (plain names dotted, other keys in single
// quotes) is how declarations, the snapshot and inventory.index() name it.

import { NEVER_PROJECTED } from "./secrets.js";

/** An object key, or every element of a list. */
type Step = string | typeof EACH;
const EACH: unique symbol = Symbol("[*]");

export interface FieldPath {
  /** The canonical text: `spec.rules[*].host`. */
  readonly text: string;
  readonly steps: readonly Step[];
}

/** A declaration's path is a field name's worth of text, not a document. */
const MAX_PATH_LENGTH = 256;
const MAX_STEPS = 16;
const NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*/;
const PLAIN = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function canonical(steps: readonly Step[]): string {
  let text = "";
  for (const step of steps) {
    if (step === EACH) text += "[*]";
    else if (PLAIN.test(step)) text += text === "" ? step : `.${step}`;
    else text += `['${step}']`;
  }
  return text;
}

/** The path `text` names, or what is wrong with it. */
export function parseFieldPath(text: string): FieldPath | string {
  if (text.length === 0) return "a field path is not empty";
  if (text.length > MAX_PATH_LENGTH) return `a field path is at most ${MAX_PATH_LENGTH} characters`;
  const steps: Step[] = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    if (steps.length > 0 && rest.startsWith(".")) {
      const name = NAME.exec(rest.slice(1));
      if (!name) return `"${text}": a name must follow "." at character ${at + 2}`;
      steps.push(name[0]);
      at += 1 + name[0].length;
    } else if (rest.startsWith("[*]")) {
      if (steps.length === 0) return `"${text}": a path starts with a field, not [*]`;
      steps.push(EACH);
      at += 3;
    } else if (rest.startsWith("['") || rest.startsWith('["')) {
      const quote = rest[1]!;
      const end = rest.indexOf(`${quote}]`, 2);
      if (end < 0) return `"${text}": [${quote} at character ${at + 1} is not closed with ${quote}]`;
      const key = rest.slice(2, end);
      if (key === "" || key.includes("'") || key.includes('"')) return `"${text}": a quoted key at character ${at + 1} is not empty and holds no quote`;
      steps.push(key);
      at += end + 2;
    } else if (steps.length === 0) {
      const name = NAME.exec(rest);
      if (!name) return `"${text}": a path starts with a field name`;
      steps.push(name[0]);
      at += name[0].length;
    } else return `"${text}": unexpected "${rest[0]}" at character ${at + 1} (fields are .name, ['key'] or [*])`;
    if (steps.at(-1) === "__proto__") return `"${text}": no field is named __proto__`;
    if (steps.length > MAX_STEPS) return `"${text}": a path has at most ${MAX_STEPS} steps`;
  }
  return { text: canonical(steps), steps };
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The paths a projection keeps, merged into one tree: a node either keeps its
 * whole value or the listed parts of it. Inside a whole value, `never` marks
 * a key that is cut out all the same, and `guards` a node above one.
 */
interface Tree {
  whole: boolean;
  keys: Map<string, Tree>;
  each: Tree | undefined;
  never: boolean;
  guards: boolean;
}

const node = (): Tree => ({ whole: false, keys: new Map(), each: undefined, never: false, guards: false });

/** Every object's identity, kept whatever the declaration. */
const IDENTITY_PATHS = ["apiVersion", "kind", "metadata.name", "metadata.namespace"];

/**
 * A projection: `project(object)` is a new object with only the given paths
 * (and the identity), values shared with the object. A list keeps the
 * elements that hold a kept field, in order; an object with nothing kept is
 * left out. What never leaves the cluster (secrets.ts NEVER_PROJECTED) is
 * cut out of a kept whole value (`metadata`, `metadata.annotations`), which
 * is then copied, never changed.
 */
export function projection(paths: readonly FieldPath[]): (object: unknown) => Record<string, unknown> {
  const root = node();
  for (const path of [...IDENTITY_PATHS.map((text) => parseFieldPath(text) as FieldPath), ...paths]) {
    let at = root;
    for (const step of path.steps) {
      if (step === EACH) at = at.each ??= node();
      else {
        let next = at.keys.get(step);
        if (!next) at.keys.set(step, (next = node()));
        at = next;
      }
    }
    at.whole = true;
  }
  for (const never of NEVER_PROJECTED) {
    let at = root;
    for (const step of never) {
      let next = at.keys.get(step);
      if (!next) {
        // Not kept at all: nothing to cut.
        if (!at.whole) break;
        at.keys.set(step, (next = node()));
      }
      if (at.whole) next.whole = true;
      at.guards = true;
      at = next;
    }
    if (at.whole && at !== root) at.never = true;
  }
  const project = (value: unknown, tree: Tree): unknown => {
    if (tree.never) return undefined;
    if (tree.whole && tree.guards && isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const child = tree.keys.get(key);
        const kept = child ? project(value[key], child) : value[key];
        if (kept !== undefined) out[key] = kept;
      }
      return out;
    }
    if (tree.whole) return value;
    if (Array.isArray(value)) {
      if (!tree.each) return undefined;
      const kept = value.map((element) => project(element, tree.each!)).filter((element) => element !== undefined);
      return kept.length > 0 ? kept : undefined;
    }
    if (!isObject(value) || tree.keys.size === 0) return undefined;
    const out: Record<string, unknown> = {};
    let any = false;
    for (const [key, child] of tree.keys) {
      if (!hasOwn.call(value, key)) continue;
      const kept = project(value[key], child);
      if (kept === undefined) continue;
      out[key] = kept;
      any = true;
    }
    return any ? out : undefined;
  };
  return (object) => (project(object, root) as Record<string, unknown> | undefined) ?? {};
}

/**
 * How an indexed value is keyed: strings, whole numbers and booleans, each
 * tagged with its type, so "80" and 80 stay apart as CEL map keys do. Other
 * values (fractions, lists, maps, null) are not indexed.
 */
export function indexKey(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return `s${value}`;
    case "boolean":
      return `b${value}`;
    case "bigint":
      return `i${value}`;
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? `i${BigInt(value)}` : undefined;
  }
  return undefined;
}

/** The index keys (see indexKey) of the values at `path` in `object`, each once, in the order met. */
export function indexedValues(object: unknown, path: FieldPath): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, at: number): void => {
    if (at === path.steps.length) {
      const key = indexKey(value);
      if (key !== undefined) found.add(key);
      return;
    }
    const step = path.steps[at]!;
    if (step === EACH) {
      if (Array.isArray(value)) for (const element of value) walk(element, at + 1);
    } else if (isObject(value) && hasOwn.call(value, step)) walk(value[step], at + 1);
  };
  walk(object, 0);
  return [...found];
}
