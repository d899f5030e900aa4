// Setting a default the way Kubernetes' typed Go objects see "unset", and
// noting what was set. An object here is JSON as a manifest writes it, so
// each setter says which Go zero value it stands for: a pointer field is
// unset when absent or null (`*int32`: an explicit 0 stays), a plain string
// also when "" (`ImagePullPolicy string`), a plain number also when 0
// (`TimeoutSeconds int32`), a slice or map also when empty.

export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The elements of a list that are objects; none when it is no list. A JSON list element that is no object is left for validation to refuse. */
export const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isRecord) : []);

/** `object[key]` when it is an object. */
export const child = (object: Json | undefined, key: string): Json | undefined => {
  const value = object?.[key];
  return isRecord(value) ? value : undefined;
};

/** The object at a dotted path, when every step is one. */
export function at(object: Json | undefined, path: string): Json | undefined {
  let node: Json | undefined = object;
  for (const key of path.split(".")) node = child(node, key);
  return node;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A field path as reports write it: `spec.containers[0].imagePullPolicy`, `metadata.labels["kubernetes.io/metadata.name"]`. */
export const fieldOf = (path: string, key: string): string => (PLAIN_KEY.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`);
export const itemOf = (path: string, index: number): string => `${path}[${index}]`;

/** One field the apiserver would set before validation, and which of its functions or admission plugins sets it. */
export interface Change {
  field: string;
  by: string;
}

type Unset = "pointer" | "string" | "number" | "list";

const isUnset = (value: unknown, unset: Unset): boolean => {
  if (value === undefined || value === null) return true;
  if (unset === "string") return value === "";
  if (unset === "number") return value === 0;
  if (unset === "list") return (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);
  return false;
};

/**
 * Sets defaults on one object and keeps the list of what it set. `by` names
 * the upstream function in force (SetDefaults_PodSpec, the ServiceAccount
 * plugin), so the report says who would have set each field.
 */
export class Defaulter {
  readonly changes: Change[] = [];
  by = "";

  /** Runs `work` with `by` naming the function that sets what it sets. */
  as(by: string, work: () => void): void {
    const outer = this.by;
    this.by = by;
    try {
      work();
    } finally {
      this.by = outer;
    }
  }

  /** Notes a field set by other means than the setters below (a list appended to, a map merged into). */
  note(field: string): void {
    this.changes.push({ field, by: this.by });
  }

  /** `object[key] = value` when the field is unset as a Go field of kind `unset` is; true when it set it. */
  set(object: Json, key: string, value: unknown, path: string, unset: Unset = "pointer"): boolean {
    if (!isUnset(object[key], unset)) return false;
    object[key] = value;
    this.note(fieldOf(path, key));
    return true;
  }

  /** A plain Go string: unset when absent, null or "". */
  string(object: Json, key: string, value: string, path: string): boolean {
    return this.set(object, key, value, path, "string");
  }

  /** A plain Go int32: unset when absent, null or 0. */
  number(object: Json, key: string, value: number, path: string): boolean {
    return this.set(object, key, value, path, "number");
  }

  /**
   * The object at `object[key]`, created empty (and noted) when the field is
   * unset: a Go pointer to a struct that the defaulting allocates. Undefined
   * when the field holds something else, which validation refuses.
   */
  struct(object: Json, key: string, path: string): Json | undefined {
    const existing = object[key];
    if (isRecord(existing)) return existing;
    if (!isUnset(existing, "pointer")) return undefined;
    const created: Json = {};
    this.set(object, key, created, path);
    return created;
  }

  /**
   * A struct field that is no pointer (a Deployment's spec, its pod
   * template): Go always has one, so its defaults apply even when the
   * manifest leaves it out, and encoding/json always writes it.
   */
  field(object: Json, key: string, path: string): Json | undefined {
    let found: Json | undefined;
    this.as("encoding/json", () => {
      found = this.struct(object, key, path);
    });
    return found;
  }
}
