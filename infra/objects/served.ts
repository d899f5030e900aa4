// Offline, the served versions of an inventory kind. The apiserver serves an
// object at every served version of its kind, so the sync job lists it at the
// version a policy declares whatever version it was written at; offline there
// is no apiserver to convert, so `check`, `test` and `snapshot build -f` read
// an object of a declared group and kind written at another version at the
// declared one, fields as written, and say so in one note.
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import type { CliIo } from "../base/io.js";
import { groupKindOf } from "./identity.js";

/**
 * The object as the inventory of `declared` kinds holds it, or undefined.
 * The apiserver serves an object at every served version of its kind, so the
 * sync job lists it at the version a policy declares whatever version it was
 * written at; offline, an object of a declared group and kind written at
 * another version is read at the declared one (counted in `converted`, by
 * `<apiVersion> <kind>` written, for one note).
 */
export function servedAs(declared: ReadonlyMap<string, unknown>): ((object: KubeObject) => KubeObject | undefined) & { converted: Map<string, number> } {
  const versions = new Map<string, string[]>();
  for (const key of declared.keys()) {
    const slash = key.lastIndexOf("/");
    const apiVersion = key.slice(0, slash);
    const groupKind = groupKindOf({ apiVersion, kind: key.slice(slash + 1) });
    versions.set(groupKind, [...(versions.get(groupKind) ?? []), apiVersion]);
  }
  const converted = new Map<string, number>();
  const inventoryOf = (object: KubeObject): KubeObject | undefined => {
    if (declared.has(`${String(object.apiVersion)}/${String(object.kind)}`)) return object;
    const declaredAt = versions.get(groupKindOf(object));
    if (declaredAt === undefined) return undefined;
    const written = `${String(object.apiVersion)} ${String(object.kind)}`;
    converted.set(written, (converted.get(written) ?? 0) + 1);
    return { ...object, apiVersion: declaredAt[0]! };
  };
  return Object.assign(inventoryOf, { converted });
}

/** One note per version and kind read at another version (see servedAs). */
export function noteServed(converted: ReadonlyMap<string, number>, io: CliIo): void {
  for (const [written, count] of converted)
    io.err(
      `note: ${count} object${count === 1 ? "" : "s"} written as ${written} read into the inventory at the version the policies declare: offline there is no apiserver to convert between served versions, so the fields are taken as written\n`,
    );
}

/**
 * `objects` and, for each one of a kind the bound policies declare for their
 * inventory but written at another version, its copy at the declared version
 * (the original stays what it was: a param, a policy's own object).
 */
export function withServedVersions(objects: readonly KubeObject[], declared: ReadonlyMap<string, unknown>, io: CliIo): readonly KubeObject[] {
  if (declared.size === 0) return objects;
  const inventoryOf = servedAs(declared);
  const copies: KubeObject[] = [];
  for (const object of objects) {
    const inventory = inventoryOf(object);
    if (inventory !== undefined && inventory !== object) copies.push(inventory);
  }
  noteServed(inventoryOf.converted, io);
  return copies.length === 0 ? objects : [...objects, ...copies];
}
