// Offline, the served versions of an inventory kind. The apiserver serves an
// object at every served version of its kind, so the sync job lists it at the
// version a policy declares whatever version it was written at; offline there
// is no apiserver to convert, so `check`, `test` and `snapshot build -f` read
// an object of a declared group and kind written at another version at the
// declared one, fields as written, and say so in one note.
//
// An object the apiserver would refuse never reaches a cluster's inventory:
// an Ingress whose host is not a lowercase DNS subdomain (kubernetes/kubernetes
// pkg/apis/networking/validation/validation.go, validateIngressRules and
// validateIngressTLS: IsDNS1123Subdomain, IsWildcardDNS1123Subdomain for
// `*.`) is left out of it offline too, with a warning: kept as written, it
// would be found by no lookup of the lowercase host a cluster's Ingress has.
import { DNS1123_SUBDOMAIN, MAX_SUBDOMAIN_NAME } from "../../shared/k8s/names/index.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { capped, MAX_NAME } from "../../shared/text/index.js";
import type { CliIo } from "../base/io.js";
import { describeObject, groupKindOf, isObject } from "./identity.js";

/**
 * Whether the apiserver takes `host` as an Ingress host: a DNS-1123 subdomain,
 * or one prefixed by a wildcard label `*.` (k8s.io/apimachinery
 * pkg/util/validation/validation.go:198 IsDNS1123Subdomain and :252
 * IsWildcardDNS1123Subdomain, at most 253 characters either way).
 */
function isIngressHost(host: string): boolean {
  return host.length <= MAX_SUBDOMAIN_NAME && DNS1123_SUBDOMAIN.test(host.startsWith("*.") ? host.slice(2) : host);
}

/** The Ingress's first host the apiserver refuses, and where it is: spec.rules[i].host, then spec.tls[i].hosts[j]. */
function refusedHostOf(object: KubeObject): { field: string; host: string } | undefined {
  const spec = isObject(object["spec"]) ? object["spec"] : {};
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  for (const [i, rule] of list(spec["rules"]).entries()) {
    const host = isObject(rule) ? rule["host"] : undefined;
    // An empty host is no host: the rule serves every host.
    if (typeof host === "string" && host !== "" && !isIngressHost(host)) return { field: `spec.rules[${i}].host`, host };
  }
  for (const [i, tls] of list(spec["tls"]).entries())
    for (const [j, host] of list(isObject(tls) ? tls["hosts"] : undefined).entries())
      if (typeof host === "string" && !isIngressHost(host)) return { field: `spec.tls[${i}].hosts[${j}]`, host };
  return undefined;
}

/** Why an Ingress the apiserver would refuse is left out of the inventory; undefined for any other object. */
function refusal(object: KubeObject): string | undefined {
  if (groupKindOf(object) !== "networking.k8s.io/Ingress") return undefined;
  const refused = refusedHostOf(object);
  if (!refused) return undefined;
  const lower = refused.host.toLowerCase();
  const hint = isIngressHost(lower) ? `write it "${capped(lower, MAX_NAME)}"` : "an index lookup matches a host exactly";
  return `${describeObject(object)}: ${refused.field} "${capped(refused.host, MAX_NAME)}" is not a lowercase DNS subdomain, which the apiserver refuses: left out of the inventory, as no cluster can hold it (${hint})`;
}

/**
 * The object as the inventory of `declared` kinds holds it, or undefined.
 * The apiserver serves an object at every served version of its kind, so the
 * sync job lists it at the version a policy declares whatever version it was
 * written at; offline, an object of a declared group and kind written at
 * another version is read at the declared one (counted in `converted`, by
 * `<apiVersion> <kind>` written, for one note). An object the apiserver
 * would refuse is left out (undefined), and `refused` says why.
 */
export function servedAs(
  declared: ReadonlyMap<string, unknown>,
): ((object: KubeObject) => KubeObject | undefined) & { converted: Map<string, number>; refused: string[] } {
  const versions = new Map<string, string[]>();
  for (const key of declared.keys()) {
    const slash = key.lastIndexOf("/");
    const apiVersion = key.slice(0, slash);
    const groupKind = groupKindOf({ apiVersion, kind: key.slice(slash + 1) });
    versions.set(groupKind, [...(versions.get(groupKind) ?? []), apiVersion]);
  }
  const converted = new Map<string, number>();
  const refused: string[] = [];
  const inventoryOf = (object: KubeObject): KubeObject | undefined => {
    const atDeclared = declared.has(`${String(object.apiVersion)}/${String(object.kind)}`);
    const declaredAt = atDeclared ? undefined : versions.get(groupKindOf(object));
    if (!atDeclared && declaredAt === undefined) return undefined;
    const why = refusal(object);
    if (why !== undefined) {
      refused.push(why);
      return undefined;
    }
    if (atDeclared) return object;
    const written = `${String(object.apiVersion)} ${String(object.kind)}`;
    converted.set(written, (converted.get(written) ?? 0) + 1);
    return { ...object, apiVersion: declaredAt![0]! };
  };
  return Object.assign(inventoryOf, { converted, refused });
}

/** One warning per object left out (see servedAs), then one note per version and kind read at another version. */
export function noteServed({ converted, refused }: { converted: ReadonlyMap<string, number>; refused: readonly string[] }, io: CliIo): void {
  for (const why of refused) io.err(`warning: ${why}\n`);
  for (const [written, count] of converted)
    io.err(
      `note: ${count} object${count === 1 ? "" : "s"} written as ${written} read into the inventory at the version the policies declare: offline there is no apiserver to convert between served versions, so the fields are taken as written\n`,
    );
}

/**
 * `objects` and, for each one of a kind the bound policies declare for their
 * inventory but written at another version, its copy at the declared version
 * (the original stays what it was: a param, a policy's own object); without
 * the objects of a declared kind the apiserver would refuse (see servedAs).
 */
export function withServedVersions(objects: readonly KubeObject[], declared: ReadonlyMap<string, unknown>, io: CliIo): readonly KubeObject[] {
  if (declared.size === 0) return objects;
  const inventoryOf = servedAs(declared);
  const kept: KubeObject[] = [];
  const copies: KubeObject[] = [];
  for (const object of objects) {
    const refusedBefore = inventoryOf.refused.length;
    const inventory = inventoryOf(object);
    if (inventoryOf.refused.length > refusedBefore) continue;
    kept.push(object);
    if (inventory !== undefined && inventory !== object) copies.push(inventory);
  }
  noteServed(inventoryOf, io);
  return kept.length === objects.length && copies.length === 0 ? objects : [...kept, ...copies];
}
